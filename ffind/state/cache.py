"""The snapshot files of the warm index (``ffind.fs.warm``): one per (root, listing options).

Where: ``$XDG_CACHE_HOME/ffind/<hash of the key>.snapshot``, owner-only.  A file is a header
line (``ffind-snapshot <FORMAT> <version>``), the length of a small JSON head (the key,
``start``, ``global``, the folder count, byte order, the sections' lengths, the few folders
with ignore files or probes), the head, then the sections: every folder's prefix (UTF-8,
NUL-ended), their signatures (``SIG_FIELDS`` 64-bit integers each), their path counts, then
every path (UTF-8 with surrogate escapes, NUL-ended); last, the CRC-32 of the head and the
sections (8 hex digits), so that a damaged file is not read as a listing.  Sections are read
and written without a Python object per folder or path until one is asked for, and written
``CHUNK`` strings at a time (never a whole section as one string).

Written atomically (``write_private``; a dead writer's temporary file is removed after an
hour).  Reading never fails: a missing, damaged, other-format, other-version or other-key file
reads as None (the search walks cold), and so does one that is not this user's own
(``ffind.state.paths``: the folder and the file must belong to the user, no one else may
write them, no link is followed).  The head is the
standard library's ``json``, ASCII-only (orjson's import costs a warm search more).  At most
``LIMIT_BYTES`` of snapshots are kept, the least recently used (by mtime; a read touches it)
evicted first.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import zlib
from array import array
from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any

from ffind.state.paths import TMP, open_own, own_file, private_dir, write_private, xdg_dir
from ffind.state.snapkey import SUFFIX, file_name

FORMAT = 3
"""The snapshot format; a file of another format is ignored."""
LIMIT_BYTES = 200 * 1024 * 1024
"""At most this many bytes of snapshots are kept (least recently used evicted first)."""
_STALE_TMP = 3600.0  # seconds after which a temporary file is a dead writer's


def _magic() -> bytes:
    from ffind.text import __version__

    return f"ffind-snapshot {FORMAT} {__version__}\n".encode()


SIG_FIELDS = 6
"""A folder's signature: device, inode, mtime_ns, ctime_ns, size, mode (``os.stat``)."""
NO_SIG = -1
"""The mode of a folder without a signature (read again on every search)."""


class CachedListing:
    """One snapshot: ``start`` (ns), ``glob`` (the signature of the inputs above the root), per
    folder its ``prefixes`` (path from the root + ``/``), its signature (``sigs``:
    ``SIG_FIELDS`` integers each, mode ``NO_SIG`` for none), its path count (``counts``), and
    for the few that have them, ``extra``: index -> (its ignore files' signatures, its
    probes); every path in ``blob`` (NUL-ended), split on first use (``paths()``).  The
    prefixes may be given as their section too, then split on first use."""

    __slots__ = ("_paths", "_prefixes", "blob", "counts", "extra", "glob", "prefix_blob", "sigs",
                 "start")

    def __init__(self, start: int, glob: str, prefixes: list[str] | bytes | bytearray,
                 sigs: array[int], counts: array[int],
                 extra: dict[int, tuple[str, list[list[str]]]],
                 blob: bytes | None = None, paths: list[str] | None = None) -> None:
        self.start, self.glob = start, glob
        self.sigs, self.counts, self.extra = sigs, counts, extra
        self._prefixes: list[str] | None = None
        self.prefix_blob: bytes | bytearray | None = None
        if isinstance(prefixes, list):
            self._prefixes = prefixes
        else:
            self.prefix_blob = prefixes
        self.blob = blob
        self._paths = paths

    @property
    def prefixes(self) -> list[str]:
        """Every folder's prefix (split once from ``prefix_blob``, then kept)."""
        if self._prefixes is None:
            text = bytes(self.prefix_blob or b"").decode("utf-8", "surrogateescape")
            self.prefix_blob = None
            self._prefixes = _split(text, "prefixes")
        return self._prefixes

    def paths(self) -> list[str]:
        """Every path, in the order of the folders (split once, then kept)."""
        if self._paths is None:
            text = (self.blob or b"").decode("utf-8", "surrogateescape")
            self.blob = None  # (let go before the split: memory)
            self._paths = _split(text, "paths")
        return self._paths

    def sections(self) -> tuple[list[int], Iterator[bytes | bytearray | array[int]]]:
        """The sections as written (prefixes, signatures, counts, paths): their lengths in
        bytes, and their bytes in parts, made as they are written."""
        sigs, counts = self.sigs, self.counts  # (written as they are: no copy)
        pre: _Section
        if self.prefix_blob is not None:
            pre = _whole(self.prefix_blob)
        else:
            pre = _nul_ended(self.prefixes)
        body: _Section = _whole(self.blob) if self.blob is not None else _nul_ended(self.paths())
        sizes = [pre[0], len(sigs) * sigs.itemsize, len(counts) * counts.itemsize, body[0]]
        return sizes, chain(pre[1](), [sigs, counts], body[1]())


