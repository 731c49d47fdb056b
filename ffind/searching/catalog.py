"""How every search (the one-shot, the session, the resident server, the agent tools) answers
from a listing, its index and the memory: :func:`answer` ranks a match set (with the memory
through :class:`Recalling`, which a long-lived caller keeps and ``renew``s per request),
:func:`list_every` answers the empty query, :func:`walk_filter` says what a walk may drop."""

from __future__ import annotations

import heapq
import itertools
import operator
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ffind.searching.merge import ranked

if TYPE_CHECKING:
    from ffind.engine.index import Index, MatchSet, Prefilter, Rank, Recall, VisitSource
    from ffind.options import SearchOptions
    from ffind.scoring.scorer import FileMatch
    from ffind.state.gitstatus import GitChanges


class Recalling:
    """Ranking one root's matches with ``memory`` and, with ``git``, the uncommitted changes
    (a ``git status`` started by :meth:`start`; ``remember``: its answer kept in the cache
    folder; ``wait_for_git``: asked again on a later key rather than stopped)."""

    def __init__(self, memory: VisitSource, root: str, *, git: bool = True,
                 remember: bool = False, wait_for_git: bool = False) -> None:
        from ffind.state.gitstatus import Visits

        self.root = os.path.abspath(root)
        self._how = (git, remember, wait_for_git)
        self.recall: Recall | None = None  # the per-index state
        self.visits = Visits(memory, None, wait_for_git=wait_for_git)

    def start(self) -> None:
        """Start the ``git status`` (called once the caller holds this object, so that a
        signal landing at any point leaves it something to ``stop``)."""
        self._renew_visits(self.visits.memory, None)

    def _renew_visits(self, memory: VisitSource | None, running: GitChanges | None) -> None:
        from ffind.state.gitstatus import GitChanges, Visits

        git, remember, wait_for_git = self._how
        started = None
        try:
            if git and running is None:
                running = started = GitChanges(self.root, remember=None if remember else "")
            self.visits = Visits(memory, running if git else None, wait_for_git=wait_for_git)
        except BaseException:  # (SIGTERM or Ctrl-C before it was stored)
            if started is not None:
                started.stop()
            raise

    def renew(self, memory: VisitSource, root: str | None = None) -> None:
        """Rank the next request with ``memory`` (under ``root``): the same index's state, and
        the ``git status`` still running, else a new one."""
        running = self.visits.git
        if running is not None and (running.answered() or root is not None):
            running = None
        if root is not None:
            self.root = os.path.abspath(root)
        self._renew_visits(memory, running)

    def _recall(self) -> Recall:
        if self.recall is None:
            from ffind.engine.index import Index, Recall

            self.recall = Recall(Index)
        return self.recall

    def restart(self) -> None:
        """A new index is ranked from now on."""
        self.recall = None

    def rank(self, index: Index, query: str, rank: Rank, limit: int | None, ci: bool,
             main: MatchSet) -> list[FileMatch]:
        """The best ``limit`` of ``main`` (``query``'s matches in ``index``) with the memory;
        ``rank(k)`` gives the best ``k`` without it."""
        from ffind.engine.index import rank_with_memory

        return rank_with_memory(self._recall(), index.paths, query, rank, limit=limit,
                                compute_indices=ci, memory=self.visits, root=self.root,
                                now=None, main=main)

    def stop(self) -> None:
        """The search has answered: a ``git status`` still running is not needed."""
        if self.visits.git is not None:
            self.visits.git.stop()

    def prune(self, paths: list[str], options: SearchOptions) -> None:
        """After a complete listing, forget the remembered paths gone from the disk."""
        prune = getattr(self.visits.memory, "prune", None)
        if prune is not None and "f" in options.types:
            prune(self.root, paths, lambda p: not os.path.lexists(os.path.join(self.root, p)))

    def listing(self, paths: list[str], limit: int | None) -> list[FileMatch]:
        """Every path: the boosted first (most boosted first), then in path order."""
        from ffind.scoring.scorer import FileMatch

        boost = self._recall().boosts(paths, self.visits, self.root, None)
        first = sorted(boost, key=lambda p: (-boost[p], p))
        # (with a limit, the first of the others are among the smallest ``limit + boosted``)
        ordered = sorted(paths) if limit is None else heapq.nsmallest(limit + len(boost), paths)
        rest = (p for p in ordered if p not in boost)
        chosen = itertools.chain(((p, boost[p]) for p in first), ((p, 0) for p in rest))
        return [FileMatch(b, p) for p, b in itertools.islice(chosen, limit)]


