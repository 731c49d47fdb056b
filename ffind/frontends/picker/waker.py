"""The session's reporter for the picker: the newest state to draw, and a wake-up pipe."""

from __future__ import annotations

import contextlib
import os
import threading

TYPE_CHECKING = False  # (not typing's: imported on the picker's start)
if TYPE_CHECKING:
    from ffind.scoring.scorer import FileMatch
    from ffind.searching.session import Snapshot


class Waker:
    """The session's reporter: keeps the latest snapshot (ranked, counted, with indices: the UI
    draws it without waiting for the matcher) and wakes the UI loop through a pipe."""

    def __init__(self, wake_w: int, limit: int) -> None:
        self._w = wake_w
        self._limit = limit  # how many matches the session ranks per state
        self.latest: Snapshot | None = None
        self.complete = False  # ``latest`` came from ``on_complete``: walked and fully matched
        self.ranked: tuple[str, list[FileMatch]] | None = None
        """A completed query's matches, handed over before its count (``on_ranked``)."""
        self.seq = self.latest_seq = self.ranked_seq = 0  # what arrived last (match thread)
        self.reported = False
        """The session has reported a state (a provisional one is no longer taken)."""
        self._known = 0
        """The provisional state's scanned count: the session's states show at least as many
        until its listing is validated (the counter does not drop back)."""
        self.arrived = threading.Event()
        self._lock = threading.Lock()  # (the session's states against ``provisional``)

    def wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._w, b".")

    def on_update(self, snapshot: Snapshot, complete: bool = False) -> None:
        if not snapshot.walk_complete and snapshot.scanned_file_count < self._known:
            from ffind.searching.session import Snapshot

            snapshot = Snapshot(snapshot.query, snapshot.matches, snapshot.total_match_count,
                                self._known, snapshot.walk_complete)
        with self._lock:
            self.latest, self.complete = snapshot, complete
            self.seq += 1
            self.latest_seq = self.seq
            self.reported = True
        self.arrived.set()
        self.wake()

    def on_complete(self, snapshot: Snapshot) -> None:
        self.on_update(snapshot, complete=True)

    def on_ranked(self, query: str, matches: list[FileMatch]) -> None:
        with self._lock:
            self.ranked = (query, matches)
            self.seq += 1
            self.ranked_seq = self.seq
            self.reported = True
        self.arrived.set()
        self.wake()

    def provisional(self, snapshot: Snapshot) -> bool:
        """Show ``snapshot`` (the resident server's rows, then with their count) until the
        session's first state; whether it was taken."""
        with self._lock:
            if self.reported:
                return False
            self.latest, self.complete = snapshot, False
            self._known = snapshot.scanned_file_count
            self.seq += 1
            self.latest_seq = self.seq
        self.arrived.set()
        self.wake()
        return True

    def newest(self, query: str) -> Snapshot | None:
        """The newest state to show: the latest snapshot, or the matches of ``query`` handed
        over ahead of their count (until it comes, the previous count, at least theirs)."""
        latest, ranked = self.latest, self.ranked
        if ranked is None or self.ranked_seq < self.latest_seq or ranked[0] != query:
            return latest
        from ffind.searching.session import Snapshot

        matches = ranked[1]
        count = len(matches)
        if count >= self._limit and latest is not None:
            count = max(count, latest.total_match_count)
        if latest is None:
            return Snapshot(query, matches, count, 0, False)
        return Snapshot(query, matches, count, latest.scanned_file_count, latest.walk_complete)

    def answered(self, query: str) -> bool:
        """The newest state is the typed query's answer (complete, or its matches)."""
        if self.ranked_seq > self.latest_seq:
            return self.ranked is not None and self.ranked[0] == query
        return self.complete and self.latest is not None and self.latest.query == query
