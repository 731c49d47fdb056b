"""Where a session's memory goes: peak RSS after the walk and after typing, and the share of
the ``Index`` tables and of the cached ``MatchSet`` id lists.

    python benchmarks/session_memory.py TREE [--words W,W] [--warm] [--per-key]

Walks TREE with a ``FileSearcher`` (limit 20), types the words one key at a time (as
``keys_bench.py`` does; with ``--warm``, after ``Index.warm`` has built every table it builds
ahead, as a session left idle after its walk would), then prints the peak RSS at each stage
(on Linux with the current RSS beside it: what the next stage adds to) and the deep size
(``index_footprint.deep``) of the index's tables (its ``PathStore``'s attributes) and of the
session's cached MatchSets.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from binaries import TREE_HELP
from index_footprint import deep, mib

from ffind.options import SearchOptions
from ffind.searching.session import FileSearcher

WORDS = ["prom", "base_cod", "s/p/t", "test util"]


def rss() -> float:
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
    ap.add_argument("--warm", action="store_true",
                    help="build the tables Index.warm builds ahead before typing")
    ap.add_argument("--per-key", action="store_true",
                    help="print the peak and current RSS after every key, not only each word")
    args = ap.parse_args()
    start = rss()
    t = time.perf_counter()
    with FileSearcher(args.tree, SearchOptions(limit=20)) as fs:
        fs.wait()
        walked = rss()
        n = fs.snapshot().scanned_file_count
        print(f"{n} paths, walk {time.perf_counter() - t:.1f} s; peak RSS {mib(start)} at the"
              f" start, {mib(walked)} after the walk{now()}")
        if args.warm:
            with fs._ilock:
                for _ in fs._index.warm():
                    pass
            print(f"  after Index.warm: peak RSS {mib(rss())}{now()}")
        for word in [w for w in args.words.split(",") if w]:
            for i in range(1, len(word) + 1):
                if word[i - 1] != " ":
                    fs.set_query(word[:i])
                    fs.wait()
                    fs.results(20)
                    if args.per_key:
                        print(f"    {word[:i]!r}: peak RSS {mib(rss())}{now()}")
            print(f"  after typing {word!r}: peak RSS {mib(rss())}{now()}")
        seen: set[int] = set()
        with fs._ilock:  # (the session's idle ``warm`` grows the tables meanwhile)
            index = fs._index
            tables = {k: deep(v, seen) for k, v in vars(index.store).items()}
            # the id lists, or their compact form (``_packed``: arrays)
            cached = sum(deep(st.ms, seen) + sum(deep(getattr(st.ms, a, None), seen) for a in
                         ("_superset", "_strict", "_loose", "_typos", "_packed"))
                         for st in fs._cache.values() if st.ms is not None)
        print(f"index tables {mib(sum(tables.values()))} ({sum(tables.values()) / n:.0f} B per"
              f" path); {len(fs._cache)} cached MatchSets {mib(cached)}")
        for k, v in sorted(tables.items(), key=lambda kv: -kv[1])[:8]:
            print(f"    {k:16s} {mib(v)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
