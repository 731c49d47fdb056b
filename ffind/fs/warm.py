"""The warm index: answer from what the last walk of the same root with the same listing
options learned, re-reading only what changed, with the output of a cold walk.

``cached_batches(root, options, ...)`` is ``walk_batches`` with a snapshot (``docs/cache.md``):

- no usable snapshot: a recording walk (``walk.walk_recorded``: the normal walk, which also
  notes each folder's signature and ignore files, ``ffind.fs.record``), then the snapshot is
  written (``ffind.state.cache``) unless the walk was cancelled or the folders' times are
  whole seconds (a file system whose times cannot be trusted);
- a snapshot: the files above the root that the walk depends on (git's configuration, the
  global excludes file, info/exclude, every ``.git``/``.gitignore``/``.ignore`` from the root
  up to ``/``) must be unchanged, or it is a cold walk; then every folder of the snapshot is
  ``stat``-ed, not listed, from the root down.  A folder whose signature (device, inode,
  mtime_ns, ctime_ns) changed, or whose time is within ``RACY_NS`` of when the snapshot was
  taken (git's racy case: a change in the same clock tick would not show), is read again
  with the walker, with the ignore scope in force there; a folder whose own ignore files (or
  ``.git``) changed is read again with its whole subtree.  New folders are walked; folders
  that are no longer entered drop out with their subtrees.

Not cached (a plain walk, nothing written): ``follow_links`` (which of two links to one
folder is entered depends on the walk's order), a root on a network or FUSE file system
(``/proc/self/mountinfo``), or with a git configuration that includes other files.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ffind.fs.pool import Cancel, Keep, Warn
from ffind.fs.record import SEP, SPECIALS, file_stat, folder_stat, probe_sig, specials_sig
from ffind.options import SearchOptions
from ffind.state.cache import SnapshotStore

__all__ = ["RACY_NS", "UNTRUSTED_FS", "WarmStats", "cached_batches", "listing_key"]

RACY_NS = 2_000_000_000
"""A folder changed less than this long (ns) before its snapshot was taken is read again."""
UNTRUSTED_FS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "ceph", "glusterfs", "9p",
    "virtiofs", "fuse.sshfs", "fuse.s3fs", "fuse.rclone", "fuse.gcsfuse", "davfs", "lustre",
})
"""File systems whose folder times may not change when a folder's entries do."""
_SLICE = 4096  # paths per batch given to the caller

Folder = list[Any]
"""One folder of a snapshot: [prefix, signature ('' = read again), specials, probes
([path, signature]...), entries (the paths listed from it)]."""


@dataclass
class WarmStats:
    """What a cached search did: ``mode`` ("off", "cold" or "warm"), the folders it read
    (``relisted``, their paths from the root + ``/``) and how many it reused."""

    mode: str = "off"
    relisted: list[str] = field(default_factory=list)
    reused: int = 0
    saved: bool = False


def listing_key(root: str, options: SearchOptions) -> dict[str, Any]:
    """What the listing depends on: the absolute root and the listing options (not ``limit``,
    ``threads`` nor ``compute_indices``)."""
    return {"root": os.path.abspath(root), "hidden": options.hidden,
            "respect_ignore": options.respect_ignore, "exclude": list(options.exclude),
            "follow_links": options.follow_links, "types": sorted(options.types),
            "max_depth": options.max_depth, "require_git": options.require_git}


