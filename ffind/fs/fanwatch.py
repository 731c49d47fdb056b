"""fanotify inode marks as a second watch budget for the hint (``ffind.fs.watch``), beside
inotify's (Linux 5.13+, unprivileged with ``FAN_REPORT_DFID_NAME``).  ``FanWatcher`` has
``Watcher``'s interface; ``Pair`` marks the folders beyond inotify's share.  Events name a folder
by its file handle; merged events are taken bit by bit, and a mark whose folder was renamed
before it could be removed stays as a ``ghost`` (its events ignored) until deleted.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Iterator
from typing import Any

from ffind.fs.inotify import Books, Drained, Watcher, checked_fd, proc_int, used_in_fdinfo

FAN_CLOEXEC = 0x1
FAN_NONBLOCK = 0x2
FAN_CLASS_NOTIF = 0x0
FAN_REPORT_DIR_FID = 0x400
FAN_REPORT_NAME = 0x800
FAN_MARK_ADD = 0x1
FAN_MARK_REMOVE = 0x2
FAN_ATTRIB = 0x4
FAN_MOVED_FROM = 0x40
FAN_MOVED_TO = 0x80
FAN_CREATE = 0x100
FAN_DELETE = 0x200
FAN_DELETE_SELF = 0x400
FAN_MOVE_SELF = 0x800
FAN_Q_OVERFLOW = 0x4000
FAN_EVENT_ON_CHILD = 0x08000000
FAN_ONDIR = 0x40000000
FAN_EVENT_INFO_TYPE_FID = 1
FAN_EVENT_INFO_TYPE_DFID_NAME = 2
FAN_EVENT_INFO_TYPE_DFID = 3
METADATA_VERSION = 3
AT_EMPTY_PATH = 0x1000
AT_HANDLE_FID = 0x200
MAX_HANDLE_SZ = 128

INIT = FAN_CLASS_NOTIF | FAN_REPORT_DIR_FID | FAN_REPORT_NAME | FAN_NONBLOCK | FAN_CLOEXEC
MASK = (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ATTRIB | FAN_DELETE_SELF
        | FAN_MOVE_SELF | FAN_EVENT_ON_CHILD | FAN_ONDIR)
"""What a folder is marked for (``ffind.fs.watch.MASK``'s events)."""
MARK_SHARE = 0.5
"""The share of its user's free marks (``max_user_marks`` less those in use) a
``FanWatcher`` takes at most."""
MARK_LINES = (b"fanotify ino:", b"fanotify mnt_id:", b"fanotify sdev:")
"""How a mark's line starts in ``/proc/<pid>/fdinfo/<fd>`` (an inode's, a mount's, a file
system's; the first line, ``fanotify flags:``, is the group's)."""
_META = struct.Struct("=IBBHQii")  # struct fanotify_event_metadata
_INFO = struct.Struct("=BBH")  # struct fanotify_event_info_header
_HANDLE = struct.Struct("=Ii")  # struct file_handle: handle_bytes, handle_type
_FSID = 8  # (__kernel_fsid_t, after the info header)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def parse(buffer: bytes) -> Iterator[tuple[int, bytes | None, str]]:
    """The events in what a read of a fanotify descriptor gives: (mask, handle, name), the
    handle (type and bytes) of the folder the event names and the entry's name ("." or ''
    for the folder itself); handle None: an overflow, or a format not asked for."""
    at, end = 0, len(buffer)
    while at + _META.size <= end:
        length, version, _, meta, mask, _fd, _pid = _META.unpack_from(buffer, at)
        if version != METADATA_VERSION or length < _META.size:
            yield FAN_Q_OVERFLOW, None, ""  # (a format not understood: lost)
            return
        handle: bytes | None = None
        name = ""
        info, stop = at + meta, min(at + length, end)
        while info + _INFO.size <= stop:
            kind, _, size = _INFO.unpack_from(buffer, info)
            if size < _INFO.size:
                break
            if kind in (FAN_EVENT_INFO_TYPE_DFID_NAME, FAN_EVENT_INFO_TYPE_DFID,
                        FAN_EVENT_INFO_TYPE_FID) and handle is None:
                head = info + _INFO.size + _FSID
                count, _type = _HANDLE.unpack_from(buffer, head)
                handle = bytes(buffer[head + 4:head + _HANDLE.size + count])
                if kind == FAN_EVENT_INFO_TYPE_DFID_NAME:
                    raw = buffer[head + _HANDLE.size + count:info + size]
                    name = os.fsdecode(raw.split(b"\0", 1)[0])
            info += size
        yield mask, handle, name
        at += length


class FanWatcher(Books):
    """A fanotify group marking folders of one root, with ``Watcher``'s interface (``wd_of``:
    prefix -> handle); ``budget``: marks, ghosts included.  OSError where it cannot be had."""

    wd_of: dict[str, bytes]
    prefix_of: dict[bytes, str]

    def __init__(self, root: str, budget: int | None = None, libc: Any = None) -> None:
        import ctypes

        self._libc = libc if libc is not None else _libc()
        super().__init__(root, self._init(), budget if budget is not None
                         else int(free_marks() * MARK_SHARE))
        self.ghosts: set[bytes] = set()
        """Handles of folders marked in the kernel but no longer in the books."""
        self._handle = ctypes.create_string_buffer(_HANDLE.size + MAX_HANDLE_SZ)
        self._mount = ctypes.c_int()
        self._flags = AT_EMPTY_PATH | AT_HANDLE_FID
        """``AT_HANDLE_FID`` (Linux 6.5): the handle as fanotify encodes it; before (EINVAL),
        without (the same encoding there)."""

    def _init(self) -> int:
        return checked_fd(int(self._libc.fanotify_init(INIT, os.O_RDONLY | os.O_CLOEXEC)))

    def _handle_of(self, fd: int) -> bytes | None:
        """The file handle (type and bytes) of the folder open on ``fd``."""
        import ctypes

        buf = self._handle
        _HANDLE.pack_into(buf, 0, MAX_HANDLE_SZ, 0)
        if self._libc.name_to_handle_at(fd, b"", buf, ctypes.byref(self._mount),
                                        self._flags) != 0:
            import errno

            if ctypes.get_errno() != errno.EINVAL or self._flags == AT_EMPTY_PATH:
                return None
            self._flags = AT_EMPTY_PATH
            return self._handle_of(fd)
        count = _HANDLE.unpack_from(buf, 0)[0]
        return bytes(buf.raw[4:_HANDLE.size + count])

    def _open(self, prefix: str) -> int | None:
        try:
            return os.open(self.path_of(prefix), _DIR | (os.O_NOFOLLOW if prefix else 0))
        except (OSError, ValueError):
            return None

    def add(self, prefix: str) -> bool:
        """Mark the folder ``prefix``; False when it cannot be (budget, limit, gone, not a
        folder, no permission, no file handle)."""
        if prefix in self.wd_of:
            return True
        if self.full or len(self.wd_of) + len(self.ghosts) >= self.budget:
            return False
        fd = self._open(prefix)
        if fd is None:
            return False
        try:
            handle = self._handle_of(fd)
            if handle is None:
                return False
            if self._libc.fanotify_mark(self.fd, FAN_MARK_ADD, MASK, fd, None) != 0:
                import ctypes
                import errno

                if ctypes.get_errno() == errno.ENOSPC:
                    self.full = True
                return False
        finally:
            os.close(fd)
        self.ghosts.discard(handle)  # (a folder renamed, marked again under its new path)
        return self.keep(prefix, handle)

    def remove(self, prefix: str) -> None:
        """Stop marking the folder ``prefix``: its mark removed if the folder is still at its
        path, else left as a ghost (its events ignored)."""
        handle = self._forget(prefix)
        if handle is None:
            return
        fd = self._open(prefix)
        if fd is not None:
            try:
                if (self._handle_of(fd) == handle and self._libc.fanotify_mark(
                        self.fd, FAN_MARK_REMOVE, MASK, fd, None) == 0):
                    return
            finally:
                os.close(fd)
        self.ghosts.add(handle)

    def reset(self) -> None:
        self.ghosts.clear()
        super().reset()

    def _lost(self) -> bytes:
        return _META.pack(_META.size, METADATA_VERSION, 0, _META.size, FAN_Q_OVERFLOW, -1, 0)

    def drain(self, buffer: bytes | None = None) -> Drained:
        """The folders that may have changed since the last drain (``buffer``: events to
        take instead of the queue's, for tests), as ``Watcher.drain``."""
        out = Drained()
        prefix_of, marked, moved, attrib = self.prefix_of, out.marked, out.moved, out.attrib
        gone: list[str] = []
        for mask, handle, name in parse(self.read() if buffer is None else buffer):
            if mask & FAN_Q_OVERFLOW or handle is None:
                out.overflow = True
                continue
            prefix = prefix_of.get(handle)
            if prefix is None:  # (a ghost, or a mark removed since)
                if mask & FAN_DELETE_SELF and name in ("", "."):
                    self.ghosts.discard(handle)
                continue
            marked.add(prefix)
            if name and name != ".":
                if mask & FAN_ONDIR:
                    if mask & (FAN_MOVED_FROM | FAN_MOVED_TO):
                        moved.add(f"{prefix}{name}/")
                    if mask & FAN_ATTRIB:
                        attrib.add(f"{prefix}{name}/")
                continue
            if mask & FAN_ATTRIB:
                attrib.add(prefix)
            if mask & FAN_MOVE_SELF:
                moved.add(prefix)
            if mask & FAN_DELETE_SELF:  # (the kernel removed the mark)
                gone.append(prefix)
        for prefix in gone:
            self._forget(prefix)
        self.remove_below(moved)
        return out

    def close(self) -> None:
        super().close()
        self.ghosts.clear()


def _libc() -> Any:
    """The C library, with fanotify's two functions and ``name_to_handle_at`` typed."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.fanotify_init.argtypes = [ctypes.c_uint, ctypes.c_uint]
    libc.fanotify_init.restype = ctypes.c_int
    libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int,
                                   ctypes.c_char_p]
    libc.fanotify_mark.restype = ctypes.c_int
    libc.name_to_handle_at.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p,
                                       ctypes.c_void_p, ctypes.c_int]
    libc.name_to_handle_at.restype = ctypes.c_int
    return libc


def used_marks(uid: int | None = None) -> int:
    """The fanotify marks held by the processes of ``uid`` (default: this one's)."""
    return used_in_fdinfo("anon_inode:[fanotify]", MARK_LINES, uid)


def free_marks() -> int:
    """The marks this user may still add: ``max_user_marks`` less ``used_marks`` (0 when
    the limit cannot be read)."""
    limit = proc_int("/proc/sys/fs/fanotify/max_user_marks")
    if limit is None:
        return 0
    return max(0, limit - used_marks())


class Pair:
    """An inotify ``Watcher`` and a ``FanWatcher`` as one: a folder is watched by inotify while
    its share lasts, else marked.  ``wd_of``: every folder watched or marked."""

    def __init__(self, first: Watcher, second: FanWatcher) -> None:
        self.root = first.root
        self.first, self.second = first, second
        self.wd_of: dict[str, int | bytes] = {}
        first.forgotten = []
        second.forgotten = []

    @property
    def fd(self) -> int:
        """-1 once either is closed."""
        return min(self.first.fd, self.second.fd)

    @property
    def budget(self) -> int:
        return self.first.budget + self.second.budget

    @property
    def removed(self) -> int:
        return self.first.removed + self.second.removed

    @property
    def full(self) -> bool:
        return self._room(self.first) is None and self._room(self.second) is None

    @staticmethod
    def _room(w: Watcher | FanWatcher) -> Watcher | FanWatcher | None:
        taken = len(w.wd_of) + len(getattr(w, "ghosts", ()))
        return None if w.full or taken >= w.budget else w

    def path_of(self, prefix: str) -> str:
        return self.first.path_of(prefix)

    def _sync(self) -> None:
        """Drop from ``wd_of`` what either one dropped from its books."""
        for w in (self.first, self.second):
            if w.forgotten:
                for prefix in w.forgotten:
                    self.wd_of.pop(prefix, None)
                w.forgotten.clear()

    def add(self, prefix: str) -> bool:
        if prefix in self.wd_of:
            return True
        w = self._room(self.first) or self._room(self.second)
        if w is None:
            return False
        ok = w.add(prefix)
        self._sync()
        if ok:
            self.wd_of[prefix] = w.wd_of[prefix]
        return ok

    def remove(self, prefix: str) -> None:
        self.first.remove(prefix)
        self.second.remove(prefix)
        self._sync()

    def remove_below(self, prefixes: Iterable[str]) -> None:
        self.first.remove_below(prefixes)
        self.second.remove_below(prefixes)
        self._sync()

    def reset(self) -> None:
        self.first.reset()
        self.second.reset()
        self._sync()
        self.wd_of.clear()

    def drain(self) -> Drained:
        """Both queues drained (every change completed before is in one of them); a folder
        renamed in one stops being watched below it in both."""
        out = self.first.drain()
        more = self.second.drain()
        self.first.remove_below(more.moved)  # (each removed its own already)
        self.second.remove_below(out.moved)
        self._sync()
        out.marked |= more.marked
        out.moved |= more.moved
        out.attrib |= more.attrib
        out.overflow = out.overflow or more.overflow
        return out

    def close(self) -> None:
        self.first.close()
        self.second.close()
        self.wd_of.clear()
