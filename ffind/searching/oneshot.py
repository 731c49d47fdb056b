"""``search()``: walk + index + match in one call; what the ``ffind`` command runs.  The walk's
workers drop the paths the query cannot match (the rest rank as in a whole index); each batch
is matched as it arrives.  Without a query every path is listed in path order, like fd."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from ffind.frozen import replace
from ffind.options import SearchOptions, check_options, check_query
from ffind.searching.catalog import (
    KeepVisited,
    Recalling,
    answer,
    batched,
    list_every,
    prefilter,
    servable_memory,
    walk_filter,
)
from ffind.searching.merge import as_roots, check_roots, merge, ranked

if TYPE_CHECKING:
    from ffind.engine.index import Prefilter, VisitSource
    from ffind.fs.walk import Cancel
    from ffind.scoring.scorer import FileMatch

__all__ = ["FileSearchResults", "search", "search_paths"]


class FileSearchResults:
    """What :func:`search` returns: ``matches``, ``total_match_count``, ``walk_complete``;
    unpacks and compares like that tuple.  The count may be computed on first access."""

    __slots__ = ("_count", "_total", "matches", "walk_complete")

    def __init__(
        self, matches: list[FileMatch], total_match_count: int | Callable[[], int],
        walk_complete: bool,
    ) -> None:
        self.matches = matches  # best first (path order when the query is empty), at most ``limit``
        self.walk_complete = walk_complete
        """False when the search was cancelled before the walk finished."""
        self._total: int | None = None
        self._count: Callable[[], int] | None = None
        if isinstance(total_match_count, int):
            self._total = total_match_count
        else:
            self._count = total_match_count

    @property
    def total_match_count(self) -> int:
        """How many paths matched before the limit cut, typo matches included (Codex's field)."""
        if self._total is None:
            assert self._count is not None
            self._total = self._count()
            self._count = None
        return self._total

    def _astuple(self) -> tuple[list[FileMatch], int, bool]:
        return (self.matches, self.total_match_count, self.walk_complete)

    def __iter__(self) -> Iterator[object]:
        return iter(self._astuple())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FileSearchResults):
            return self._astuple() == other._astuple()
        if isinstance(other, tuple):
            return self._astuple() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"FileSearchResults(matches={self.matches!r}, "
                f"total_match_count={self.total_match_count!r}, "
                f"walk_complete={self.walk_complete!r})")


class _Cancel:
    """The caller's cancel flag, or ours, set when an exception (Ctrl-C) stops the search."""

    __slots__ = ("_event", "_outer")

    def __init__(self, outer: Cancel | None) -> None:
        self._outer = outer
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set() or (self._outer is not None and self._outer.is_set())


class Started(Protocol):
    """A walk started before the search (the console script's, ``ffind.frontends.early``)."""

    def take(self, root: str, options: SearchOptions) -> tuple[int, int] | None: ...

    def close(self) -> None: ...


Total = int | Callable[[], int]


def _match_batches(
    query: str, batches: Iterable[list[str]], options: SearchOptions, cancel: _Cancel,
    eager_count: bool = False, recall: Recalling | None = None,
    stale: Callable[[], bool] | None = None,
) -> tuple[list[FileMatch], Total, bool]:
    """Match every batch as it arrives: (top matches, total or its callable, complete).
    ``stale()``, asked once the batches are read: True throws them away."""
    limit = options.limit
    if not query:
        # No query: every path, in path order; no matcher (and no rapidfuzz import) needed.
        paths: list[str] = []
        for batch in batches:
            paths.extend(batch)
        if stale is not None and stale():
            return [], 0, False
        complete = not cancel.is_set()
        return list_every(paths, options, recall, complete), len(paths), complete

    from ffind.engine.index import Index

    index = Index()
    matchset = None
    for batch in batches:
        start = len(index)
        index.extend(batch)
        index.prepare(query, start, limit)
        part = index.run(query, start=start)
        if eager_count:
            len(part)  # finds this batch's typo matches now, while the walk goes on
        matchset = part if matchset is None else matchset.merge(part)
    if stale is not None and stale():
        return [], 0, False
    if matchset is None:
        matchset = index.run(query)
    top = answer(index, query, matchset, limit, options.compute_indices, recall)
    return top, matchset.__len__, not cancel.is_set()


def _sum(totals: list[Total]) -> Total:
    if all(isinstance(t, int) for t in totals):
        return sum(t for t in totals if isinstance(t, int))
    return lambda: sum(t if isinstance(t, int) else t() for t in totals)