def _mounts() -> list[tuple[str, str]]:
    """(mount point, file system type) from ``/proc/self/mountinfo`` (Linux), or []."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        left, _, right = line.partition(" - ")
        parts, kinds = left.split(), right.split()
        if len(parts) > 4 and kinds:
            point = parts[4].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")
            found.append((point, kinds[0]))
    return found


def trusted_fs(root: str) -> bool:
    """False when the root, or a mount below it, is on a file system of ``UNTRUSTED_FS`` (or
    any FUSE file system but a few local ones)."""
    real = os.path.realpath(root)
    best, kind = "", ""
    for point, fs in _mounts():
        untrusted = fs in UNTRUSTED_FS or (fs.startswith("fuse.") and fs not in
                                            ("fuse.fuse-overlayfs", "fuse.lxcfs"))
        inside = point == real or point.startswith(real.rstrip("/") + "/")
        if untrusted and inside:
            return False
        if (real == point or real.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
            best, kind = point, fs
    return not (kind in UNTRUSTED_FS or (kind.startswith("fuse.") and kind not in
                                         ("fuse.fuse-overlayfs", "fuse.lxcfs")))


def global_sig(absroot: str, inputs: list[str]) -> tuple[str, int] | None:
    """The signature of what above the root the walk depends on, and the newest time in it;
    None when it cannot be told (a git configuration file that includes others)."""
    parts = [f"{k}={v}" for k, v in sorted(os.environ.items())
             if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME")]
    newest = 0
    for path in inputs:
        sig, t = file_stat(path)
        parts.append(sig)
        newest = max(newest, t)
        if path.endswith("config") and sig != "-":
            try:
                with open(path, "rb") as f:
                    if b"include" in f.read(1 << 20).lower():
                        return None
            except OSError:
                pass
    folder = absroot
    while True:
        sig, t = specials_sig(folder, SPECIALS)
        parts.append(sig)
        newest = max(newest, t)
        parent = os.path.dirname(folder)
        if parent == folder:
            return "\n".join(parts), newest
        folder = parent


def cached_batches(
    root: str | os.PathLike[str], options: SearchOptions, *, cancel: Cancel | None = None,
    on_warning: Warn | None = None, keep: Keep | None = None,
    store: SnapshotStore | None = None, stats: WarmStats | None = None,
) -> Iterator[list[str]]:
    """``walk_batches(root, options, ...)`` answered from the snapshot when it can be; see
    the module docstring.  ``keep`` filters the batches here, in this process (the snapshot
    holds every path).  Raises ``FfindError`` as ``walk_batches``."""
    from ffind.fs.walk import prepare_recorded, walk_batches

    root_s = os.fspath(root)
    stats = stats if stats is not None else WarmStats()
    if options.follow_links or not trusted_fs(root_s):
        return walk_batches(root_s, options, cancel=cancel, on_warning=on_warning, keep=keep)
    start = time.time_ns()
    inputs: list[str] = []
    walker, item = prepare_recorded(root_s, options, on_warning, inputs)
    glob = global_sig(os.path.abspath(root_s), inputs)
    if glob is None:
        return walk_batches(root_s, options, cancel=cancel, on_warning=on_warning, keep=keep)
    store = store if store is not None else SnapshotStore()
    key = listing_key(root_s, options)
    run = _Run(walker, item, options, cancel, on_warning, store, key, glob[0], start, stats)
    body = store.load(key)
    if body is not None and _usable(body, glob, start):
        return _sliced(run.warm(body), keep)
    return _sliced(run.cold(), keep)


def _usable(body: dict[str, Any], glob: tuple[str, int], start: int) -> bool:
    taken = body.get("start")
    return (isinstance(taken, int) and body.get("global") == glob[0]
            and glob[1] < taken - RACY_NS and isinstance(body.get("folders"), list))


def _sliced(lists: Iterator[list[str]], keep: Keep | None) -> Iterator[list[str]]:
    for paths in lists:
        for i in range(0, len(paths), _SLICE):
            part = paths[i:i + _SLICE]
            kept = part if keep is None else keep(part)
            if kept:
                yield kept


def parse_batch(batch: list[str], folders: list[Folder]) -> list[str]:
    """Split one recorded batch: its markers become folders (appended to ``folders``), its
    paths are returned; each path goes to the entries of the folder marked before it."""
    paths = []
    cur: Folder | None = None  # a batch (and a folder's read) starts with a folder's marker
    for s in batch:
        if s[:1] == "/":
            if s[1] == "D":
                sig, specials, prefix = s[2:].split(SEP, 2)
                cur = [prefix, sig, specials, [], []]
                folders.append(cur)
            elif cur is not None:
                sig, rel = s[2:].split(SEP, 1)
                cur[3].append([rel, sig])
            else:
                raise ValueError("a probe before any folder")
        elif cur is None:
            raise ValueError("a path before any folder")
        else:
            cur[4].append(s)
            paths.append(s)
    return paths


def _names(specials: str) -> list[str]:
    return [part.split("=", 1)[0] for part in specials.split(";") if "=" in part]


def _coarse(folders: list[Folder]) -> bool:
    """Whether every folder's mtime is a whole second (times that cannot be trusted)."""
    times = [f[1].split()[2] for f in folders if f[1]]
    return bool(times) and all(t.endswith("000000000") for t in times)


class _Lazy:
    """A scope computed when first needed."""

    __slots__ = ("make", "value")

    def __init__(self, make: Callable[[], Any] | None, value: Any = None) -> None:
        self.make = make
        self.value = value

    def get(self) -> Any:
        if self.make is not None:
            self.value = self.make()
            self.make = None
        return self.value


