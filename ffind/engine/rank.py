"""Ordering after the score: tie-breaks, top-k selection by branch and bound.

- Best first: higher score; then the shorter path; then the path, ascending (Codex's rule), so
  the order is deterministic.  The hidden-path preference and the file-name length are part
  of the score (``ffind.scoring.scorer``), so this order is the whole story.
- Top-k without sorting everything: candidates come grouped by an *upper bound* of their
  score (cheap, computed in bulk); the exact scorer runs group by group, best bound first,
  and stops as soon as ``k`` exact scores are strictly above every remaining bound.  The
  result is exactly the first ``k`` of the full ranking (``limit=k`` is a prefix of
  ``limit=None``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence

Scored = tuple[int, int]
"""(score, id)"""


def sort_key(paths: Sequence[str]) -> Callable[[Scored], tuple[int, int, str]]:
    def key(item: Scored) -> tuple[int, int, str]:
        p = paths[item[1]]
        return (-item[0], len(p), p)

    return key


def best(pool: Iterable[Scored], paths: Sequence[str], limit: int | None) -> list[Scored]:
    """The ``limit`` best of ``pool`` in rank order (all of them when ``limit`` is None)."""
    key = sort_key(paths)
    if limit is None:
        return sorted(pool, key=key)
    return heapq.nsmallest(limit, pool, key=key)


class TopK:
    """Keeps the ``k`` highest scores seen, to know when remaining bounds cannot compete."""

    def __init__(self, k: int | None) -> None:
        self.k = k
        self._heap: list[int] = []

    def add(self, score: int) -> None:
        if self.k is None or self.k <= 0:
            return
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, score)
        elif score > self._heap[0]:
            heapq.heapreplace(self._heap, score)

    def floor(self) -> float:
        """The lowest score that can still enter (the ``k``-th best so far), or -inf."""
        if self.k is not None and self.k > 0 and len(self._heap) >= self.k:
            return self._heap[0]
        return float("-inf")

    def beats(self, bound: int) -> bool:
        """True when ``k`` scores are strictly above ``bound`` (nothing bounded by it can enter)."""
        if self.k is None:
            return False
        if self.k <= 0:
            return True
        return len(self._heap) >= self.k and self._heap[0] > bound


def by_bound(ids: Iterable[int], bounds: Iterable[int]) -> list[tuple[int, list[int]]]:
    """Group ``ids`` by bound, highest bound first."""
    groups: dict[int, list[int]] = {}
    for i, b in zip(ids, bounds, strict=True):
        g = groups.get(b)
        if g is None:
            groups[b] = [i]
        else:
            g.append(i)
    return sorted(groups.items(), reverse=True)
