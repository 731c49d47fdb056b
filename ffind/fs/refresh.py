"""One cached listing (``ffind.fs.warm``): the recording walk that makes a snapshot, or its
refresh, which ``stat``s every folder (or those a watch hint gives, ``ffind.fs.watch``), reads
again the changed or racy ones shallowest first in the ignore scope their ancestors give, and
copies the old snapshot's arrays around them (``_Edit``).  Any inconsistency means a cold walk.
A big ``stat`` pass runs partly in a forked child (``Aside``, ``SPLIT_MIN``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ffind.fs.load import cpus
from ffind.fs.pool import Cancel, Child, Pipe, Warn
from ffind.fs.record import SEP, SPECIALS, folder_stat, probe_sig, specials_sig
from ffind.options import SearchOptions
from ffind.state.cache import NO_SIG, SIG_FIELDS, CachedListing, SnapshotStore

RACY_NS = 2_000_000_000
"""A folder whose time is within this (ns) before its snapshot began is read again: a change
in the same clock tick would not show (git's racy case)."""
SPLIT_MIN = 32_768
"""A ``stat`` pass of this many folders is split with a forked child on 2+ CPUs (threads
would fight over the GIL between ``stat`` calls)."""
ASIDE_MIN = 16_384
"""Snapshots of this many folders are checked in a forked child (``Aside``) while the caller
matches their paths, when a CPU is free."""
_VERDICTS = {"read": "r", "subtree": "s"}
_UNCHANGED = b"K"  # (the child's answer: nothing changed)

Folder = list[Any]
"""[prefix, signature ('' = read again every time), specials, probes, entries or count]."""
_BAD = (ValueError, TypeError, KeyError, IndexError, AttributeError)


class WarmStats:
    """What a cached listing did: ``mode`` ("off", "cold" or "warm"), the folders it read
    (``relisted``: their prefixes), how many it reused, whether it wrote the snapshot."""

    __slots__ = ("mode", "relisted", "reused", "saved")

    def __init__(self, mode: str = "off", relisted: list[str] | None = None, reused: int = 0,
                 saved: bool = False) -> None:
        self.mode = mode
        self.relisted: list[str] = [] if relisted is None else relisted
        self.reused = reused
        self.saved = saved


def names(specials: str) -> list[str]:
    """The special entries (``.gitignore``...) recorded in a folder's ``specials``."""
    found = (part.partition("=") for part in specials.split(";"))
    return [name for name, eq, _ in found if eq and name in SPECIALS]


def free_cpus() -> float:
    """The CPUs this process may use less the load average: below 1, a child would only
    take CPU time from its parent."""
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):  # (no load average: Windows, where there is no fork)
        load = 0.0
    return cpus() - load


_NONE = [NO_SIG] * SIG_FIELDS


def _put_sig(sigs: Any, sig: str) -> None:
    """Append the integers of the signature ``sig`` to ``sigs`` (``NO_SIG`` for none)."""
    values = [int(v) for v in sig.split()] if sig else _NONE
    if len(values) != SIG_FIELDS:
        raise ValueError(f"a bad folder signature: {sig!r}")
    at = len(sigs)
    try:
        sigs.extend(values)
    except OverflowError:  # (an inode beyond 2**63: the folder is read every time)
        del sigs[at:]
        sigs.extend(_NONE)


