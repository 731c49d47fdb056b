"""Validating a warm listing: the ``stat`` of every folder against the inotify hint
(``ffind.fs.watch``), as a process that keeps the listing between requests does it.

    python benchmarks/watch_bench.py TREE [TREE...] [--runs N] [--budget N] [--marks N]
        [--touch]

For each tree (its snapshot made first by a cold walk into a temporary cache folder):

- ``arm``: the hint's first validation (every watch added, then every folder checked), and
  how many folders are watched (at most half of the user's free inotify watches, or
  ``--budget``), how many marked by fanotify beyond them (at most half of the user's free
  marks, or ``--marks``; 0: inotify alone, ``ffind.fs.fanwatch``), how many are ``stat``-ed
  on every request (the others), and the kernel memory the marks took (``Slab`` and
  ``SUnreclaim`` in ``/proc/meminfo``, before and after: the whole machine's);
- ``unchanged``: median of ``--runs`` validations of the unchanged listing, the ``stat``
  pass of every folder (``Refresh.warm(snap)``, as without a hint) and with the hint
  (``Refresh.warm(snap, only)``), interleaved, and the folders each checked;
- with ``--touch`` (a tree you may write to): one file created in one folder (removed
  after), then one validation each way; prints the folders the hint checked and the
  folders read again.

Times are the validation alone (no interpreter, imports nor snapshot load: the listing is in
memory, as in a resident process); the inputs above the root are checked in both columns.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from typing import Any

from ffind.fs import refresh, warm
from ffind.fs.refresh import Refresh, WarmStats
from ffind.fs.walk import prepare_recorded
from ffind.fs.watch import Hint
from ffind.options import SearchOptions
from ffind.state.cache import CachedListing, SnapshotStore


def new_run(root: str, options: SearchOptions, store: SnapshotStore) -> Refresh:
    """One request's refresh (``warm._prepare`` without loading the snapshot: it is kept)."""
    start = time.time_ns()
    inputs: list[str] = []
    walker, item = prepare_recorded(root, options, None, inputs)
    glob = warm.global_sig(os.path.abspath(root), inputs)
    assert glob is not None, "a git configuration that includes others: not cached"
    return Refresh(walker, item, options, None, None, store, warm.listing_key(root, options),
                   glob[0], start, WarmStats())


def validate(root: str, options: SearchOptions, store: SnapshotStore, snap: CachedListing,
             hint: Hint | None, spent: list[float] | None = None) -> tuple[float, Refresh, int]:
    """Seconds, the refresh (its ``listing``, its ``stats``) and the folders checked;
    ``spent`` receives the seconds of the hint's own work (``only`` and ``settle``)."""
    t = time.perf_counter()
    run = new_run(root, options, store)
    n = len(snap.prefixes)
    if hint is None:
        for _ in run.warm(snap):
            pass
    else:  # (``refreshed``, its two steps timed)
        t0 = time.perf_counter()
        only = hint.only(snap)
        t1 = time.perf_counter()
        for _ in run.warm(snap, only):
            pass
        t2 = time.perf_counter()
        hint.settle(run.listing)
        if spent is not None:
            spent.append(t1 - t0 + time.perf_counter() - t2)
        n = n if only is None else len(only)
    return time.perf_counter() - t, run, n


def kernel_marks() -> str:
    """The kernel memory of every inotify watch on the machine (``/proc/slabinfo``), or ''."""
    try:
        with open("/proc/slabinfo") as f:
            for line in f:
                if line.startswith("inotify_inode_mark "):
                    parts = line.split()
                    return f"{int(parts[1]) * int(parts[3]) / 2**20:.1f} MiB of inotify marks"
    except (OSError, ValueError, IndexError):
        pass
    return ""


def meminfo() -> dict[str, int]:
    """``Slab`` and ``SUnreclaim`` of ``/proc/meminfo`` (KiB)."""
    got: dict[str, int] = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in ("Slab", "SUnreclaim"):
                    got[name] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return got


