"""The fields a ``FileSearcher``'s parts (``feed``, ``matchsets``, ``idle``) share, declared once,
and its published ``State``."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ffind.engine.index import Filler, Index, MatchSet
    from ffind.options import SearchOptions
    from ffind.scoring.scorer import FileMatch


@dataclass(slots=True)
class State:
    """A published result: every match of ``query`` among ids ``[0, covered)``."""

    query: str
    ms: MatchSet | None  # None before the index exists
    covered: int
    version: int
    tops: dict[tuple[int | None, bool], list[FileMatch]]  # by (limit, compute_indices)
    count: int | None = None  # ``len(ms)``, once asked (it may cost a typo pass)
    epoch: int = 0  # the index ``ms`` belongs to (a replaced listing starts a new one)


class Cancelled(Exception):
    """Raised inside the match thread when its work went stale."""


class SessionParts:
    """The fields ``FileSearcher``'s parts share: its ``__init__`` sets the arguments', this the
    rest."""

    roots: list[str]
    options: SearchOptions
    warnings: list[str]
    _reporter: Any
    _index: Index  # set by the match thread: importing the matcher overlaps the walk
    _cached: bool

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._ilock = threading.Lock()  # every Index call (run/top/extend)
        self._cancel = threading.Event()
        self._walk_imported = threading.Event()  # the walk's modules are loaded
        self._shown = threading.Event()  # a state with paths was published (and reported)
        # Guarded by _cond:
        self._pending: list[tuple[int, list[str]]] = []
        self._replace = False  # the pending paths replace the index (``REPLACE``)
        self._epoch = 0  # the index's: a state of another epoch is not read
        self._scanned = 0
        self._query = ""
        self._gen = 0
        self._walk_done = False  # the walk thread has ended (finished, failed or cancelled)
        self._walk_complete = False  # ... and it finished normally
        self._warmer: Iterator[str | None] | None = None  # Index.warm(), while it runs
        self._warmed = -1  # how many paths Index.warm covered when it last ended
        self._warm_next: str | None = None  # what its last step yielded
        self._warm_took = 0.0  # the seconds its last step took
        self._filler: Filler | None = None  # the published state's set, computed when idle
        self._published = 0.0  # when the last state was published (``time.monotonic``)
        self._compacted = -1  # the state version whose idle sets were last compacted
        self._error: BaseException | None = None
        self._state = State("", None, 0, 0, {})
        self._state_gen = 0
        # Match thread only:
        self._cache: OrderedDict[str, State] = OrderedDict()
        self._last_report = 0.0
        self._report_due = False
