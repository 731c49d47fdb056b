"""What one request costs the resident server, in process, with the inotify hint.

    python benchmarks/server_request_bench.py TREE [--query Q] [--runs N] [--touch]
                                              [--count]

A ``ffind.resident.server.Server`` driven directly (no socket, no client): per request its
``found`` (the validation, narrowed by the hint once its watches are added, and the ranking
of ``Q``, ``-l 20``, without the memory), then the held store's write (what the server does
after the reply).  In order: the first request (no snapshot held: a cold walk, the index
built), the watches added (``Server.arm``, what the server does while idle), the request
after them (every folder checked once), then ``--runs`` unchanged requests; with
``--touch`` (a tree you may write to), ``--runs`` times a file created in the root, a
request, the file removed, a request, and an unchanged request.  Each line says how many
folders the validation ``stat``-checked (-1: every one).  The snapshot goes to a temporary
``XDG_CACHE_HOME``.

``--count`` (issue 14, the picker's first complete frame): then ``--runs`` provisional
requests with their count (``found(validate=False, later=True)``, the picker's limit of 24
rows with indices), the rows' time and the count's after them, alternately counted anew
without the count table (``ffind.engine.counting``, what the server builds while idle once
an index holds ``TABLE_FROM`` paths: here built first, its time and memory shown), anew with
it (the server's remembered counts cleared first) and remembered (``Held.counts``); medians,
and the server's memory (``/proc/self/smaps_rollup``: the resident set and ``Pss``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ffind.resident import server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree")
    parser.add_argument("--query", default="main")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--touch", action="store_true")
    parser.add_argument("--count", action="store_true",
                        help="also the provisional count, counted anew and remembered")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="server-bench-")
    os.environ["XDG_CACHE_HOME"] = cache
    try:
        run(os.path.realpath(args.tree), args.query, args.runs, args.touch, args.count)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run(root: str, query: str, runs: int, touch: bool, count: bool = False) -> None:
    from ffind.options import SearchOptions
    from ffind.resident import server

    srv = server.Server(root, os.path.join(root, "unused.sock"), "", 60)
    srv.waiting = lambda: False  # type: ignore[method-assign]  # (no client: arm at once)
    options = SearchOptions(limit=20)
    print(f"{root}: query {query!r} (load {os.getloadavg()[0]:.1f})")

    def request(label: str) -> server.Held:
        start = time.perf_counter()
        srv.found(root, root, query, options, False, False)
        took = time.perf_counter() - start
        held = srv._held(root, options)
        start = time.perf_counter()
        held.store.flush()
        wrote = time.perf_counter() - start
        print(f"  {label}: {took * 1000:.0f} ms, folders checked {srv.checked}, "
              f"the write after {wrote * 1000:.0f} ms", flush=True)
        return held

    try:
        held = request("first request")
        start = time.perf_counter()
        srv.arm(held)
        hint = held.hint
        watched = 0 if hint is None else len(hint.watcher.wd_of)
        folders = 0 if held.snap is None else len(held.snap.prefixes)
        print(f"  watches added: {watched} of {folders} folders in "
              f"{(time.perf_counter() - start) * 1000:.0f} ms")
        request("after the watches")
        for _ in range(runs):
            request("unchanged")
        if touch:
            time.sleep(2.2)  # (past the racy window)
            probe = os.path.join(root, f"server_bench_{query}.txt")
            for _ in range(runs):
                open(probe, "w").close()
                try:
                    request("a file created")
                finally:
                    os.unlink(probe)
                request("the file removed")
                request("unchanged")
        if count:
            counted(srv, root, query, runs)
    finally:
        srv.close()


def counted(srv: server.Server, root: str, query: str, runs: int) -> None:
    """``--count``: provisional requests with their count, counted anew and remembered."""
    import statistics

    from ffind.options import SearchOptions

    options = SearchOptions(limit=24, compute_indices=True)  # (the picker's first screenful)
    held = srv._held(root, options)
    srv.found(root, root, query, options, False, True)  # (this key's listing and index)
    before = _memory(os.getpid()).get("Rss", 0)
    srv.table_from = 0
    start = time.perf_counter()
    steps = 0
    while srv.untabled() is held:  # (the server's idle work)
        srv.tabulate(held)
        steps += 1
    took = time.perf_counter() - start
    grew = (_memory(os.getpid()).get("Rss", 0) - before) / 1024
    print(f"  the count table: {took * 1000:.0f} ms in {steps} steps, resident set "
          f"{grew:+.0f} MiB")
    table = held.table
    times: dict[str, tuple[list[float], list[float]]] = {
        "anew, no table": ([], []), "anew": ([], []), "remembered": ([], [])}
    total = -1
    for _ in range(runs):
        for mode in times:
            held.table = None if mode == "anew, no table" else table
            if mode != "remembered":
                held.counts.clear()
            start = time.perf_counter()
            tally = srv.found(root, root, query, options, False, False, validate=False,
                              later=True)[5]
            rows = time.perf_counter()
            assert tally is not None
            n = tally()
            end = time.perf_counter()
            assert total in (-1, n), "the same count either way"
            total = n
            times[mode][0].append((rows - start) * 1000)
            times[mode][1].append((end - rows) * 1000)
    print(f"  provisional {query!r}, {total} matches (median of {runs}, load "
          f"{os.getloadavg()[0]:.1f}):")
    for mode, (rows_ms, count_ms) in times.items():
        print(f"    {mode:14s}: rows {statistics.median(rows_ms):4.0f} ms, the count after "
              f"them {statistics.median(count_ms):4.0f} ms   (counts: "
              f"{' '.join(f'{x:.0f}' for x in count_ms)})")
    mem = _memory(os.getpid())
    print(f"    server memory: resident {mem.get('Rss', 0) // 1024} MiB, "
          f"Pss {mem.get('Pss', 0) // 1024} MiB")


def _memory(pid: int) -> dict[str, int]:
    """``/proc/PID/smaps_rollup``'s fields (KiB); empty where it cannot be read."""
    found = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[0].endswith(":"):
                    found[parts[0][:-1]] = int(parts[1])
    except OSError:
        pass
    return found


if __name__ == "__main__":
    main()