class _Recording:
    """Recorded batches (a folder's marker, ``ffind.fs.record``, before its paths) made into a
    snapshot's tables as they come, with no Python object per folder (prefixes, signatures and
    path starts in arrays): the one reader of a recording, for the recording walk
    (``Refresh.cold``) and for each folder a refresh reads again (``Refresh.scan``)."""

    __slots__ = ("extra", "good", "paths", "prefixes", "sigs", "starts")

    def __init__(self) -> None:
        from array import array

        self.prefixes = bytearray()
        self.sigs: array[int] = array("q")
        self.starts: array[int] = array("q")
        self.extra: dict[int, tuple[str, list[list[str]]]] = {}
        self.paths: list[str] = []
        self.good = True
        """False: a signature or prefix that does not parse or encode (nothing written)."""

    def add(self, batch: list[str]) -> list[str]:
        """Take one batch (it starts with a folder's marker): its paths (also kept)."""
        paths: list[str] = []
        names: list[str] = []
        cur = -1
        specials = ""
        probes: list[list[str]] = []
        every, extra, starts = self.paths, self.extra, self.starts
        base = len(every)
        for s in batch:
            if s[:1] == "/":
                if s[1] == "D":
                    sig, specials, prefix = s[2:].split(SEP, 2)
                    cur = len(starts)
                    starts.append(base + len(paths))
                    names.append(prefix)
                    self._sig(sig)
                    probes = []
                    if specials:
                        extra[cur] = (specials, probes)
                elif cur >= 0:
                    sig, rel = s[2:].split(SEP, 1)
                    probes.append([rel, sig])
                    if cur not in extra:
                        extra[cur] = (specials, probes)
                else:
                    raise ValueError("a probe before any folder")
            elif cur < 0:
                raise ValueError("a path before any folder")
            else:
                paths.append(s)
        if names:
            try:
                self.prefixes += ("\0".join(names) + "\0").encode("utf-8", "surrogateescape")
            except ValueError:
                self.good = False
        every.extend(paths)
        return paths

    def _sig(self, sig: str) -> None:
        try:
            _put_sig(self.sigs, sig)
        except ValueError:
            self.good = False
            self.sigs.extend(_NONE)

    def coarse(self) -> bool:
        """Whether every folder's ctime is a whole second: a clock not to trust (not mtimes:
        tar and rsync set them to whole seconds)."""
        return _coarse_sigs(self.sigs)

    def listing(self, start: int, glob: str) -> CachedListing:
        """The snapshot recorded (its prefixes split on first use)."""
        from array import array
        from operator import sub

        every, starts = self.paths, self.starts
        ends = starts[1:]
        ends.append(len(every))
        counts: array[int] = array("q", map(sub, ends, starts))
        return CachedListing(start, glob, self.prefixes, self.sigs, counts, self.extra,
                             paths=every)


def _coarse_sigs(sigs: Any) -> bool:
    """``_Recording.coarse`` of a snapshot's integers."""
    k = SIG_FIELDS
    times = [t for t, m in zip(sigs[3::k], sigs[k - 1::k], strict=True) if m != NO_SIG]
    return bool(times) and not any(t % 1_000_000_000 for t in times)


def _sig_text(sigs: Any, i: int) -> str:
    """The signature of the folder ``i`` as ``ffind.fs.record`` writes it ('' for none)."""
    j = i * SIG_FIELDS
    if sigs[j + SIG_FIELDS - 1] == NO_SIG:
        return ""
    return " ".join(str(v) for v in sigs[j:j + SIG_FIELDS])


def folder_at(snap: CachedListing, i: int) -> Folder:
    """The folder ``i`` of ``snap``, with its count."""
    specials, probes = snap.extra.get(i, ("", []))
    return [snap.prefixes[i], _sig_text(snap.sigs, i), specials, probes, snap.counts[i]]


def _parent(prefix: str) -> str:
    up = prefix[:-1].rpartition("/")[0]
    return up + "/" if up else ""


