"""The warm index's ``stat`` pass alone: in one process, or split with a forked child.

    python benchmarks/stat_pass_bench.py TREE [--watched N] [--runs N] [--raw]

A snapshot of TREE is made (in a temporary cache folder) and its ``stat`` pass
(``ffind.fs.refresh.Refresh._changed``) is timed, the two ways interleaved run by run:
``split=False`` (every folder checked in this process) and ``split=True`` (the second half
checked by a forked child, ``refresh.SPLIT_MIN``; on one CPU, or under ``SPLIT_MIN``
folders, the same as not split).  ``--watched N``: the N shallowest folders are left out,
as the resident server's inotify hint leaves out the folders it watches (at 1M files here
96,268 of 387,562: half of the user's free watches), so the pass covers the rest, in the
snapshot's order (``Hint.only``'s answer).  Each line: the median wall time, the median CPU
time of this process and of the child (user + system), the load.

``--raw``: also the cost of one ``os.stat`` over the same folders, several ways (the full
path as ``str`` or ``bytes``, a name relative to an open parent, ``os.access``), to show
where the time goes (the kernel's path walk, not Python's loop).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import tempfile
import time


def cpu() -> tuple[float, float]:
    """(this process's CPU seconds, its reaped children's)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree")
    parser.add_argument("--watched", type=int, default=0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--raw", action="store_true")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="stat-pass-bench-")
    try:
        run(os.path.realpath(args.tree), cache, args.watched, args.runs, args.raw)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run(root: str, cache: str, watched: int, runs: int, raw: bool) -> None:
    from ffind.fs import refresh, warm
    from ffind.options import SearchOptions
    from ffind.state.cache import SnapshotStore

    store = SnapshotStore(cache)
    options = SearchOptions()
    found = warm.prepare(root, options, store=store)
    assert found is not None, "not cached here (an untrusted file system?)"
    list(found[0].cold())
    time.sleep(2.2)  # (past the racy window)
    found = warm.prepare(root, options, store=store)
    assert found is not None and found[1] is not None
    walk, snap = found
    depth = sorted(range(len(snap.prefixes)), key=lambda i: snap.prefixes[i].count("/"))
    only = sorted(depth[watched:]) if watched else None
    n = len(snap.prefixes) if only is None else len(only)
    limit = snap.start - refresh.RACY_NS
    print(f"{root}: {len(snap.prefixes)} folders, {n} checked (load "
          f"{os.getloadavg()[0]:.1f}, {refresh.cpus()} CPUs, SPLIT_MIN {refresh.SPLIT_MIN})")
    got: dict[str, list[tuple[float, float, float]]] = {"one process": [], "split": []}
    for _ in range(runs):
        for label, split in (("one process", False), ("split", True)):
            (me0, kids0), start = cpu(), time.perf_counter()
            bad = walk._changed(snap, limit, only, split=split)
            took = time.perf_counter() - start
            me1, kids1 = cpu()
            assert not bad, f"the tree changed: {sorted(bad)[:5]}"
            got[label].append((took, me1 - me0, kids1 - kids0))
    for label, rows in got.items():
        wall, me, kid = (statistics.median(r[k] for r in rows) for k in range(3))
        print(f"  {label}: {wall * 1000:.0f} ms (min {min(r[0] for r in rows) * 1000:.0f}; CPU"
              f" {me * 1000:.0f} ms here, {kid * 1000:.0f} ms in the child)", flush=True)
    print(f"  (load {os.getloadavg()[0]:.1f})")
    if raw:
        picked = range(len(snap.prefixes)) if only is None else only
        raw_costs(root, [snap.prefixes[i] for i in picked if snap.prefixes[i]])


def raw_costs(root: str, prefixes: list[str]) -> None:
    """The CPU of one ``os.stat`` (or ``os.access``) over ``prefixes``, several ways."""
    base = root + "/"
    full = [base + p for p in prefixes]
    encoded = [os.fsencode(p) for p in full]
    parents: dict[str, int] = {}
    relative = []
    for p in full[:20_000]:  # (an open descriptor per parent: a few thousand at most)
        parent, _, name = p[:-1].rpartition("/")
        if parent not in parents:
            parents[parent] = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
        relative.append((name, parents[parent]))
    try:
        stat, access = os.stat, os.access
        ways = {
            "os.stat(str path)": lambda: [stat(p) for p in full],
            "os.stat(root + prefix)": lambda: [stat(base + p) for p in prefixes],
            "os.stat(bytes path)": lambda: [stat(p) for p in encoded],
            "os.access(str path, F_OK)": lambda: [access(p, os.F_OK) for p in full],
        }
        for label, fn in ways.items():
            start = cpu()[0]
            fn()
            spent = cpu()[0] - start
            print(f"  {label}: {spent / len(full) * 1e9:.0f} ns of CPU a folder")
        start = cpu()[0]
        for name, fd in relative:
            stat(name, dir_fd=fd)
        spent = cpu()[0] - start
        start = cpu()[0]
        for p in full[:len(relative)]:
            stat(p)
        same = cpu()[0] - start
        print(f"  os.stat(name, dir_fd=parent), the parents already open: "
              f"{spent / len(relative) * 1e9:.0f} ns a folder (the full paths of the same "
              f"{len(relative)}: {same / len(relative) * 1e9:.0f} ns)")
    finally:
        for fd in parents.values():
            os.close(fd)


if __name__ == "__main__":
    main()