def bench(root: str, runs: int, budget: int | None, touch: bool,
          marks: int | None = None) -> None:
    options = SearchOptions()
    with tempfile.TemporaryDirectory() as cache:
        store = SnapshotStore(cache)
        run = new_run(root, options, store)
        t = time.perf_counter()
        for _ in run.cold():
            pass
        snap = run.listing
        assert snap is not None
        print(f"{root}: {len(snap.paths()):,} paths, {len(snap.prefixes):,} folders "
              f"(cold walk {time.perf_counter() - t:.2f} s)")
        time.sleep(refresh.RACY_NS / 1e9)  # (past the racy window: folders trusted)
        secs, run, _ = validate(root, options, store, snap, None)  # (racy ones read once)
        snap = run.listing or snap
        before = meminfo()
        hint = Hint.start(root, options, budget, marks=marks)
        assert hint is not None, "no inotify here"
        secs, run, _ = validate(root, options, store, snap, hint)
        snap = run.listing or snap
        after = meminfo()
        watched = len(hint.watcher.wd_of)
        second = getattr(hint.watcher, "second", None)
        marked = 0 if second is None else len(second.wd_of)
        print(f"  arm: {secs * 1000:.0f} ms (every watch added, every folder checked); "
              f"{watched - marked:,} folders watched by inotify, {marked:,} by fanotify "
              f"(budgets {hint.watcher.budget:,} together), "
              f"{len(snap.prefixes) - watched:,} stat-ed every time. {kernel_marks()}; "
              + ", ".join(f"{k} {(after[k] - before[k]) / 1024:+.1f} MiB"
                          for k in after if k in before))
        full, hinted, own = [], [], []
        checked_full = checked_hint = 0
        for _ in range(runs):
            secs, run, checked_full = validate(root, options, store, snap, None)
            full.append(secs)
            assert run.listing is snap, "the tree changed during the benchmark"
            secs, run, checked_hint = validate(root, options, store, snap, hint, own)
            hinted.append(secs)
            assert run.listing is snap, "the tree changed during the benchmark"
        a, b = statistics.median(full), statistics.median(hinted)
        print(f"  unchanged, median of {runs}: stat pass {a * 1000:.1f} ms "
              f"({checked_full:,} folders), hint {b * 1000:.1f} ms ({checked_hint:,} "
              f"folders checked; the hint's own work {statistics.median(own) * 1000:.2f} ms): "
              f"{a / b:.0f}x")
        if touch:
            touched(root, options, store, snap, hint)
        hint.close()


def touched(root: str, options: SearchOptions, store: SnapshotStore, snap: CachedListing,
            hint: Hint) -> None:
    folder = sorted(snap.prefixes, key=lambda p: (p.count("/"), p))[len(snap.prefixes) // 2]
    path = os.path.join(root, folder, "ffind-watch-bench.tmp")
    with open(path, "w"):
        pass
    try:
        a, run_a, _ = validate(root, options, store, snap, None)
        spent: list[float] = []
        b, run_b, _ = validate(root, options, store, snap, hint, spent)
        assert run_a.listing is not None and run_b.listing is not None
        same = run_a.listing.paths() == run_b.listing.paths()
        only: Any = hint.last
        shown = "every folder" if only is None else [snap.prefixes[i] for i in only][:5]
        print(f"  one file created in {folder!r}: stat pass {a * 1000:.1f} ms (read again: "
              f"{sorted(run_a.stats.relisted)[:5]}), hint {b * 1000:.1f} ms (checked: "
              f"{shown}; read again: {sorted(run_b.stats.relisted)[:5]}; the hint's own work "
              f"{spent[0] * 1000:.1f} ms); same listing: {same}")
        c, _, n = validate(root, options, store, run_b.listing, hint)
        print(f"  the next request: hint {c * 1000:.1f} ms ({n:,} folders checked)")
        times = []
        unwritten = _NoWrite(store.folder)
        for _ in range(5):  # (the snapshot before the change, its folder read again)
            run = new_run(root, options, unwritten)
            t = time.perf_counter()
            run._refresh(snap, {folder: "read"})
            times.append(time.perf_counter() - t)
        print(f"  the refresh of that folder alone, without the write: median of 5 "
              f"{statistics.median(times) * 1000:.1f} ms")
    finally:
        os.unlink(path)


class _NoWrite(SnapshotStore):
    """A store that writes nothing (the refresh timed without its write)."""

    def save(self, key: dict[str, Any], snap: CachedListing) -> bool:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--budget", type=int, default=None,
                        help="watches at most (default: half of the user's free watches)")
    parser.add_argument("--marks", type=int, default=None,
                        help="fanotify marks at most beyond the watches (default: half of the "
                        "user's free marks; 0: inotify alone)")
    parser.add_argument("--touch", action="store_true",
                        help="also create (then remove) one file in each tree")
    args = parser.parse_args()
    for tree in args.trees:
        bench(tree, args.runs, args.budget, args.touch, args.marks)


if __name__ == "__main__":
    main()
