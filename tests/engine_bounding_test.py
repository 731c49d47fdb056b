"""``Bounder.refine`` (the refinement of the optimistic bounds as numpy arrays) gives the bounds
the plain stages give one after the other: ``chunks``, ``tighten_gaps``, the cut at the floor,
``tighten_starts``."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ffind.engine.index import Index
from ffind.engine.tuning import DEFAULT as DEFAULT_TUNING
from ffind.engine.tuning import Tuning
from ffind.frozen import replace
from ffind.query import Query, parse
from ffind.scoring.bounds import Bounds
from ffind.scoring.weights import DEFAULT, Weights

CORPUS = Path(__file__).parent / "data" / "corpus_paths.txt"
EXTRA = ["aaa/aaa", "a_b/A-B.c", "s/p/t", "ß/éé/straße.md", "x/y", "zz", "src/main/java/App.java"]


@cache
def index() -> Index:
    return Index(CORPUS.read_text(encoding="utf-8").splitlines() + EXTRA, numpy=False)


@cache
def warmed(tuning: Tuning = DEFAULT_TUNING) -> Index:
    """The same paths with numpy and the folded paths' buffer built."""
    ix = Index(CORPUS.read_text(encoding="utf-8").splitlines() + EXTRA, numpy=True,
               tuning=tuning)
    assert ix.numpy_ready(30)
    for _ in ix.warm():
        pass
    return ix


JOINED = Tuning(numpy_from=1, joined_share=10**9, last_joined_share=10**9)
"""The folded paths' buffer (and numpy) used for any number of candidates (``Bounder.wide``)."""


def query_of(terms: list[str]) -> tuple[str, Query]:
    """The query of the generated terms (each one term: no spaces), and its parse."""
    q = " ".join(t.replace(" ", "") for t in terms)
    return q, parse(q)


def twins(paths: list[str], w: Weights = DEFAULT, warm: bool = True,
          tuning: Tuning = DEFAULT_TUNING) -> tuple[Index, Index]:
    """An index of ``paths`` with numpy and ``tuning`` (built by ``warm`` when asked) and one
    without."""
    with_np = Index(paths, weights=w, numpy=True, tuning=tuning)
    plain = Index(paths, weights=w, numpy=False)
    assert with_np.numpy_ready(30)
    if warm:
        for _ in with_np.warm():
            pass
    return with_np, plain


def plain(ix: Index, q: str, ids: list[int], bounds: list[int], floor: float
          ) -> list[tuple[int, int]]:
    query = parse(q)
    b = ix.bounder
    chunks = b.chunks(query, ids)
    ob = b.tighten_gaps(bounds, chunks)
    keep = [j for j, v in enumerate(ob) if v >= floor]
    ids, ob, chunks = [ids[j] for j in keep], [ob[j] for j in keep], [chunks[j] for j in keep]
    return list(zip(ids, b.tighten_starts(query, ids, ob, chunks), strict=True))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text("aeiost/_.-pcmAS", min_size=1, max_size=7), st.data())
def test_refine_is_the_plain_stages(term: str, data: st.DataObject) -> None:
    np = pytest.importorskip("numpy")
    ix = index()
    q = term.replace(" ", "") or "a"
    ids = sorted(data.draw(st.sets(st.integers(0, len(ix.paths) - 1), max_size=80)))
    bounds = data.draw(st.lists(st.integers(0, 400), min_size=len(ids), max_size=len(ids)))
    floor = data.draw(st.one_of(st.just(float("-inf")), st.integers(0, 400)))
    want = plain(ix, q, ids, bounds, floor)
    a, b = ix.bounder.refine(parse(q), ids, bounds, floor, np)
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == want
    a, b = warmed(JOINED).bounder.refine(parse(q), ids, bounds, floor, np)  # (the buffer's)
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == want


@given(st.integers(0, 12), st.integers(0, 12), st.sampled_from([DEFAULT, Weights(gap_start=7)]))
def test_the_losses_in_bulk_are_the_scalar_ones(chunks: int, on: int, w: Weights) -> None:
    np = pytest.importorskip("numpy")
    b = Bounds(w)
    c, o = np.array([chunks]), np.array([on])
    assert int(b.gaps_loss_many(c, np)[0]) == b.gaps_loss(chunks)
    assert int(b.starts_loss_many(c, o, np)[0]) == b.starts_loss(chunks, on)


