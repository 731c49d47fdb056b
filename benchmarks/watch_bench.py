"""What the resident server's watches save: a served search with the inotify and fanotify hint
against the same server validating by ``stat``-ing every folder (``FFIND_NO_WATCH=1``).

    python benchmarks/watch_bench.py TREE [TREE...] [--query Q] [--runs N] [--ffind CMD]
        [--touch]

For each tree, two resident servers are started by a first ``ffind -l 20 Q`` (each with its
own ``XDG_RUNTIME_DIR`` and ``XDG_CACHE_HOME``; one with ``FFIND_NO_WATCH=1``) and left
``--settle`` seconds to add their watches.  Then ``--runs`` requests to each, interleaved:
the median wall time and the median CPU the server spent per request, and the server's
resident memory and the inotify watches and fanotify marks it holds.  With ``--touch`` (a
tree you may write to), a file is created in the deepest folder found first before each
run (removed after it): the request must list it, and the hint re-reads that folder only.
The servers are stopped at the end (``--clear-cache``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time

from warm_bench import cpu_of, held_watches, rss_mib, server_pid, timed_rss


def start_server(ffind: list[str], tree: str, env: dict[str, str], query: str) -> int | None:
    subprocess.run([*ffind, "-l", "20", query], cwd=tree, env=env, stdout=subprocess.DEVNULL,
                   check=False)
    for _ in range(200):  # (the search started the server in the background)
        pid = server_pid(tree, env)
        if pid is not None:
            return pid
        time.sleep(0.05)
    return None


def bench_tree(tree: str, ffind: list[str], query: str, runs: int, settle: float,
               touch: bool) -> None:
    tree = os.path.abspath(tree)
    envs, pids, folders = {}, {}, []
    for name in ("watched", "stat"):
        env = {**os.environ, "XDG_CACHE_HOME": tempfile.mkdtemp(prefix="watch-bench-"),
               "XDG_RUNTIME_DIR": tempfile.mkdtemp(prefix="wb-", dir="/tmp")}
        env.pop("FFIND_NO_SERVER", None)
        env.pop("FFIND_NO_WATCH", None)
        if name == "stat":
            env["FFIND_NO_WATCH"] = "1"
        envs[name], pids[name] = env, start_server(ffind, tree, env, query)
        folders.append(env["XDG_CACHE_HOME"])
    time.sleep(settle)  # (the watches are added while the server is idle)
    target = next((d for d, _, files in os.walk(tree) if files and ".git" not in d), tree)
    cmd = [*ffind, "-l", "20", query]
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
    try:
        for i in range(runs):
            probe = os.path.join(target, f"ffind_watch_bench_{i}.txt")
            for name, env in envs.items():
                if touch:
                    with open(probe, "w"):
                        pass
                before = cpu_of(pids[name])
                took = timed_rss(cmd, tree, env, 1)[0]
                got[name].append((took, cpu_of(pids[name]) - before))
                if touch:
                    os.unlink(probe)
        held = {name: (f"{rss_mib(pid):.0f} MiB, {held_watches(pid)[0]} inotify watches,"
                       f" {held_watches(pid)[1]} fanotify marks" if pid else "NO SERVER")
                for name, pid in pids.items()}
    finally:
        for env in envs.values():
            subprocess.run([*ffind, "--clear-cache"], env=env, stdout=subprocess.DEVNULL,
                           check=False)
    for name, rows in got.items():
        print(f"{tree} [{name}]: request {statistics.median(r[0] for r in rows) * 1000:.1f} ms"
              f" (min {min(r[0] for r in rows) * 1000:.1f}), the server's CPU"
              f" {statistics.median(r[1] for r in rows) * 1000:.0f} ms; {held[name]}",
              flush=True)
    for name in folders:
        shutil.rmtree(name, ignore_errors=True)
    for env in envs.values():
        shutil.rmtree(env["XDG_RUNTIME_DIR"], ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--query", default="main")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--ffind", default="ffind", help="the command (default: ffind)")
    ap.add_argument("--settle", type=float, default=3.0, metavar="SECONDS",
                    help="wait this long after starting the servers (default 3)")
    ap.add_argument("--touch", action="store_true",
                    help="create a file in the tree before each request (removed after)")
    args = ap.parse_args()
    print(f"query {args.query!r}, median of {args.runs} requests per server")
    for tree in args.trees:
        bench_tree(tree, shlex.split(args.ffind), args.query, args.runs, args.settle,
                   args.touch)


if __name__ == "__main__":
    main()