CHUNK = 8192
"""Strings encoded at a time when a snapshot is written (``CachedListing.sections``)."""

_Section = tuple[int, Callable[[], Iterator[bytes | bytearray]]]


def _split(text: str, what: str) -> list[str]:
    """The strings of a section (each ended by NUL)."""
    if text and not text.endswith("\0"):
        raise ValueError(f"the {what} do not end with a separator")
    out = text.split("\0")
    out.pop()  # (after the last separator: nothing)
    return out


def _whole(data: bytes | bytearray) -> _Section:
    return len(data), lambda: iter([data])


def _nul_ended(strings: list[str]) -> tuple[int, Callable[[], Iterator[bytes]]]:
    """The section of ``strings`` (UTF-8, surrogate escapes kept, NUL-ended): its length,
    computed a chunk at a time, and its parts (each chunk encoded when asked).  Raises
    ValueError when one cannot be encoded."""
    size = 0
    for i in range(0, len(strings), CHUNK):
        text = "\0".join(strings[i:i + CHUNK])
        # (an ASCII string is its own UTF-8; only a chunk with another character is encoded)
        size += 1 + (len(text) if text.isascii() else
                     len(text.encode("utf-8", "surrogateescape")))

    def parts() -> Iterator[bytes]:
        for i in range(0, len(strings), CHUNK):
            yield "\0".join(strings[i:i + CHUNK]).encode("utf-8", "surrogateescape")
            yield b"\0"

    return size, parts


class SnapshotStore:
    """The snapshot folder (``folder``, default ``xdg_dir("cache")``)."""

    def __init__(self, folder: str | None = None, limit: int = LIMIT_BYTES) -> None:
        self.folder = folder or xdg_dir("cache")
        self.limit = limit

    def path(self, key: dict[str, Any]) -> str:
        return os.path.join(self.folder, file_name(key))

    def load(self, key: dict[str, Any]) -> CachedListing | None:
        """The snapshot for ``key``, or None (missing or unusable)."""
        import json

        path = self.path(key)
        magic = _magic()
        if not private_dir(self.folder, create=False):
            return None
        try:
            with open(open_own(path), "rb") as f:
                if f.readline() != magic:
                    return None
                size = int(f.readline(32))
                raw = f.read(size)
                head = json.loads(raw)
                if not isinstance(head, dict) or head.get("key") != key:
                    return None
                snap = _decode(head, f, zlib.crc32(raw))
        except (OSError, ValueError, TypeError, KeyError, IndexError, OverflowError):
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used
        return snap

    def save(self, key: dict[str, Any], snap: CachedListing) -> bool:
        """Write the snapshot for ``key`` atomically; False when it could not be written."""
        path = self.path(key)
        try:
            head, sections = _encode(key, snap)
            write_private(path, _with_crc([_magic(), b"%d\n" % len(head)], head, sections))
        except (OSError, ValueError, TypeError, OverflowError):
            return False
        self.evict(keep=path)
        return True

    def _entries(self) -> list[tuple[float, int, str]]:
        """(modification time, size, path) of the snapshot and temporary files: this user's
        own, in a folder that is (nothing when it is not: never remove another's files)."""
        found: list[tuple[float, int, str]] = []
        if not private_dir(self.folder, create=False):
            return found
        try:
            with os.scandir(self.folder) as it:
                for e in it:
                    if e.name.endswith((SUFFIX, TMP)) and e.is_file(follow_symlinks=False):
                        with contextlib.suppress(OSError):
                            st = e.stat(follow_symlinks=False)
                            if own_file(st):
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
            if path.endswith(TMP):
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


