"""The ranking's numpy bookkeeping (large candidate sets: ``Tuning.numpy_from`` and more) gives
exactly what the plain Python bookkeeping gives: the same index with numpy and without."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffind.engine.index import Index
from ffind.engine.letters import ALPHABET, masks
from ffind.engine.rank import by_bound
from ffind.engine.ranker import grouped
from ffind.engine.tuning import DEFAULT as DEFAULT_TUNING
from ffind.query import parse

CORPUS = Path(__file__).parent / "data" / "corpus_paths.txt"
QUERIES = [
    "s",
    "he c",
    "a s",
    "r m",
    "b/ s",
    "sr",
    "src",
    "e",
    "h/s",
    "s/p/",
    "s/p/t",
    "he/s/c",
    "test u",
    "src main r",
    "mod.rs",
    "readme",
    "c",
    "cmd",
    "tsx",
    "he co",
    "aider coders",
    "hx",
]


@cache
def indexes() -> tuple[Index, Index]:
    base = CORPUS.read_text(encoding="utf-8").splitlines()
    paths = [f"copy{n}/{p}" if n else p for n in range(16) for p in base]
    paths += ["a", "s", "as.md", "c/e.rs", "setup.py", "s/a/c.txt", "e", "x/-/d-"]  # short
    assert len(paths) > 2 * DEFAULT_TUNING.numpy_from
    with_np, plain = Index(paths, numpy=True), Index(paths, numpy=False)
    assert with_np.numpy_ready(30)
    for _ in with_np.warm():  # the letter masks are used once ``warm`` has built them
        pass
    assert with_np.store.masks_len() == len(paths)
    return with_np, plain


@pytest.mark.parametrize("q", QUERIES)
def test_numpy_bookkeeping_ranks_as_the_plain_one(q: str) -> None:
    with_np, plain = indexes()
    for k in (1, 7, 20, None):
        assert with_np.match(q, limit=k) == plain.match(q, limit=k), (q, k)


@given(
    st.lists(
        st.tuples(st.integers(0, 50), st.integers(-3, 3)), max_size=60, unique_by=lambda x: x[0]
    )
)
def test_grouped_is_by_bound(pairs: list[tuple[int, int]]) -> None:
    np = pytest.importorskip("numpy")
    ids = [i for i, _ in pairs]
    bounds = [b for _, b in pairs]
    got = grouped(np.array(ids, dtype=np.int64), np.array(bounds, dtype=np.int64))
    assert all(g.dtype == np.int64 for _, g in got)  # (listed by ``visit`` when visited)
    assert [(b, g.tolist()) for b, g in got] == by_bound(ids, bounds)


@given(
    st.lists(
        st.tuples(st.integers(0, 500), st.one_of(st.integers(-3, 3), st.integers(-70000, 70000))),
        max_size=80, unique_by=lambda x: x[0],
    ),
    st.sampled_from([1, 2, 7, 1 << 16]),
)
def test_grouped_by_either_sort_is_by_bound(pairs: list[tuple[int, int]], key_range: int) -> None:
    """``grouped``'s radix sort of a uint16 key (bounds spanning less than ``KEY_RANGE``) and
    its sort of the bounds themselves (wider) group as ``by_bound``, each group in the order
    of the ids."""
    np = pytest.importorskip("numpy")
    from ffind.engine import ranker

    ids = [i for i, _ in pairs]
    bounds = [b for _, b in pairs]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ranker, "KEY_RANGE", key_range)
        got = grouped(np.array(ids, dtype=np.int64), np.array(bounds, dtype=np.int64))
    assert all(g.dtype == np.int64 for _, g in got)
    assert [(b, g.tolist()) for b, g in got] == by_bound(ids, bounds)
    assert all(type(b) is int for b, _ in got)


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(-50, 400), st.booleans()),
                max_size=60), st.integers(1, 7))
def test_split_arrays_in_place_are_the_copies(
    rows: list[tuple[int, int, bool]], part: int
) -> None:
    """``_split_arrays`` moving the optimistic ids and bounds to the fronts of the caller's
    arrays (``scratch``, ``compact`` a part of ``part`` at a time) gives what it copies out
    otherwise, and the same groups."""
    np = pytest.importorskip("numpy")
    from ffind.engine import ranker

    ids = np.array([i for i, _, _ in rows], dtype=np.int64)
    bounds = np.array([b for _, b, _ in rows], dtype=np.int64)
    flagged = np.array([f for _, _, f in rows], dtype=bool)
    oa, ob, groups = ranker._split_arrays(ids, bounds, flagged)
    sa, sb, sgroups = ranker._split_arrays(ids.copy(), bounds.copy(), flagged, True, part)
    assert oa.tolist() == sa.tolist() == [i for i, _, f in rows if f]
    assert ob.tolist() == sb.tolist() == [b for _, b, f in rows if f]
    assert sa.dtype == sb.dtype == np.int64
    assert [(b, g.tolist()) for b, g in groups] == [(b, g.tolist()) for b, g in sgroups]


@given(
    st.lists(st.tuples(st.integers(-3, 3), st.lists(st.integers(0, 99), max_size=5)),
             max_size=8),
    st.integers(-4, 4), st.booleans(),
)
def test_joined_groups_are_the_listed_ones(
    groups: list[tuple[int, list[int]]], floor: int, as_arrays: bool,
) -> None:
    """``_joined``: the groups bounded at the floor or more, their ids and bounds in order, as
    the lists the ranking made before (``[i for b, g in groups if b >= floor for i in g]``)."""
    np = pytest.importorskip("numpy")
    from ffind.engine.ranker import _joined

    given_groups = [(b, np.array(g, dtype=np.int64) if as_arrays else g) for b, g in groups]
    ids, bounds = _joined(given_groups, floor, np)
    assert ids.dtype == np.int64 and bounds.dtype == np.int64
    assert ids.tolist() == [i for b, g in groups if b >= floor for i in g]
    assert bounds.tolist() == [b for b, g in groups if b >= floor for _ in g]


@pytest.mark.parametrize("q", ["a", "s", "he c", "a s", "r m", "s e r", "test u", "e x", "s -"])
def test_one_character_bounds_from_the_letter_masks_are_the_plain_ones(q: str) -> None:
    """The bounds themselves (a looser or tighter one may leave a ranking as it is)."""
    with_np, plain = indexes()
    query = parse(q)
    ids = with_np.run(q).ids
    assert len(ids) >= DEFAULT_TUNING.numpy_from
    for hidden_ok in (False, True):
        assert with_np.bounder.bounds(query, ids, hidden_ok) == plain.bounder.bounds(
            query, ids, hidden_ok
        )


def test_letter_masks() -> None:
    np = pytest.importorskip("numpy")
    folded = ["a/b/cd.e", "x", "ab/c/q", "é/z", "c/", ""]
    base = [p.rfind("/") + 1 for p in folded]
    dirs, name, whole = masks(folded, base, np)

    def has(mask: object, c: str) -> bool:
        return bool(int(mask) >> ALPHABET.index(c) & 1)  # type: ignore[call-overload]

    assert [has(dirs[0], c) for c in "abcde"] == [True, True, False, False, False]
    assert [has(name[0], c) for c in "abcde."] == [False, False, True, True, True, True]
    assert has(whole[0], "a") and has(whole[0], "b") and not has(whole[0], "c")
    assert int(dirs[1]) == 0 and has(name[1], "x") and int(whole[1]) == 0
    assert has(whole[2], "c") and not has(whole[2], "a") and has(dirs[2], "a")
    assert has(name[3], "z") and not has(dirs[3], "z") and not has(whole[3], "z")
    assert has(whole[4], "c") and int(name[4]) == 0
    assert int(dirs[5]) == int(name[5]) == int(whole[5]) == 0


def test_warm_joins_the_letter_masks_once_they_cover_every_path() -> None:
    """``warm`` builds the masks a slice at a time, then joins the slices (in idle time, so
    that a first key never pays the join); after the index grows, the new slices are joined
    at the end of the next ``warm``, and the masks are those of every path at once."""
    np = pytest.importorskip("numpy")
    paths = CORPUS.read_text(encoding="utf-8").splitlines()
    ix = Index(paths[:700], numpy=True)
    assert ix.numpy_ready(30)
    for grow in (False, True):
        if grow:
            ix.extend(paths[700:1500])
        for _ in ix.warm(step=256):
            pass
        st_ = ix.store
        assert len(st_._mask_parts) == 1 and st_.masks_len() == len(ix)
        dirs, name, whole = masks(st_.folded, st_.base, np)
        got_dirs, got_name = st_.letter_masks(np)
        assert (got_dirs == dirs).all() and (got_name == name).all()
        some = 0
        for bit in range(64):  # the one-character folders: kept for the paths that have one
            want = np.flatnonzero(whole & (np.uint64(1) << np.uint64(bit)))
            assert st_.one_char_folders(bit, np).tolist() == want.tolist()
            some += len(want)
        assert some  # (the corpus has such folders)


@st.composite
def wide_query(draw: st.DrawFn) -> str:
    """A query of one to three terms that many of the 6,400 paths match: a few characters
    drawn from a corpus path (scattered or a run), at times with a ``/``, a capital or a
    repeated letter."""
    def one() -> str:
        path = draw(st.sampled_from(CORPUS.read_text(encoding="utf-8").splitlines()))
        picks = sorted(draw(st.lists(st.integers(0, len(path) - 1), min_size=1, max_size=5,
                                     unique=True)))
        text = "".join(path[j] for j in picks).replace(" ", "")
        if draw(st.booleans()):
            text = text.lower()
        return text or "a"
    return " ".join(one() for _ in range(draw(st.integers(1, 3))))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(wide_query(), st.sampled_from([1, 5, 20, None]))
def test_numpy_ranking_of_random_queries_is_the_plain_one(q: str, k: int | None) -> None:
    """Random queries over the large index: every numpy stage (the bounds, their refinement
    as arrays, the batch scorer, the selections) against the plain code."""
    with_np, plain = indexes()
    assert with_np.match(q, limit=k) == plain.match(q, limit=k), (q, k)


def split(got: tuple[list[int], list[int], Any]) -> tuple[list[int], list[int]]:
    """``_name_prefixed``'s two lists, its array of the others checked against the list."""
    pre, rest, rest_a = got
    assert rest_a is None or rest_a.tolist() == rest
    return pre, rest


