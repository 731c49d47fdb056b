"""The picker's first frame from the warm index: time from ``FileSearcher(...)`` to the first
``on_update``/``on_complete`` with matches, to the first one whose rows are the final ones
(those ``results()`` gives after ``wait()``), to the first one over every path (the
snapshot's, or the walk's once done), and to ``wait()`` (the validated listing matched),
with ``cache=False`` (a cold walk) and ``cache=True`` (a snapshot made beforehand, then past
the racy window), each in a new process, interleaved, median of ``--runs``.

    python benchmarks/session_warm_bench.py TREE [--query main] [--runs 5]

Snapshots go to a temporary ``XDG_CACHE_HOME``; the tree is only read.  Options as the
picker's: ``limit`` a screenful (24), ``compute_indices``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
from ffind.options import SearchOptions
from ffind.searching.session import FileSearcher

class Reporter:
    def __init__(self, t0):
        self.t0, self.first, self.frames = t0, None, []
    def _seen(self, snap):
        if snap.matches:
            self.frames.append((time.perf_counter() - self.t0, snap.scanned_file_count,
                                [m.path for m in snap.matches]))
    def on_update(self, snap):
        self._seen(snap)
    def on_complete(self, snap):
        self._seen(snap)

root, query, cache = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
options = SearchOptions(limit=24, compute_indices=True)
t0 = time.perf_counter()
rep = Reporter(t0)
fs = FileSearcher(root, options, rep, cache=cache)
fs.set_query(query)
assert fs.wait(120)
complete = time.perf_counter() - t0
n = fs.snapshot().scanned_file_count
final = [m.path for m in fs.results()]
fs.close()
first = rep.frames[0][0]
full = min(t for t, k, _ in rep.frames if k >= n)  # the first frame over every path
right = min(t for t, _, rows in rep.frames if rows == final)  # the first with the final rows
print(json.dumps({"first": first, "full": full, "right": right, "complete": complete,
                  "paths": n}))
"""


def run(root: str, query: str, cache: bool, env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, root, query, "1" if cache else "0"],
                         env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree")
    parser.add_argument("--query", default="main")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache_home:
        env = dict(os.environ, XDG_CACHE_HOME=cache_home)
        run(args.tree, args.query, True, env)  # makes the snapshot
        time.sleep(2.5)  # past the racy window
        got: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
        for _ in range(args.runs):
            got["cold"].append(run(args.tree, args.query, False, env))
            got["warm"].append(run(args.tree, args.query, True, env))
    for name, rows in got.items():
        first = statistics.median(r["first"] for r in rows) * 1000
        full = statistics.median(r["full"] for r in rows) * 1000
        right = statistics.median(r["right"] for r in rows) * 1000
        done = statistics.median(r["complete"] for r in rows) * 1000
        each = ", ".join(f"{r['right'] * 1000:.0f}" for r in rows)
        print(f"{name}: first frame {first:.0f} ms, first frame with the final rows {right:.0f}"
              f" ms ({each}), first frame over every path {full:.0f} ms, complete {done:.0f} ms"
              f" ({int(rows[0]['paths']):,} paths)")


if __name__ == "__main__":
    main()
