"""inotify watches on the folders of one root (Linux, through ctypes), and the books every
watcher keeps (``Books``, shared with ``ffind.fs.fanwatch``).  A folder is watched for entries
created, deleted, moved and attribute changes, and its own deletion or move; not for writes
(the folders whose listing depends on a file's contents are ``stat``-checked every time).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Iterator
from typing import Any

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

MASK = (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF
        | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
"""What a folder is watched for (``IN_DONT_FOLLOW`` added for every folder but the root)."""
WATCH_SHARE = 0.5
"""The share of its user's free watches (``max_user_watches`` less those in use) a
``Watcher`` takes at most: the budget is per user and shared with editors."""
_HEAD = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)
_READ = 1 << 16


class Drained:
    """What one drain found: ``marked`` folders may have changed; below ``moved`` (renamed)
    and ``attrib`` (mode, owner changed) ones every folder may; ``overflow``: events lost."""

    __slots__ = ("attrib", "marked", "moved", "overflow")

    def __init__(self) -> None:
        self.marked: set[str] = set()
        self.moved: set[str] = set()
        self.attrib: set[str] = set()
        self.overflow = False


def parse(buffer: bytes) -> Iterator[tuple[int, int, str]]:
    """The events in what a read of an inotify descriptor gives: (wd, mask, name), the name
    '' for an event on the watched folder itself."""
    at, end = 0, len(buffer)
    while at + _HEAD.size <= end:
        wd, mask, _cookie, length = _HEAD.unpack_from(buffer, at)
        at += _HEAD.size
        raw = buffer[at:at + length].split(b"\0", 1)[0]
        at += length
        yield wd, mask, os.fsdecode(raw)


def parent(prefix: str) -> str:
    """The prefix of the folder holding the folder ``prefix`` ('' for the root's children)."""
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
            q = parent(q)
        else:
            if "" in tops:
                found.append(p)
    return found


class Books:
    """Which folder (its prefix: path from the root + ``/``, '' for the root) holds which
    watch (``wd_of``: an inotify wd or a fanotify handle) and back (``prefix_of``).  A
    subclass gives ``_init`` (a new kernel queue), ``remove`` and ``_lost``."""

    wd_of: dict[str, Any]
    prefix_of: dict[Any, str]

    def __init__(self, root: str, fd: int, budget: int) -> None:
        self.root = root
        self.fd = fd
        self.budget = budget
        self.wd_of = {}
        self.prefix_of = {}
        self.full = False
        """True once the kernel refused a watch for want of room: no more are tried until
        one is removed."""
        self.removed = 0
        """How many watches were removed so far (a ``Hint`` sees the set shrink by it)."""
        self.forgotten: list[str] | None = None
        """When a list: every prefix dropped from the books is appended (for ``Pair``)."""

    def _init(self) -> int:
        raise NotImplementedError

    def remove(self, prefix: str) -> None:
        raise NotImplementedError

    def _lost(self) -> bytes:
        """An event saying events were lost, in this queue's format."""
        raise NotImplementedError

    def path_of(self, prefix: str) -> str:
        return os.path.join(self.root, prefix[:-1]) if prefix else self.root

    def keep(self, prefix: str, key: Any) -> bool:
        """Note ``key`` (a watch or a mark) as ``prefix``'s; False, and neither kept, when it is
        already another prefix's (one folder under two prefixes: a bind mount)."""
        other = self.prefix_of.get(key)
        if other is not None:
            self.remove_below([other])
            return False
        self.wd_of[prefix] = key
        self.prefix_of[key] = prefix
        return True

    def _forget(self, prefix: str) -> Any:
        """Drop ``prefix`` from the books (not from the kernel): its wd or handle, or None."""
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
        """Watch nothing: a new kernel queue (the old one's watches go with it)."""
        os.close(self.fd)
        self.removed += len(self.wd_of)
        if self.forgotten is not None:
            self.forgotten.extend(self.wd_of)
        self.wd_of.clear()
        self.prefix_of.clear()
        self.full = False
        self.fd = self._init()

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

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self.wd_of.clear()
        self.prefix_of.clear()


def checked_fd(fd: int) -> int:
    """``fd``, or the OSError of ``errno`` when it is negative (a failed libc call)."""
    if fd < 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return fd


class Watcher(Books):
    """An inotify instance watching folders of one root.  ``budget``: how many watches it may
    hold (None: its share of what is free, ``free_watches``)."""

    wd_of: dict[str, int]
    prefix_of: dict[int, str]

    def __init__(self, root: str, budget: int | None = None, libc: Any = None) -> None:
        self._libc = libc if libc is not None else _libc()
        super().__init__(root, self._init(), budget if budget is not None
                         else int(free_watches() * WATCH_SHARE))

    def _init(self) -> int:
        return checked_fd(int(self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)))

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
        return self.keep(prefix, wd)

    def remove(self, prefix: str) -> None:
        """Stop watching the folder ``prefix`` (its events still queued are ignored)."""
        wd = self._forget(prefix)
        if wd is not None:
            self._libc.inotify_rm_watch(self.fd, wd)

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


def proc_int(path: str) -> int | None:
    """The integer in a ``/proc`` file, or None."""
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
    """The inotify watches held by the processes of ``uid`` (default: this one's)."""
    return used_in_fdinfo("anon_inode:inotify", b"inotify wd:", uid)


def free_watches() -> int:
    """The watches this user may still add: ``max_user_watches`` less ``used_watches``."""
    limit = proc_int("/proc/sys/fs/inotify/max_user_watches")
    if limit is None:
        return 0
    return max(0, limit - used_watches())
