"""A session's peak memory: after the walk, after its idle work, after typing each word.

    python benchmarks/session_memory.py TREE [--words W,W] [--idle SECONDS] [--per-key]

Walks TREE with an ``ffind.FileSearcher`` (limit 20), then types the words one key at a time
(``set_query`` -> ``wait`` -> ``results(20)``) and prints the peak RSS of the process at each
stage (on Linux with the current RSS beside it: what the next stage adds to).  The keys come
straight after the walk by default; ``--idle SECONDS`` leaves the session idle that long
first, so that its idle work builds every table it builds ahead (the figure "with every
table built"; the RSS printed every 5 s meanwhile levels off once it has).  Run one tree per
process.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from benchlib import TREE_HELP, prefixes

from ffind import FileSearcher, SearchOptions

WORDS = ["prom", "base_cod", "s/p/t", "test util"]


def mib(n: float) -> str:
    return f"{n / 2**20:7.1f} MiB"


def peak() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0


def now() -> str:
    """The current RSS (Linux: ``/proc/self/statm``), as text; empty elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return ""
    return f" (now {mib(pages * resource.getpagesize()).strip()})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--words", default=",".join(WORDS))
    ap.add_argument("--idle", type=float, default=0.0, metavar="SECONDS",
                    help="leave the session idle this long after the walk, before typing")
    ap.add_argument("--per-key", action="store_true",
                    help="print the peak and current RSS after every key, not only each word")
    args = ap.parse_args()
    start = peak()
    t = time.perf_counter()
    with FileSearcher(args.tree, SearchOptions(limit=20)) as fs:
        fs.wait()
        n = fs.snapshot().scanned_file_count
        print(f"{n} paths, walk {time.perf_counter() - t:.1f} s; peak RSS {mib(start)} at the"
              f" start, {mib(peak())} after the walk{now()}")
        if args.idle:  # (two rankings first: an index turns numpy on at its second)
            for q in ("a", "b"):
                fs.set_query(q)
                fs.wait()
        idle = 0.0
        while idle < args.idle:  # (the RSS every 5 s: it levels off once the work has ended)
            step = min(5.0, args.idle - idle)
            time.sleep(step)
            idle += step
            print(f"  after {idle:g} s idle: peak RSS {mib(peak())}{now()}")
        for word in [w for w in args.words.split(",") if w]:
            for q in prefixes(word):
                fs.set_query(q)
                fs.wait()
                fs.results(20)
                if args.per_key:
                    print(f"    {q!r}: peak RSS {mib(peak())}{now()}")
            print(f"  after typing {word!r}: peak RSS {mib(peak())}{now()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
