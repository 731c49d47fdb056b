"""The warm index: a listing answered from the snapshot of the last walk of the same root and
listing options, refreshed (``ffind.fs.refresh``) when the inputs above the root (git's
configuration, excludes files, ignore files up to ``/``) are unchanged, else a recording walk.
Not cached: ``follow_links``, a root on a network or FUSE file system, a git configuration
that includes other files.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator, Iterator

from ffind.fs import refresh
from ffind.fs.pool import Cancel, Keep, Warn
from ffind.fs.record import SPECIALS, file_stat, specials_sig
from ffind.fs.refresh import Refresh, WarmStats
from ffind.options import SearchOptions
from ffind.state.cache import CachedListing, SnapshotStore
from ffind.state.snapkey import listing_key

__all__ = ["UNTRUSTED_FS", "Attempt", "WarmStats", "cached_batches", "listing_key", "prepare",
           "session_batches", "warm_attempts"]

UNTRUSTED_FS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "ceph", "glusterfs", "9p",
    "virtiofs", "fuse.sshfs", "fuse.s3fs", "fuse.rclone", "fuse.gcsfuse", "davfs", "lustre",
})
"""File systems whose folder times may not change when a folder's entries do."""
_SLICE = 8192  # paths per batch given to the caller
_LOCAL_FUSE = ("fuse.fuse-overlayfs", "fuse.lxcfs")


def _untrusted(kind: str) -> bool:
    return kind in UNTRUSTED_FS or (kind.startswith("fuse.") and kind not in _LOCAL_FUSE)


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


