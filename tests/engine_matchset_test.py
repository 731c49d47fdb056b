"""MatchSets keep their ids as ``array('i')`` (issue 17): the same ids as before, one object
where the sets are the same, and merges equal to one run over the union."""

from __future__ import annotations

from array import array

from ffind.engine.index import Index
from ffind.engine.matchset import compact

PATHS = [f"{d}/{n}" for d in ("src", "Lib", "test") for n in ("Foo.py", "bar.rs", "baz.md")]


def test_sets_are_int_arrays_and_one_object_when_equal() -> None:
    ix = Index(PATHS)
    ms = ix.run("ba")
    assert isinstance(ms.superset, array) and ms.superset.typecode == "i"
    assert list(ms.ids) == [i for i, p in enumerate(PATHS) if "ba" in p]
    assert ms.strict is ms.superset and ms.loose is ms.strict  # no case rule: one array
    cs = ix.run("Foo")
    assert cs.strict is not cs.superset and cs.loose is cs.superset
    assert list(cs.strict) == [0, 3, 6]
    assert list(ix.run("Lib !md").ids) == [3, 4]


def test_merge_equals_one_run_over_the_union() -> None:
    ix = Index(PATHS)
    for q in ("ba", "Foo", "s", "t !rs"):
        whole = ix.run(q)
        a, b = ix.run(q, start=0, end=4), ix.run(q, start=4)
        for m in (a.merge(b), b.merge(a)):
            assert isinstance(m.ids, array)
            assert m.superset == whole.superset and m.ids == whole.ids
            assert len(m) == len(whole)
            assert (m.strict is m.superset) == (whole.strict is whole.superset)


def test_compact_keeps_an_array_as_it_is() -> None:
    a = array("i", [1, 2])
    assert compact(a) is a
    assert compact([3, 4]) == array("i", [3, 4])