class Refresh:
    """One cached listing of ``item`` (the root's walk item) with a recording ``walker``."""

    def __init__(self, walker: Any, item: Any, options: SearchOptions, cancel: Cancel | None,
                 warn: Warn | None, store: SnapshotStore, key: dict[str, Any], glob: str,
                 start: int, stats: WarmStats) -> None:
        self.walker, self.item, self.options = walker, item, options
        self.cancel, self.warn, self.store, self.key = cancel, warn, store, key
        self.glob, self.start, self.stats = glob, start, stats
        self.root: str = item[0]
        self.listing: CachedListing | None = None
        """The listing once validated (``warm``) or walked (``cold``); None before, after a
        cancelled walk, or when none could be made."""
        self.defer_write = False
        """True: the snapshot to write waits in ``unwritten`` for ``write()``."""
        self.unwritten: CachedListing | None = None

    def _cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def path_of(self, prefix: str) -> str:
        return os.path.join(self.root, prefix[:-1]) if prefix else self.root

    def _write(self, snap: CachedListing) -> None:
        self.listing = snap
        if self.defer_write:
            self.unwritten = snap
        else:
            self.stats.saved = self.store.save(self.key, snap)

    def write(self) -> bool:
        """Write the snapshot kept by ``defer_write``, if any; whether one was written."""
        snap, self.unwritten = self.unwritten, None
        if snap is None:
            return False
        self.stats.saved = self.store.save(self.key, snap)
        return self.stats.saved

    def cold(self) -> Iterator[list[str]]:
        """The recording walk, batch by batch; then the snapshot is written."""
        from ffind.fs.walk import walk_prepared

        self.stats.mode = "cold"
        rec = _Recording()
        batches = walk_prepared(self.walker, self.item, self.options, cancel=self.cancel,
                                on_warning=self.warn)
        try:
            for batch in batches:
                paths = rec.add(batch)
                if paths:
                    yield paths
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()
        if self._cancelled() or not rec.good or rec.coarse():
            return
        self._write(rec.listing(self.start, self.glob))

    def _check(self, rec: Folder, path: str, limit: int) -> str | None:
        """None (unchanged), "read" (read the folder again) or "subtree" (its ignore files
        changed: walk it whole)."""
        sig, specials = rec[1], rec[2]
        if specials:
            now, t = specials_sig(path, names(specials))
            if now != specials or t >= limit:
                return "subtree"
        if not sig:
            return "read"
        st = folder_stat(path)
        if st is None or st[0] != sig or st[1] >= limit:
            return "read"
        for rel, psig in rec[3]:
            now_p = probe_sig(os.path.join(self.root, rel)) if psig else None
            if now_p is None or now_p[0] != psig or now_p[1] >= limit:
                return "read"
        return None

    def _changed(self, snap: CachedListing, limit: int, only: Sequence[int] | None = None,
                 split: bool = True) -> dict[str, str]:
        """The folders that changed, and how (``_check``); ``only``: just these (indices).
        With ``split``, a forked child checks the second half (``SPLIT_MIN``); a child that
        fails has its half checked here."""
        total = len(snap.prefixes) if only is None else len(only)
        if not split or total < SPLIT_MIN or cpus() < 2:
            return self._changed_part(snap, 0, total, limit, only)
        from ffind.fs.pool import fork_stream

        mid = total // 2

        def work(send: Callable[[bytes], None]) -> None:
            send(_encoded(self._changed_part(snap, mid, total, limit, only)))

        started = fork_stream(work)
        if started is None:
            return self._changed_part(snap, 0, total, limit, only)
        child = Aside(self, snap, *started,
                      again=lambda: self._changed_part(snap, mid, total, limit, only))
        try:
            bad = self._changed_part(snap, 0, mid, limit, only)
            theirs = child.result()  # (ValueError: the child found the snapshot bad)
        finally:
            child.close()
        for prefix, verdict in theirs.items():
            if verdict == "subtree" or prefix not in bad:
                bad[prefix] = verdict
        return bad

    def _changed_part(self, snap: CachedListing, lo: int, hi: int, limit: int,
                      only: Sequence[int] | None = None) -> dict[str, str]:
        """``_changed`` for the folders ``lo`` to ``hi`` (of ``only``): a plain folder by one
        ``stat`` against the snapshot's integers, the others by ``_check``."""
        sigs, prefixes, k = snap.sigs, snap.prefixes, SIG_FIELDS
        rows: Iterable[tuple[Any, ...]]
        if only is None:  # (columns sliced in C)
            cols = [sigs[lo * k + f:hi * k:k] for f in range(k)]
            rows = zip(range(lo, hi), prefixes[lo:hi], *cols, strict=True)
        else:
            rows = ((i, prefixes[i], *sigs[i * k:i * k + k]) for i in only[lo:hi])
        bad: dict[str, str] = {}
        root, check, stat, extra = self.root, self._check, os.stat, snap.extra
        base = root if root.endswith("/") else root + "/"
        for i, prefix, dev, ino, mtime, ctime, size, mode in rows:
            verdict: str | None = "read"
            if mode == NO_SIG or mtime >= limit or ctime >= limit or i in extra:
                path = base + prefix[:-1] if prefix else root
                verdict = check(folder_at(snap, i), path, limit)
            else:  # the common case, inline: a folder's path with its "/" stats the folder
                try:
                    st = stat(base + prefix)
                except (OSError, ValueError):
                    pass
                else:
                    if (st.st_mtime_ns == mtime and st.st_ctime_ns == ctime
                            and st.st_ino == ino and st.st_dev == dev and st.st_size == size
                            and st.st_mode == mode):
                        verdict = None
            if verdict is not None and (verdict == "subtree" or prefix not in bad):
                bad[prefix] = verdict
        return bad

    def aside(self, snap: CachedListing) -> Aside | None:
        """The ``stat`` pass of ``snap`` started in a forked child, or None (small, no CPU
        free, no fork)."""
        if len(snap.prefixes) < ASIDE_MIN or free_cpus() < 1:
            return None
        from ffind.fs.pool import fork_stream

        limit = snap.start - RACY_NS

        def work(send: Callable[[bytes], None]) -> None:  # (not split: the caller is matching)
            send(_encoded(self._changed(snap, limit, split=False)))

        started = fork_stream(work)
        return None if started is None else Aside(self, snap, *started)

    @staticmethod
    def consistent(snap: CachedListing) -> bool:
        """Whether the snapshot's tables add up (its paths split)."""
        try:
            paths = snap.paths()
        except ValueError:
            return False
        return "" in snap.prefixes and sum(snap.counts) == len(paths)

    def warm(self, snap: CachedListing, only: Sequence[int] | None = None, *,
             bad: dict[str, str] | None = None) -> Iterator[list[str]]:
        """The snapshot's listing refreshed (a cold walk when it is inconsistent); ``only``: the
        folders (indices) that may have changed (``ffind.fs.watch.Hint``), None: every one;
        ``bad``: the ``stat`` pass's answer when done already (``Aside.result``)."""
        try:
            paths = self._refresh(snap, bad, only)
        except _BAD:
            paths = None
        if paths is None:
            if not self._cancelled():
                self.stats.relisted.clear()
                yield from self.cold()
            return
        self.stats.mode = "warm"
        yield paths

    def _refresh(self, snap: CachedListing, bad: dict[str, str] | None = None,
                 only: Sequence[int] | None = None) -> list[str] | None:
        if "" not in snap.prefixes:  # (the root is anywhere in the list)
            return None
        if bad is None:
            bad = self._changed(snap, snap.start - RACY_NS, only)
        if self._cancelled():
            return None
        paths = snap.paths()
        if sum(snap.counts) != len(paths):
            return None
        if not bad:
            self.stats.reused = len(snap.prefixes)
            self.listing = snap
            return paths
        edit = _Edit(self, snap)
        for prefix in sorted(bad, key=lambda p: (p.count("/"), p)):
            if self._cancelled():
                return None
            if prefix in edit.index and prefix not in edit.dropped:
                edit.apply(prefix, bad[prefix] == "subtree")
        new = edit.result(paths, self.start, self.glob)
        self.stats.reused = len(snap.prefixes) - len(edit.dropped) - len(edit.replaced)
        if new is None:  # read again (a folder holding a symlink is, every time) but
            self.listing = snap  # unchanged: the snapshot on disk is still right
            return paths
        listing, good = new
        if good and not self._cancelled() and not _coarse_sigs(listing.sigs):
            self._write(listing)
        return listing.paths()

    def scan(self, item: Any) -> tuple[Folder, list[Any]]:
        """Read one folder: its new record (with entries) and the folders to enter."""
        out: list[str] = []
        found: list[Any] = []
        self.walker.scan(item, out, found, self.warn, set())
        self.stats.relisted.append(item[1])
        rec = _Recording()
        paths = rec.add(out)
        if len(rec.starts) != 1 or not rec.good:
            raise ValueError("a folder read gave no record")
        specials, probes = rec.extra.get(0, ("", []))
        return [item[1], _sig_text(rec.sigs, 0), specials, probes, paths], found

    def walk_whole(self, item: Any) -> list[Folder]:
        """Every folder under ``item`` (included), read."""
        stack = [item]
        done: list[Folder] = []
        while stack:
            rec, found = self.scan(stack.pop())
            done.append(rec)
            stack.extend(reversed(found))
        return done


