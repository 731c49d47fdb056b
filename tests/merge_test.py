"""ffind.searching.merge: the one multi-root order."""

from __future__ import annotations

from ffind.scoring.scorer import FileMatch
from ffind.searching.merge import merge, order_matches, rank_key, ranked


def test_ranked() -> None:
    assert ranked("prom") and ranked("a !b")
    assert not ranked("") and not ranked("!test")


def test_score_then_shorter_path_then_path_then_root_order() -> None:
    a = [FileMatch(10, "bb/x", root="A"), FileMatch(5, "y", root="A")]
    b = [FileMatch(10, "a/x", root="B"), FileMatch(10, "bb/x", root="B")]
    got = merge(["A", "B"], [a, b], None, ranked=True)
    assert [(m.root, m.path) for m in got] == [("B", "a/x"), ("A", "bb/x"), ("B", "bb/x"),
                                               ("A", "y")]
    assert merge(["A", "B"], [a, b], 2, ranked=True) == got[:2]
    assert rank_key(a[0], 0) < rank_key(b[1], 1)


def test_listing_is_by_root_then_path() -> None:
    a = [FileMatch(0, "b", root="A"), FileMatch(0, "c", root="A")]
    b = [FileMatch(0, "a", root="B")]
    got = merge(["B", "A"], [a, b], None, ranked=False)
    assert [(m.root, m.path) for m in got] == [("A", "b"), ("A", "c"), ("B", "a")]


def test_order_matches_keeps_the_first_root_first_for_one_path() -> None:
    ms = [FileMatch(1, "p", root="B"), FileMatch(1, "p", root="A")]
    assert [m.root for m in order_matches(ms, {"A": 0, "B": 1})] == ["A", "B"]
