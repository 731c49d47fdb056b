"""The candidate store (PLACEHOLDER: naive reference implementation, replaced by issue 3).

API contract used by the session (issue 5) and search (issue 4):

- ``Index(paths)``, ``len(index)``, ``index.paths`` (list, id = position), ``index.extend(paths)``.
- ``index.match(query, *, limit=None, compute_indices=False) -> list[FileMatch]``.
- ``index.run(query, *, within=None, start=0) -> MatchSet``: every match of ``query`` among ids
  ``>= start``; with ``within`` (the MatchSet of a query that ``query`` extends, see
  ``MatchSet.can_narrow``) only its ids are considered.
- ``index.top(matchset, limit=None, compute_indices=False) -> list[FileMatch]``: best first.
- ``MatchSet.merge(other)``: the MatchSet of the same query over both id ranges, exactly
  what one ``run`` over the union would give.  ``len(matchset)`` = total match count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ffind.match import FileMatch, naive_score


@dataclass
class MatchSet:
    query: str
    scores: dict[int, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.scores)

    def can_narrow(self, new_query: str) -> bool:
        """True when ``new_query``'s matches are a subset of this set's (append case)."""
        return new_query.startswith(self.query) and "!" not in new_query and " " not in new_query

    def merge(self, other: MatchSet) -> MatchSet:
        return MatchSet(self.query, {**self.scores, **other.scores})


class Index:
    def __init__(self, paths: Iterable[str] = ()) -> None:
        self.paths: list[str] = list(paths)

    def __len__(self) -> int:
        return len(self.paths)

    def extend(self, paths: Iterable[str]) -> None:
        self.paths.extend(paths)

    def run(self, query: str, *, within: MatchSet | None = None, start: int = 0) -> MatchSet:
        ids: Iterable[int] = (
            (i for i in within.scores if i >= start) if within is not None
            else range(start, len(self.paths))
        )
        out = MatchSet(query)
        for i in ids:
            s = naive_score(query, self.paths[i])
            if s is not None:
                out.scores[i] = s
        return out

    def top(
        self, ms: MatchSet, limit: int | None = None, compute_indices: bool = False
    ) -> list[FileMatch]:
        order = sorted(ms.scores, key=lambda i: (-ms.scores[i], self.paths[i]))
        if not ms.query:
            order = sorted(ms.scores, key=lambda i: self.paths[i])
        if limit is not None:
            order = order[:limit]
        return [FileMatch(ms.scores[i], self.paths[i], [] if compute_indices else None)
                for i in order]

    def match(
        self, query: str, *, limit: int | None = None, compute_indices: bool = False
    ) -> list[FileMatch]:
        return self.top(self.run(query), limit, compute_indices)


def match(
    query: str, candidates: Iterable[str], *, limit: int | None = None,
    compute_indices: bool = False,
) -> list[FileMatch]:
    """One call: ``Index(candidates).match(query, ...)``."""
    return Index(candidates).match(query, limit=limit, compute_indices=compute_indices)
