"""``ffind.engine.ranker``: the optimistic bounds tightened only where they can matter."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.engine.rank import best_positions
from ffind.engine.ranker import tighten_from, tightened_seed

# few distinct bounds and lengths: ties at the seed's cut and at the floor are the rule
cases = st.integers(0, 60).flatmap(lambda n: st.tuples(
    st.lists(st.integers(90, 100), min_size=n, max_size=n),  # loose bounds
    st.lists(st.integers(0, 6), min_size=n, max_size=n),  # what tightening takes off
    st.lists(st.text("ab/", min_size=1, max_size=4), min_size=n, max_size=n),  # paths
    st.integers(0, 12),  # the seed's size
    st.integers(85, 101),  # the floor
))


@settings(max_examples=400, deadline=None)
@given(cases)
def test_tightened_where_needed_gives_the_seed_and_floor_of_tightening_all(
    case: tuple[list[int], list[int], list[str], int, int],
) -> None:
    """``tightened_seed`` then ``tighten_from`` at the floor give the seed ``best_positions``
    picks over every tightened bound, and every tightened bound at or above the floor;
    untightened positions keep their upper bound."""
    loose_l, cut_off, paths, n, floor = case
    loose = np.array(loose_l, dtype=np.int64)
    eager = loose - np.array(cut_off, dtype=np.int64)
    lens = np.array([len(p) for p in paths], dtype=np.int64)
    # (each position's path made unique, as an index's are)
    paths = [f"{p}{j:03d}" for j, p in enumerate(paths)]
    lens = lens + 3
    asked: list[int] = []

    def tighten(at: Any) -> Any:
        asked.extend(at.tolist())
        return eager[at]

    def pick(values: Any, at: Any) -> list[int]:
        return best_positions(values, n, lambda j: paths[int(at[j])], lens[at])

    tight = loose.copy()
    done, seed = tightened_seed(tight, n, tighten, pick, np)
    assert seed == best_positions(eager, n, lambda j: paths[j], lens)
    assert (tight[done] == eager[done]).all()
    assert (tight[~done] == loose[~done]).all()
    tighten_from(floor, tight, tighten, done, np)
    mask = done & (tight >= floor)
    assert (mask == (eager >= floor)).all()
    assert (tight[mask] == eager[mask]).all()
    assert len(asked) == len(set(asked))  # (none tightened twice)


def test_tightening_stops_at_the_seed_and_the_floor() -> None:
    loose = np.array([100, 99, 98, 97, 50, 40, 30], dtype=np.int64)
    asked: list[int] = []

    def tighten(at: Any) -> Any:
        asked.extend(at.tolist())
        return loose[at] - 1

    def pick(values: Any, at: Any) -> list[int]:
        return best_positions(values, 2, lambda j: str(at[j]), None)

    tight = loose.copy()
    done, seed = tightened_seed(tight, 2, tighten, pick, np)
    assert seed == [0, 1]
    assert sorted(asked) == [0, 1, 2]  # (98 reaches 99 - 1, the second tightened)
    tighten_from(45, tight, tighten, done, np)
    assert sorted(asked) == [0, 1, 2, 3, 4]
    assert tight.tolist() == [99, 98, 97, 96, 49, 40, 30]


def test_tightened_a_part_at_a_time() -> None:
    """``tighten_from`` lists the positions a part at a time: the same, across parts."""
    loose = np.array([5, 9, 1, 9, 9, 2, 8, 9], dtype=np.int64)
    asked: list[list[int]] = []

    def tighten(at: Any) -> Any:
        asked.append(at.tolist())
        return loose[at] - 1

    tight = loose.copy()
    done = np.zeros(len(loose), dtype=bool)
    tighten_from(8, tight, tighten, done, np, 3)
    assert asked == [[1], [3, 4], [6, 7]]
    assert tight.tolist() == [5, 8, 1, 8, 8, 2, 7, 8]
    assert done.tolist() == [False, True, False, True, True, False, True, True]