def _with_crc(lead: list[bytes], head: bytes, sections: Iterator[bytes | bytearray | array[int]]
              ) -> Iterator[bytes | bytearray | array[int]]:
    """The parts of a snapshot file: ``lead``, the head, the sections, then the CRC-32 of the
    head and the sections (8 hex digits)."""
    yield from lead
    yield head
    crc = zlib.crc32(head)
    for part in sections:
        yield part
        crc = zlib.crc32(part, crc)
    yield b"%08x" % crc


def _encode(key: dict[str, Any], snap: CachedListing
            ) -> tuple[bytes, Iterator[bytes | bytearray | array[int]]]:
    """The head (JSON) and the sections of a snapshot file, in parts (``sections``)."""
    import json

    n = len(snap.counts)
    blob = snap.prefix_blob  # (the prefixes' section as recorded: one NUL a folder)
    folders = len(snap.prefixes) if blob is None else blob.count(0)
    if len(snap.sigs) != n * SIG_FIELDS or folders != n:
        raise ValueError("the folder tables differ in length")
    sizes, parts = snap.sections()
    head = json.dumps({
        "key": key, "start": snap.start, "global": snap.glob, "folders": n,
        "order": sys.byteorder, "itemsize": snap.sigs.itemsize, "bytes": sizes,
        "extra": [[i, specials, probes] for i, (specials, probes) in sorted(snap.extra.items())],
    }, separators=(",", ":")).encode("ascii")
    return head, parts


def _decode(head: dict[str, Any], f: Any, crc: int) -> CachedListing:
    """The snapshot from its head and the file ``f`` positioned after it (``crc``: the head's
    CRC-32); ValueError (or another error of a bad shape) when they do not add up or the CRC
    differs."""
    n = head["folders"]
    start, glob = head["start"], head["global"]
    sizes = head["bytes"]
    if (head["order"] != sys.byteorder or not isinstance(n, int) or not isinstance(start, int)
            or not isinstance(glob, str) or len(sizes) != 4
            or not all(isinstance(k, int) and k >= 0 for k in sizes)):
        raise ValueError("a bad snapshot head")
    sigs, counts = array("q"), array("q")
    if head["itemsize"] != sigs.itemsize:
        raise ValueError("another integer size")
    parts = [f.read(k) for k in sizes]
    if [len(p) for p in parts] != sizes:
        raise ValueError("the sections' lengths do not add up")
    for part in parts:
        crc = zlib.crc32(part, crc)
    if f.read() != b"%08x" % crc:
        raise ValueError("the checksum differs: a damaged snapshot")
    text = parts[0].decode("utf-8", "surrogateescape")
    if not text.endswith("\0"):
        raise ValueError("the prefixes do not end with a separator")
    prefixes = _split(text, "prefixes")
    sigs.frombytes(parts[1])
    counts.frombytes(parts[2])
    if len(prefixes) != n or len(sigs) != n * SIG_FIELDS or len(counts) != n:
        raise ValueError("the folder tables differ in length")
    extra: dict[int, tuple[str, list[list[str]]]] = {}
    for i, specials, probes in head["extra"]:
        if not (isinstance(i, int) and 0 <= i < n and isinstance(specials, str)
                and isinstance(probes, list)
                and all(isinstance(r, str) and isinstance(g, str) for r, g in probes)):
            raise ValueError("a bad folder")
        extra[i] = (specials, [[r, g] for r, g in probes])
    return CachedListing(start, glob, prefixes, sigs, counts, extra, blob=parts[3])

