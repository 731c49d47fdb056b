"""inotify as an exact hint for the warm index's validation (Linux; ``docs/cache.md``).

A warm listing is validated by ``stat``-ing every folder of its snapshot
(``ffind.fs.refresh``): ~130 ms for 41k folders, ~1.7 s for 388k.  A process that keeps a
listing between requests (the resident index server) can instead keep an inotify watch on
each folder and ``stat`` only the folders that may have changed: ``Hint.only(snap)`` gives
them, for ``Refresh.warm(snap, only=...)``, and ``Hint.settle(listing)`` takes the validated
listing back.  Everything else in the refresh (re-reading changed folders, the ignore inputs
above the root, the snapshot written) is unchanged.

``Watcher``: a small ctypes wrapper over ``inotify_init1``, ``inotify_add_watch`` and
``inotify_rm_watch`` (no dependency).  A folder's listing depends on its entries' names and
types, its readability, and, for a few folders, files' contents (ignore files, ``.git``,
``CACHEDIR.TAG``), so each folder is watched for ``IN_CREATE``, ``IN_DELETE``,
``IN_MOVED_FROM``, ``IN_MOVED_TO`` and ``IN_ATTRIB`` on its entries and itself, and
``IN_DELETE_SELF`` and ``IN_MOVE_SELF`` (``IN_ONLYDIR``, ``IN_DONT_FOLLOW`` but for the
root, ``IN_EXCL_UNLINK``; ``IN_IGNORED``, ``IN_UNMOUNT`` and ``IN_Q_OVERFLOW`` come
unasked).  Not ``IN_MODIFY`` nor ``IN_CLOSE_WRITE``: the folders whose listing depends on a
file's contents are ``stat``-checked on every validation anyway (below), and every write of
every file would be an event.

Why the hint is exact:

- The kernel queues an event before the system call that made the change returns, so every
  change completed before a request is in the queue that request drains first.
- A folder is trusted without a ``stat`` only if its watch was added before the listing of it
  that the snapshot holds was made, or before a ``stat`` check (the refresh's, with its racy
  rule) confirmed that listing, and no event for it was drained since.  So a folder is
  ``stat``-checked (as without a hint) when: it is new in the listing, its watch was just
  added or could not be (watch limit, no permission, not a folder any more), it had an
  event, the queue overflowed, or the mount table changed.
- A path names a folder through its ancestors.  A watch is added only to a folder whose
  parent is watched (the watched folders are the top of the tree), so a rename of any
  ancestor is an event (``IN_MOVED_FROM``/``IN_MOVED_TO`` with ``IN_ISDIR`` in its parent,
  ``IN_MOVE_SELF`` in itself): every folder below a moved one loses its watch and is
  ``stat``-checked.  So is every folder below one whose own mode, owner or times changed
  (``IN_ATTRIB`` on itself): a search permission taken away makes them unreachable, and
  their own watches see nothing.  Above the root, the root's identity (device, inode) is
  compared on every request (a renamed ancestor or a re-pointed symbolic link: a full
  check), and ``/proc/self/mountinfo`` is polled (a file system mounted over a folder of
  the tree changes no folder's entries: a full check).
- Always ``stat``-checked, watched or not: folders without a signature (a
  symbolic link inside, unreadable, read by descriptor: read on every search), and folders
  with ignore files, ``.git`` or ``target`` probes (a file's contents can change through a
  hard link in another folder or a symbolic link's target, with no event here).  The inputs
  above the root (git's configuration, the global excludes file, ``.git/info/exclude``)
  are checked by the warm index as without a hint.

Limits: a watch costs kernel memory (~110 bytes, and it pins its folder's inode) and
``/proc/sys/fs/inotify/max_user_watches`` is per user and shared with editors, so a
``Watcher`` takes at most ``WATCH_SHARE`` (half) of the watches its user has free when it
starts (counted in ``/proc/*/fdinfo``); the folders beyond are marked with fanotify, a
separate per-user budget, within its own share (``ffind.fs.fanwatch``: a ``Pair`` of the two
is the hint's watcher), and the folders beyond both are ``stat``-checked.  No watcher
(``Hint.start`` is None, the full ``stat`` pass as before) off Linux, when
``inotify_init1`` fails, on a file system whose times cannot be trusted
(``ffind.fs.warm.trusted_fs``), with ``follow_links`` (never cached), or with
``FFIND_NO_WATCH`` set (``NO_WATCH``).
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ffind.options import SearchOptions
from ffind.state.cache import NO_SIG, SIG_FIELDS, CachedListing

if TYPE_CHECKING:
    from ffind.fs.fanwatch import Pair
    from ffind.fs.refresh import Refresh

IN_ATTRIB = 0x4
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_UNMOUNT = 0x2000
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

MASK = (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF
        | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
"""What a folder is watched for (``IN_DONT_FOLLOW`` added for every folder but the root)."""
NO_WATCH = "FFIND_NO_WATCH"
"""Set (not empty, not 0): no hint at all, neither inotify nor fanotify; every validation
``stat``s every folder (``docs/cache.md``)."""
WATCH_SHARE = 0.5
"""The share of its user's free watches (``max_user_watches`` less those in use) a
``Watcher`` takes at most."""
_HEAD = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)
_READ = 1 << 16
_STOP_EVERY = 256  # folders between two questions to ``arm``'s ``stop``


class Drained:
    """What one ``Watcher.drain`` found: ``marked``, the watched folders (prefixes) that may
    have changed; ``moved``, prefixes whose folder was renamed, or renamed over (every folder
    below may now be another one); ``attrib``, folders whose own mode, owner or times changed
    (every folder below may have become unreachable, or reachable again: a search
    permission); ``overflow``, True when events were lost (the queue overflowed, a file
    system was unmounted): everything may have changed."""

    __slots__ = ("attrib", "marked", "moved", "overflow")

    def __init__(self) -> None:
        self.marked: set[str] = set()
        self.moved: set[str] = set()
        self.attrib: set[str] = set()
        self.overflow = False


def parse(buffer: bytes) -> Iterator[tuple[int, int, str]]:
    """The events in ``buffer`` (what a read of an inotify descriptor gives): (wd, mask,
    name), the name '' for an event on the watched folder itself."""
    at, end = 0, len(buffer)
    while at + _HEAD.size <= end:
        wd, mask, _cookie, length = _HEAD.unpack_from(buffer, at)
        at += _HEAD.size
        raw = buffer[at:at + length].split(b"\0", 1)[0]
        at += length
        yield wd, mask, os.fsdecode(raw)


class Books:
    """The books a watcher keeps, shared by inotify's ``Watcher`` and fanotify's
    ``ffind.fs.fanwatch.FanWatcher``: which folder (its prefix: path from the root + ``/``,
    '' for the root) holds which watch (``wd_of``, an inotify wd or a fanotify folder handle)
    and back (``prefix_of``).  A subclass sets the attributes and gives ``remove`` (drop a
    watch from the kernel too) and ``reset``."""

    wd_of: dict[str, Any]
    prefix_of: dict[Any, str]
    full: bool
    """True once the kernel refused a watch for want of room (``ENOSPC``): no more are tried
    until one is removed."""
    removed: int
    """How many watches were removed so far (a ``Hint`` sees the set shrink by it)."""
    forgotten: list[str] | None
    """When a list: every prefix dropped from the books is appended (for
    ``ffind.fs.fanwatch.Pair``)."""

    def __init__(self, root: str, fd: int, budget: int) -> None:
        self.root = root
        self.fd = fd
        self.budget = budget
        self.wd_of = {}
        self.prefix_of = {}
        self.full = False
        self.removed = 0
        self.forgotten = None

    def remove(self, prefix: str) -> None:
        raise NotImplementedError

    def _forget(self, prefix: str) -> Any:
        """Drop the watch of ``prefix`` from the books (not from the kernel): its wd or
        handle, or None when it was not watched."""
        wd = self.wd_of.pop(prefix, None)
        if wd is not None:
            del self.prefix_of[wd]
            self.full = False
            self.removed += 1
            if self.forgotten is not None:
                self.forgotten.append(prefix)
        return wd

    def remove_below(self, prefixes: Iterable[str]) -> None:
        """Stop watching the folders ``prefixes`` and every one below them."""
        tops = set(prefixes)
        if "" in tops:
            self.reset()
        elif tops:
            for prefix in below(self.wd_of, tops):
                self.remove(prefix)

    def reset(self) -> None:
        raise NotImplementedError

    fd: int

    def _lost(self) -> bytes:
        """An event saying events were lost (every folder checked), in this queue's format."""
        raise NotImplementedError

    def read(self) -> bytes:
        """Everything queued, without waiting (a read that fails: lost events)."""
        parts = []
        while True:
            try:
                part = os.read(self.fd, _READ)
            except BlockingIOError:
                break
            except OSError:
                parts.append(self._lost())
                break
            if not part:
                break
            parts.append(part)
        return b"".join(parts)

    def _clear(self) -> None:
        """Empty the books (for ``reset``: the kernel's side goes with the descriptor)."""
        self.removed += len(self.wd_of)
        if self.forgotten is not None:
            self.forgotten.extend(self.wd_of)
        self.wd_of.clear()
        self.prefix_of.clear()
        self.full = False


