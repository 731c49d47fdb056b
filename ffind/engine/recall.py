"""Ranking with the memory of opened files, exactly: a path's final score is its fuzzy score plus
its boost (``ffind.scoring.recency``).  The boosted paths are few, so the rest come from the
index's ranking (``limit + SPARE``), the boosted ones from a small index of their own asked only
for scores that can still reach the merged top ``limit``, and the two lists are merged: still the
prefix of the full ranking.  An empty query puts the remembered files first.  A typo match gains
no boost."""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from ffind.query import parse
from ffind.scoring.recency import boosts as recency_boosts
from ffind.scoring.scorer import FileMatch

if TYPE_CHECKING:
    from ffind.engine.matchset import MatchSet


class Ranking(Protocol):
    """What ranking with memory asks of the index of the boosted paths (``Index`` is one)."""

    def run(self, query: str, *, within: MatchSet | None = None) -> MatchSet: ...

    def top(self, ms: MatchSet, limit: int | None = None, compute_indices: bool = False, *,
            least: int | None = None) -> list[FileMatch]: ...


class VisitSource(Protocol):
    """What ranking reads from a memory (``ffind.Memory`` is one)."""

    def weights(self, root: str, now: float | None = None) -> dict[str, tuple[float, float]]:
        """``{path relative to root: (weight, recent)}`` at ``now``."""
        ...

    def together(self, root: str, now: float | None = None) -> dict[str, float]:
        """``{path relative to root: share}`` of the files opened together with the latest
        ones (shares summing to 1; empty when none)."""
        ...

    def stamp(self) -> object:
        """Changes whenever ``weights`` or ``together`` may answer differently (a visit
        recorded anywhere)."""
        ...


SPARE = 4
"""The memory-free ranking is asked for this many more than ``limit``: a remembered path among its
first is common, and asking again means ranking again."""
KEPT_QUERIES = 16
"""Match sets of the boosted paths kept for the last queries (typing narrows them)."""
NOW_STEP = 60.0
"""Without ``now``, recency is judged at the end of the current minute: one minute's boosts are
computed once, and a visit a moment ago counts."""


