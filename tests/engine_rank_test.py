"""Top-k selection and the final order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ffind.engine.rank import TopK, best, by_bound

PATHS = ["b", "a", "cc", "a/b", "d"]


def test_best_orders_by_score_then_length_then_path() -> None:
    pool = [(5, 0), (5, 1), (5, 2), (7, 3), (1, 4)]
    assert best(pool, PATHS, None) == [(7, 3), (5, 1), (5, 0), (5, 2), (1, 4)]
    assert best(pool, PATHS, 2) == [(7, 3), (5, 1)]
    assert best(pool, PATHS, 0) == []


@given(st.lists(st.integers(-50, 50), max_size=40), st.integers(0, 45))
def test_best_limit_is_a_prefix(scores: list[int], k: int) -> None:
    paths = [f"p{i % 7}/{i}" for i in range(len(scores))]
    pool = list(zip(scores, range(len(scores)), strict=True))
    assert best(pool, paths, k) == best(pool, paths, None)[:k]


def test_topk_beats_only_with_k_scores_strictly_above() -> None:
    t = TopK(2)
    t.add(10)
    assert not t.beats(5)
    t.add(8)
    assert t.beats(7)
    assert not t.beats(8)
    t.add(20)
    assert t.beats(9)
    assert not TopK(None).beats(-(10**9))
    assert TopK(0).beats(10**9)


def test_by_bound_groups_highest_first_keeping_order() -> None:
    assert by_bound([4, 1, 3, 2], [5, 9, 5, 1]) == [(9, [1]), (5, [4, 3]), (1, [2])]
