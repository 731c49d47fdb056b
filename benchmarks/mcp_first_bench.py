"""The MCP server's first ``find_files`` answer, with and without the root's resident server.

    python benchmarks/mcp_first_bench.py TREE [TREE...] [--query Q] [--runs N]

A ``ToolServer`` (what ``ffind mcp`` serves) in a new process, ``warm()`` (its own walk
starts, from the warm snapshot), then ``find_files(Q)``; the time from ``ToolServer(...)`` to
the answer (the agent module already imported), and the child's whole wall time (spawn to
exit).  Two modes, interleaved run by run:

- own walk: ``FFIND_NO_SERVER=1``: the first answer waits for the walk of the snapshot and
  its index;
- server: the root's resident server runs (started once before; asked once first, so its
  index is built): the first call is answered by it while the walk goes on.

Snapshots go to a temporary ``XDG_CACHE_HOME``, the socket to a temporary
``XDG_RUNTIME_DIR``; the server is stopped at the end.  Medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = """
import sys, time
from ffind.agent.server import ToolServer
t = time.perf_counter()
state = ToolServer(sys.argv[1])
state.warm()
answer = state.find_files(sys.argv[2])
took = time.perf_counter() - t
print(f"{took * 1000:.1f}")
import os
os._exit(0)
"""


def child(tree: str, query: str, env: dict[str, str]) -> tuple[float, float]:
    """(ms to the first answer in the child, ms of the child's whole run)."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, tree, query], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1]), (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--query", default="prompt")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    from ffind.agent.tool import cached_tool_walk
    from ffind.resident import client

    cache = tempfile.mkdtemp(prefix="mcp-bench-cache-")
    runtime = tempfile.mkdtemp(prefix="mb-", dir="/tmp")
    env = {**os.environ, "XDG_CACHE_HOME": cache, "XDG_RUNTIME_DIR": runtime}
    env.pop("FFIND_NO_SERVER", None)
    own = {**env, "FFIND_NO_SERVER": "1"}
    saved = dict(os.environ)
    os.environ.update(env)
    os.environ.pop("FFIND_NO_SERVER", None)
    try:
        print(f"query {args.query!r}, median of {args.runs} runs (load {os.getloadavg()[0]:.1f})")
        for tree in args.trees:
            tree = os.path.realpath(tree)
            for _ in cached_tool_walk(tree):  # (the snapshot of the tool's listing)
                pass
            client.start(tree)
            for _ in range(200):
                found = client.where(tree)
                if found and client.request(found[0], {"op": "stats"}) is not None:
                    break
                time.sleep(0.05)
            assert client.ask_tool("find_files", tree, args.query, 20, memory=False) is not None
            time.sleep(2.2)  # (past the racy window)
            mine, served = [], []
            for _ in range(args.runs):
                mine.append(child(tree, args.query, own))
                served.append(child(tree, args.query, env))
            for name, runs in (("own walk", mine), ("server", served)):
                first = statistics.median(r[0] for r in runs)
                whole = statistics.median(r[1] for r in runs)
                print(f"{tree} {name}: first answer {first:.0f} ms "
                      f"(min {min(r[0] for r in runs):.0f}), child's whole run {whole:.0f} ms",
                      flush=True)
    finally:
        client.stop_all()
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)


if __name__ == "__main__":
    main()
