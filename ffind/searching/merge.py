"""The one multi-root order, for ``search`` (an index per root, merged here) and ``FileSearcher``
(one index, re-ordered here): with a query, score, then the index's tie-breaks (shorter path,
path), then the root given first; without one, by root, then by path, like fd."""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ffind.errors import FfindError
from ffind.fs.roots import check_root

if TYPE_CHECKING:
    from ffind.scoring.scorer import FileMatch


def as_roots(roots: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[str]:
    """``roots`` (one folder or several) as a list of str."""
    if isinstance(roots, (str, os.PathLike)):
        return [os.fspath(roots)]
    return [os.fspath(r) for r in roots]


def check_roots(roots: list[str]) -> None:
    """Raise ``FfindError`` when ``roots`` is empty or one is missing or not a folder."""
    if not roots:
        raise FfindError("no folder to search")
    for root in roots:
        check_root(root)


def ranked(query: str) -> bool:
    """Whether the matches of ``query`` come best first; else in path order (no query, or only
    negations: every match scores alike)."""
    if not query:
        return False
    from ffind.query import parse

    return parse(query).scored


def rank_key(m: FileMatch, root_order: int) -> tuple[int, int, str, int]:
    """The ranking of a match among every root's: score, shorter path, path, root order."""
    return (-m.score, len(m.path), m.path, root_order)


def merge(
    roots: Sequence[str], parts: Iterable[list[FileMatch]], limit: int | None, *, ranked: bool
) -> list[FileMatch]:
    """One list of the matches in ``parts`` (one list per root, each with its ``root`` set and
    already in this order), best first (``ranked``) or in path order, at most ``limit``."""
    order = {root: i for i, root in reversed(list(enumerate(roots)))}
    every = [m for part in parts for m in part]
    if ranked:
        return order_matches(every, order, limit)
    key = _listing_key
    return sorted(every, key=key) if limit is None else heapq.nsmallest(limit, every, key=key)


def order_matches(
    matches: list[FileMatch], order: dict[str, int], limit: int | None = None
) -> list[FileMatch]:
    """``matches`` (each with its ``root`` set) by :func:`rank_key`; ``order`` maps a root to
    its position among the roots given."""

    def key(m: FileMatch) -> tuple[int, int, str, int]:
        return rank_key(m, order.get(m.root or "", 0))

    if limit is None:
        return sorted(matches, key=key)
    return heapq.nsmallest(limit, matches, key=key)


def _listing_key(m: FileMatch) -> tuple[str, str]:
    return (m.root or "", m.path)