@pytest.mark.parametrize("q", ["s", "sr", "src", "re", "readme", "c", "Sr", "x", "é", "mod.rs"])
def test_name_prefixes_from_the_first_letter_table_are_the_plain_ones(q: str) -> None:
    """``ranker._name_prefixed`` tests only the ids of the term's first letter's table when
    there are many: the same split, in the same order, as testing every id."""
    from ffind.engine.ranker import _name_prefixed

    with_np, plain = indexes()
    t = parse(q).positive[0]
    ids = with_np.run(q).ids
    texts, base = plain.store.term_texts(t), plain.store.base
    want = ([i for i in ids if texts[i].startswith(t.key, base[i])],
            [i for i in ids if not texts[i].startswith(t.key, base[i])])
    assert split(_name_prefixed(with_np, t, ids)) == want
    assert split(_name_prefixed(plain, t, ids)) == want
    assert split(_name_prefixed(with_np, t, list(range(len(with_np))))) == (
        [i for i in range(len(with_np)) if texts[i].startswith(t.key, base[i])],
        [i for i in range(len(with_np)) if not texts[i].startswith(t.key, base[i])])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["sr", "src", "re", "rea", "readme", "co", "cmd", "he", "s", "Sr"]),
       st.sampled_from(["", "zz", "s", "sr", "src", "re", "readme", "co", "h"]),
       st.integers(0, 1 << 30))