PARTS = st.one_of(st.sampled_from(["ab", "xab", "ba", "a", "b.a", "aßb", "éab", "A_b", "?a",
                                    "ab-a", "abab", "b", "e\u0301ab", "ae\u0301"]),
                  st.text("ab._-?éßA\u0301", min_size=1, max_size=5))
PATHS = st.lists(st.lists(PARTS, min_size=1, max_size=4).map("/".join), min_size=1,
                 max_size=40)
TERMS = st.one_of(st.sampled_from(["ab", "ba", "a", "b.", "aba", "ss", "?a", "e", "xa", "a/b",
                                   "b/", "ab/a"]),
                  st.text("ab._-?éßA/", min_size=1, max_size=4))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, st.lists(TERMS, min_size=1, max_size=3), st.booleans(), st.integers(1, 6))
def test_bounds_from_the_buffer_are_the_plain_ones(
    paths: list[str], terms: list[str], hidden_ok: bool, part: int
) -> None:
    """The bounds of a last term and of the terms before it from the folded paths' buffer
    (forced for any number of candidates here), with non-ASCII letters (accents, ``ß``, a
    combining accent: one byte each in the buffer), ``?`` and capitals, equal the per-path
    ones; the marks' arithmetic a part of ``part`` ids (or holders) at a time."""
    pytest.importorskip("numpy")

    q, query = query_of(terms)
    if not query.positive:
        return
    with_np, plain = twins(paths, tuning=replace(JOINED, chunk=part))  # (once ``warm``ed)
    assert with_np.bounder.folded_buffer() is not None
    ids = list(range(len(paths)))
    for _ in range(2):  # (the second time, the earlier terms' kept bounds)
        assert with_np.bounder.bounds(query, ids, hidden_ok) == plain.bounder.bounds(
            query, ids, hidden_ok), q
    assert with_np.match(q) == plain.match(q)


@pytest.mark.parametrize(("every", "joined"), [(8, False), (4, True)])
def test_a_last_terms_bounds_come_from_the_buffer_from_a_fifth_of_the_index(
    every: int, joined: bool
) -> None:
    """With the shares as they ship, the last term's bounds over candidates that are
    ``Tuning.last_joined_share`` (a fifth) of the index or more come from the buffer
    (``_last_joined``), below it path by path: the same bounds and the same ranking as an
    index without numpy either way (candidates every ``every``-th path: 12.5%, 25%)."""
    pytest.importorskip("numpy")
    n = 17_000
    paths = [f"app{i % 37}/session_{i % 11}/te{i % 7}st_mod{i}.py" if i % every == 0
             else f"lib{i % 13}/core/x{i}.rs" for i in range(n)]
    with_np, plain = twins(paths)
    q, query = query_of(["session", "tes"])
    ids = [i for i in range(n) if i % every == 0]
    assert len(ids) >= DEFAULT_TUNING.numpy_from
    used: list[int] = []
    real = with_np.bounder._last_joined

    def spy(*a: object, **k: object) -> object:
        used.append(1)
        return real(*a, **k)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(with_np.bounder, "_last_joined", spy)
        assert with_np.bounder.bounds(query, ids, False) == plain.bounder.bounds(
            query, ids, False)
        assert bool(used) is joined
        assert with_np.match(q, limit=20) == plain.match(q, limit=20)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, st.lists(TERMS, min_size=1, max_size=3), st.booleans(), st.integers(1, 6),
       st.integers(0, 3))
