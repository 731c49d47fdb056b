"""Where the warm index's memory goes at a cold start: the recording walk, the snapshot's
write, what is kept afterwards; peak and resident memory per stage, each process fresh.

    python benchmarks/snapshot_memory.py TREE [--modes refresh,session,server,nocache]

Each mode runs in a subprocess of its own, with an empty snapshot folder (a temporary
``XDG_CACHE_HOME``: the first, cold, run of a folder) and prints per stage the peak RSS
during the stage (Linux: ``VmHWM``, reset before each stage through ``/proc/self/clear_refs``)
and the RSS once it is over (``VmRSS``):

- ``refresh``: the warm index's own steps (``ffind.fs.warm.prepare``, ``Refresh.cold``), the
  walk's paths kept in a list (as an index keeps them): the walk, the snapshot's write
  (``Refresh.write``), then the snapshot let go (the picker's steady state, less its index);
- ``session``: ``FileSearcher(TREE, cache=True)`` (the picker's process, ``ffind -i``): its walk
  (which writes the snapshot), then idle;
- ``server``: the resident server's first listing (``Server.prime``: the recording walk, the
  snapshot held and written), its ``Index`` built (as the first request with a query), then
  its idle work: the inotify/fanotify hint started and armed, with the validation of the
  folders newly watched (``Server.arm``), the count table (``Server.tabulate``);
- ``nocache``: ``FileSearcher(TREE)`` (``--no-cache``), for comparison with ``session``.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from binaries import TREE_HELP

MODES = ("refresh", "session", "server", "nocache")


def _status() -> dict[str, int]:
    """``VmHWM`` and ``VmRSS`` of this process (kB)."""
    found = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                found[key] = int(value.split()[0])
    return found


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _stage(name: str, run: Callable[[], object]) -> object:
    gc.collect()
    _reset_peak()
    t = time.perf_counter()
    out = run()
    took = time.perf_counter() - t
    gc.collect()
    s = _status()
    print(f"  {name:<28} peak {s['VmHWM'] / 1024:7.1f} MiB   after {s['VmRSS'] / 1024:7.1f} MiB"
          f"   {took:6.2f} s", flush=True)
    return out


def child(mode: str, tree: str) -> None:
    from ffind.options import SearchOptions

    options = SearchOptions(limit=20)
    s = _status()
    print(f"{mode}: start {s['VmRSS'] / 1024:.1f} MiB", flush=True)
    if mode == "refresh":
        from ffind.fs.warm import prepare

        found = _stage("prepare", lambda: prepare(tree, options))
        assert isinstance(found, tuple) and found[1] is None, "not a cold start"
        run = found[0]
        run.defer_write = True
        kept: list[str] = []

        def walk() -> None:
            for batch in run.cold():
                kept.extend(batch)

        _stage("recording walk", walk)
        _stage("snapshot write", run.write)

        def drop() -> None:
            run.listing = None

        _stage("snapshot let go", drop)
        print(f"  {len(kept)} paths", flush=True)
    elif mode in ("session", "nocache"):
        from ffind.searching.session import FileSearcher

        fs = FileSearcher(tree, options, cache=mode == "session")

        def wait() -> None:
            fs.set_query("")
            fs.wait()

        _stage("walk (and write)", wait)
        _stage("idle 3 s", lambda: time.sleep(3))
        print(f"  {fs.snapshot().scanned_file_count} paths", flush=True)
        fs.close()
    elif mode == "server":
        from ffind.resident.server import Server

        sock = os.path.join(os.environ["XDG_RUNTIME_DIR"], "bench.sock")
        server = Server(tree, sock, "", 60.0)
        server.bind()  # (its idle work stops when a client waits: none here)
        held = _stage("prime (walk, write)", lambda: server.prime(tree, options))
        assert held is not None
        _stage("index built", lambda: server.indexed(held))  # type: ignore[arg-type]

        def arm() -> None:  # (the hint started, its watches added, the check ahead)
            while (h := server.unarmed()) is not None:
                server.arm(h)

        def tabulate() -> None:
            while (h := server.untabled()) is not None:
                server.tabulate(h)

        _stage("watches armed, checked", arm)
        _stage("count table built", tabulate)
        _stage("idle 3 s", lambda: time.sleep(3))
        print(f"  {len(held.listing or [])} paths", flush=True)  # type: ignore[attr-defined]
        server.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.tree)
        return 0
    for mode in args.modes.split(","):
        if mode not in MODES:
            print(f"snapshot_memory: unknown mode {mode!r}", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="snapmem-") as tmp:
            env = dict(os.environ, XDG_CACHE_HOME=f"{tmp}/cache", XDG_STATE_HOME=f"{tmp}/state",
                       XDG_RUNTIME_DIR=f"{tmp}/run")
            os.mkdir(f"{tmp}/run", 0o700)
            subprocess.run([sys.executable, __file__, args.tree, "--child", mode], env=env,
                           check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
