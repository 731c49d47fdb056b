"""MatchSet's compact form (issue 17): a compacted set, restored on use, equals the original."""

from __future__ import annotations

from array import array

import pytest
from hypo_paths import SETTINGS, paths
from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.engine.index import Index
from ffind.engine.matchset import (
    Filler,
    MatchSet,
    compact,
    compact_idle,
    expand,
    pack,
    restored,
    to_array,
)
from ffind.engine.tuning import Tuning
from ffind.query import parse

query_text = st.text(alphabet="abcAB_./é !", min_size=0, max_size=6)
ids = st.lists(st.integers(0, 2**31 - 1)).map(sorted)


def lists_of(ms: MatchSet) -> tuple[list[int], list[int], list[int], list[int]]:
    return list(ms.superset), list(ms.strict), list(ms.loose), list(ms.typos())


@SETTINGS
@given(ids, ids, st.sampled_from(["one", "two", "three"]), st.booleans())
def test_pack_then_unpack_gives_the_same_lists_and_sharing(
    a: list[int], b: list[int], shape: str, with_typos: bool,
) -> None:
    c = [*a, 1]
    lists = {"one": (a, a, a), "two": (a, b, b), "three": (a, b, c)}[shape]
    typos = a if with_typos else None
    packed = pack((*lists, typos))
    assert all(isinstance(x, range) or (isinstance(x, array) and x.typecode == "i")
               for x in packed if x is not None)
    back = restored(packed, 1 << 30)  # (lists: no id count reaches it)
    assert back == (*lists, typos)
    before = [[x is y for y in (*lists, typos)] for x in (*lists, typos)]
    assert [[x is y for y in back] for x in back] == before


@SETTINGS
@given(paths, query_text, st.integers(1, 6), st.booleans())
def test_a_compacted_set_equals_the_original(
    cands: list[str], q: str, k: int, typos_first: bool,
) -> None:
    ix = Index(cands)
    ms = ix.run(q)
    want = lists_of(ms) if typos_first else (list(ms.superset), list(ms.strict),
                                              list(ms.loose))
    shared = (ms.strict is ms.superset, ms.loose is ms.strict)
    count, top = len(ms), ix.top(ms, k)
    ms.compact()
    assert ms.compacted and ms.computed
    assert ms._superset is None and ms._strict is None  # the lists are let go
    got = lists_of(ms) if typos_first else (list(ms.superset), list(ms.strict),
                                             list(ms.loose))
    assert not ms.compacted
    assert got == want
    assert (ms.strict is ms.superset, ms.loose is ms.strict) == shared
    ms.compact()
    assert len(ms) == count
    ms.compact()
    assert ix.top(ms, k) == top == ix.match(q, limit=k)


@SETTINGS
@given(paths, paths, query_text, query_text, st.integers(1, 6))
def test_narrowing_and_merging_compacted_sets(
    first: list[str], second: list[str], q1: str, extra: str, k: int,
) -> None:
    ix = Index(first)
    ix.extend(second)
    n = len(first)
    q2 = q1 + extra
    ms1 = ix.run(q1)
    _ = ms1.superset
    ms1.compact()
    if ms1.can_narrow(q2):
        ms2 = ix.run(q2, within=ms1)
        assert ix.top(ms2, k) == ix.match(q2, limit=k)
        assert len(ms2) == len(ix.run(q2))
    lo, hi = ix.run(q1, end=n), ix.run(q1, start=n)
    _ = lo.strict, hi.strict
    lo.compact()
    hi.compact()
    merged = lo.merge(hi)
    assert merged.superset == ix.run(q1).superset
    assert ix.top(merged, None) == ix.match(q1)


def test_compacting_a_set_not_computed_does_nothing() -> None:
    ix = Index(["src/a.rs", "lib/b.py"])
    ms = ix.run("a")
    ms.compact()
    assert not ms.compacted and not ms.computed
    assert ms.ids == [0]


