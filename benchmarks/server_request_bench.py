"""What one request costs the resident server, in process, with the inotify hint.

    python benchmarks/server_request_bench.py TREE [--query Q] [--runs N] [--touch]

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
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree")
    parser.add_argument("--query", default="main")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--touch", action="store_true")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="server-bench-")
    os.environ["XDG_CACHE_HOME"] = cache
    try:
        run(os.path.realpath(args.tree), args.query, args.runs, args.touch)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run(root: str, query: str, runs: int, touch: bool) -> None:
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
    finally:
        srv.close()


if __name__ == "__main__":
    main()
