"""The order of a session's matches: ``catalog.answer``'s, the path order kept between the walk's
batches (while the walk grows, only its new paths are looked at)."""

from __future__ import annotations

import bisect
import heapq
from typing import TYPE_CHECKING

from ffind.searching.catalog import Recalling, answer

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ffind.engine.index import Index, MatchSet, VisitSource
    from ffind.scoring.scorer import FileMatch


class SessionOrder:
    """How one session orders its matches (under its index lock); ``memory`` with one root or
    paths given; ``remember``: keep the ``git status`` answer in the cache."""

    def __init__(self, memory: VisitSource | None, roots: list[str],
                 paths_given: bool, *, remember: bool = False) -> None:
        self._recalling: Recalling | None = None
        self._path_order: tuple[str, int, int, list[int]] | None = None
        if memory is not None and (paths_given or len(roots) == 1):
            self._recalling = Recalling(memory, "." if paths_given else roots[0],
                                        git=not paths_given, remember=remember,
                                        wait_for_git=True)
            self._recalling.start()

    def restart(self) -> None:
        """Forget what was kept about the index (the session starts a new one)."""
        if self._recalling is not None:
            self._recalling.restart()
        self._path_order = None

    def ranked(self, index: Index, query: str, ms: MatchSet, covered: int, limit: int | None,
               ci: bool) -> list[FileMatch]:
        """``catalog.answer`` of ``ms`` (``query`` over the first ``covered`` paths), in path
        order by ``_in_path_order``."""
        return answer(index, query, ms, limit, ci, self._recalling,
                      lambda k: self._in_path_order(index, query, ms, covered, k, ci))

    def _in_path_order(self, index: Index, query: str, ms: MatchSet, covered: int,
                       limit: int | None, ci: bool) -> list[FileMatch]:
        """The first ``limit`` matches in path order; the last answer's ids are kept, so while
        the walk grows only its new paths are looked at."""
        from ffind.scoring.scorer import FileMatch

        ids, paths = ms.ids_seq(), index.paths  # (a compacted set's kept as it is)
        if limit is None:
            return [FileMatch(0, paths[i], [] if ci else None)
                    for i in sorted(ids, key=paths.__getitem__)]
        kept = self._path_order
        pool: Sequence[int]
        if kept is not None and kept[0] == query and kept[2] >= limit and kept[1] <= covered:
            pool = [*kept[3], *ids[bisect.bisect_left(ids, kept[1]):]]
            limit_kept = kept[2]
        else:
            pool, limit_kept = ids, limit
        chosen = heapq.nsmallest(limit_kept, pool, key=paths.__getitem__)
        if kept is None or kept[0] != query or kept[1] <= covered:
            self._path_order = (query, covered, limit_kept, chosen)
        return [FileMatch(0, paths[i], [] if ci else None) for i in chosen[:limit]]
