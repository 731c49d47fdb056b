"""What the memory of opened files costs: per-keystroke latency of a session with and without
memory, side by side, and the time of ``ffind --remember``.

    python benchmarks/memory_bench.py TREE [--visits 300] [--rounds 3] [--words W,W]

Two ``FileSearcher`` sessions over TREE, one with a memory holding ``--visits`` visits of
random files of the tree (a fixed seed; spread over the last 30 days, a tenth in the last
hour), one without.  After both walks, each word is typed one character at a time in both,
alternately, which one goes first alternating too (``set_query`` -> ``wait`` ->
``results(20)``), ``--rounds`` times; the cache of
each session is emptied between rounds by typing an unrelated query.  Prints the median and
p95 CPU time per keystroke and their ratio.  Then times ``ffind --remember PATH`` as a whole command
(median of 20 runs).  Nothing is written outside a temporary folder: the memory lives there.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from ffind import FileSearcher, Memory, SearchOptions

WORDS = ["prom", "base_cod", "foobar", "mod.rs", "controller", "readme", "test util",
         "session test", "s/p/t"]


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.95 * len(xs)))]


def keystroke(fs: FileSearcher, query: str) -> float:
    """The process CPU time of one keystroke, in ms (wall time on this shared machine is
    mostly other people's work; after the walks nothing else of ours runs meanwhile)."""
    t0 = time.process_time()
    fs.set_query(query)
    fs.wait()
    fs.results(20)
    return (time.process_time() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help="the folder to search (any checkout)")
    ap.add_argument("--visits", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--words", default=",".join(WORDS))
    args = ap.parse_args()
    root = os.path.abspath(args.tree)
    words = [w for w in args.words.split(",") if w]
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "memory.sqlite3")
        with FileSearcher(root, SearchOptions(limit=None)) as plain:
            plain.wait()
            paths = sorted(m.path for m in plain.results(None))
        rng = random.Random(1)
        now = time.time()
        with Memory(db) as mem:
            for i in range(args.visits):
                ago = rng.uniform(0, 3600) if i % 10 == 0 else rng.uniform(0, 30 * 86400)
                mem.record(os.path.join(root, rng.choice(paths)), when=now - ago)
        memory = Memory(db)
        times: dict[str, list[float]] = {"without": [], "with": []}
        with FileSearcher(root, SearchOptions(limit=20)) as a, \
                FileSearcher(root, SearchOptions(limit=20), memory=memory) as b:
            a.wait()
            b.wait()
            turn = 0
            for _ in range(args.rounds):
                for word in words:
                    for fs in (a, b):
                        keystroke(fs, "zzqx")  # away from the word: nothing to narrow
                    for i in range(1, len(word) + 1):
                        # each key in both sessions, the one that goes first alternating: the
                        # second finds some work done (the query parsed, caches warm)
                        pair = [("without", a), ("with", b)]
                        for name, fs in pair if turn % 2 == 0 else pair[::-1]:
                            times[name].append(keystroke(fs, word[:i]))
                        turn += 1
        print(f"# {len(paths)} paths, {args.visits} visits, {len(words)} words x "
              f"{args.rounds} rounds, {time.strftime('%Y-%m-%d')}")
        print("| session | median CPU ms/key | p95 CPU ms/key |")
        print("|---|---|---|")
        for name, xs in times.items():
            print(f"| {name} memory | {statistics.median(xs):.1f} | {p95(xs):.1f} |")
        ratio = statistics.median(times["with"]) / statistics.median(times["without"])
        print(f"| ratio | {ratio:.2f} | {p95(times['with']) / p95(times['without']):.2f} |")
        env = {**os.environ, "FFIND_MEMORY": db}
        runs = []
        for _ in range(20):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "ffind", "--remember",
                            os.path.join(root, paths[0])], env=env, check=True)
            runs.append((time.perf_counter() - t0) * 1000)
        print(f"ffind --remember: median {statistics.median(runs):.0f} ms "
              f"(min {min(runs):.0f}, max {max(runs):.0f}) over 20 runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
