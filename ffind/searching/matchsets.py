"""A session's matching: a new query starts from the longest cached query it narrows (one more
character re-filters only the previous matches), else every path; in chunks of ``CHUNK`` ids,
abandoned between chunks when a newer key comes (``Cancelled``)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ffind.engine.index import Index, MatchSet
    from ffind.scoring.scorer import FileMatch

CHUNK = 32_768  # ids matched per ``Index.run`` call: the preemption grain
CACHE_QUERIES = 16  # match sets kept for reuse (backspacing, narrowing from an older prefix)


@dataclass(slots=True)
class State:
    """A published result: every match of ``query`` among ids ``[0, covered)``."""

    query: str
    ms: MatchSet | None  # None before the index exists
    covered: int
    version: int
    tops: dict[tuple[int | None, bool], list[FileMatch]]  # by (limit, compute_indices)
    count: int | None = None  # ``len(ms)``, once asked (it may cost a typo pass)
    epoch: int = 0  # the index ``ms`` belongs to (a replaced listing starts a new one)


class Cancelled(Exception):
    """Raised inside the match thread when its work went stale."""


class MatchSets:
    """The last ``CACHE_QUERIES`` states by query, and the matching of a query from them over
    the index, every ``Index`` call under ``lock``; ``check()`` raises ``Cancelled`` between
    chunks when the work went stale."""

    def __init__(self, lock: threading.Lock, check: Callable[[], None]) -> None:
        self.lock = lock
        self.check = check
        self.states: OrderedDict[str, State] = OrderedDict()

    def fresh(self, index: Index, query: str, n: int,
              partial: Callable[[MatchSet | None], MatchSet | None]) -> MatchSet:
        """``query`` over ids ``[0, n)``, narrowed from the longest cached query it extends
        (``partial(ms)``: the part of ``ms`` computed in idle time, if any)."""
        # The longest query narrowed, not the smallest set (``len`` may cost a typo pass).
        bases = [c for c in self.states.values() if c.ms is not None and c.ms.can_narrow(query)]
        if not bases:
            return self.run(index, query, None, 0, n)
        base = max(bases, key=lambda c: len(c.query))
        ms, covered = base.ms, base.covered
        # (its first ids computed in idle time: those narrowed, the others from scratch)
        narrowed = self.run(index, query, ms, 0, covered, partial(ms))
        if covered == n:
            return narrowed
        return self.merge(narrowed, self.run(index, query, None, covered, n))

    def run(self, index: Index, query: str, within: MatchSet | None, start: int, end: int,
            hint: MatchSet | None = None) -> MatchSet:
        """``Index.run`` over ids ``[start, end)``, in chunks."""
        acc: MatchSet | None = None
        lo = start
        while True:
            self.check()
            hi = min(lo + CHUNK, end)
            with self.lock:
                part = index.run(query, within=within, start=lo, end=hi, hint=hint)
            acc = part if acc is None else self.merge(acc, part)
            lo = hi
            if lo >= end:
                return acc

    def merge(self, a: MatchSet, b: MatchSet) -> MatchSet:
        # Under the index lock: a merge may compute a lazy MatchSet, which reads the index.
        with self.lock:
            return a.merge(b)

    def remember(self, state: State) -> None:
        self.states[state.query] = state
        self.states.move_to_end(state.query)
        while len(self.states) > CACHE_QUERIES:
            self.states.popitem(last=False)

    def compact(self, index: Index, keep: list[MatchSet | None], most: int | None = None,
                ) -> int:
        """Compact the cached sets but ``keep``'s (``most`` of them at most); how many were."""
        with self.lock:
            return index.compact([c.ms for c in self.states.values()], keep, most=most)