def test_name_prefixes_from_the_shortcuts_kept_ids_are_the_plain_ones(
    q: str, kept: str, seed: int
) -> None:
    """``ranker._name_prefixed`` takes the names that start with the term from the one-term
    shortcut's kept ids when it kept the term or a key it extends (``Prefixed``), else
    tests the table: the same split, in the same order, over any ids."""
    from ffind.engine.prefixed import Prefixed
    from ffind.engine.ranker import _name_prefixed

    with_np, plain = indexes()
    n = len(with_np)
    rnd = random.Random(seed)
    ids = sorted(rnd.sample(range(n), rnd.randint(DEFAULT_TUNING.numpy_from, n)))
    t = parse(q).positive[0]
    texts, base = plain.store.term_texts(t), plain.store.base
    want = ([i for i in ids if texts[i].startswith(t.key, base[i])],
            [i for i in ids if not texts[i].startswith(t.key, base[i])])
    old = with_np.prefixed
    with_np.prefixed = Prefixed()
    try:
        s = with_np.store
        if kept:  # (as the one-term shortcut keeps a key it was asked)
            with_np.prefixed.ids(s.first.get(kept[0], ()), kept, s.folded, s.base, False)
        assert split(_name_prefixed(with_np, t, ids)) == want
        assert split(_name_prefixed(with_np, t, ids)) == want  # (the term itself kept now)
    finally:
        with_np.prefixed = old