def test_compact_idle_spares_the_hot_sets_and_what_they_narrow() -> None:
    ix = Index(["src/main.rs", "src/mod.rs", "lib/main.py", "docs/readme.md", "a/b.txt",
                "c/d.txt", "e/f.txt"])  # (``m`` not ``BROAD``: narrowed from)
    old = ix.run("read")
    base = ix.run("m")
    _ = old.superset, base.superset
    lazy = ix.run("ma", within=base)  # not computed: it narrows ``base``
    assert not lazy.computed
    compact_idle([old, lazy, None], [lazy])
    assert old.compacted
    assert not base.compacted
    compact_idle([lazy], [])  # ``lazy`` idle: the computed set it narrows is compacted
    assert base.compacted
    assert ix.top(lazy, None) == ix.match("ma")
    assert not base.compacted


def test_a_set_without_positive_terms_is_not_narrowed_from() -> None:
    """Every id of its ranges is in it: narrowing starts from the ranges, so a compacted
    empty query's set (a million ids in a session at 1M paths) stays compacted."""
    ix = Index(["src/a.rs", "lib/b.py", "src/c.rs"])
    for q in ["", "!lib"]:
        everything = ix.run(q)
        _ = everything.superset
        everything.compact()
        narrowed = ix.run("s", within=everything)
        assert ix.top(narrowed, None) == ix.match("s")
        assert everything.compacted


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([0, 1, 4095, 4096, 9000]), st.integers(0, 2**32))
def test_to_array_with_numpy_and_without(n: int, seed: int) -> None:
    """From 4,096 ids, through numpy (imported here) instead of ``array``: the same array."""
    import random
    import sys

    import numpy  # noqa: F401

    assert "numpy" in sys.modules
    rnd = random.Random(seed)
    ids = [rnd.randrange(2**31) for _ in range(n)]
    got = to_array(ids)
    assert got.typecode == "i" and got.tolist() == ids


