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


def first_by_ties(ids: list[int], limit: int, paths: Sequence[str]) -> list[int]:
    """The ``limit`` first of ``ids`` by the tie-breaks (shorter path, then path)."""
    lens = [len(paths[i]) for i in ids]
    cut = heapq.nsmallest(limit, lens)[-1]
    near = [i for i, n in zip(ids, lens, strict=True) if n <= cut]
    return heapq.nsmallest(limit, near, key=lambda i: (len(paths[i]), paths[i]))


def best_positions(values: list[int], n: int, path_of: Callable[[int], str]) -> list[int]:
    """Positions of the ``n`` highest ``values``, ties by the results' tie-breaks (shorter
    ``path_of(j)`` first, then by path): never by position, which depends on the order the
    paths were added in (a parallel walk's batches interleave differently at every run)."""
    if n <= 0:
        return []
    if len(values) <= n:
        return list(range(len(values)))
    cut = heapq.nlargest(n, values)[-1]
    above = [j for j, v in enumerate(values) if v > cut]
    at = [j for j, v in enumerate(values) if v == cut]
    need = n - len(above)
    if len(at) > need:
        at = heapq.nsmallest(need, at, key=lambda j: (len(path_of(j)), path_of(j)))
    return sorted(above + at, key=lambda j: (-values[j], j))


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
        pool: list[Scored], limit: int | None, budget: int, slack: int,
    ) -> None:
        self.score = score
        self.paths = paths
        self.topk = topk
        self.pool = pool
        self.limit = limit
        self.budget = budget
        self.slack = slack

    def visit(self, groups: list[tuple[int, list[int]]], stop_at: int | None) -> int:
        """Score groups in order until the rest cannot compete (or their bound is below
        ``stop_at``); returns how many groups were consumed."""
        topk, pool, score, limit = self.topk, self.pool, self.score, self.limit
        for n, (bound, group) in enumerate(groups):
            if topk.beats(bound) or (stop_at is not None and bound < stop_at):
                return n
            if len(group) <= self.budget:
                self.budget -= len(group)
                for i in group:
                    s = score(i)
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
                cheap = first_by_ties(cheap, limit, self.paths)
            pool.extend([(s, i) for i in cheap])
            for _ in cheap:
                topk.add(s)
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
