"""The state of a ``FileSearcher`` that its parts read and write (the walk thread,
``feed``; the matching, ``matchsets``; the idle steps, ``idle``), declared once: the
session sets every field in ``FileSearcher.__init__``; and its published ``State``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import threading
    from collections import OrderedDict
    from collections.abc import Iterator

    from ffind.engine.index import Ender, Filler, Index, MatchSet
    from ffind.options import SearchOptions
    from ffind.scoring.scorer import FileMatch


@dataclass(slots=True)
class State:
    """A published result: every match of ``query`` among ids ``[0, covered)``."""

    query: str
    ms: MatchSet | None
    """None before the index exists (it is built in the match thread, while the walk starts)."""
    covered: int
    version: int
    tops: dict[tuple[int | None, bool], list[FileMatch]]
    """Rankings already computed for this (query, covered), by (limit, compute_indices)."""
    count: int | None = None
    """``len(ms)``, once asked (it may cost the index a typo pass)."""
    epoch: int = 0
    """The index ``ms`` belongs to (a replaced listing starts a new one)."""


class Cancelled(Exception):
    """Raised inside the match thread when its work went stale."""


class SessionParts:
    """The fields ``FileSearcher``'s mixins share (see ``FileSearcher.__init__``)."""

    roots: list[str]
    options: SearchOptions
    warnings: list[str]
    _reporter: Any
    _cond: threading.Condition
    _ilock: threading.Lock
    _cancel: threading.Event
    _walk_imported: threading.Event
    _shown: threading.Event
    _index: Index
    _cached: bool
    _pending: list[tuple[int, list[str]]]
    _replace: bool
    _epoch: int
    _scanned: int
    _query: str
    _gen: int
    _walk_done: bool
    _walk_complete: bool
    _error: BaseException | None
    _state: State
    _state_gen: int
    _cache: OrderedDict[str, State]
    _report_due: bool
    _last_report: float
    _published: float
    _compacted: int
    _filler: Filler | None
    _ender: Ender | None
    _warmer: Iterator[str | None] | None
    _warmed: int
    _warm_next: str | None
    _warm_took: float