def _walk_one(
    query: str, root: str, options: SearchOptions, cancel: _Cancel,
    on_warning: Callable[[str], None] | None, eager_count: bool,
    memory: VisitSource | None = None, cache: bool = False, server: bool = True,
    started: Started | None = None,
) -> tuple[list[FileMatch], Total, bool]:
    """One root's answer: its server's, else a warm search (``cache``) or a cold walk."""
    taken = None if started is None or cache else started.take(root, options)
    if started is not None and taken is None:
        started.close()  # (not this walk's)
    if cache and server:
        found = _from_server(query, root, options, on_warning, memory)
        if found is not None:
            return found
    # (a query of negations only lists in path order: no memory, no git status)
    if query and not ranked(query):
        memory = None

    def keep() -> Prefilter | KeepVisited | None:
        return walk_filter(query, memory, root)

    def recalling() -> Recalling | None:
        return None if memory is None else Recalling(memory, root, remember=cache)

    if cache:
        recall = recalling()
        try:
            if recall is not None:
                recall.start()
            return _match_warm(query, root, options, cancel, on_warning, eager_count, recall,
                               keep())
        finally:
            if recall is not None:
                recall.stop()
    from ffind.fs.walk import started_walk, walk_ahead

    # The walk starts first (a forked child reads the folders while this process starts
    # ``git status`` and imports the engine), or was started before this process's imports
    # (``started``: the console script's).
    if taken is not None:
        batches = started_walk(*taken, options, cancel=cancel, on_warning=on_warning,
                               keep=keep)
    else:
        batches = walk_ahead(root, options, cancel=cancel, on_warning=on_warning,
                             keep=keep)
    recall = None
    try:
        recall = recalling()
        if recall is not None:
            recall.start()
        return _match_batches(query, batches, options, cancel, eager_count, recall)
    except BaseException:
        cancel.set()  # Ctrl-C or a bug: tell the workers to stop before we unwind
        raise
    finally:
        batches.close()
        if recall is not None:
            recall.stop()


def _from_server(
    query: str, root: str, options: SearchOptions, on_warning: Callable[[str], None] | None,
    memory: VisitSource | None,
) -> tuple[list[FileMatch], Total, bool] | None:
    """The answer of the root's resident server, if one runs (never starts one)."""
    if not servable_memory(memory):
        return None
    from ffind.resident.client import ask
    from ffind.scoring.scorer import FileMatch

    reply = ask(query, root, options, memory=memory is not None, count=True)
    if reply is None:
        return None
    if on_warning is not None:
        for warning in reply.warnings:
            on_warning(warning)
    top = [FileMatch(m.score, m.path, m.indices, m.typo) for m in reply.matches]
    return top, reply.total, reply.complete


def _match_warm(
    query: str, root: str, options: SearchOptions, cancel: _Cancel,
    on_warning: Callable[[str], None] | None, eager_count: bool, recall: Recalling | None,
    keep: Prefilter | KeepVisited | None,
) -> tuple[list[FileMatch], Total, bool]:
    """``_match_batches`` over the warm index's snapshot while it is validated aside; again
    when the validation found a change."""
    from ffind.fs.warm import warm_attempts

    attempts = warm_attempts(root, options, cancel=cancel, on_warning=on_warning,
                             keep=keep)
    found: tuple[list[FileMatch], Total, bool] | None = None
    try:
        for attempt in attempts:
            batches = attempt.batches
            try:
                found = _match_batches(query, batches, options, cancel, eager_count, recall,
                                       stale=attempt.stale)
            finally:
                close = getattr(batches, "close", None)
                if close is not None:
                    close()
    except BaseException:
        cancel.set()  # Ctrl-C or a bug: tell the workers to stop before we unwind
        raise
    finally:
        attempts.close()
    assert found is not None  # (there is always one attempt)
    return found


def search(
    query: str,
    roots: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    options: SearchOptions | None = None,
    *,
    cancel: Cancel | None = None,
    on_warning: Callable[[str], None] | None = None,
    eager_count: bool = True,
    memory: VisitSource | None = None,
    cache: bool = False,
    server: bool = True,
    _started: Started | None = None,
) -> FileSearchResults:
    """Search ``roots`` (default: ``.``) for paths matching ``query``; several roots are ranked
    together.  ``memory``: rank remembered files higher; ``cache``: answer from the warm index
    (or the root's resident server when ``server``), the same results as a cold walk;
    ``cancel.is_set()`` stops the walk early.  ``FfindError`` for a missing root or bad glob."""
    query = check_query(query)
    options = check_options(options)
    root_list = ["."] if roots is None else as_roots(roots)
    check_roots(root_list)
    started = _started
    if started is not None and len(root_list) != 1:
        started.close()
        started = None
    flag = _Cancel(cancel)
    if len(root_list) == 1:
        top, total, complete = _walk_one(query, root_list[0], options, flag, on_warning,
                                         eager_count, memory, cache, server, started)
        return FileSearchResults(top, total, complete)

    parts: list[list[FileMatch]] = []
    totals: list[Total] = []
    complete = True
    for root in root_list:
        top, count, done = _walk_one(query, root, options, flag, on_warning, eager_count,
                                     memory, cache, server)
        parts.append([replace(m, root=root) for m in top])
        totals.append(count)
        complete = complete and done
        if not done:
            break
    merged = merge(root_list, parts, options.limit, ranked=ranked(query))
    return FileSearchResults(merged, _sum(totals), complete)


def search_paths(
    query: str, paths: Iterable[str], options: SearchOptions | None = None,
    *, batch_size: int = 8192, eager_count: bool = True,
) -> FileSearchResults:
    """Match ``query`` against ``paths`` (read lazily, in batches) instead of walking."""
    query = check_query(query)
    options = check_options(options)
    if isinstance(paths, (str, bytes)):
        raise TypeError("paths must be an iterable of str, not a single str")

    keep = prefilter(query)  # only what the query can match goes into the index
    batches = (b if keep is None else keep(b) for b in batched(paths, batch_size))
    top, total, complete = _match_batches(query, batches, options, _Cancel(None), eager_count)
    return FileSearchResults(top, total, complete)