class _Run:
    """One cached listing: the cold (recording) walk or the warm refresh, then the write."""

    def __init__(self, walker: Any, item: Any, options: SearchOptions, cancel: Cancel | None,
                 warn: Warn | None, store: SnapshotStore, key: dict[str, Any], glob: str,
                 start: int, stats: WarmStats) -> None:
        self.walker, self.item, self.options = walker, item, options
        self.cancel, self.warn, self.store, self.key = cancel, warn, store, key
        self.glob, self.start, self.stats = glob, start, stats
        self.root: str = item[0]

    def _cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def _save(self, folders: list[Folder]) -> None:
        if self._cancelled() or _coarse(folders):
            return
        body = {"start": self.start, "global": self.glob, "folders": folders}
        self.stats.saved = self.store.save(self.key, body)

    def cold(self) -> Iterator[list[str]]:
        from ffind.fs.walk import walk_recorded

        self.stats.mode = "cold"
        folders: list[Folder] = []
        batches = walk_recorded(self.walker, self.item, self.options, cancel=self.cancel,
                                on_warning=self.warn)
        try:
            for batch in batches:
                paths = parse_batch(batch, folders)
                if paths:
                    yield paths
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()
        self._save(folders)

    def _path(self, prefix: str) -> str:
        return os.path.join(self.root, prefix[:-1]) if prefix else self.root

    def _check(self, rec: Folder, path: str, children: list[str],
               old: dict[str, Folder]) -> str:
        """"ok", "read" (read the folder again) or "subtree" (and everything below it)."""
        limit = self.start_old - RACY_NS
        if not rec[1]:
            return "read" if rec[2] == specials_sig(path, _names(rec[2]))[0] else "subtree"
        now = folder_stat(path)
        if now is None or now[0] != rec[1] or now[1] >= limit:
            return "read"
        if rec[2]:
            sig, t = specials_sig(path, _names(rec[2]))
            if sig != rec[2] or t >= limit:
                return "subtree"
        for rel, sig in rec[3]:
            now = probe_sig(os.path.join(self.root, rel)) if sig else None
            if now is None or now[0] != sig or now[1] >= limit:
                return "read"
        for child in children:  # a build folder tagged since: this folder decides
            if child.endswith("/target/") or child == "target/":
                crec = old[child]
                now = folder_stat(self._path(child))
                if not crec[1] or now is None or now[0] != crec[1] or now[1] >= limit:
                    return "read"
        return "ok"

    def _scope_below(self, rec: Folder, path: str, parent: _Lazy) -> _Lazy:
        """The scope in force below the folder of ``rec``, given its parent's."""
        names = _names(rec[2])
        if not names or not self.walker.respect:
            return parent
        prefix = rec[0]
        found = {name: f"{path}/{name}" for name in names}
        ignores, warn = self.walker.ignores, self.warn
        return _Lazy(lambda: ignores.enter(parent.get(), path, prefix, prefix.count("/"),
                                           found, warn))

    def warm(self, body: dict[str, Any]) -> Iterator[list[str]]:
        self.stats.mode = "warm"
        self.start_old: int = body["start"]
        old: dict[str, Folder] = {}
        children: dict[str, list[str]] = {}
        for rec in body["folders"]:
            prefix = rec[0]
            old[prefix] = rec
            if prefix:
                parent = prefix[:-1].rpartition("/")[0]
                children.setdefault(parent + "/" if parent else "", []).append(prefix)
        if "" not in old:
            yield from self.cold()
            return
        folders: list[Folder] = []
        # (prefix, parent scope, None) to check, or (None, item, force) to read
        stack: list[tuple[Any, Any, Any]] = [("", _Lazy(None, self.item[3]), None)]
        while stack:
            if self._cancelled():
                return
            prefix, scope, force = stack.pop()
            if prefix is not None:
                rec = old[prefix]
                path = self._path(prefix)
                kids = children.get(prefix, [])
                verdict = self._check(rec, path, kids, old)
                if verdict == "ok":
                    self.stats.reused += 1
                    folders.append(rec)
                    below = self._scope_below(rec, path, scope)
                    stack.extend((kid, below, None) for kid in reversed(kids))
                    continue
                item = (path, prefix, prefix.count("/"), scope.get(), None)
                stack.append((None, item, verdict == "subtree"))
                continue
            self._read(scope, force, old, folders, stack)
        yield [p for rec in folders for p in rec[4]]
        if self.stats.relisted:
            self._save(folders)

    def _read(self, item: Any, force: bool, old: dict[str, Folder], folders: list[Folder],
              stack: list[tuple[Any, Any, Any]]) -> None:
        """Read one folder with the walker; queue its sub-folders (checked, or read when
        ``force`` or when its ignore files changed)."""
        out: list[str] = []
        found: list[Any] = []
        self.walker.scan(item, out, found, self.warn, set())
        prefix = item[1]
        self.stats.relisted.append(prefix)
        before = len(folders)
        parse_batch(out, folders)
        if len(folders) != before + 1:
            raise ValueError("a folder read gave no record")
        prev = old.get(prefix)
        force = force or prev is None or prev[2] != folders[-1][2]
        for child in reversed(found):
            cprefix = child[1]
            if force or cprefix not in old:
                stack.append((None, child, force))
            else:
                stack.append((cprefix, _Lazy(None, child[3]), None))