def test_bounds_without_the_buffer_a_part_at_a_time_are_the_plain_ones(
    paths: list[str], terms: list[str], hidden_ok: bool, part: int, skip: int
) -> None:
    """With no folded paths' buffer (a million paths, past ``Tuning.buffer_upto``) and the earlier
    terms' total a numpy array, a last term bounded per path (``_last_plain``, or a term with
    ``/``) ``Tuning.chunk`` ids at a time into that total, and the earlier terms' kept bounds
    grown ``Tuning.chunk`` at a time, give the per-path bounds and rankings, over every id or
    some, key after key (the kept bounds read back)."""
    pytest.importorskip("numpy")

    q, query = query_of(terms)
    if not query.positive:
        return
    with_np, plain = twins(paths, warm=False,  # (no buffer: ``warm`` builds it)
                           tuning=Tuning(numpy_from=1, chunk=part))
    assert with_np.bounder.folded_buffer() is None
    ids = list(range(0, len(paths), skip + 1))
    for _ in range(2):  # (the second time, the earlier terms' kept bounds)
        got = with_np.bounder.bounds_any(query, ids, hidden_ok)
        assert [b.tolist() if not isinstance(b, list) else b for b in got] == list(
            plain.bounder.bounds(query, ids, hidden_ok)), q
    assert with_np.match(q) == plain.match(q)
    assert with_np.match(q, limit=2) == plain.match(q, limit=2)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, PATHS, st.lists(TERMS, min_size=1, max_size=3))
def test_past_buffer_upto_paths_no_buffer_and_the_same_matches(
    paths: list[str], more: list[str], terms: list[str]
) -> None:
    """Past ``Tuning.buffer_upto`` paths ``warm`` builds no folded paths' buffer, and drops one it
    built while the store was smaller (its bytes freed); the letter masks and lengths are
    then read from the folded paths, and every match is the plain index's."""
    pytest.importorskip("numpy")

    q = query_of(terms)[0]
    with_np, plain = twins(paths, tuning=replace(JOINED, buffer_upto=max(len(paths), 1)))
    buf = with_np.bounder.folded_buffer()
    assert buf is not None  # (not past it yet)
    with_np.extend(more)
    plain.extend(more)
    for _ in with_np.warm():
        pass
    assert with_np.bounder.folded_buffer() is None
    assert buf.broken and buf.slices == []
    n = len(paths) + len(more)
    assert with_np.store.masks_len() == n and with_np.bounder.buffer_len() == n
    assert with_np.match(q) == plain.match(q), q
    assert with_np.match(q, limit=3) == plain.match(q, limit=3), q


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, st.lists(TERMS, max_size=2), st.sampled_from("abe.-_/?é"), st.booleans(),
       st.integers(1, 6), st.integers(0, 3))
def test_one_character_bounds_a_part_at_a_time_are_the_plain_ones(
    paths: list[str], terms: list[str], last: str, hidden_ok: bool, part: int, skip: int
) -> None:
    """A one-character last term's bounds from the letter masks (forced for any number of
    candidates), and the earlier terms' in numpy without the buffer, ``part`` ids at a time,
    equal the per-path ones, over every id or some."""
    pytest.importorskip("numpy")

    q = " ".join([*(t.replace(" ", "") for t in terms), last])
    query = parse(q)
    if not query.positive or len(query.positive[-1].folded) != 1:
        return
    with_np, plain = twins(paths, tuning=Tuning(numpy_from=1, chunk=part))
    ids = list(range(0, len(paths), skip + 1))
    got = with_np.bounder.bounds(query, ids, hidden_ok)
    assert got == plain.bounder.bounds(query, ids, hidden_ok), q
    assert with_np.match(q) == plain.match(q)


@pytest.mark.parametrize("w", [
    Weights(bonus_name=0, whole_dir=30, parent_prefix=5, parent_step=3, whole_parent=0,
            contig_name=40, contig_path=1),
    Weights(match=3, bonus_name=20, name_prefix=0, whole_name=0, whole_dir=0, parent_prefix=40,
            parent_step=40, whole_parent=25, contig_name=0, contig_path=0, len_name=2),
])
@pytest.mark.parametrize("q", ["ab", "ba", "b.", "ab a", "ba ab", "a/b", "aba b", "ss"])
def test_bounds_from_the_buffer_with_other_weights(w: Weights, q: str) -> None:
    pytest.importorskip("numpy")
    paths = ["ab/ab", "xab/b.a", "a/ba/ab.ab", "ba/xab/ab", "ab", "b.a/aßb", "e\u0301ab/ab-a",
             "A_b/ab/b", "?a/ab", "abab/ab/ba", "ab/ba", "x/y/z"]
    with_np, plain = twins(paths, w, tuning=JOINED)
    ids = list(range(len(paths)))
    for hidden_ok in (False, True):
        assert with_np.bounder.bounds(parse(q), ids, hidden_ok) == plain.bounder.bounds(
            parse(q), ids, hidden_ok)
    assert with_np.match(q) == plain.match(q)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, PATHS, st.lists(st.lists(TERMS, min_size=1, max_size=3), min_size=1, max_size=5),
       st.integers(1, 3), st.data())