def trusted_fs(root: str, mounts: list[tuple[str, str]] | None = None) -> bool:
    """False when the root or a mount below it is on a file system of ``UNTRUSTED_FS`` (or
    FUSE but a few local ones); ``mounts``: (mount point, type), by default the process's."""
    real = os.path.realpath(root)
    best, kind = "", ""
    for point, fs in _mounts() if mounts is None else mounts:
        inside = point == real or point.startswith(real.rstrip("/") + "/")
        if _untrusted(fs) and inside:
            return False
        if (real == point or real.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
            best, kind = point, fs
    return not _untrusted(kind)


def global_sig(absroot: str, inputs: list[str]) -> tuple[str, int] | None:
    """The signature of what above the root the walk depends on and its newest time; None
    for a git configuration that includes others."""
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
    """``walk_batches(root, options, ...)`` answered from the snapshot when it can be;
    ``keep`` filters the batches in this process."""
    from ffind.fs.walk import walk_batches

    root_s = os.fspath(root)
    found = prepare(root_s, options, cancel=cancel, on_warning=on_warning, store=store,
                    stats=stats)
    if found is None:
        return walk_batches(root_s, options, cancel=cancel, on_warning=on_warning, keep=keep)
    run, body = found
    if body is not None:
        return _sliced(run.warm(body), keep)
    return _sliced(run.cold(), keep)


class Attempt:
    """One try at the listing (``warm_attempts``): its ``batches``; ``stale()``, asked once
    they are consumed, True when this try is to be thrown away (another follows)."""

    __slots__ = ("batches", "stale")

    def __init__(self, batches: Iterator[list[str]],
                 stale: Callable[[], bool] | None = None) -> None:
        self.batches = batches
        self.stale: Callable[[], bool] = stale if stale is not None else (lambda: False)


def warm_attempts(
    root: str | os.PathLike[str], options: SearchOptions, *, cancel: Cancel | None = None,
    on_warning: Warn | None = None, keep: Keep | None = None,
    store: SnapshotStore | None = None, stats: WarmStats | None = None,
) -> Generator[Attempt, None, None]:
    """``cached_batches`` for a caller that matches as it reads: with a big snapshot the first
    attempt gives its paths while a forked child ``stat``s (``refresh.Aside``; cut short on a
    change); its ``stale()`` True: a second attempt gives the refreshed listing."""
    from ffind.fs.walk import walk_batches

    root_s = os.fspath(root)
    stats = stats if stats is not None else WarmStats()
    found = prepare(root_s, options, cancel=cancel, on_warning=on_warning, store=store,
                    stats=stats)
    if found is None:
        yield Attempt(walk_batches(root_s, options, cancel=cancel, on_warning=on_warning,
                                   keep=keep))
        return
    run, snap = found
    if snap is None:
        yield Attempt(_sliced(run.cold(), keep))
        return
    aside = run.aside(snap)  # (forked before the paths are split: fewer pages to copy)
    if aside is None:
        yield Attempt(_sliced(run.warm(snap), keep))
        return
    try:
        if not run.consistent(snap):
            yield Attempt(_sliced(run.cold(), keep))
            return
        verdict: list[dict[str, str] | None] = []

        def stale() -> bool:
            if run.cancel is not None and run.cancel.is_set():
                return False  # (what was read stands, incomplete)
            if not verdict:
                try:
                    verdict.append(aside.result())
                except ValueError:  # the snapshot is bad: a cold walk
                    verdict.append(None)
            return verdict[0] != {} or cut[0]

        cut = [False]

        def until_failed() -> Iterator[list[str]]:
            for batch in _sliced(iter([snap.paths()]), keep):
                if aside.failed():
                    cut[0] = True
                    return
                yield batch

        yield Attempt(until_failed(), stale)
        if run.cancel is not None and run.cancel.is_set():
            return
        stale()
        bad = verdict[0]
        if bad == {} and not cut[0]:
            run.stats.mode = "warm"
            run.stats.reused = len(snap.prefixes)
            run.listing = snap  # (unchanged, as ``Refresh._refresh`` says it)
            return
        if bad is None:
            yield Attempt(_sliced(run.cold(), keep))
        else:
            yield Attempt(_sliced(run.warm(snap, bad=bad), keep))
    finally:
        aside.close()


def session_batches(
    root: str | os.PathLike[str], options: SearchOptions, *, cancel: Cancel | None = None,
    on_warning: Warn | None = None, store: SnapshotStore | None = None,
    stats: WarmStats | None = None, pause: Callable[[], object] | None = None,
    first: Callable[[list[str]], tuple[list[str], list[str]]] | None = None,
    settle: Callable[[], object] | None = None,
) -> Generator[tuple[bool, list[str]], None, None]:
    """The listing for a session as ``(replace, paths)`` (``replace``: these replace all given
    before): a snapshot's paths unvalidated at once, then the refreshed listing only if it
    differs (a cold walk: ``(True, first batch)``, then ``(False, batch)``).  ``first`` splits
    the snapshot's paths; ``pause`` and ``settle`` run after each part, before the refresh."""
    from ffind.fs.walk import walk_batches

    root_s = os.fspath(root)
    found = prepare(root_s, options, cancel=cancel, on_warning=on_warning, store=store,
                    stats=stats)
    if found is None:
        lists: Iterator[list[str]] = walk_batches(root_s, options, cancel=cancel,
                                                  on_warning=on_warning)
    elif found[1] is None:
        lists = found[0].cold()
    else:
        yield from _early_then_valid(found[0], found[1], pause, first, settle)
        return
    try:
        for batch in lists:
            yield False, batch
    finally:
        close = getattr(lists, "close", None)
        if close is not None:
            close()


def _early_then_valid(run: Refresh, body: CachedListing, pause: Callable[[], object] | None,
                      first: Callable[[list[str]], tuple[list[str], list[str]]] | None = None,
                      settle: Callable[[], object] | None = None,
                      ) -> Iterator[tuple[bool, list[str]]]:
    try:
        early = body.paths()  # (kept by the snapshot: the refresh splits it no more)
    except ValueError:
        early = []
    head, rest = (early, []) if first is None else first(early)
    yield False, head
    if pause is not None and head:
        pause()
    if rest:
        yield False, rest
        if settle is not None:
            settle()
    del head, rest
    if run.cancel is not None and run.cancel.is_set():
        return  # (before the refresh's ``stat`` of every folder)
    replaced = False
    for paths in run.warm(body):
        if run.stats.mode == "warm":  # the validated listing, whole
            if paths is not early and paths != early:
                yield True, paths
            return
        yield not replaced, paths  # a cold walk after all (a bad snapshot)
        replaced = True
    if run.stats.mode == "cold" and not replaced:
        yield True, []


def prepare(
    root: str | os.PathLike[str], options: SearchOptions, *, cancel: Cancel | None = None,
    on_warning: Warn | None = None, store: SnapshotStore | None = None,
    stats: WarmStats | None = None,
) -> tuple[Refresh, CachedListing | None] | None:
    """The ``Refresh`` of ``root``'s listing and its usable snapshot (None: ``cold()`` records
    one); None when the listing cannot be cached."""
    from ffind.fs.walk import prepare_recorded

    root_s = os.fspath(root)
    stats = stats if stats is not None else WarmStats()
    if options.follow_links or not trusted_fs(root_s):
        return None
    start = time.time_ns()
    inputs: list[str] = []
    walker, item = prepare_recorded(root_s, options, on_warning, inputs)
    glob = global_sig(os.path.abspath(root_s), inputs)
    if glob is None:
        return None
    store = store if store is not None else SnapshotStore()
    key = listing_key(root_s, options)
    run = Refresh(walker, item, options, cancel, on_warning, store, key, glob[0], start, stats)
    body = store.load(key)
    return run, (body if body is not None and _usable(body, glob) else None)


def _usable(body: CachedListing, glob: tuple[str, int]) -> bool:
    """Whether a snapshot can be refreshed: the same inputs above the root, none changed
    within the racy window before it."""
    return body.glob == glob[0] and glob[1] < body.start - refresh.RACY_NS


def _sliced(lists: Iterator[list[str]], keep: Keep | None) -> Iterator[list[str]]:
    for paths in lists:
        for i in range(0, len(paths), _SLICE):
            part = paths[i:i + _SLICE]
            kept = part if keep is None else keep(part)
            if kept:
                yield kept