def _encoded(bad: dict[str, str]) -> bytes:
    """A ``stat`` pass's answer as a forked child sends it (``Aside.result`` reads it)."""
    return b"K" + "\0".join(_VERDICTS[v] + p for p, v in bad.items()).encode(
        "utf-8", "surrogateescape")


class Aside:
    """The ``stat`` pass of a snapshot (or the part ``again`` does) in a forked child:
    ``failed()`` tells at once whether it found a change; ``result()`` waits for it."""

    def __init__(self, run: Refresh, snap: CachedListing, pid: int, pipe: Pipe,
                 again: Callable[[], dict[str, str]] | None = None) -> None:
        self.run, self.snap, self.child, self.pipe = run, snap, Child(pid), pipe
        self.again: Callable[[], dict[str, str]] = again or (
            lambda: run._changed(snap, snap.start - RACY_NS))
        """What the child checks, done here if it dies without a whole answer."""
        self._answer: bytes | None = None

    def _read(self) -> bytes:
        if self._answer is None:
            try:
                self._answer = self.pipe.recv_bytes()
            except (EOFError, OSError):  # (it died without a whole answer)
                self._answer = b""
            self.close()
        return self._answer

    def failed(self) -> bool:
        """True once the child has answered that something changed (or failed)."""
        if self._answer is None:
            import select

            if not select.select([self.pipe.fileno()], [], [], 0)[0]:
                return False
        return self._read() != _UNCHANGED

    def result(self) -> dict[str, str]:
        """The folders that changed, and how; ValueError: the child found the snapshot bad."""
        answer = self._read()
        if answer[:1] == b"X":
            raise ValueError(answer[1:].decode("utf-8", "replace"))
        if answer[:1] != b"K":
            return self.again()
        text = answer[1:].decode("utf-8", "surrogateescape")
        verdicts = {v: k for k, v in _VERDICTS.items()}
        return {part[1:]: verdicts[part[0]] for part in text.split("\0")} if text else {}

    def close(self) -> None:
        """Stop waiting: close the pipe, end a child that has not answered, reap it."""
        self.pipe.close()
        if self._answer is None:
            self.child.kill()
        self.child.join()


