"""A session's matching: a new query starts from the longest cached query it narrows (one more
character re-filters only the previous matches), else every path; in chunks of ``CHUNK`` ids,
abandoned between chunks when a newer key comes (``Cancelled``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffind.searching.shared import Cancelled, SessionParts, State

if TYPE_CHECKING:
    from ffind.engine.index import MatchSet

CHUNK = 32_768  # ids matched per ``Index.run`` call: the preemption grain
CACHE_QUERIES = 16  # match sets kept for reuse (backspacing, narrowing from an older prefix)


class QueryCache(SessionParts):
    """The matching of ``FileSearcher``'s match thread (a mixin: the session's own state)."""

    def _fresh(self, query: str, n: int, gen: int) -> MatchSet:
        # The longest query narrowed, not the smallest set (``len`` may cost a typo pass).
        bases = [c for c in self._cache.values() if c.ms is not None and c.ms.can_narrow(query)]
        if not bases:
            return self._run(query, None, 0, n, gen)
        base = max(bases, key=lambda c: len(c.query))
        ms, covered = base.ms, base.covered
        partial = self._partial(ms)
        # (its first ids computed in idle time: those narrowed, the others from scratch)
        narrowed = self._run(query, ms, 0, covered, gen, partial)
        if covered == n:
            return narrowed
        return self._merge(narrowed, self._run(query, None, covered, n, gen))

    def _run(self, query: str, within: MatchSet | None, start: int, end: int, gen: int,
             hint: MatchSet | None = None) -> MatchSet:
        """``Index.run`` over ids ``[start, end)``, in chunks."""
        acc: MatchSet | None = None
        lo = start
        while True:
            self._check(gen)
            hi = min(lo + CHUNK, end)
            with self._ilock:
                part = self._index.run(query, within=within, start=lo, end=hi, hint=hint)
            acc = part if acc is None else self._merge(acc, part)
            lo = hi
            if lo >= end:
                return acc

    def _merge(self, a: MatchSet, b: MatchSet) -> MatchSet:
        # Under the index lock: a merge may compute a lazy MatchSet, which reads the index.
        with self._ilock:
            return a.merge(b)

    def _check(self, gen: int) -> None:
        if self._gen != gen or self._cancel.is_set():
            raise Cancelled

    def _remember(self, state: State) -> None:
        self._cache[state.query] = state
        self._cache.move_to_end(state.query)
        while len(self._cache) > CACHE_QUERIES:
            self._cache.popitem(last=False)

    def _compact_idle(self, new: State, old: State) -> None:
        """Compact the cached sets neither state reads, before a ranking (the memory's peak)."""
        with self._ilock:
            self._index.compact([c.ms for c in self._cache.values()], [new.ms, old.ms])

    def _partial(self, ms: MatchSet | None) -> MatchSet | None:
        """The part of ``ms`` the idle filler computed so far, if any (the filler is dropped)."""
        filler = self._filler
        if (ms is None or ms.computed or filler is None or filler.ms is not ms
                or filler.upto <= filler.start):
            return None
        self._filler = None
        return filler.done()