class Recall:
    """The per-index state of ranking with memory: the index's folders, the boosts and the
    small index of the boosted paths, each rebuilt only when what it depends on changes."""

    def __init__(self, make_index: Callable[[list[str]], Ranking]) -> None:
        self._make_index = make_index
        self._folders: dict[str, set[str]] = {}
        self._folders_for = 0
        self._wanted: set[str] = set()
        self._boosts: dict[str, int] = {}
        self._boosts_for: tuple[object, ...] | None = None
        self._sub: Ranking | None = None
        self._sub_paths: tuple[str, ...] = ()
        self._sub_source: dict[str, int] | None = None
        self._sets: dict[str, MatchSet] = {}  # the small index's recent queries

    def folders(self, paths: Sequence[str], wanted: set[str]) -> dict[str, set[str]]:
        """``{folder: its paths}`` for the folders ``wanted`` (and those asked for before), kept
        while the index only grows; only the folders of visits are mapped."""
        if not wanted <= self._wanted:
            self._wanted |= wanted
            self._folders, self._folders_for = {}, 0
        if self._folders_for < len(paths):
            want, found = self._wanted, self._folders
            for p in paths[self._folders_for:]:
                cut = p.rfind("/")
                d = p[:cut] if cut >= 0 else ""
                if d in want:
                    members = found.get(d)
                    if members is None:
                        found[d] = {p}
                    else:
                        members.add(p)
            self._folders_for = len(paths)
        return self._folders

    def boosts(self, paths: Sequence[str], memory: VisitSource, root: str,
               now: float | None) -> dict[str, int]:
        """``{path of the index: boost}`` for this memory, root and time."""
        t = float(now) if now is not None else (time.time() // NOW_STEP + 1) * NOW_STEP
        key = (id(memory), memory.stamp(), root, t, len(paths))
        if key != self._boosts_for:
            visits = memory.weights(root, t)
            folders = self.folders(paths, {_folder(p) for p in visits})
            known = {p: v for p, v in visits.items() if _in(p, folders)}
            together = {p: v for p, v in memory.together(root, t).items() if _in(p, folders)}
            self._boosts = recency_boosts(known, folders, together)
            self._boosts_for = key
        return self._boosts

    def sub_index(self, boosted: dict[str, int]) -> Ranking:
        """The index of the boosted paths (rebuilt when they change; the boosts of one minute
        are one dict, so a keystroke only compares identities)."""
        if boosted is self._sub_source and self._sub is not None:
            return self._sub
        self._sub_source = boosted
        key = tuple(sorted(boosted))
        if self._sub is None or key != self._sub_paths:
            self._sub = self._make_index(list(key))
            self._sub_paths = key
            self._sets.clear()
        return self._sub

    def lifted(self, query: str, boost: dict[str, int], limit: int | None,
               compute_indices: bool, rest: Sequence[FileMatch] = (),
               main: MatchSet | None = None) -> list[FileMatch]:
        """The boosted paths that match ``query``, with their boost, best first: those that can
        still be among the first ``limit`` once merged with ``rest``.  The small index is asked
        only for scores at least the ``limit``-th final score less the largest boost
        (``Index.top(least=)``), again while the ``limit``-th could still be overtaken."""
        sub = self.sub_index(boost)
        ms = self._match_set(sub, query)
        if (parse(query).case_sensitive and ms.fallback and main is not None
                and not main.fallback):  # (in this order: each may compute a match set)
            # Smart case is decided over the whole index: ``Foo`` matches ``Foo``
            # case-sensitively somewhere, so a boosted ``foo`` is no match at all.
            return []
        if limit is None:
            return sorted((_lift(m, boost[m.path]) for m in sub.top(ms, None, compute_indices)),
                          key=_key)
        top = max(boost.values())
        least = rest[limit - 1].score - top if 0 < limit <= len(rest) else None
        got = sub.top(ms, limit, compute_indices, least=least)
        lifted = sorted((_lift(m, boost[m.path]) for m in got), key=_key)
        if len(got) < limit:
            return lifted  # every boosted path at ``least`` or more
        kth = list(heapq.merge(lifted, rest, key=_key))[limit - 1].score  # (``got`` has limit)
        if got[-1].score + top < kth:
            return lifted  # the paths not in ``got`` score at most ``got[-1].score``
        got = sub.top(ms, None, compute_indices, least=kth - top)
        return sorted((_lift(m, boost[m.path]) for m in got), key=_key)[:limit]

    def _match_set(self, sub: Ranking, query: str) -> MatchSet:
        ms = self._sets.get(query)
        if ms is None:
            # the latest set this query narrows (typing on): a ranking that a shortcut
            # answered may never have computed its set, and is not computed here either
            base = next((m for m in reversed(self._sets.values()) if m.can_narrow(query)),
                        None)
            ms = sub.run(query, within=base)
            if len(self._sets) >= KEPT_QUERIES:
                del self._sets[next(iter(self._sets))]
            self._sets[query] = ms
        return ms


def _folder(path: str) -> str:
    cut = path.rfind("/")
    return path[:cut] if cut >= 0 else ""


def _in(path: str, folders: dict[str, set[str]]) -> bool:
    members = folders.get(_folder(path))
    return members is not None and path in members


def _key(m: FileMatch) -> tuple[int, int, str]:
    return (-m.score, len(m.path), m.path)


Rank = Callable[[int | None], list[FileMatch]]
"""The memory-free ranking of the query being answered: ``limit -> its first limit matches``
(``Index.match``, or a session's ``Index.top`` of the query's match set)."""


def rank_with_memory(
    recall: Recall, paths: Sequence[str], query: str, rank: Rank, *, limit: int | None,
    compute_indices: bool, memory: VisitSource, root: str, now: float | None,
    main: MatchSet | None = None,
) -> list[FileMatch]:
    """The ranking ``rank`` gives, with the memory's boosts; ``main``: the match set ``rank`` ranks,
    whose smart-case decision the boosted paths follow."""
    boost = recall.boosts(paths, memory, root, now)
    if not boost:
        return rank(limit)
    if not query.strip():  # everything matches with score 0: remembered first, then the rest
        first = sorted(boost, key=lambda p: (-boost[p], p))
        if limit is not None:
            first = first[:limit]
        lifted = [FileMatch(boost[p], p, [] if compute_indices else None) for p in first]
        rest = _unboosted(rank, limit, boost, len(lifted))
        out = lifted + rest
        return out if limit is None else out[:limit]
    rest = _unboosted(rank, limit, boost, SPARE)
    lifted = recall.lifted(query, boost, limit, compute_indices, rest, main)
    merged = heapq.merge(lifted, rest, key=_key)
    if limit is None:
        return list(merged)
    return [m for _, m in zip(range(limit), merged, strict=False)]


def _lift(m: FileMatch, boost: int) -> FileMatch:
    """``m`` with its boost; a typo match gains none, so the memory never lifts a typo match
    over a clean one (typing more still lets the better match win)."""
    if m.typo:
        return m
    return FileMatch(m.score + boost, m.path, m.indices, m.typo, m.root)


def _unboosted(rank: Rank, limit: int | None, boost: dict[str, int],
               expect: int) -> list[FileMatch]:
    """The first ``limit`` paths of the memory-free ranking that have no boost (``expect``:
    how many boosted paths are expected among the first, a first guess)."""
    if limit is None:
        return [m for m in rank(None) if m.path not in boost]
    ask = limit + min(expect, limit)
    while True:
        got = rank(ask)
        rest = [m for m in got if m.path not in boost]
        if len(rest) >= limit or len(got) < ask:
            return rest[:limit]
        ask += 2 * (limit - len(rest))
