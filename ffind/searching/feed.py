"""What feeds a session's index, as ``(root number, batch)`` queued by the walk thread: the walk of
its roots, paths given, or the warm index's snapshot (the paths the query can match first), then
the validated listing (``REPLACE``) when it differs."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from ffind.options import SearchOptions
from ffind.searching.catalog import prefilter
from ffind.searching.shared import SessionParts

FEED_BATCH = 4_096  # paths per batch when a ``paths=`` iterable feeds the session instead of a walk
FIRST_FRAME_WAIT = 1.0
"""Seconds the warm index's validation waits for the first frame of the snapshot's paths."""
REPLACE = -1  # the root number of a batch that replaces every path given before


class WalkFeed(SessionParts):
    """The walk thread of ``FileSearcher`` (a mixin: the session's own state)."""

    def _walk_all(self) -> Iterator[tuple[int, list[str]]]:
        if self._cached:
            return warm_root(self.roots[0], self.options, self._cancel, self._warn,
                             self._walk_imported, self._shown, lambda: self._query,
                             self._caught_up)
        self._walk_imported.set()
        return walk_roots(self.roots, self.options, self._cancel, self._warn)

    def _caught_up(self) -> None:
        """Wait (``FIRST_FRAME_WAIT`` at most) until every path handed over is matched, so
        the validation's ``stat`` pass does not compete with it for the GIL."""
        with self._cond:
            self._cond.wait_for(lambda: self._cancel.is_set() or (
                not self._pending and self._state.covered >= self._scanned), FIRST_FRAME_WAIT)

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        on_warning = getattr(self._reporter, "on_warning", None)
        if on_warning is not None:
            on_warning(message)

    def _walk_main(self, source: Iterator[tuple[int, list[str]]]) -> None:
        error: BaseException | None = None
        try:
            for root_id, batch in source:
                if self._cancel.is_set():
                    break
                if root_id == REPLACE:
                    with self._cond:
                        self._pending = [(0, batch)] if batch else []
                        self._scanned = len(batch)
                        self._replace = True
                        self._cond.notify_all()
                    continue
                if not batch:
                    continue
                with self._cond:
                    self._pending.append((root_id, batch))
                    self._scanned += len(batch)
                    self._cond.notify_all()
        except BaseException as e:  # reported through wait(); the thread must not die silently
            error = e
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()
            with self._cond:
                self._walk_done = True
                self._walk_complete = error is None and not self._cancel.is_set()
                self._error = error
                self._cond.notify_all()


def walk_roots(roots: list[str], options: SearchOptions, cancel: threading.Event,
               warn: Callable[[str], None]) -> Iterator[tuple[int, list[str]]]:
    """Every root's walk in turn, as ``(root number, batch)``, until ``cancel``."""
    from ffind.fs.walk import walk_batches

    for i, root in enumerate(roots):
        batches = walk_batches(root, options, cancel=cancel, on_warning=warn)
        try:
            for batch in batches:
                yield i, batch
                if cancel.is_set():
                    return
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()


def warm_root(root: str, options: SearchOptions, cancel: threading.Event,
              warn: Callable[[str], None], imported: threading.Event, shown: threading.Event,
              query: Callable[[], str] = str, caught_up: Callable[[], object] | None = None,
              ) -> Iterator[tuple[int, list[str]]]:
    """One root's listing through the warm index, as ``(0, batch)`` or ``(REPLACE, listing)``,
    the paths ``query()`` can match first; validated once ``shown`` and ``caught_up()``."""
    from ffind.fs.warm import session_batches

    imported.set()
    batches = session_batches(root, options, cancel=cancel, on_warning=warn,
                              pause=lambda: shown.wait(FIRST_FRAME_WAIT),
                              first=lambda paths: candidates_first(query(), paths),
                              settle=caught_up)
    try:
        for replace, batch in batches:
            yield (REPLACE if replace else 0), batch
            if cancel.is_set():
                return
    finally:
        batches.close()


def candidates_first(query: str, paths: list[str]) -> tuple[list[str], list[str]]:
    """``paths`` split into those ``query`` can match and the others; ``(paths, [])`` when
    that does not pay (no positive term, nothing or more than half kept)."""
    keep = prefilter(query)
    if keep is None:
        return paths, []
    head = keep(paths)
    if not head or 2 * len(head) > len(paths):
        return paths, []
    chosen = set(head)
    return head, [p for p in paths if p not in chosen]
