"""What a description costs ``find_files`` from a warm index: the word tables of a tree built
once (``Describer``, as the MCP server keeps them per walk), then descriptions ranked one
after another.

    python benchmarks/describe_speed.py TREE DESCRIPTIONS... [--limit 20] [--max 600]

TREE is walked as the agent tools walk it.  Each DESCRIPTIONS file is either text (one
description a line) or JSON (``{"cases": [{"query": ...}]}``, the benchmark kit's
``describe/<repo>.json``); at most ``--max`` descriptions are taken, spread over the files.
Prints the build's CPU and wall time, then the CPU ms of ``Describer.rank`` per description:
median, p95, max, and the slowest three.  To compare two checkouts, run it with
``PYTHONPATH=CHECKOUT`` for each, in turns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from benchlib import p95


def read_descriptions(files: list[str], most: int) -> list[str]:
    per_file = []
    for name in files:
        text = Path(name).read_text()
        if name.endswith(".json"):
            per_file.append([c["query"] for c in json.loads(text)["cases"]])
        else:
            per_file.append([ln for ln in text.splitlines() if ln.strip()])
    out: list[str] = []
    for i in range(max(map(len, per_file), default=0)):
        out += [lines[i] for lines in per_file if i < len(lines)]
    return out[:most]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree")
    ap.add_argument("descriptions", nargs="+", help="text or describe/<repo>.json files")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--max", type=int, default=600)
    args = ap.parse_args()
    from ffind.agent.describe import Describer
    from ffind.agent.tool import tool_walk

    paths = [p for batch in tool_walk(args.tree) for p in batch]
    cpu, wall = time.process_time(), time.perf_counter()
    describer = Describer(paths)
    print(f"{len(paths)} paths; build {time.process_time() - cpu:.2f} s CPU, "
          f"{time.perf_counter() - wall:.2f} s wall")
    timed = []
    for text in read_descriptions(args.descriptions, args.max):
        start = time.process_time()
        describer.rank(text, args.limit)
        timed.append(((time.process_time() - start) * 1000, text))
    ms = sorted(t for t, _ in timed)
    print(f"{len(ms)} descriptions: median {statistics.median(ms):.1f} ms, "
          f"p95 {p95(ms):.1f} ms, max {ms[-1]:.1f} ms CPU")
    for t, text in sorted(timed, reverse=True)[:3]:
        print(f"  {t:.1f} ms  {text[:70]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
