"""Every typed prefix's top 20, and its CPU time, through ``Index.match`` on a warmed index: a
check that a speed change ranks nothing differently, on a tree where the exact budget runs out
(``rank_eval.py``'s repositories are too small for that).

    PYTHONPATH=CHECKOUT python benchmarks/prefix_compare.py PATHS_FILE --json OUT [--repeat 2]
    python benchmarks/prefix_compare.py --diff BEFORE.json AFTER.json

PATHS_FILE holds one path per line.  Each repeat builds a fresh ``Index``, runs its idle work
to the end as an idle session does, then types each query one key at a time
(``match(prefix, limit=20)``); a prefix's time is the least CPU time over the repeats.
``--json`` writes the results (score, path) and times per prefix; ``--diff`` lists the
prefixes whose results differ between two such files.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from benchlib import WORDS, new_index, p95, read_paths


def run(paths: list[str], words: list[str], repeat: int) -> tuple[dict[str, list[list[object]]],
                                                                   dict[str, float]]:
    results: dict[str, list[list[object]]] = {}
    times: dict[str, float] = {}
    for _ in range(repeat):
        ix = new_index(paths)
        for w in words:
            for k in range(1, len(w) + 1):
                p = w[:k]
                t = time.process_time()
                got = ix.match(p, limit=20)
                ms = (time.process_time() - t) * 1000
                times[p] = min(times.get(p, ms), ms)
                results[p] = [[m.score, m.path] for m in got]
    return results, times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="?")
    ap.add_argument("--words", default=",".join(WORDS))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--diff", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.diff:
        loaded = []
        for name in args.diff:
            with open(name) as f:
                loaded.append(json.load(f)["results"])
        a, b = loaded
        differ = [p for p in a if a[p] != b.get(p)]
        print(f"{len(a)} prefixes, {len(differ)} differ" + (f": {differ}" if differ else ""))
        return 1 if differ else 0
    if not args.paths:
        ap.error("PATHS_FILE is required (or --diff)")
    paths = read_paths(args.paths)
    words = [w for w in args.words.split(",") if w]
    results, times = run(paths, words, args.repeat)
    for w in words:
        ks = [times[w[:k]] for k in range(1, len(w) + 1)]
        print(f"{w:14s} median {statistics.median(ks):6.1f}  max {max(ks):6.1f}  "
              + " ".join(f"{w[:k]}:{times[w[:k]]:.0f}" for k in range(1, len(w) + 1)))
    xs = sorted(times.values())
    print(f"all            median {statistics.median(xs):6.1f}  "
          f"p95 {p95(xs):6.1f}  max {xs[-1]:6.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "times": times}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
