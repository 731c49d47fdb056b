"""Scoring (PLACEHOLDER: a naive reference implementation, replaced by issue 3)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FileMatch:
    """One ranked path.  ``root`` is set by ``ffind.search`` when several roots are searched."""

    score: int
    path: str
    indices: list[int] | None = None
    typo: bool = False
    root: str | None = None


def naive_score(query: str, path: str) -> int | None:
    """Subsequence check with a crude score; None when ``query`` is not a subsequence."""
    if not query:
        return 0
    flags = 0 if any(c.isupper() for c in query) else re.IGNORECASE
    m = re.search(".*?".join(map(re.escape, query)), path, flags)
    if m is None:
        return None
    return 1000 - (m.end() - m.start()) - len(path) // 8
