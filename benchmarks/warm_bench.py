"""The warm index against a cold walk and ``fd | fzf``, side by side, in one run.

    python benchmarks/warm_bench.py TREE [TREE...] [--query Q] [--runs N] [--ffind CMD]
        [--touch]

For each tree, the median wall time (with the median CPU time, user + system with the
children, and the largest peak RSS, from ``wait4``) of ``--runs`` runs of:

- cold:  ``ffind --no-cache -l 20 Q``
- warm:  ``ffind -l 20 Q`` with a snapshot (made by one call first, then past the racy window)
- peer:  ``fdfind -t f | fzf --filter Q | head -20`` (skipped when either is missing)

and the ratios cold/peer, warm/peer.  Also the fixed costs (``ffind --version``, the
interpreter alone).  Snapshots go to a temporary ``XDG_CACHE_HOME``.

``--touch TREE`` (a tree you may write to): create one file in one folder of it (removed
after), then run a cached listing through the library and print which folders it read again
(the counter of ``ffind.fs.warm.WarmStats``): only that folder.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed_rss(cmd: list[str] | str, cwd: str, env: dict[str, str],
              runs: int) -> tuple[float, int, float]:
    """The median seconds of ``runs`` runs (a str runs through ``sh -c``), the largest peak
    resident set (KiB, ``wait4``: the command or the largest of its children) and the median
    CPU seconds (user + system, the children included: steadier than the wall time on a
    busy machine)."""
    times = []
    cpu = []
    rss = 0
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd if isinstance(cmd, list) else ["sh", "-c", cmd], cwd=cwd,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0  # (reaped here)
        times.append(time.perf_counter() - start)
        cpu.append(usage.ru_utime + usage.ru_stime)
        rss = max(rss, usage.ru_maxrss)
    return statistics.median(times), rss, statistics.median(cpu)


def timed(cmd: list[str] | str, cwd: str, env: dict[str, str], runs: int) -> float:
    """The median seconds of ``runs`` runs (a str runs through ``sh -c``)."""
    return timed_rss(cmd, cwd, env, runs)[0]


def touch_trace(tree: str) -> None:
    """Create one file in the deepest-but-one folder found first; show what was re-read."""
    from ffind.fs.warm import WarmStats, cached_batches
    from ffind.options import SearchOptions
    from ffind.state.cache import SnapshotStore

    store = SnapshotStore(tempfile.mkdtemp(prefix="warm-bench-"))
    options = SearchOptions()
    list(cached_batches(tree, options, store=store))
    time.sleep(2.2)  # past the racy window
    target = next((os.path.join(d, "") for d, _, files in os.walk(tree)
                   if files and ".git" not in d and d != tree), tree)
    probe = os.path.join(target, "ffind_bench_touch.txt")
    with open(probe, "w") as f:
        f.write("")
    try:
        stats = WarmStats()
        start = time.perf_counter()
        n = sum(len(b) for b in cached_batches(tree, options, store=store, stats=stats))
        took = time.perf_counter() - start
    finally:
        os.unlink(probe)
    print(f"  touch: created {os.path.relpath(probe, tree)}; refresh {took * 1000:.0f} ms, "
          f"{n} paths, read again: {stats.relisted} ({stats.reused} folders reused)")
    shutil.rmtree(store.folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--query", default="main")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ffind", default="ffind", help="the command (default: ffind)")
    parser.add_argument("--touch", metavar="TREE", help="show the re-read folders in TREE")
    args = parser.parse_args()
    ffind = shlex.split(args.ffind)
    cache = tempfile.mkdtemp(prefix="warm-bench-cache-")
    env = {**os.environ, "XDG_CACHE_HOME": cache}
    fd, fzf = shutil.which("fdfind") or shutil.which("fd"), shutil.which("fzf")
    q = shlex.quote(args.query)
    print(f"query {args.query!r}, median of {args.runs} runs")
    print(f"  ffind --version {timed([*ffind, '--version'], '/', env, args.runs) * 1000:.0f} ms;"
          f" python -c pass {timed([sys.executable, '-c', 'pass'], '/', env, args.runs) * 1000:.0f}"
          " ms")
    for tree in args.trees:
        query = [*ffind, "-l", "20", args.query]
        cold, cold_rss, cold_cpu = timed_rss([*ffind, "--no-cache", "-l", "20", args.query],
                                             tree, env, args.runs)
        subprocess.run(query, cwd=tree, env=env, stdout=subprocess.DEVNULL, check=False)
        time.sleep(2.2)  # the snapshot is past the racy window
        subprocess.run(query, cwd=tree, env=env, stdout=subprocess.DEVNULL, check=False)
        warm, warm_rss, warm_cpu = timed_rss(query, tree, env, args.runs)
        line = (f"{tree}: cold {cold * 1000:.0f} ms (CPU {cold_cpu * 1000:.0f} ms, "
                f"{cold_rss // 1024} MiB), warm {warm * 1000:.0f} ms (CPU {warm_cpu * 1000:.0f}"
                f" ms, {warm_rss // 1024} MiB)")
        if fd and fzf:
            peer, peer_rss, peer_cpu = timed_rss(f"{fd} -t f | {fzf} --filter {q} | head -20",
                                                 tree, env, args.runs)
            line += (f", fd|fzf {peer * 1000:.0f} ms (CPU {peer_cpu * 1000:.0f} ms, "
                     f"{peer_rss // 1024} MiB); cold/peer {cold / peer:.2f}x, "
                     f"warm/peer {warm / peer:.2f}x")
        print(line)
    if args.touch:
        touch_trace(args.touch)
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