def test_kept_marks_give_the_plain_bounds_key_after_key(
    paths: list[str], more: list[str], queries: list[list[str]], kept: int,
    data: st.DataObject,
) -> None:
    """``Bounder._marks`` keeps the last terms' marks over every path: asked again for other
    ids (a term last, then earlier), after other terms pushed them out, after the index grew,
    the bounds are still the per-path ones; with the earlier terms' bounds kept as arrays
    (``Tuning.numpy_from`` 0) or as lists."""
    pytest.importorskip("numpy")

    numpy_from = data.draw(st.sampled_from([1, 10**9]))
    with_np, plain = twins(paths, warm=False, tuning=replace(
        JOINED, kept=kept, numpy_from=numpy_from))
    for step, terms in enumerate(queries + queries[::-1]):  # (the same again, grown)
        if step == len(queries):
            with_np.extend(more)
            plain.extend(more)
        query = parse(" ".join(t.replace(" ", "") for t in terms))
        if not query.positive:
            continue
        n = len(with_np)
        for warm in (False, True):  # (before ``warm``: no buffer over the new paths)
            if warm:
                for _ in with_np.warm():
                    pass
            ids = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1,
                                           max_size=n)))
            for hidden_ok in (False, True):
                assert with_np.bounder.bounds(query, ids, hidden_ok) == (
                    plain.bounder.bounds(query, ids, hidden_ok)), query.raw
    assert len(with_np.bounder._kept_marks) <= kept


NAME_PATHS = st.lists(
    st.lists(st.one_of(PARTS, st.sampled_from([".a", "_b", "a.b", "a", "A", "ß", "é.x",
                                               "\u2160", "a.", "-"])),
             min_size=1, max_size=4).map("/".join), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NAME_PATHS, st.sampled_from(["a", "b", "A", "ab", "a.", "é", "ß", "e", "_", "-", "x"]),
       st.booleans(), st.sampled_from([DEFAULT, Weights(whole_dir=30, parent_prefix=5,
                                                         parent_step=3, whole_parent=7,
                                                         len_name=2, hidden=11)]),
       st.booleans())
@example(["_x/_b", "_/_b", "a/_/.a", "_/_x/_", "a/a.b"], "_", False, DEFAULT, True)
@example(["ab/a", "a/a.b", ".a/a", "a/ab/a", "b/A.x"], "a", False, DEFAULT, True)
@example(["ab/ab", "ab/x/abc", "xab/ab/ab.c", "x/ab/ab", "abc/ab", "x/abx/ab"], "ab", False,
         DEFAULT, False)
def test_prefix_scores_in_numpy_are_the_plain_ones(
    paths: list[str], key: str, hidden_ok: bool, w: Weights, warm: bool
) -> None:
    """``Bounder.prefix_scored`` in numpy (``Tuning.numpy_from`` 0) gives the per-path closed
    form: hidden paths, names that start on a symbol or an accent, capitals (a case-sensitive
    term), a dot after the term, a folder that is the term or starts with it (the folder
    extras read inline from the term's searches, not through ``folder_extras``, but for a
    one-character term with the masks); with the letter masks built (``warm``) or not."""
    pytest.importorskip("numpy")

    t = parse(key).terms[0]
    with_np, plain = twins(paths, w, warm, Tuning(numpy_from=1))
    st_ = plain.store
    texts = st_.term_texts(t)
    ids = [i for i in range(len(paths)) if texts[i].startswith(t.key, st_.base[i])]
    if not ids:
        return
    assert with_np.bounder.prefix_scored(t, ids, hidden_ok) == (
        plain.bounder.prefix_scored(t, ids, hidden_ok)), key
    assert with_np.match(key, limit=5) == plain.match(key, limit=5)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NAME_PATHS, NAME_PATHS, st.sampled_from(["abx", "a.b", "ab.", "éx", "ßa", "_b", "Ab",
                                                "aa.b"]),
       st.sampled_from([1, 2, 16000]), st.booleans())
