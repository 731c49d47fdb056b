"""Keystroke latency of a session, by query shape: typing and backspacing, key by key.

    python benchmarks/keys_bench.py TREE [--repeat 1] [--words W,W] [--pause MS] [--json OUT]
    python benchmarks/keys_bench.py --compare BEFORE.json[,MORE.json] AFTER.json[,MORE.json]
        [--wall]

Per repeat, a fresh ``ffind.FileSearcher`` (limit 20) walks TREE; once the walk is over each
word is typed one key at a time (``set_query`` -> ``wait`` -> ``results(20)``) and backspaced
back to one key, an unrelated query typed between words.  The keys come right after the walk,
while the session's idle work (tables built ahead) still runs, as a user's first keys do.
Prints, per word and pooled, the median, p95 and max wall and CPU ms (CPU: every thread of
the process) of the typing and the backspacing keys, the slowest keys, and the peak RSS after
the walk and at the end.

``--pause MS`` sleeps MS milliseconds before each key, outside the timed window: a typist's
gap, in which the session does its idle work.  ``--json`` writes every timing;
``--compare`` prints, from such files (several runs of one checkout pooled, comma-separated),
a markdown table by word of the CPU (``--wall``: wall) median / p95 / max before and after.
To compare two checkouts, alternate their runs (``PYTHONPATH=CHECKOUT``): the machine's
speed drifts from minute to minute.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from typing import Any

from benchlib import TREE_HELP, WORDS, p95, prefixes

from ffind import FileSearcher, SearchOptions

Timings = dict[str, list[tuple[str, float, float]]]
"""word -> (query, wall ms, CPU ms) of each key."""


def column(rows: list[tuple[str, float, float]], col: int) -> list[float]:
    """The wall (``col`` 1) or CPU (2) ms of ``rows``."""
    return [x[1] if col == 1 else x[2] for x in rows]


def keystroke(fs: FileSearcher, query: str, pause: float) -> tuple[str, float, float]:
    if pause:
        time.sleep(pause)
    t, c = time.perf_counter(), time.process_time()
    fs.set_query(query)
    fs.wait()
    fs.results(20)
    return query, (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stats(xs: list[float]) -> str:
    if not xs:
        return "-"
    return f"{statistics.median(xs):.1f} / {p95(xs):.1f} / {max(xs):.1f}"


def compare(before: str, after: str, col: int) -> int:
    """The table of ``--compare`` (``col`` 1: wall ms, 2: CPU ms)."""
    def load(names: str) -> list[dict[str, Any]]:
        out = []
        for name in names.split(","):
            with open(name) as f:
                out.append(json.load(f))
        return out

    runs = [load(before), load(after)]
    words = list(runs[0][0]["typing"])
    print("| word | typing, before | after | backspacing, before | after |")
    print("| --- | --- | --- | --- | --- |")
    for w in [*words, None]:
        cells = []
        for table in ("typing", "backspacing"):
            for run in runs:
                cells.append(stats([x[col] for r in run for q in ([w] if w else words)
                                    for x in r[table][q]]))
        label = f"`{w}`" if w else "**all**"
        print(f"| {label} | {' | '.join(cells)} |")
    for name, run in zip(("before", "after"), runs, strict=True):
        rss = ", ".join(f"{r['rss_walked']:.0f} / {r['rss_end']:.0f}" for r in run)
        print(f"\npeak RSS {name}, after the walk / at the end (MiB): {rss}")
    return 0


def main() -> int:
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--compare":
        return compare(sys.argv[2], sys.argv[3], 1 if sys.argv[4:] == ["--wall"] else 2)
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--repeat", type=int, default=1, help="sessions, each walking the tree")
    ap.add_argument("--words", default=",".join(WORDS), help="comma-separated queries")
    ap.add_argument("--pause", type=float, default=0.0, metavar="MS",
                    help="sleep MS ms before each key, untimed (a typist's gap)")
    ap.add_argument("--json", help="write every timing here")
    args = ap.parse_args()
    pause = args.pause / 1000
    words = [w for w in args.words.split(",") if w]
    typing: Timings = {w: [] for w in words}
    back: Timings = {w: [] for w in words}
    walks, walked, n = [], 0.0, 0
    for _ in range(args.repeat):
        t = time.perf_counter()
        with FileSearcher(args.tree, SearchOptions(limit=20)) as fs:
            fs.wait()
            walks.append((time.perf_counter() - t) * 1000)
            walked = max(walked, rss_mib())
            n = fs.snapshot().scanned_file_count
            for word in words:
                typed = prefixes(word)
                typing[word] += [keystroke(fs, q, pause) for q in typed]
                back[word] += [keystroke(fs, q, pause) for q in reversed(typed[:-1])]
                fs.set_query("\x00")  # (matches nothing: the next word starts afresh)
                fs.wait()
    print(f"tree {args.tree}: {n} paths, walk+index {statistics.median(walks):.0f} ms;"
          f" peak RSS {walked:.0f} MiB after the walk, {rss_mib():.0f} MiB at the end;"
          f" pause {args.pause:g} ms")
    for title, table in (("typing", typing), ("backspacing", back)):
        for col, what in ((1, "wall"), (2, "CPU")):
            print(f"\nsession {title} ({what} ms): median / p95 / max")
            for w in [*words, None]:
                xs = column([x for v in ([w] if w else words) for x in table[v]], col)
                print(f"  {w or 'ALL':14s} n={len(xs):3d}  {stats(xs)}")
    print("\nslowest typed keys, worst of the repeats: wall / CPU")
    worst: dict[str, tuple[float, float]] = {}
    for w in words:
        for q, wall, cpu in typing[w]:
            old = worst.get(q, (0.0, 0.0))
            worst[q] = (max(old[0], wall), max(old[1], cpu))
    for q, (wall, cpu) in sorted(worst.items(), key=lambda kv: -kv[1][0])[:15]:
        print(f"  {q!r:18s} {wall:7.1f} {cpu:7.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tree": args.tree, "paths": n, "walk_ms": walks, "rss_walked": walked,
                       "rss_end": rss_mib(), "pause_ms": args.pause, "typing": typing,
                       "backspacing": back}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