def list_every(paths: list[str], options: SearchOptions, recall: Recalling | None,
               complete: bool = True) -> list[FileMatch]:
    """The empty query's answer: every path in path order (the remembered first), at most
    ``limit``; ``complete``: the whole listing (the memory forgets what is gone)."""
    limit = options.limit
    if recall is not None:
        if complete:
            recall.prune(paths, options)
        return recall.listing(paths, limit)
    from ffind.scoring.scorer import FileMatch

    chosen = sorted(paths) if limit is None else heapq.nsmallest(limit, paths)
    return [FileMatch(0, p) for p in chosen]


def answer(index: Index, query: str, matchset: MatchSet, limit: int | None, ci: bool,
           recall: Recalling | None, path_order: Rank | None = None) -> list[FileMatch]:
    """The best ``limit`` of ``matchset`` (``ci``: with the matched positions): ranked, or in
    path order when nothing scores (``path_order(k)`` when given); with ``recall``'s memory,
    but for a query of negations only."""
    positive = ranked(query)

    def plain(k: int | None) -> list[FileMatch]:
        if positive:
            return index.top(matchset, k, ci)
        if path_order is not None:
            return path_order(k)
        every = index.top(matchset, None, ci)
        key = operator.attrgetter("path")
        return sorted(every, key=key) if k is None else heapq.nsmallest(k, every, key=key)

    if recall is None or (not positive and query.strip()):
        return plain(limit)
    return recall.rank(index, query, plain, limit, ci, matchset)


class KeepVisited:
    """The query's ``Prefilter``, keeping the remembered paths too (the memory's prior needs
    them indexed, as an index of every path would).  Picklable: the walk's workers call it."""

    __slots__ = ("keep", "visited")

    def __init__(self, keep: Prefilter, visited: frozenset[str]) -> None:
        self.keep = keep
        self.visited = visited

    def __call__(self, paths: list[str]) -> list[str]:
        kept = self.keep(paths)
        extra = self.visited.intersection(paths)
        if not extra or extra.issubset(kept):
            return kept
        chosen = extra.union(kept)
        return [p for p in paths if p in chosen]


def prefilter(query: str) -> Prefilter | None:
    """The query's ``Prefilter``; None when it keeps everything (no positive term)."""
    if not query:
        return None
    from ffind.engine.index import Prefilter

    keep = Prefilter(query)
    return keep if keep.active else None


def walk_filter(query: str, memory: VisitSource | None,
                root: str) -> Prefilter | KeepVisited | None:
    """What a walk of ``root`` for ``query`` keeps (None: every path)."""
    keep = prefilter(query)
    if keep is None or memory is None:
        return keep
    visited = frozenset(memory.weights(os.path.abspath(root)))
    return KeepVisited(keep, visited) if visited else keep


def servable_memory(memory: VisitSource | None) -> bool:
    """Whether a resident server can rank with ``memory``: none, or the user's (it opens it)."""
    if memory is None:
        return True
    from ffind.state.memory import Memory, default_path

    return type(memory) is Memory and memory.path == default_path()


def batched(paths: Iterable[str], size: int) -> Iterator[list[str]]:
    """``paths`` in lists of ``size`` (the last one shorter), read as they are needed."""
    batch: list[str] = []
    for p in paths:
        batch.append(p)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