@example(["a.b/ab.x", "x/a.b", "ab", "x/.ab"], ["ab.c/abx.y", "abxz"], "abx", 1, False)
@example(["ab/abx", "ab/abx.y", "ab/ab/abx", "ab/b/abx", "ab/b/abz", "x/abx", "x/ab"],
         ["ab/abx2", "abx/ab/abx", "abx/ab/abx.c", "abx/abx"], "abx", 16000, False)
def test_prefix_scores_key_after_key_are_the_plain_ones(
    paths: list[str], more: list[str], word: str, cap: int, hidden_ok: bool
) -> None:
    """``prefix_scored`` in numpy over keys typed a character at a time, the index extended
    between two keys: what the store kept of the names (``PathStore.name_heads``: a letter or
    digit first, where the first dot is, ``DOT_CAP`` drawn small so that the capped offsets
    and the dots before the key's end are read path by path) and the folder extras taken from
    the name before in the same folder (a folder, then one inside it, then one beside it)
    give the per-path closed form."""
    pytest.importorskip("numpy")
    from ffind.engine import prefix_bounds, tables

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prefix_bounds, "DOT_CAP", cap)
        mp.setattr(tables, "DOT_CAP", cap)
        with_np, plain = twins(paths, DEFAULT, False, Tuning(numpy_from=1))
        for k in range(1, len(word) + 1):
            if k == 2:
                with_np.extend(more)
                plain.extend(more)
            t = parse(word[:k]).terms[0]
            st_ = plain.store
            texts = st_.term_texts(t)
            ids = [i for i in range(len(st_.paths)) if texts[i].startswith(t.key, st_.base[i])]
            if ids:  # (numpy's from ``Tuning.numpy_from`` ids, never none)
                assert with_np.bounder.prefix_scored(t, ids, hidden_ok) == (
                    plain.bounder.prefix_scored(t, ids, hidden_ok)), word[:k]


