"""The snapshot files of the warm index (``ffind.fs.warm``): one per (root, listing options).

Where: ``$XDG_CACHE_HOME/ffind/`` (``~/.cache/ffind/`` when unset), created owner-only; each
snapshot is ``<hash of the key>.snapshot``.  A file is one header line,
``ffind-snapshot <FORMAT> <ffind version>``, a line with the length of the JSON body
(orjson), the body (which repeats the key), then the body's ``paths`` (a str) as raw UTF-8
(surrogate escapes kept), whose length the body holds: JSON would escape each NUL separator
and cost a copy.  Written atomically: a temporary file in the same folder, ``fsync``,
``os.replace``; a killed writer leaves the old snapshot (or none) and a temporary file that a
later write removes once it is an hour old.  Two processes writing the same snapshot each
replace it whole; the last one wins.

Reading never fails: a missing, truncated, garbage, other-format, other-version or other-key
file reads as None (the search then walks cold), and so does a folder that cannot be read or
written (a read-only or full disk just means no warm search).

Bounded: after each write, the least recently used snapshots (by modification time; a read
touches it) are removed until the folder holds at most ``LIMIT_BYTES`` of them.
``clear()`` (``ffind --clear-cache``) removes every snapshot.
"""

from __future__ import annotations

import contextlib
import os
import time
import zlib
from typing import Any

from ffind.state.paths import make_private_dir, xdg_dir

FORMAT = 1
"""The snapshot format; a file of another format is ignored."""
LIMIT_BYTES = 200 * 1024 * 1024
"""At most this many bytes of snapshots are kept (least recently used evicted first)."""
SUFFIX = ".snapshot"
_TMP = ".tmp"
_STALE_TMP = 3600.0  # seconds after which a temporary file is a dead writer's


def _magic() -> bytes:
    from ffind import __version__

    return f"ffind-snapshot {FORMAT} {__version__}\n".encode()


class SnapshotStore:
    """The snapshot folder (``folder``, default ``xdg_dir("cache")``)."""

    def __init__(self, folder: str | None = None, limit: int = LIMIT_BYTES) -> None:
        self.folder = folder or xdg_dir("cache")
        self.limit = limit

    def path(self, key: dict[str, Any]) -> str:
        import orjson

        data = orjson.dumps(key, option=orjson.OPT_SORT_KEYS)
        name = f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"
        return os.path.join(self.folder, name + SUFFIX)

    def load(self, key: dict[str, Any]) -> dict[str, Any] | None:
        """The body of the snapshot for ``key``, or None (missing or unusable)."""
        import orjson

        path = self.path(key)
        magic = _magic()
        try:
            with open(path, "rb") as f:
                if f.readline() != magic:
                    return None
                size = int(f.readline(32))
                body = orjson.loads(f.read(size))
                if not isinstance(body, dict) or body.get("key") != key:
                    return None
                raw = f.read()
                if len(raw) != body.get("paths_bytes"):
                    return None
                body["paths"] = raw.decode("utf-8", "surrogateescape")
        except (OSError, ValueError):
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used
        return body

    def save(self, key: dict[str, Any], body: dict[str, Any]) -> bool:
        """Write the snapshot for ``key`` atomically; False when it could not be written."""
        import orjson

        path = self.path(key)
        tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}{_TMP}"
        try:
            make_private_dir(self.folder)
            raw = body.get("paths", "").encode("utf-8", "surrogateescape")
            data = orjson.dumps({**body, "paths": None, "paths_bytes": len(raw), "key": key})
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with open(fd, "wb") as f:
                    f.write(_magic())
                    f.write(b"%d\n" % len(data))
                    f.write(data)
                    f.write(raw)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, ValueError, TypeError):
            return False
        self.evict(keep=path)
        return True

    def _entries(self) -> list[tuple[float, int, str]]:
        """(modification time, size, path) of the snapshot and temporary files."""
        found = []
        try:
            with os.scandir(self.folder) as it:
                for e in it:
                    if e.name.endswith((SUFFIX, _TMP)) and e.is_file(follow_symlinks=False):
                        with contextlib.suppress(OSError):
                            st = e.stat(follow_symlinks=False)
                            found.append((st.st_mtime, st.st_size, e.path))
        except OSError:
            pass
        return found

    def evict(self, keep: str | None = None) -> None:
        """Remove dead writers' temporary files, then the least recently used snapshots until
        at most ``limit`` bytes remain (``keep`` last of all)."""
        entries = self._entries()
        now = time.time()
        total = 0
        snaps = []
        for mtime, size, path in entries:
            if path.endswith(_TMP):
                if now - mtime > _STALE_TMP:
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                continue
            total += size
            snaps.append((path == keep, mtime, size, path))
        for _, _, size, path in sorted(snaps):
            if total <= self.limit:
                return
            with contextlib.suppress(OSError):
                os.unlink(path)
                total -= size

    def clear(self) -> int:
        """Remove every snapshot (and temporary file); how many files were removed."""
        removed = 0
        for _, _, path in self._entries():
            with contextlib.suppress(OSError):
                os.unlink(path)
                removed += 1
        return removed
