"""Top-k selection and the final order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ffind.engine.rank import TopK, best, best_positions, by_bound, first_by_ties, nth_highest

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


# The numpy selections (``lens`` given) pick exactly what the plain ones pick: few distinct
# scores and lengths, so the cuts fall inside large groups of ties.
np = __import__("numpy")
tie_paths = st.lists(st.text("ab/", min_size=1, max_size=5), min_size=1, max_size=120,
                     unique=True)


@given(tie_paths, st.data(), st.integers(1, 30))
def test_best_through_numpy_is_the_plain_best(
    paths: list[str], data: st.DataObject, k: int
) -> None:
    scores = data.draw(st.lists(st.integers(0, 3), min_size=len(paths), max_size=len(paths)))
    pool = list(zip(scores, range(len(paths)), strict=True))
    lens = np.array([len(p) for p in paths], dtype=np.int32)
    assert best(pool, paths, k, lens) == best(pool, paths, k)


@given(tie_paths, st.integers(1, 30))
def test_first_by_ties_through_numpy_is_the_plain_one(paths: list[str], k: int) -> None:
    ids = list(range(len(paths)))[::-1]
    lens = np.array([len(p) for p in paths], dtype=np.int32)
    assert first_by_ties(ids, k, paths, lens) == first_by_ties(ids, k, paths)


@given(tie_paths, st.data(), st.integers(1, 30))
def test_best_positions_through_numpy_is_the_plain_one(
    paths: list[str], data: st.DataObject, n: int
) -> None:
    values = data.draw(st.lists(st.integers(0, 3), min_size=len(paths), max_size=len(paths)))
    lens = np.array([len(p) for p in paths], dtype=np.int32)
    assert (best_positions(values, n, paths.__getitem__, lens)
            == best_positions(values, n, paths.__getitem__))


@given(st.lists(st.integers(-5, 5), max_size=30), st.lists(st.integers(-5, 5), max_size=30),
       st.integers(0, 6))
def test_topk_add_many_is_add_each(first: list[int], more: list[int], k: int) -> None:
    a, b = TopK(k), TopK(k)
    for s in first + more:
        a.add(s)
    b.add_many(first)
    b.add_many(more)
    assert a.floor() == b.floor()
    assert all(a.beats(x) == b.beats(x) for x in range(-7, 8))


@given(st.lists(st.integers(-5, 5) | st.integers(-(1 << 40), 1 << 40), min_size=1),
       st.data())
def test_nth_highest_is_the_sorted_ones(xs: list[int], data: st.DataObject) -> None:
    n = data.draw(st.integers(1, len(xs)))
    assert nth_highest(np.array(xs, dtype=np.int64), n, np) == sorted(xs, reverse=True)[n - 1]
