"""Watches as an exact hint for the warm index's validation (Linux).

A process that keeps a listing between requests (the resident server) watches each folder
(inotify, ``ffind.fs.inotify``; beyond its share fanotify, ``ffind.fs.fanwatch``) and ``stat``s
only the folders that may have changed: ``Hint.only(snap)`` gives them to
``Refresh.warm(snap, only=...)``, ``Hint.settle(listing)`` takes the validated listing back.

Exact because the kernel queues an event before the call that made the change returns; a
folder is trusted only if its watch predates the listing's check and no event came since; a
watch is added only below a watched parent, so a rename or attribute change of any ancestor is
seen (every folder below is checked); the root's identity and the mount table are checked each
request; folders without a signature or with ignore files, ``.git`` or probes are always checked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ffind.fs.inotify import Drained, Watcher, below, parent
from ffind.options import SearchOptions
from ffind.state.cache import NO_SIG, SIG_FIELDS, CachedListing

if TYPE_CHECKING:
    from ffind.fs.fanwatch import Pair
    from ffind.fs.refresh import Refresh

NO_WATCH = "FFIND_NO_WATCH"
"""Set (not empty, not 0): no hint; every validation ``stat``s every folder."""
_STOP_EVERY = 256  # folders between two questions to ``arm``'s ``stop``


class Mounts:
    """Whether the mount table changed since the last ``changed()`` (``/proc/self/mountinfo``
    signals a change to ``poll``); True when it cannot tell."""

    def __init__(self) -> None:
        import select

        self._file: Any = None
        self._poll: Any = None
        try:
            self._file = open("/proc/self/mountinfo", "rb")  # noqa: SIM115 (kept open)
            self._file.read()
            self._poll = select.poll()
            self._poll.register(self._file.fileno(), select.POLLPRI | select.POLLERR)
        except (OSError, AttributeError):
            self.close()

    def changed(self) -> bool:
        if self._poll is None:
            return True
        try:
            return bool(self._poll.poll(0))
        except OSError:
            return True

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._poll = None


class Hint:
    """Which folders of a listing a validation must ``stat``, from a ``Watcher``; one per
    listing, kept between requests:

        only = hint.only(snap)
        paths = [p for batch in run.warm(snap, only) for p in batch]
        hint.settle(run.listing)    # the next request: hint.only(run.listing)
    """

    def __init__(self, watcher: Watcher | Pair, mounts: Mounts | None = None) -> None:
        self.watcher = watcher
        self.mounts = mounts if mounts is not None else Mounts()
        self.pending: set[str] = set()
        """Folders to check at the next validation (events, new watches) until ``settle``."""
        self.drained = Drained()
        """What the last ``only`` drained (for tests and benchmarks)."""
        self.last: list[int] | None = None
        """What the last ``only`` answered."""
        self._snap: CachedListing | None = None  # the listing settled last
        self._full = True  # the next validation checks every folder
        self._always: set[int] = set()  # checked every time (no signature, extras)
        self._index: dict[str, int] | None = None
        self._base: list[int] | None = None  # _always and the unwatched, sorted
        self._removed = -1  # the watcher's ``removed`` when _base was made
        self._identity: tuple[int, int] | None = None  # the root's (device, inode)
        self.per_request: int | None = None
        """At most this many watches added by one ``only`` (None: all); ``arm`` adds the rest."""
        self.armed = False
        """True when the last ``only`` or ``arm`` left no watch it could add."""

    @classmethod
    def start(cls, root: str, options: SearchOptions, budget: int | None = None,
              per_request: int | None = None, marks: int | None = None,
              environ: Mapping[str, str] | None = None) -> Hint | None:
        """A hint for the listing of ``root``, or None (not Linux, no inotify, an untrusted
        file system, ``follow_links``, ``NO_WATCH``).  ``budget``: inotify watches, ``marks``:
        fanotify marks beyond them (None: their shares of what is free; 0: inotify alone)."""
        env = os.environ if environ is None else environ
        if (not sys.platform.startswith("linux") or options.follow_links
                or env.get(NO_WATCH, "") not in ("", "0")):
            return None
        from ffind.fs.warm import trusted_fs

        if not trusted_fs(root):
            return None
        try:
            first = Watcher(os.path.abspath(root), budget)
        except (OSError, AttributeError):
            return None
        watcher: Watcher | Pair = first
        if marks != 0:
            from ffind.fs.fanwatch import FanWatcher, Pair

            try:
                second = FanWatcher(first.root, marks)
            except (OSError, AttributeError):  # (EPERM, EINVAL before 5.13, EMFILE: inotify)
                pass
            else:
                watcher = Pair(first, second) if second.budget > 0 else first
                if watcher is first:
                    second.close()
        hint = cls(watcher)
        hint.per_request = per_request
        return hint

    def _adopt(self, snap: CachedListing) -> None:
        """Take ``snap`` as the listing: the folders checked every time; the watches of
        folders no longer in it removed."""
        self._snap = snap
        self._index = None
        self._base = None
        modes = snap.sigs[SIG_FIELDS - 1::SIG_FIELDS]
        always = {i for i, m in enumerate(modes) if m == NO_SIG}
        always.update(snap.extra)
        self._always = always
        now = set(snap.prefixes)
        for prefix in [p for p in self.watcher.wd_of if p not in now]:
            self.watcher.remove(prefix)

    def _identity_now(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.watcher.root)
        except (OSError, ValueError):
            return None
        return st.st_dev, st.st_ino

    def _arm(self, snap: CachedListing, at_most: int | None = None,
             stop: Callable[[], bool] | None = None) -> None:
        """Watch the folders of ``snap`` not watched yet whose parent is, shallowest first
        (at most ``at_most``, until ``stop()`` says to stop), each checked once more
        (``pending``); then note the folders checked every time (``_base``)."""
        watcher = self.watcher
        wd_of = watcher.wd_of
        done = True
        missing = [p for p in snap.prefixes if p not in wd_of]
        if missing and not watcher.full and len(wd_of) < watcher.budget:
            missing.sort(key=lambda p: p.count("/"))
            added = 0
            for n, prefix in enumerate(missing):
                if (at_most is not None and added >= at_most) or (
                        stop is not None and n % _STOP_EVERY == _STOP_EVERY - 1 and stop()):
                    done = False
                    break
                if (not prefix or parent(prefix) in wd_of) and watcher.add(prefix):
                    self.pending.add(prefix)
                    added += 1
                elif watcher.full or len(wd_of) >= watcher.budget:
                    break
        self.armed = done
        base = set(self._always)
        base.update(i for i, p in enumerate(snap.prefixes) if p not in wd_of)
        self._base = sorted(base)
        self._removed = watcher.removed

    def arm(self, snap: CachedListing, stop: Callable[[], bool] | None = None) -> bool:
        """Add the watches for ``snap`` now (while idle), until ``stop()`` says to stop; True
        when none is left to add (``armed``).  For a listing other than the one settled
        last, the next ``only(snap)`` checks every folder."""
        if snap is not self._snap:
            self._adopt(snap)
            self._full = True
        if self._identity is None:  # (the root the watches are added below)
            self._identity = self._identity_now()
        self._arm(snap, stop=stop)
        return self.armed

    def only(self, snap: CachedListing) -> list[int] | None:
        """The folders of ``snap`` (indices, in order) that this validation must check;
        None: every one (the first validation, a listing other than the one settled last,
        lost events, a changed mount table or root)."""
        self.last = self._only(snap)
        return self.last

    def _only(self, snap: CachedListing) -> list[int] | None:
        watcher = self.watcher
        self.drained = drained = watcher.drain()
        identity = self._identity_now()
        remounted = self.mounts.changed()
        lost = (drained.overflow or "" in drained.moved or remounted or identity is None
                or identity != self._identity)
        if lost and watcher.wd_of:  # (the events lost may have been renames: no watch is
            watcher.reset()  # known to name the folder it was added for)
        if lost or snap is not self._snap:
            self._full = True
        if self._full:  # watches added before the check, which confirms every folder
            self._adopt(snap)
            self._identity = identity
            self.pending.clear()
            self._arm(snap, self.per_request)
            return None
        self.pending |= drained.marked
        if drained.moved or drained.attrib:  # every folder below may be another one, or
            tops = drained.moved | drained.attrib  # have become unreachable
            self.pending.update(below(snap.prefixes, tops))
        if self._base is None or self._removed != watcher.removed:
            self._arm(snap, self.per_request)
        assert self._base is not None
        if not self.pending:
            return self._base
        if self._index is None:
            self._index = {p: i for i, p in enumerate(snap.prefixes)}
        index = self._index
        more = {index[p] for p in self.pending if p in index}
        return sorted(more.union(self._base))

    def settle(self, listing: CachedListing | None) -> None:
        """The validation that followed ``only`` ended with ``listing`` (``Refresh.listing``:
        every folder it holds was checked, read, or trusted); None: it gave none (cancelled,
        failed), so the next one checks every folder."""
        if listing is None:
            self._full = True
            return
        self._full = False
        self.pending.clear()
        if listing is not self._snap:
            self._adopt(listing)

    def close(self) -> None:
        self.watcher.close()
        self.mounts.close()


def refreshed(run: Refresh, snap: CachedListing, hint: Hint | None) -> Iterator[list[str]]:
    """``run.warm(snap)`` checking only the folders ``hint`` gives (every one without a
    hint), then the hint settled with the listing validated."""
    if hint is None:
        yield from run.warm(snap)
        return
    only = hint.only(snap)
    done = False
    try:
        yield from run.warm(snap, only)
        done = True
    finally:
        hint.settle(run.listing if done else None)