def test_to_array_while_numpy_is_still_being_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy half imported (another thread's import under way: in ``sys.modules``, its spec
    initialising, ``fromiter`` not yet defined): ``array`` makes it, as without numpy."""
    import importlib.machinery
    import sys
    import types

    half = types.ModuleType("numpy")
    half.__spec__ = importlib.machinery.ModuleSpec("numpy", None)
    half.__spec__._initializing = True  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "numpy", half)
    ids = list(range(0, 3 * 9000, 3))
    got = to_array(ids)
    assert got.typecode == "i" and got.tolist() == ids


@SETTINGS
@given(st.lists(st.integers(0, 200), unique=True).map(sorted), st.integers(0, 50),
       st.integers(0, 30))
def test_compact_then_expand(ids: list[int], start: int, run: int) -> None:
    """A run of ids becomes a ``range``, anything else an ``array('i')``; both expand back."""
    for xs in (ids, list(range(start, start + run))):
        c = compact(xs)
        assert expand(c) == xs
        one_run = bool(xs) and xs == list(range(xs[0], xs[-1] + 1))
        assert isinstance(c, range) == one_run


def test_every_path_compacts_to_a_range() -> None:
    ix = Index([f"d{i}/f{i}.py" for i in range(5000)])
    everything = ix.run("")
    assert len(everything) == 5000
    everything.compact()
    assert everything._packed is not None and everything._packed[0] == range(5000)
    assert everything.ids == list(range(5000))


def _lists(ms: MatchSet) -> tuple[list[int], list[int], list[int]]:
    return list(ms.superset), list(ms.strict), list(ms.loose)


@SETTINGS
@given(paths, query_text, query_text, st.integers(1, 9), st.integers(0, 40), st.booleans())
def test_a_set_filled_in_slices_equals_one_computed_at_once(
    cands: list[str], q1: str, extra: str, size: int, steps: int, narrowed: bool,
) -> None:
    """``Filler``: the lazy set computed a slice at a time (the session's idle work) equals the
    set computed at once, its part so far is the set over the ids done, and a next key
    narrowing the part plus the rest ranks as a fresh match."""
    ix = Index(cands)
    q2 = q1 + extra
    base = ix.run(q1)
    if narrowed and base.can_narrow(q2):
        _ = base.superset
        ms = ix.run(q2, within=base)  # lazy, narrowing a computed set
    else:
        ms = ix.run(q2)
    assert not ms.computed
    want = _lists(ix.run(q2))
    filler = Filler(ix.run, ms, size)
    for _ in range(steps):
        if filler.step():
            break
    n = len(cands)
    if filler.finished:
        assert ms.computed
        assert _lists(ms) == want
        assert ix.top(ms, 3) == ix.match(q2, limit=3)
        return
    assert not ms.computed
    upto = filler.upto
    done = filler.done()
    assert done.ranges == ([(0, upto)] if upto else [])
    assert _lists(done) == _lists(ix.run(q2, end=upto))
    q3 = q2 + extra[:1]
    if ms.can_narrow(q3):  # the session's next key: the part narrowed, the rest from scratch
        head = ix.run(q3, within=done, start=0, end=upto)
        tail = ix.run(q3, within=ms, start=upto, end=n)
        joined = head.merge(tail)
        assert _lists(joined) == _lists(ix.run(q3))
        assert ix.top(joined, 3) == ix.match(q3, limit=3)
        for cut in sorted({0, upto // 2, upto, n}):  # in chunks, all narrowing the part
            lazy = [ix.run(q3, within=ms, start=a, end=b, hint=done)
                    for a, b in ((0, cut), (cut, n))]
            if parse(q2).positive:  # (else every id: nothing to narrow from)
                assert all(x._hint is done for x in lazy)
            whole = lazy[0].merge(lazy[1])
            assert not whole.computed  # (lazy parts with one hint merge lazily)
            assert _lists(whole) == _lists(ix.run(q3))
            assert ix.top(whole, 3) == ix.match(q3, limit=3)


def test_fill_takes_only_the_same_query_over_the_same_ranges() -> None:
    ix = Index(["src/main.rs", "src/mod.rs", "lib/main.py"])
    ms = ix.run("ma")
    other = ix.run("ma", end=2)
    _ = other.superset
    try:
        ms.fill(other)
    except ValueError:
        pass
    else:
        raise AssertionError("filled from another range")
    whole = ix.run("ma")
    _ = whole.superset
    ms.fill(whole)
    assert ms.computed and ms.superset == whole.superset
    assert ix.top(ms, None) == ix.match("ma")


def test_a_restored_set_keeps_its_arrays_and_compacts_again_without_packing() -> None:
    """The arrays stay beside the restored lists (never changed), so compacting again lets
    the lists go without packing them again; typos found since are packed too."""
    ix = Index(["src/promt.rs", "src/main.rs", "lib/prompt.py", "docs/prom.md", "a/b.txt"])
    ms = ix.run("prompt")
    want = lists_of(ms)
    ms.compact()
    arrays = ms._packed
    assert arrays is not None and arrays[3] is not None  # (typos were found: packed too)
    assert lists_of(ms) == want and not ms.compacted and ms._packed is arrays
    ms.compact()
    assert ms.compacted and ms._packed is arrays
    fresh = ix.run("prompt")
    _ = fresh.superset
    fresh.compact()
    assert fresh._packed is not None and fresh._packed[3] is None
    _ = fresh.superset
    typos = fresh.typos()
    fresh.compact()
    assert fresh._packed is not None and fresh._packed[3] is not None
    assert list(fresh.typos()) == typos
    assert ix.top(fresh, None) == ix.match("prompt")


def test_a_broad_hint_that_spares_no_term_is_not_narrowed_from() -> None:
    """``Index.compute``: a hint holding most of its ranges' ids (``BROAD``) is matched again
    from the paths themselves unless one of its terms is spared; same sets either way."""
    cands = [f"src/s{i}/{'r' if i % 2 else 'x'}{i}.py" for i in range(40)] + ["lib/a.md"]
    ix = Index(cands)
    broad = ix.run("s")
    assert broad.size() == 40  # (of 41 ids)
    broad.compact()
    assert broad.size() == 40 and broad.compacted  # (counted without restoring the lists)
    again = ix.run("sr", within=broad)
    assert _lists(again) == _lists(ix.run("sr"))
    assert broad.compacted  # not read: ``sr`` spares nothing
    spared = ix.run("s r", within=broad)
    assert _lists(spared) == _lists(ix.run("s r"))
    assert not broad.compacted  # read: ``s`` is spared
    assert ix.top(spared, 3) == ix.match("s r", limit=3)


def test_compact_idle_a_set_at_a_time() -> None:
    """``most``: an idle caller compacts one set a step, until none is left."""
    ix = Index(["src/main.rs", "src/mod.rs", "lib/main.py", "docs/readme.md", "a/b.txt"])
    sets = [ix.run(q) for q in ("ma", "mo", "re", "b")]
    for ms in sets:
        _ = ms.superset
    hot = sets[-1]
    steps = []
    while True:
        done = compact_idle(sets, [hot], most=1)
        steps.append(done)
        if not done:
            break
    assert steps == [1, 1, 1, 0]
    assert [ms.compacted for ms in sets] == [True, True, True, False]
    assert compact_idle(sets, [hot]) == 0
    assert ix.top(sets[0], None) == ix.match("ma")


def _old_merge(a: MatchSet, b: MatchSet) -> tuple[list[int], list[int], list[int], bool]:
    """The merge before the sets of every id were kept as ranges: the lists concatenated (or
    sorted), and whether loose is strict."""

    def cat(x: list[int], y: list[int]) -> list[int]:
        return sorted(x + y) if x and y and x[-1] > y[0] else x + y

    strict = cat(list(a.strict), list(b.strict))
    loose_is_strict = a.loose is a.strict and b.loose is b.strict
    loose = strict if loose_is_strict else cat(list(a.loose), list(b.loose))
    return cat(list(a.superset), list(b.superset)), strict, loose, loose_is_strict


@SETTINGS
@given(paths, st.sampled_from(["", " ", "!x", "a", "B", "!é", "A !b"]), st.integers(0, 8),
       st.integers(0, 8), st.integers(0, 3), st.integers(0, 6))
def test_merging_sets_of_every_id_equals_the_lists_merged(
    cands: list[str], q: str, cut1: int, cut2: int, packed: int, k: int,
) -> None:
    """Sets merged as a walk goes on (ranges in order, computed or compacted) give the ids the
    lists concatenated gave, loose shared with strict as it was; an empty query's sets are
    kept as ranges (issue 17), whose count, ``ids_seq`` and ranking are the lists'."""
    ix = Index(cands)
    n = len(cands)
    c1, c2 = sorted((min(cut1, n), min(cut2, n)))
    parts = [ix.run(q, start=s, end=e) for s, e in ((0, c1), (c1, c2), (c2, n))]
    for j, ms in enumerate(parts):
        _ = ms.strict
        if packed >> j & 1:
            ms.compact()
    acc = parts[0]
    for ms in parts[1:]:
        sup, strict, loose, loose_is_strict = _old_merge(acc, ms)
        acc = acc.merge(ms)
        if not q.strip():
            assert acc.compacted
            assert list(acc.ids_seq()) == list(acc.ids)
        count = len(acc)
        assert list(acc.ids_seq()) == list(acc.ids)
        assert (list(acc.superset), list(acc.strict), list(acc.loose)) == (sup, strict, loose)
        assert (acc.loose is acc.strict) == loose_is_strict
        assert count == len(ix.run(q, end=acc.ranges[-1][1] if acc.ranges else 0))
    whole = ix.run(q)
    assert ix.top(acc, k) == ix.top(whole, k)
    assert len(acc) == len(whole)


def test_a_compacted_set_is_counted_and_read_without_its_lists() -> None:
    ix = Index(["a/b", "a/c", "b/c", "A/d"])
    ms = ix.run("")
    assert len(ms.strict) == 4
    ms.compact()
    assert ms.compacted
    assert len(ms) == 4 and list(ms.ids_seq()) == [0, 1, 2, 3]
    assert ms.compacted  # (neither restored the lists)
    fb = ix.run("A")
    _ = fb.strict
    fb.compact()
    assert list(fb.ids_seq()) == [3] and len(fb) == 1 and fb.compacted
    fb2 = ix.run("Q")
    _ = fb2.strict
    fb2.compact()
    assert list(fb2.ids_seq()) == [] and len(fb2) == 0


def _typed(cands: list[str], queries: list[str], array_from: int, warm: bool, cut: int,
           compact_each: list[bool]) -> list[object]:
    """Each query's sets, count and rankings, each query narrowing the one before when it
    can, the first over two id ranges merged, with ``Tuning.chunk`` at ``array_from``."""
    ix = Index(cands, numpy=True, tuning=Tuning(chunk=array_from))
    assert ix.numpy_ready(30)
    if warm:
        for _ in ix.warm(7):
            pass
    out: list[object] = []
    prev: MatchSet | None = None
    for q, squeeze in zip(queries, compact_each, strict=False):
        if prev is not None and prev.can_narrow(q):
            ms = ix.run(q, within=prev)
        else:
            ms = ix.run(q, end=cut).merge(ix.run(q, start=cut))
        out.append((lists_of(ms), len(ms), ms.fallback,
                    [(m.score, m.path, m.typo) for m in ix.top(ms, 3)],
                    [(m.score, m.path, m.indices) for m in ix.top(ms, None, True)]))
        if squeeze:
            ms.compact()
        prev = ms
    return out


@settings(max_examples=120, deadline=None)
@given(paths, query_text, st.booleans(), st.integers(0, 30),
       st.lists(st.booleans(), min_size=6, max_size=6))
def test_ids_kept_as_arrays_give_what_lists_give(
    cands: list[str], q: str, warm: bool, cut: int, compact_each: list[bool],
) -> None:
    """From ``Tuning.chunk`` ids a computed set's ids are an ``array('i')`` (here from 1:
    every set), narrowed, merged, compacted, counted and ranked as the lists were (the
    chunk out of reach: lists)."""
    queries = [q[:i] for i in range(1, len(q) + 1)] or [""]
    arrays = _typed(cands, queries, 1, warm, cut, compact_each)
    lists = _typed(cands, queries, 2**40, warm, cut, compact_each)
    assert arrays == lists


def test_a_set_computed_as_arrays_holds_arrays() -> None:
    cands = [f"src/mod{i}/file{i}.py" for i in range(50)]
    ix = Index(cands, numpy=True, tuning=Tuning(chunk=10))
    assert ix.numpy_ready(30)
    ms = ix.run("fi")
    assert isinstance(ms.superset, array) and ms.superset.typecode == "i"
    assert ms.strict is ms.superset and ms.loose is ms.strict
    assert list(ms.superset) == list(range(50))
    narrow = ix.run("fi 1", within=ms)  # (a term of one character: a mask)
    assert isinstance(narrow.superset, array)
    assert list(narrow.superset) == [i for i in range(50) if "1" in cands[i]]
    few = ix.run("file4", within=ms)  # (rapidfuzz over the array's paths)
    assert list(few.superset) == list(Index(cands).run("file4").superset)
    none = ix.run("fi7x", within=ms)
    assert list(none.superset) == [] and not isinstance(none.superset, array)


@SETTINGS
@given(ids, ids, st.sampled_from(["one", "two", "three"]), st.booleans(), st.integers(0, 4))
def test_restored_keeps_the_arrays_from_array_from(
    a: list[int], b: list[int], shape: str, with_typos: bool, array_from: int,
) -> None:
    """``restored``: the lists packed, but from ``array_from`` ids the compact form
    itself (a ``range`` as an ``array('i')``), the sharing kept."""

    c = [*a, 1]
    lists = {"one": (a, a, a), "two": (a, b, b), "three": (a, b, c)}[shape]
    typos = a if with_typos else None
    packed = pack((*lists, typos))
    back = restored(packed, array_from)
    assert [None if x is None else list(x) for x in back] == [*lists, typos]
    for x, y in zip(back, packed, strict=True):
        if x is None:
            continue
        big = len(x) >= array_from
        assert isinstance(x, array) == big
        assert not big or isinstance(y, range) or x is y
    before = [[x is y for y in (*lists, typos)] for x in (*lists, typos)]
    assert [[x is y for y in back] for x in back] == before