@cache
def _blocks_index() -> Index:
    """An index of two blocks of word starts and a half (``store.INIT_BLOCK`` ids each),
    the first two built, the rest computed per id on demand (``PathStore.initials``)."""
    from ffind.engine.store import INIT_BLOCK

    paths = CORPUS.read_text(encoding="utf-8").splitlines() + EXTRA
    many = [f"c{k // len(paths)}/{p}" for k, p in enumerate(paths * (5 * INIT_BLOCK // 2
                                                                        // len(paths) + 1))]
    ix = Index(many[:5 * INIT_BLOCK // 2], numpy=True)
    ix.store.build_initials(2 * INIT_BLOCK)
    return ix


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["s/p/t", "sr", "mj", "c1/a", "ß", "tu"]),
       st.sampled_from([1, 3, 50, 10**6]), st.integers(0, 2**32), st.booleans())
def test_starts_lcs_by_block_is_the_lcs_of_each_ids_word_starts(
    fq: str, share: int, seed: int, shuffled: bool
) -> None:
    """``Bounder.starts_lcs`` scores a block's word starts at once where enough ids fall in
    it (``Tuning.numpy_from``: drawn), the ids' own word starts elsewhere (blocks with few,
    and the ids past the built blocks): the same LCS as ``cdist`` over ``initials(ids)``, in
    the order of ``ids`` (ascending or not)."""
    np = pytest.importorskip("numpy")
    import random

    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq


    ix = _blocks_index()
    rng = random.Random(seed)
    n = len(ix)
    ids = sorted(rng.sample(range(n), rng.choice([1, 40, n // 5, n // 2, n])))
    if shuffled:
        rng.shuffle(ids)
    want = process.cdist([fq], ix.store.initials(ids), scorer=LCSseq.similarity,
                         dtype=np.int64)[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ix.bounder, "tuning", Tuning(numpy_from=share))
        got = ix.bounder.starts_lcs(fq, np.array(ids, dtype=np.int64), np)
    assert got.dtype == np.int64
    assert got.tolist() == want.tolist()


def last_plain_reference(ix: Index, fq: str, ids: list[int]) -> tuple[list[int], list[bool]]:
    """``Bounder._last_plain`` as the rules read, a search per question (the code it was)."""
    st_, b_, w = ix.store, ix.bounder.b, ix.weights
    m = len(fq)
    tiers = b_.tiers(m)
    tb, flagged = [], []
    for i in ids:
        f, b, ps = st_.folded[i], st_.base[i], st_.pstart[i]
        if fq not in f:
            tb.append(tiers.rest)
            flagged.append(True)
            continue
        if f.find(fq, 0, b) < 0:
            tb.append(tiers.top if f.startswith(fq, b) else tiers.in_name)
            flagged.append(False)
            continue
        if f.startswith(fq, b):
            v, loose = tiers.top, False
        elif f.find(fq, b) >= 0:
            v, loose = tiers.in_name, False
        else:
            v, loose = tiers.in_path, True
        if f.startswith(fq, ps):
            v += w.parent_prefix_for(m) + (w.whole_parent if b - 1 - ps == m else 0)
        if "/" + fq + "/" in f or f.startswith(fq + "/"):
            v += w.whole_dir
        tb.append(v)
        flagged.append(loose)
    return tb, flagged


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, st.one_of(st.sampled_from(["ab", "ba", "a", "b.", "aba", "ss", "e", "xa", "b"]),
                        st.text("ab._-?éßA", min_size=1, max_size=4)),
       st.sampled_from([DEFAULT, Weights(whole_dir=30, parent_prefix=5, parent_step=3,
                                         whole_parent=7)]), st.data())
@example(["abx/ab/ab", "ab/x/abab", "x/ab", "ab", "ba/ab/x.ab", "ab/ab", "xab/b/ab"], "ab",
         DEFAULT, None)
def test_last_plain_is_the_rules_one_search_at_a_time(
    paths: list[str], term: str, w: Weights, data: st.DataObject | None
) -> None:
    """``Bounder._last_plain`` (one search for the first occurrence, the others from where it
    is) gives what a search per rule gives: in the folders, at the name's start, in the name,
    the folder prefix, a whole folder (``abx/ab/ab``: the first ``ab`` is not the whole
    folder, a later one is)."""
    ix = Index(paths, weights=w, numpy=False)
    fq = parse(term).positive[-1].folded if parse(term).positive else ""
    if not fq or "/" in fq:
        return
    n = len(paths)
    ids = (list(range(n)) if data is None
           else data.draw(st.lists(st.integers(0, n - 1), max_size=2 * n)))
    if len(fq) == 1:  # (a one-character term is in every candidate: the prefilter's promise)
        ids = [i for i in ids if fq in ix.store.folded[i]]
    assert ix.bounder._last_plain(fq, ids) == last_plain_reference(ix, fq, ids)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, PATHS, st.lists(st.sampled_from(["a", "ab", "aba", "abab", "b/", "b/a", "a/b",
                                               "ab/a", "ab/ab", "ba", "bab", "xab", ".a"]),
                              min_size=1, max_size=8),
       st.integers(1, 8), st.integers(0, 8))
@example(["s/p/x", "s/p/t", "s/q/t"], ["s/p/tt"], ["s/p/", "s/p/t", "s/p/", "s/p"], 1, 2)
def test_has_from_the_last_terms_holders_is_the_buffers(
    paths: list[str], more: list[str], terms: list[str], share: int, grow_at: int,
) -> None:
    """``Bounder.has`` answers a term that contains the last one from that one's holders
    (when few): term after term, longer or shorter, before and after the index grew, it is
    the term looked for in every folded path."""
    pytest.importorskip("numpy")
    import numpy as np


    ix = Index(paths, numpy=True, tuning=Tuning(few_share=share))
    assert ix.numpy_ready(30)
    for step, t in enumerate([*terms, "s/p/", "s/p/t"]):
        if step == grow_at:
            ix.extend(more)
        for _ in ix.warm():
            pass
        buf = ix.bounder.folded_buffer()
        assert buf is not None
        want = [t in f for f in ix.store.folded]
        assert ix.bounder.has(t, buf, np).tolist() == want, t


def early_term_reference(ix: Index, fq: str, ids: list[int], most: int) -> list[int]:
    """``Bounder._early_term`` as the rules read, a search per question (the code it was)."""
    st_, b_ = ix.store, ix.bounder.b
    m = len(fq)
    tiers = b_.tiers(m)
    extra = b_.dir_extras_max(m)
    bonus = b_.name_bonus(m)
    tbn = [most if fq in st_.folded[i] else tiers.rest + bonus for i in ids]
    for j in [j for j, v in enumerate(tbn) if v == most]:
        i = ids[j]
        f, b, ps = st_.folded[i], st_.base[i], st_.pstart[i]
        if f.startswith(fq, b) or (ps >= 0 and b - 1 - ps >= m and f.startswith(fq, ps)):
            v = tiers.top
        elif f.find(fq, b) >= 0 or (ps >= 0 and f.find(fq, ps, b - 1) >= 0):
            v = tiers.in_name
        else:
            v = tiers.in_path + bonus
        tbn[j] = v + (extra if f.find(fq, 0, b) >= 0 else 0)
    return tbn


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, st.one_of(st.sampled_from(["ab", "ba", "a", "b.", "aba", "ss", "e", "xa", "b"]),
                        st.text("ab._-?éßA", min_size=1, max_size=4)),
       st.sampled_from([DEFAULT, Weights(whole_dir=30, parent_prefix=5, parent_step=3,
                                         whole_parent=7),
                        Weights(match=0, bonus_name=0, name_prefix=0, whole_name=0,
                                whole_dir=0, parent_prefix=0, parent_step=0, whole_parent=0,
                                contig_name=0, contig_path=0)]), st.data())
@example(["ab/ab", "xab/x/ab", "ab/b", "b/ab", "x/abab/y", "x/ab/y", "a/xab/ab", "ab",
          "x/ab"], "ab", DEFAULT, None)
def test_early_term_is_the_rules_one_search_at_a_time(
    paths: list[str], term: str, w: Weights, data: st.DataObject | None
) -> None:
    """``Bounder._early_term`` (the rules read from the first occurrence, a name search and,
    when the first occurrence is before the file's folder, a search in it) gives what a
    search per rule gives: at the name's start, at the file's folder's start with room for
    the term or without, inside either, only in the other folders, and the folder extras
    (``x/abab/y``: the first occurrence at the folder's start; ``a/xab/ab``: in the folder
    and at the name's start; all-zero weights: a path without the term bounded as the most
    a term can score)."""
    ix = Index(paths, weights=w, numpy=False)
    fq = parse(term).positive[-1].folded if parse(term).positive else ""
    if not fq or "/" in fq:
        return
    n = len(paths)
    ids = (list(range(n)) if data is None
           else data.draw(st.lists(st.integers(0, n - 1), max_size=2 * n)))
    most = ix.bounder._most(fq)
    assert ix.bounder._early_term(fq, ids, most) == early_term_reference(ix, fq, ids, most)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text("ab/.é?~\"St", min_size=1, max_size=9), min_size=1, max_size=40),
       st.text("ab/.é?~\"St", min_size=1, max_size=6))
def test_name_lcs_upper_is_at_least_the_lcs_with_each_name(
    paths: list[str], term: str
) -> None:
    """``Bounder.name_lcs_upper`` (the names' letter masks) is at least the LCS of the term
    with each folded file name, so ``tighten_name_upper`` is at least what ``tighten_name``
    gives: characters repeated in the term, ``/``, characters without a bit of their own
    (``é``, ``"``), capitals folded."""
    import numpy as np
    from rapidfuzz.distance import LCSseq

    with_np, _ = twins(paths)
    b, st_ = with_np.bounder, with_np.store
    ids = np.arange(len(paths), dtype=np.int64)
    q = parse(term)
    fq = q.positive[-1].folded
    most = b.name_lcs_upper(fq, ids, np)
    assert most is not None
    lcs = [LCSseq.similarity(fq, st_.name(i)) for i in range(len(paths))]
    assert all(u >= v for u, v in zip(most.tolist(), lcs, strict=True))
    bounds = np.full(len(paths), 500, dtype=np.int64)
    assert (b.tighten_name_upper(q, ids, bounds, np)
            >= b.tighten_name_array(q, ids, bounds, np)).all()


def test_name_lcs_upper_counts_a_character_as_often_as_the_term_holds_it() -> None:
    import numpy as np

    with_np, _ = twins(["x/aab.c", "aa/b", "x/é"])
    ids = np.arange(3, dtype=np.int64)
    assert with_np.bounder.name_lcs_upper("aa/bé", ids, np).tolist() == [3 + 1, 1 + 1, 0 + 1]
