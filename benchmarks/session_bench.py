"""Per-keystroke latency of a FileSearcher, typing and backspacing, after the walk completes.

    python benchmarks/session_bench.py TREE [--repeat 3] [--no-reuse] [--words W,W]

For each word, type it one character at a time (``set_query`` -> ``wait`` -> ``results(20)``),
then backspace back to one character.  Prints the median and p95 of typing and backspacing
keystrokes, the walk time, the path count and the peak RSS of this process (run one tree per
process to read the RSS of that tree).  ``--no-reuse`` turns the MatchSet cache off (every
keystroke rescoring from scratch), to show what narrowing and reuse buy.  ``--words`` types
other queries (comma-separated; ``--words "session test,base coder"`` for several terms).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time

from binaries import TREE_HELP

import ffind.searching.session
from ffind.options import SearchOptions
from ffind.searching.session import FileSearcher

WORDS = ["prompt", "base_coder", "controller", "mod.rs", "s/p/t"]


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def keystroke(fs: FileSearcher, query: str) -> float:
    t = time.perf_counter()
    fs.set_query(query)
    fs.wait()
    fs.results(20)
    return (time.perf_counter() - t) * 1000


def cancel_latency(tree: str, after: float) -> float:
    """Milliseconds from ``cancel()`` to ``close()`` returning, ``after`` s into the walk."""
    fs = FileSearcher(tree, SearchOptions(limit=20))
    fs.set_query("prompt")
    time.sleep(after)
    t = time.perf_counter()
    fs.cancel()
    fs.close()
    return (time.perf_counter() - t) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-reuse", action="store_true")
    ap.add_argument("--words", default=",".join(WORDS), help="comma-separated queries to type")
    args = ap.parse_args()
    words = [w for w in args.words.split(",") if w]
    if args.no_reuse:
        ffind.searching.matchsets.CACHE_QUERIES = 0
    t = time.perf_counter()
    with FileSearcher(args.tree, SearchOptions(limit=20)) as fs:
        fs.wait()
        walk_ms = (time.perf_counter() - t) * 1000
        walked_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        n = fs.snapshot().scanned_file_count
        typing: list[float] = []
        backspacing: list[float] = []
        per_word: dict[str, list[float]] = {w: [] for w in words}
        direct: list[float] = []  # the same queries through one Index.match each (no session)
        general: list[float] = []  # ... through Index.top(Index.run(q), 20): what a state costs
        index = fs._index
        for _ in range(args.repeat):
            fs._cache.clear()
            for word in words:
                for i in range(1, len(word) + 1):
                    if word[i - 1] == " ":
                        continue  # a trailing space asks nothing new
                    ms = keystroke(fs, word[:i])
                    typing.append(ms)
                    per_word[word].append(ms)
                    t = time.perf_counter()
                    index.match(word[:i], limit=20)
                    direct.append((time.perf_counter() - t) * 1000)
                    t = time.perf_counter()
                    index.top(index.run(word[:i]), 20)
                    general.append((time.perf_counter() - t) * 1000)
                for i in range(len(word) - 1, 0, -1):
                    if word[i - 1] == " ":
                        continue
                    backspacing.append(keystroke(fs, word[:i]))
            fs.set_query("")
            fs.wait()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"tree {args.tree}: {n} paths, walk+index {walk_ms:.0f} ms, peak RSS {walked_rss:.0f}"
          f" MiB after the walk, {rss:.0f} MiB after typing"
          f"{' (no reuse)' if args.no_reuse else ''}")
    print(f"typing      ({len(typing)} keys): median {statistics.median(typing):6.1f} ms"
          f"   p95 {p95(typing):6.1f} ms   max {max(typing):6.1f} ms")
    print(f"backspacing ({len(backspacing)} keys): median {statistics.median(backspacing):6.1f} ms"
          f"   p95 {p95(backspacing):6.1f} ms   max {max(backspacing):6.1f} ms")
    print(f"Index.match ({len(direct)} keys): median {statistics.median(direct):6.1f} ms"
          f"   p95 {p95(direct):6.1f} ms   (the matcher alone, same run)")
    print(f"Index.top(run) ({len(general)} keys): median {statistics.median(general):6.1f} ms"
          f"   p95 {p95(general):6.1f} ms   (its general path, no narrowing, same run)")
    for word, xs in per_word.items():
        print(f"  {word:12s} typing median {statistics.median(xs):6.1f} ms  max {max(xs):6.1f} ms")
    cancels = [cancel_latency(args.tree, after) for after in (0.05, 0.2, 0.2, 0.4, 0.4)]
    print(f"cancel() -> close() returned, mid-walk: median {statistics.median(cancels):.0f} ms,"
          f" max {max(cancels):.0f} ms (threads joined, workers gone)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
