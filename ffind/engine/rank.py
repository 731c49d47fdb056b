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
from typing import Any

Scored = tuple[int, int]
"""(score, id)"""


def sort_key(paths: Sequence[str]) -> Callable[[Scored], tuple[int, int, str]]:
    def key(item: Scored) -> tuple[int, int, str]:
        p = paths[item[1]]
        return (-item[0], len(p), p)

    return key


WIDE = 4
"""A selection runs through numpy once there are more than ``WIDE`` times as many candidates
as places (below that, sorting a handful of Python tuples is cheaper than the arrays)."""


def best(
    pool: list[Scored], paths: Sequence[str], limit: int | None, lens: Any = None
) -> list[Scored]:
    """The ``limit`` best of ``pool`` in rank order (all of them when ``limit`` is None).

    ``lens``: the length of every path (a numpy array by id), or None.  With it, a large pool
    is first cut in numpy to the entries whose (score, length) is at least the ``limit``-th
    best, which keeps every entry of the answer; the tie-break by path then sorts only
    those (in pool order, so equal keys keep the order ``heapq.nsmallest`` gives them)."""
    key = sort_key(paths)
    if limit is None:
        return sorted(pool, key=key)
    if lens is not None and limit > 0 and WIDE * limit < len(pool):
        import numpy as np

        arr = np.array(pool, dtype=np.int64).reshape(-1, 2)
        plen = lens[arr[:, 1]].astype(np.int64)
        # (score descending, length ascending) as one int64
        k = -arr[:, 0] * (int(plen.max()) + 1) + plen
        cut = np.partition(k, limit - 1)[limit - 1]
        pool = [pool[j] for j in np.flatnonzero(k <= cut).tolist()]
    return heapq.nsmallest(limit, pool, key=key)


SPAN_COUNTED = 65536
"""Up to what spread of values ``nth_highest`` counts them (``bincount``) instead of partitioning
them."""


def nth_highest(x: Any, n: int, np: Any) -> int:
    """The ``n``-th highest value of the int64 array ``x`` (``1 <= n <= len(x)``)."""
    lo, hi = int(x.min()), int(x.max())
    if hi - lo <= SPAN_COUNTED:
        # (how many are at each value, from the highest down, summed until ``n``)
        above = np.cumsum(np.bincount(x - lo)[::-1])
        return hi - int(np.searchsorted(above, n))
    return int(x[np.argpartition(x, len(x) - n)[len(x) - n]])


def fewest(lens: Any, n: int) -> Any:
    """A mask of the entries of the numpy array ``lens`` at most its ``n``-th smallest value:
    they hold every one of the ``n`` first by (length, anything)."""
    import numpy as np

    return lens <= np.partition(lens, n - 1)[n - 1]


class TopK:
    """Keeps the ``k`` highest scores seen, to know when remaining bounds cannot compete.
    ``least``: only scores of at least this are wanted (a bound below it cannot compete
    either)."""

    def __init__(self, k: int | None, least: int | None = None) -> None:
        self.k = k
        self.least = least
        self._heap: list[int] = []

    def copy(self) -> TopK:
        """A ``TopK`` holding the same scores, to add to without changing this one."""
        other = TopK(self.k, self.least)
        other._heap = list(self._heap)
        return other

    def add_many(self, scores: Iterable[int]) -> None:
        """``add`` each of ``scores``: the heap ends up holding the same ``k`` highest."""
        if self.k is None or self.k <= 0:
            return
        self._heap = heapq.nlargest(self.k, [*self._heap, *scores])
        heapq.heapify(self._heap)

    def add(self, score: int) -> None:
        if self.k is None or self.k <= 0:
            return
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, score)
        elif score > self._heap[0]:
            heapq.heapreplace(self._heap, score)

    def floor(self) -> float:
        """The lowest score that can still enter (the ``k``-th best so far, or ``least``), or
        -inf."""
        kth: float = float("-inf")
        if self.k is not None and self.k > 0 and len(self._heap) >= self.k:
            kth = self._heap[0]
        return kth if self.least is None else max(kth, self.least)

    def beats(self, bound: int) -> bool:
        """True when nothing bounded by ``bound`` can enter: ``bound`` is below ``least``, or
        ``k`` scores are strictly above it."""
        return self.below(bound) or self.above(bound)

    def below(self, bound: int) -> bool:
        """True when ``bound`` is below ``least``."""
        return self.least is not None and bound < self.least

    def above(self, bound: int) -> bool:
        """True when ``k`` scores are strictly above ``bound``."""
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


def first_by_ties(
    ids: list[int], limit: int, paths: Sequence[str], lens: Any = None
) -> list[int]:
    """The ``limit`` first of ``ids`` by the tie-breaks (shorter path, then path); ``lens``:
    every path's length (numpy, by id) or None."""
    if lens is not None and limit > 0 and WIDE * limit < len(ids):
        import numpy as np

        a = np.asarray(ids, dtype=np.int64)
        near = a[fewest(lens[a], limit)].tolist()
    else:
        ln = [len(paths[i]) for i in ids]
        cut = heapq.nsmallest(limit, ln)[-1]
        near = [i for i, n in zip(ids, ln, strict=True) if n <= cut]
    return heapq.nsmallest(limit, near, key=lambda i: (len(paths[i]), paths[i]))


