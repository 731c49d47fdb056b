"""What feeds a session's index, as ``(root number, batch)`` queued by the walk thread in an
``Inbox``: the walk of its roots, paths given, or the warm index's snapshot (the paths the query
can match first), then the validated listing (``REPLACE``) when it differs."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from ffind.options import SearchOptions
from ffind.searching.catalog import prefilter

FEED_BATCH = 4_096  # paths per batch when a ``paths=`` iterable feeds the session instead of a walk
FIRST_FRAME_WAIT = 1.0
"""Seconds the warm index's validation waits for the first frame of the snapshot's paths."""
REPLACE = -1  # the root number of a batch that replaces every path given before


class Inbox:
    """What the walk thread hands the match thread, guarded by ``cond``: the batches
    ``pending`` as ``(root number, batch)``, the paths ``scanned``, whether the pending paths
    ``replace`` the index; once the walk has ended (``done``), whether it finished
    (``complete``) or its ``error``."""

    def __init__(self, cond: threading.Condition) -> None:
        self.cond = cond
        self.pending: list[tuple[int, list[str]]] = []
        self.scanned = 0
        self.replace = False
        self.done = False
        self.complete = False
        self.error: BaseException | None = None

    def fill(self, source: Iterator[tuple[int, list[str]]], cancel: threading.Event) -> None:
        """(The walk thread) queue ``source``'s batches until it ends or ``cancel``; an error
        is kept for ``wait`` (the thread must not die silently)."""
        error: BaseException | None = None
        try:
            for root_id, batch in source:
                if cancel.is_set():
                    break
                if root_id != REPLACE and not batch:
                    continue
                with self.cond:
                    if root_id == REPLACE:
                        self.pending = [(0, batch)] if batch else []
                        self.scanned = len(batch)
                        self.replace = True
                    else:
                        self.pending.append((root_id, batch))
                        self.scanned += len(batch)
                    self.cond.notify_all()
        except BaseException as e:
            error = e
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()
            with self.cond:
                self.done = True
                self.complete = error is None and not cancel.is_set()
                self.error = error
                self.cond.notify_all()

    def take(self) -> tuple[list[tuple[int, list[str]]], bool]:
        """(Under ``cond``) the pending batches and whether they replace the index."""
        batches, self.pending = self.pending, []
        replace, self.replace = self.replace, False
        return batches, replace


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
