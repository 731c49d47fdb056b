"""The work a session does between keys, in short steps (the next key waits for one at most):
fill the published query's set, compact cold cached sets, then ``Index.warm``.  A slow key
takes ``warm`` steps before its answer."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ffind.searching.shared import SessionParts

if TYPE_CHECKING:
    from ffind.searching.shared import State

IDLE_DELAY = 0.01
"""Seconds after a state is published before idle work starts: the state's reader and a fast
typist's next key do not share the GIL with it."""
SLOW_KEY = 0.004  # seconds of a key's work from which it takes ``warm`` steps before answering
WARM_WITHIN = 0.02  # seconds a slow key may take in all with those steps
WARM_WITHIN_MOST = 262_144  # indexed paths from which slow keys take no ``warm`` steps
COLLECT_PER_PATH = 1.2e-7  # seconds per path of ``Index.warm``'s full collection
IDLE_SLICE = 16_384  # ids per idle step (what a key may wait for)


class IdleWork(SessionParts):
    """The idle steps of ``FileSearcher``'s match thread (a mixin: the session's own state)."""

    def _idle(self) -> bool:
        """Nothing pending, no report due, the first results shown, the warm walk over."""
        return not (self._pending or self._report_due or self._replace
                    or (self._reporter is not None and not self._last_report)
                    or self._state.covered == 0
                    or (self._cached and not self._walk_done))

    def _settled(self) -> bool:
        """Idle (``_idle``), and ``IDLE_DELAY`` past the last state published."""
        return self._idle() and time.monotonic() >= self._published + IDLE_DELAY

    def _settled_on(self, state: State) -> bool:
        """Settled, the walk over, ``state`` the current query's answer over every path."""
        return (self._walk_done and self._settled() and state.epoch == self._epoch
                and state.query == self._query and self._state_gen == self._gen
                and state.covered == len(self._index))

    @contextlib.contextmanager
    def _on_index(self) -> Iterator[None]:
        """The index lock held, the condition released (``set_query`` never waits)."""
        self._cond.release()
        try:
            with self._ilock:
                yield
        finally:
            self._cond.acquire()

    def _fill_step(self) -> bool:
        """``IDLE_SLICE`` more ids of the published set a shortcut left uncomputed (the next key
        narrows it); False when there is nothing to fill."""
        state = self._state
        ms = state.ms
        if ms is None or ms.computed or not self._settled_on(state):
            return False
        from ffind.query import parse

        if not parse(state.query).positive:
            return False  # (every id of its ranges: nothing a next key could narrow)
        filler = self._filler
        if filler is None or filler.ms is not ms:
            filler = self._filler = self._index.filler(ms, IDLE_SLICE)
        with self._on_index():
            if state.epoch == self._epoch:
                filler.step()
        if filler.finished and self._filler is filler:
            self._filler = None
        return True

    def _compact_step(self) -> bool:
        """Compact one cached set the published state does not read; False when none is left."""
        state = self._state
        if (self._compacted == state.version or state.ms is None
                or state.epoch != self._epoch or not self._settled()):
            return False
        with self._on_index():
            done = self._index.compact([c.ms for c in self._cache.values()], [state.ms], most=1)
        if not done:
            self._compacted = state.version
        return True

    def _warm_up_step(self) -> bool:
        """One ``Index.warm`` step (its full collection once settled); False when none."""
        if self._warmed == len(self._index) or not self._idle() or (
                self._warm_next == self._index.COLLECTING and not self._settled()):
            return False
        self._cond.release()
        try:
            self._warm_one()
        finally:
            self._cond.acquire()
        return True

    def _warm_one(self) -> bool:
        """One step of ``Index.warm`` (the condition not held); False when it had ended."""
        warmer = self._warmer
        if warmer is None:
            warmer = self._warmer = self._index.warm()
        with self._ilock:
            t = time.monotonic()
            more = True
            try:
                did = next(warmer)
            except StopIteration:
                more, did = False, None
                self._warmed = len(self._index)
            self._warm_took = time.monotonic() - t
        self._warm_next = did
        if not more:
            self._warmer = None
        return more

    def _warm_within(self, started: float, gen: int) -> None:
        """A key that took ``SLOW_KEY`` takes ``warm`` steps while they fit in ``WARM_WITHIN``
        and no newer key came."""
        if time.monotonic() - started < SLOW_KEY or len(self._index) >= WARM_WITHIN_MOST:
            return
        while self._gen == gen:
            took = (COLLECT_PER_PATH * len(self._index) if self._warm_next == self._index.COLLECTING
                    else self._warm_took)
            if time.monotonic() + took - started >= WARM_WITHIN:
                return
            with self._cond:
                if self._warmed == len(self._index) or not self._idle():
                    return
            if not self._warm_one():
                return