def best_positions(
    values: list[int], n: int, path_of: Callable[[int], str], lens_of: Any = None
) -> list[int]:
    """Positions of the ``n`` highest ``values``, ties by the results' tie-breaks (shorter
    ``path_of(j)`` first, then by path): never by position, which depends on the order the
    paths were added in (a parallel walk's batches interleave differently at every run).
    ``lens_of``: ``len(path_of(j))`` for every position (a numpy array), or None."""
    if n <= 0:
        return []
    if len(values) <= n:
        return list(range(len(values)))
    at: list[int]
    if lens_of is not None and WIDE * n < len(values):
        import numpy as np

        v = np.asarray(values, dtype=np.int64)
        cut = nth_highest(v, n, np)
        above = np.flatnonzero(v > cut).tolist()
        where = np.flatnonzero(v == cut)
        need = n - len(above)
        if len(where) > need:
            where = where[fewest(lens_of[where], need)]
        at = where.tolist()
    else:
        cut = heapq.nlargest(n, values)[-1]
        above = [j for j, v in enumerate(values) if v > cut]
        at = [j for j, v in enumerate(values) if v == cut]
        need = n - len(above)
    if len(at) > need:
        at = heapq.nsmallest(need, at, key=lambda j: (len(path_of(j)), path_of(j)))
    return sorted(above + at, key=lambda j: (-values[j], j))


BATCH_FROM = 24
"""From how many ids a group is scored by ``score_many`` (below, one call per id is cheaper
than the batch's fixed cost)."""


class BranchAndBound:
    """Branch and bound over groups of candidates sharing an upper bound (``by_bound``).

    Groups are scored exactly (``score(id)``, None when it does not match) while they fit in
    what is left of ``budget``; the first group that does not fit and every group after it
    get a cheap score (the bound less ``slack``), so a huge group of equal bounds (``s/``
    over 100k paths) is ranked by the tie-breaks alone.  The budget is spent in bound order,
    so the outcome depends only on the candidate set: ``limit=k`` stays the prefix of
    ``limit=None``.  Scores go to ``pool`` (``(score, id)``) and ``topk``.
    """

    def __init__(
        self, score: Callable[[int], int | None], paths: Sequence[str], topk: TopK,
        pool: list[Scored], limit: int | None, budget: int, slack: int, lens: Any = None,
        score_many: Callable[[list[int], float, TopK | None], list[int | None]] | None = None,
    ) -> None:
        self.score = score
        self.score_many = score_many
        """``score`` of many ids at once, given the floor (``TopK.floor``): the same scores,
        but that one below the floor may be any value below it (it cannot enter); or None"""
        self.paths = paths
        self.lens = lens
        """every path's length (numpy, by id) for ``first_by_ties``, or None"""
        self.topk = topk
        self.pool = pool
        self.limit = limit
        self.budget = budget
        self.slack = slack

    def visit(self, groups: list[tuple[int, list[int]]], stop_at: int | None) -> int:
        """Score groups in order until the rest cannot compete (or their bound is below
        ``stop_at``); returns how many groups were consumed.  A group may be a numpy array
        of ids (``ranker.grouped``), read as a list only when it is visited."""
        topk, pool, score, limit = self.topk, self.pool, self.score, self.limit
        for n, (bound, group) in enumerate(groups):
            if topk.beats(bound) or (stop_at is not None and bound < stop_at):
                return n
            if not isinstance(group, list):  # (a numpy array: ``ranker.grouped``'s)
                group = group.tolist()
            if len(group) <= self.budget:
                self.budget -= len(group)
                many = self.score_many
                got = (many(group, topk.floor(), topk)
                       if many is not None and len(group) >= BATCH_FROM else map(score, group))
                for i, s in zip(group, got, strict=True):
                    if s is not None:
                        pool.append((s, i))
                        topk.add(s)
                continue
            self.budget = 0
            s = bound - self.slack
            cheap = group
            if limit is not None and len(cheap) > limit:
                # one score for the whole group: only its ``limit`` best by the tie-breaks
                # can be among the ``limit`` best of all
                cheap = first_by_ties(cheap, limit, self.paths, self.lens)
            pool.extend([(s, i) for i in cheap])
            topk.add_many([s] * len(cheap))
        return len(groups)

    def visit_exact(self, groups: list[tuple[int, list[int]]]) -> bool:
        """Score groups exactly, in order, until the rest cannot compete; False (and nothing
        of the group scored) at the first group that does not fit in the budget: the full
        ranking would give it cheap scores, so a shortcut must leave the answer to it."""
        for bound, group in groups:
            if self.topk.beats(bound):
                break
            if len(group) > self.budget:
                return False
            self.visit([(bound, group)], None)
        return True
