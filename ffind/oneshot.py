"""``search()``: walk + index + match in one call; what the ``ffind`` command runs.

The walk streams batches of paths; each batch is appended to an :class:`~ffind.index.Index` and
matched at once (``Index.run(query, start=...)``), so matching overlaps with the walk's worker
processes, and the per-batch match sets are merged at the end (``MatchSet.merge``).  Without a
query nothing is matched: every path is listed in path order, like ``fd``.

The module is called ``oneshot`` so that it does not shadow the function ``ffind.search``.
"""

from __future__ import annotations

import dataclasses
import heapq
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from ffind.errors import FfindError
from ffind.options import SearchOptions

if TYPE_CHECKING:
    from ffind.match import FileMatch

__all__ = ["FileSearchResults", "search", "search_paths"]


class Cancel(Protocol):
    def is_set(self) -> bool: ...


class FileSearchResults(NamedTuple):
    """What :func:`search` returns."""

    matches: list[FileMatch]
    """The best matches, best first (path order when the query is empty), at most ``limit``."""
    total_match_count: int
    """How many paths matched before the limit cut (Codex's field)."""
    walk_complete: bool
    """False when the search was cancelled before the walk finished."""


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


def _check_root(root: str) -> None:
    if not os.path.exists(root):
        raise FfindError(f"cannot search {root!r}: no such directory")
    if not os.path.isdir(root):
        raise FfindError(f"cannot search {root!r}: not a directory")
    if not os.access(root, os.R_OK | os.X_OK):
        raise FfindError(f"cannot search {root!r}: permission denied")


def _match_batches(
    query: str, batches: Iterable[list[str]], options: SearchOptions, cancel: _Cancel
) -> tuple[list[FileMatch], int, bool]:
    """Match every batch as it arrives; return (top matches, total count, complete)."""
    limit = options.limit
    if not query:
        # No query: every path, in path order; no matcher (and no rapidfuzz import) needed.
        from ffind.match import FileMatch

        paths: list[str] = []
        for batch in batches:
            paths.extend(batch)
        chosen = sorted(paths) if limit is None else heapq.nsmallest(limit, paths)
        return [FileMatch(0, p) for p in chosen], len(paths), not cancel.is_set()

    from ffind.index import Index

    index = Index()
    matchset = None
    for batch in batches:
        start = len(index)
        index.extend(batch)
        part = index.run(query, start=start)
        matchset = part if matchset is None else matchset.merge(part)
    if matchset is None:
        matchset = index.run(query)
    top = index.top(matchset, limit, options.compute_indices)
    return top, len(matchset), not cancel.is_set()


def _walk_one(
    query: str, root: str, options: SearchOptions, cancel: _Cancel,
    on_warning: Callable[[str], None] | None,
) -> tuple[list[FileMatch], int, bool]:
    from ffind.walk import walk_batches

    batches = walk_batches(root, options, cancel=cancel, on_warning=on_warning)
    try:
        return _match_batches(query, batches, options, cancel)
    except BaseException:
        cancel.set()  # Ctrl-C or a bug: tell the workers to stop before we unwind
        raise
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()


def search(
    query: str,
    roots: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    options: SearchOptions | None = None,
    *,
    cancel: Cancel | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> FileSearchResults:
    """Search ``roots`` (default: the current folder) for paths matching ``query``.

    Paths are relative to their root, ``/``-separated.  With several roots the results of all of
    them are ranked together and each :class:`~ffind.match.FileMatch` carries its ``root``.
    ``cancel`` (anything with ``is_set()``) stops the walk early; the results then hold what was
    found so far and ``walk_complete`` is False.  ``on_warning`` receives one-line warnings of the
    walk (unreadable folders); by default they are dropped.

    Raises :class:`~ffind.errors.FfindError` when a root is missing or not a folder, or an
    ``exclude`` glob is invalid.
    """
    options = options or SearchOptions()
    if roots is None:
        root_list = ["."]
    elif isinstance(roots, (str, os.PathLike)):
        root_list = [os.fspath(roots)]
    else:
        root_list = [os.fspath(r) for r in roots]
    if not root_list:
        raise FfindError("no folder to search")
    for root in root_list:
        _check_root(root)
    flag = _Cancel(cancel)
    if len(root_list) == 1:
        top, total, complete = _walk_one(query, root_list[0], options, flag, on_warning)
        return FileSearchResults(top, total, complete)

    merged: list[FileMatch] = []
    total = 0
    complete = True
    for root in root_list:
        top, count, done = _walk_one(query, root, options, flag, on_warning)
        merged.extend(dataclasses.replace(m, root=root) for m in top)
        total += count
        complete = complete and done
        if not done:
            break
    if query:
        merged.sort(key=lambda m: -m.score)  # stable: ties keep each root's own order
    else:
        merged.sort(key=lambda m: (m.root or "", m.path))
    if options.limit is not None:
        del merged[options.limit :]
    return FileSearchResults(merged, total, complete)


def search_paths(
    query: str, paths: Iterable[str], options: SearchOptions | None = None,
    *, batch_size: int = 8192,
) -> FileSearchResults:
    """Match ``query`` against given paths instead of walking (``ffind --stdin``).

    ``paths`` is consumed lazily, in batches, so matching starts while it is still being read.
    """
    options = options or SearchOptions()

    def batches() -> Iterable[list[str]]:
        batch: list[str] = []
        for p in paths:
            batch.append(p)
            if len(batch) >= batch_size:
                yield batch
                batch = []
        if batch:
            yield batch

    top, total, complete = _match_batches(query, batches(), options, _Cancel(None))
    return FileSearchResults(top, total, complete)
