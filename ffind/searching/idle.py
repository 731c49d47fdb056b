"""The work a session does between keys, in short steps (the next key waits for one at most):
fill the published query's set, find its last term's greedy ends, compact cold cached sets,
then ``Index.warm``.  A slow key takes ``warm`` steps before its answer.  The session says when
(idle, settled); ``IdleWork`` keeps how far each kind of work has got."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ffind.engine.index import Ender, Filler, Index, MatchSet
    from ffind.searching.matchsets import MatchSets, State

IDLE_DELAY = 0.01
"""Seconds after a state is published before idle work starts: the state's reader and a fast
typist's next key do not share the GIL with it."""
SLOW_KEY = 0.004  # seconds of a key's work from which it takes ``warm`` steps before answering
WARM_WITHIN = 0.02  # seconds a slow key may take in all with those steps
WARM_WITHIN_MOST = 262_144  # indexed paths from which slow keys take no ``warm`` steps
COLLECT_PER_PATH = 1.2e-7  # seconds per path of ``Index.warm``'s full collection
IDLE_SLICE = 16_384  # ids per idle step (what a key may wait for)


class IdleWork:
    """One index's idle work (a session makes a new one with each index): its steps run on the
    match thread holding ``cond``, released while the index (``lock``) is worked on, so that
    ``set_query`` never waits."""

    def __init__(self, index: Index, cond: threading.Condition, lock: threading.Lock) -> None:
        self.index, self.cond, self.lock = index, cond, lock
        self.warmer: Iterator[str | None] | None = None  # Index.warm(), while it runs
        self.warmed = -1  # how many paths Index.warm covered when it last ended
        self.warm_next: str | None = None  # what its last step yielded
        self.warm_took = 0.0  # the seconds its last step took
        self.filler: Filler | None = None  # the published state's set, computed when idle
        self.ender: Ender | None = None  # its last term's greedy ends, found when idle
        self.compacted = -1  # the state version whose idle sets were last compacted

    @contextlib.contextmanager
    def _on_index(self) -> Iterator[None]:
        self.cond.release()
        try:
            with self.lock:
                yield
        finally:
            self.cond.acquire()

    def step(self, state: State, sets: MatchSets, *, idle: bool, settled: bool, here: bool,
             current: bool) -> bool:
        """One step of the first work there is; False when there is none.  ``idle``: nothing
        else to do; ``settled``: for ``IDLE_DELAY``; ``here``: and ``state`` is of this index;
        ``current``: and the walk is over, ``state`` the query's answer over every path."""
        return (current and (self._fill(state) or self._ends(state))) or (
            here and self._compact(state, sets)) or self.warm_up(idle, settled)

    def _fill(self, state: State) -> bool:
        """``IDLE_SLICE`` more ids of the published set a shortcut left uncomputed (the next key
        narrows it)."""
        ms = state.ms
        if ms is None or ms.computed:
            return False
        from ffind.query import parse

        if not parse(state.query).positive and not parse(state.query).groups:
            return False  # (every id of its ranges: nothing a next key could narrow)
        filler = self.filler
        if filler is None or filler.ms is not ms:
            filler = self.filler = self.index.filler(ms, IDLE_SLICE)
        with self._on_index():
            filler.step()
        if filler.finished and self.filler is filler:
            self.filler = None
        return True

    def _ends(self, state: State) -> bool:
        """``IDLE_SLICE`` more greedy ends of the published set's last term (the next key of
        that term narrows from them)."""
        ms = state.ms
        if ms is None or not ms.computed:
            return False
        ender = self.ender
        if ender is not None and ender.ms is ms and ender.finished:
            return False
        with self._on_index():
            if ender is None or ender.ms is not ms:
                ender = self.index.ender(ms, IDLE_SLICE)
            ender.step()
        self.ender = ender
        return not (ender.finished and ender.upto == 0)

    def _compact(self, state: State, sets: MatchSets) -> bool:
        """Compact one cached set the published state does not read."""
        if self.compacted == state.version or state.ms is None:
            return False
        self.cond.release()
        try:
            done = sets.compact(self.index, [state.ms], most=1)
        finally:
            self.cond.acquire()
        if not done:
            self.compacted = state.version
        return True

    def warm_up(self, idle: bool, settled: bool) -> bool:
        """One ``Index.warm`` step (its full collection once settled)."""
        if self.warmed == len(self.index) or not idle or (
                self.warm_next == self.index.COLLECTING and not settled):
            return False
        self.cond.release()
        try:
            self.warm_one()
        finally:
            self.cond.acquire()
        return True

    def warm_one(self) -> bool:
        """One step of ``Index.warm`` (the condition not held); False when it had ended."""
        warmer = self.warmer
        if warmer is None:
            warmer = self.warmer = self.index.warm()
        with self.lock:
            t = time.monotonic()
            more = True
            try:
                did = next(warmer)
            except StopIteration:
                more, did = False, None
                self.warmed = len(self.index)
            self.warm_took = time.monotonic() - t
        self.warm_next = did
        if not more:
            self.warmer = None
        return more

    def warm_within(self, started: float, current: Callable[[], bool],
                    idle: Callable[[], bool]) -> None:
        """A key that took ``SLOW_KEY`` takes ``warm`` steps while they fit in ``WARM_WITHIN``
        and it is ``current()`` (no newer key came); ``idle()`` is asked holding ``cond``."""
        n = len(self.index)
        if time.monotonic() - started < SLOW_KEY or n >= WARM_WITHIN_MOST:
            return
        while current():
            took = (COLLECT_PER_PATH * n if self.warm_next == self.index.COLLECTING
                    else self.warm_took)
            if time.monotonic() + took - started >= WARM_WITHIN:
                return
            with self.cond:
                if self.warmed == n or not idle():
                    return
            if not self.warm_one():
                return

    def partial(self, ms: MatchSet | None) -> MatchSet | None:
        """The part of ``ms`` the idle filler computed so far, if any (the filler is dropped)."""
        filler = self.filler
        if (ms is None or ms.computed or filler is None or filler.ms is not ms
                or filler.upto <= filler.start):
            return None
        self.filler = None
        return filler.done()