class _Edit:
    """The changes a refresh makes to the snapshot's folders (the arrays copied around them:
    no Python object per unchanged folder)."""

    def __init__(self, run: Refresh, snap: CachedListing) -> None:
        self.run = run
        self.snap = snap
        self.index = {prefix: i for i, prefix in enumerate(snap.prefixes)}
        self.children: dict[str, list[str]] | None = None
        self.replaced: dict[str, Folder] = {}
        self.dropped: set[str] = set()
        self.added: list[Folder] = []
        self.scopes: dict[str, Any] = {}

    def _children(self) -> dict[str, list[str]]:
        if self.children is None:
            self.children = {}
            for prefix in self.snap.prefixes:
                if prefix:  # (the root is anywhere in the list)
                    self.children.setdefault(_parent(prefix), []).append(prefix)
        return self.children

    def drop(self, prefix: str) -> None:
        """Drop the old folder ``prefix`` and everything below it."""
        stack = [prefix]
        while stack:
            p = stack.pop()
            if p not in self.dropped:
                self.dropped.add(p)
                stack.extend(self._children().get(p, ()))

    def current(self, prefix: str) -> Folder:
        return self.replaced.get(prefix) or folder_at(self.snap, self.index[prefix])

    def scope_in(self, prefix: str) -> Any:
        """The ignore scope the walk gives the folder ``prefix`` (before its own files)."""
        if not prefix or not self.run.walker.respect:
            return self.run.item[3]
        return self.scope_after(_parent(prefix))

    def scope_after(self, prefix: str) -> Any:
        """The ignore scope below the folder ``prefix`` (unchanged ignore files)."""
        scope = self.scopes.get(prefix)
        if scope is None:
            scope = self.scope_in(prefix)
            found = names(self.current(prefix)[2])
            if found:
                path = self.run.path_of(prefix)
                scope = self.run.walker.ignores.enter(
                    scope, path, prefix, prefix.count("/"),
                    {name: f"{path}/{name}" for name in found}, self.run.warn)
            self.scopes[prefix] = scope
        return scope

    def apply(self, prefix: str, whole: bool) -> None:
        """Read the changed folder ``prefix`` again (``whole``: with its subtree)."""
        run = self.run
        item = (run.path_of(prefix), prefix, prefix.count("/"), self.scope_in(prefix), None)
        if whole:
            self.drop(prefix)
            self.added.extend(run.walk_whole(item))
            return
        rec, found = run.scan(item)
        if rec[2] != self.snap.extra.get(self.index[prefix], ("", []))[0]:  # its ignore
            self.drop(prefix)  # files changed meanwhile
            self.added.append(rec)
            for child in found:
                self.added.extend(run.walk_whole(child))
            return
        self.replaced[prefix] = rec
        entered = {child[1] for child in found}
        for child in self._children().get(prefix, ()):
            if child not in entered:
                self.drop(child)
        for child in found:
            if child[1] not in self.index:
                self.added.extend(run.walk_whole(child))

    def result(self, paths: list[str], start: int, glob: str
               ) -> tuple[CachedListing, bool] | None:
        """The refreshed snapshot (``paths``: the old one's) and whether it can be written;
        None when unchanged.  The old folders in order (less the dropped, the read ones in
        place), then the added ones."""
        from array import array
        from bisect import bisect_left

        snap, index = self.snap, self.index
        old_counts = snap.counts
        k = SIG_FIELDS
        if not self.dropped and not self.added:
            from itertools import accumulate

            ends = list(accumulate(old_counts)) if self.replaced else []
            for prefix, new in self.replaced.items():
                i = index[prefix]
                if (folder_at(snap, i)[:4] != new[:4]
                        or paths[ends[i] - old_counts[i]:ends[i]] != new[4]):
                    break
            else:
                return None
        changed = sorted({index[p] for p in self.dropped} | {index[p] for p in self.replaced})
        prefixes: list[str] = []
        sigs: array[int] = array("q")
        counts: array[int] = array("q")
        extra: dict[int, tuple[str, list[list[str]]]] = {}
        every: list[str] = []
        good = True
        old_extra = sorted(snap.extra)

        def copy(lo: int, hi: int, at: int) -> int:
            """The old folders ``lo`` to ``hi`` as they were (their paths from ``at``)."""
            if lo >= hi:
                return at
            base = len(prefixes)
            prefixes.extend(snap.prefixes[lo:hi])
            sigs.extend(snap.sigs[lo * k:hi * k])
            counts.extend(old_counts[lo:hi])
            n = sum(old_counts[lo:hi])
            every.extend(paths[at:at + n])
            for j in old_extra[bisect_left(old_extra, lo):bisect_left(old_extra, hi)]:
                extra[base + j - lo] = snap.extra[j]
            return at + n

        def put(rec: Folder) -> None:
            nonlocal good
            i = len(prefixes)
            prefixes.append(rec[0])
            try:
                _put_sig(sigs, rec[1])
            except ValueError:
                good = False
                sigs.extend(_NONE)
            counts.append(len(rec[4]))
            if rec[2] or rec[3]:
                extra[i] = (rec[2], rec[3])
            every.extend(rec[4])

        at, lo = 0, 0
        for i in changed:
            at = copy(lo, i, at)
            prefix = snap.prefixes[i]
            if prefix not in self.dropped:
                put(self.replaced[prefix])
            at += old_counts[i]
            lo = i + 1
        copy(lo, len(snap.prefixes), at)
        for rec in self.added:
            put(rec)
        return CachedListing(start, glob, prefixes, sigs, counts, extra, paths=every), good