class Watcher(Books):
    """An inotify instance watching folders of one root, each by its prefix (path from the
    root + ``/``, '' for the root).  ``budget``: how many watches it may hold (None: its
    share of what is free, ``free_watches``)."""

    wd_of: dict[str, int]
    prefix_of: dict[int, str]

    def __init__(self, root: str, budget: int | None = None, libc: Any = None) -> None:
        self._libc = libc if libc is not None else _libc()
        super().__init__(root, self._init(), budget if budget is not None
                         else int(free_watches() * WATCH_SHARE))

    def _init(self) -> int:
        fd = int(self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0:
            import ctypes

            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        return fd

    def path_of(self, prefix: str) -> str:
        return os.path.join(self.root, prefix[:-1]) if prefix else self.root

    def add(self, prefix: str) -> bool:
        """Watch the folder ``prefix``; False when it cannot be (budget, limit, gone, not a
        folder, no permission)."""
        if prefix in self.wd_of:
            return True
        if self.full or len(self.wd_of) >= self.budget:
            return False
        mask = MASK | (IN_DONT_FOLLOW if prefix else 0)  # (the root: as the walk, followed)
        wd = int(self._libc.inotify_add_watch(self.fd, os.fsencode(self.path_of(prefix)), mask))
        if wd < 0:
            import ctypes
            import errno

            if ctypes.get_errno() == errno.ENOSPC:
                self.full = True
            return False
        other = self.prefix_of.get(wd)
        if other is not None:  # one folder under two prefixes (a bind mount): watch neither
            self.remove_below([other])
            return False
        self.wd_of[prefix] = wd
        self.prefix_of[wd] = prefix
        return True

    def remove(self, prefix: str) -> None:
        """Stop watching the folder ``prefix`` (its events still queued are ignored)."""
        wd = self._forget(prefix)
        if wd is not None:
            self._libc.inotify_rm_watch(self.fd, wd)

    def reset(self) -> None:
        """Stop watching anything: a new inotify instance (the old one's queue is gone)."""
        os.close(self.fd)
        self._clear()
        self.fd = self._init()

    def _lost(self) -> bytes:
        return _HEAD.pack(-1, IN_Q_OVERFLOW, 0, 0)

    def drain(self, buffer: bytes | None = None) -> Drained:
        """The folders that may have changed since the last drain (``buffer``: events to
        take instead of the queue's, for tests).  A folder renamed, deleted or unmounted
        stops being watched (with every folder below a renamed one)."""
        out = Drained()
        prefix_of, marked, moved = self.prefix_of, out.marked, out.moved
        gone: list[str] = []
        for wd, mask, name in parse(self.read() if buffer is None else buffer):
            if mask & (IN_Q_OVERFLOW | IN_UNMOUNT):
                out.overflow = True
                continue
            prefix = prefix_of.get(wd)
            if prefix is None:  # a watch removed since (its last events, IN_IGNORED)
                continue
            marked.add(prefix)
            if name:
                if mask & IN_ISDIR and mask & (IN_MOVED_FROM | IN_MOVED_TO):
                    moved.add(f"{prefix}{name}/")
            elif mask & IN_MOVE_SELF:
                moved.add(prefix)
            elif mask & (IN_DELETE_SELF | IN_IGNORED):
                gone.append(prefix)
            elif mask & IN_ATTRIB:
                out.attrib.add(prefix)
        for prefix in gone:  # (the kernel removed the watch; nothing was below a deleted
            self._forget(prefix)  # folder, and an unmount is an overflow)
        self.remove_below(moved)
        return out

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self.wd_of.clear()
        self.prefix_of.clear()


def _libc() -> Any:
    """The C library, with inotify's three functions typed."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.inotify_init1.argtypes = [ctypes.c_int]
    libc.inotify_init1.restype = ctypes.c_int
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    libc.inotify_add_watch.restype = ctypes.c_int
    libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.inotify_rm_watch.restype = ctypes.c_int
    return libc


def _proc_int(path: str) -> int | None:
    try:
        with open(path, "rb") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def used_in_fdinfo(link: str, token: bytes | tuple[bytes, ...], uid: int | None = None) -> int:
    """How many lines starting with ``token`` the ``/proc/<pid>/fdinfo`` files of the
    descriptors whose link reads ``link`` hold, in the processes of ``uid`` (by default this
    one's) that this process may see: the watches (marks) of inotify (fanotify) held."""
    uid = os.getuid() if uid is None else uid
    used = 0
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0
    for pid in pids:
        base = f"/proc/{pid}"
        try:
            if os.stat(base).st_uid != uid:
                continue
            fds = os.listdir(f"{base}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"{base}/fd/{fd}") != link:
                    continue
                with open(f"{base}/fdinfo/{fd}", "rb") as f:
                    used += sum(line.startswith(token) for line in f.read().splitlines())
            except OSError:
                continue
    return used


def used_watches(uid: int | None = None) -> int:
    """The inotify watches held by the processes of ``uid`` (by default this one's) that
    this process may see (``/proc/<pid>/fdinfo``)."""
    return used_in_fdinfo("anon_inode:inotify", b"inotify wd:", uid)


def free_watches() -> int:
    """The watches this user may still add: ``max_user_watches`` less ``used_watches``."""
    limit = _proc_int("/proc/sys/fs/inotify/max_user_watches")
    if limit is None:
        return 0
    return max(0, limit - used_watches())


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


def _parent(prefix: str) -> str:
    up = prefix[:-1].rpartition("/")[0]
    return up + "/" if up else ""


def below(prefixes: Iterable[str], tops: set[str]) -> list[str]:
    """The ``prefixes`` that are one of ``tops`` or below one."""
    if len(tops) <= 16:
        first = tuple(tops)
        return [p for p in prefixes if p.startswith(first)]
    found = []
    for p in prefixes:
        q = p
        while q:
            if q in tops:
                found.append(p)
                break
            q = _parent(q)
        else:
            if "" in tops:
                found.append(p)
    return found


class Hint:
    """Which folders of a listing a validation must ``stat`` (``only``), from a ``Watcher``;
    the listing validated is handed back with ``settle``.  One per listing (root and listing
    options), kept between requests by the process that keeps the listing:

        only = hint.only(snap)
        paths = [p for batch in run.warm(snap, only) for p in batch]
        hint.settle(run.listing)    # the next request: hint.only(run.listing)
    """

    def __init__(self, watcher: Watcher | Pair, mounts: Mounts | None = None) -> None:
        self.watcher = watcher
        self.mounts = mounts if mounts is not None else Mounts()
        self.pending: set[str] = set()
        """Folders to check at the next validation (events, new watches), kept until one
        ends (``settle``)."""
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
        """At most this many watches added by one ``only`` (None: every one it can); the
        others are added by ``arm`` (a server arms while idle: ~10-20 µs a watch)."""
        self.armed = False
        """True when the last ``only`` or ``arm`` left no watch to add that could be (the
        budget, the limit and the unwatched parents aside): ``arm`` has nothing to do."""

    @classmethod
    def start(cls, root: str, options: SearchOptions, budget: int | None = None,
              per_request: int | None = None, marks: int | None = None,
              environ: Mapping[str, str] | None = None) -> Hint | None:
        """A hint for the listing of ``root`` with ``options``, or None (not Linux, no
        inotify, an untrusted file system, ``follow_links``, ``NO_WATCH`` set): check every
        folder.  ``budget``: the inotify watches it may hold, ``marks`` the fanotify marks
        for the folders beyond (None: their shares of what is free; 0: inotify alone, as
        where fanotify cannot be had, ``ffind.fs.fanwatch``)."""
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
        """Watch the folders of ``snap`` not watched yet whose parent is (shallowest first,
        within the budget; at most ``at_most``, until ``stop()``, asked every ``_STOP_EVERY``
        folders, says to stop): the next check (this validation's, or the next one's after
        ``arm``) checks each (``pending``).  Then the folders checked every time: ``_always``
        and the unwatched."""
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
                if (not prefix or _parent(prefix) in wd_of) and watcher.add(prefix):
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
        """Add the watches for ``snap`` now (while idle, after a reply: ~10-20 µs each), until
        ``stop()`` says to stop (a request waits: call again later); True when none is left to
        add (``armed``).  ``snap`` settled last (``settle``): the folders newly watched are
        checked by the next ``only(snap)`` with the rest it must check; another listing: the
        next ``only(snap)`` checks every folder once."""
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


def checked(snap: CachedListing, only: Sequence[int] | None) -> list[str]:
    """The prefixes of the folders ``only`` (all of them for None): for tests, benchmarks."""
    return list(snap.prefixes) if only is None else [snap.prefixes[i] for i in only]
