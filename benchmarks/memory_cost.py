"""What the memory of opened files costs a keystroke: the same words typed key by key through
warmed indexes of one tree, ranking without memory, with a memory filled from a real commit
history, and with that memory less the files opened together, in turns.

    python benchmarks/memory_cost.py PATHS_FILE --tree TREE --history CORPUS/history/REPO.json
        --under REPO [--commits 200] [--rounds 3] [--burst 8] [--words W,W]

PATHS_FILE: the tree's paths, one a line (``ffind --no-cache -l 0 '' > PATHS`` in TREE).  The
memory (in a temporary folder) holds a visit of every file the history's commits touch up to
the first commit from ``--commits`` on that touches at least ``--burst`` files, at
TREE/UNDER/file, the times shifted so that this last commit was a minute ago: its files are the
ones opened in the last five minutes, and the files opened with them before get the together
share.  Words: benchlib's, then the names of the files of the next ten commits, as a user
working on that history would type them.  Each key is ranked by three indexes over the paths
(``Index.match(q, limit=20, ...)``), their order alternating from key to key; the first round
only warms.  Prints the median, p95 and total CPU ms per key of each, and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

from benchlib import WORDS, new_index, p95, prefixes, read_paths

from ffind import Memory


class Alone:
    """The memory less the files opened together (the prior's other three shares)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def weights(self, root: str, now: float | None = None) -> dict[str, tuple[float, float]]:
        return self.memory.weights(root, now)

    def together(self, root: str, now: float | None = None) -> dict[str, float]:
        return {}

    def stamp(self) -> object:
        return self.memory.stamp()


def fill(db: str, root: str, commits: list[dict]) -> None:
    shift = time.time() - 60 - commits[-1]["t"]
    with Memory(db) as mem:
        for c in commits:
            for f in c["files"]:
                mem.record(os.path.join(root, f), when=c["t"] + shift)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", help="the tree's paths, one a line")
    ap.add_argument("--tree", required=True, help="the folder the paths are relative to")
    ap.add_argument("--history", required=True, help="a history file of the benchmark kit")
    ap.add_argument("--under", required=True, help="the history's repository's folder in TREE")
    ap.add_argument("--commits", type=int, default=200)
    ap.add_argument("--burst", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--words", default="")
    a = ap.parse_args()
    root = os.path.abspath(a.tree)
    with open(a.history, encoding="utf-8") as f:
        commits = json.load(f)["commits"]
    end = next((i for i in range(a.commits, len(commits))
                if len(commits[i]["files"]) >= a.burst), a.commits)
    later = commits[end + 1:end + 11]
    words = [w for w in a.words.split(",") if w] or WORDS + sorted(
        {p.rsplit("/", 1)[-1].lower() for c in later for p in c["files"]})
    paths = read_paths(a.paths)
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o700)
        db = os.path.join(tmp, "memory.sqlite3")
        fill(db, os.path.join(root, a.under), commits[:end + 1])
        mem = Memory(db)
        cases: list[tuple[str, Any, Any]] = [
            ("without memory", new_index(paths), None),
            ("memory less together", new_index(paths), Alone(mem)),
            ("memory", new_index(paths), mem)]
        times: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        for rnd in range(a.rounds):
            for word in words:
                for _, index, memory in cases:
                    index.match("zzqx", limit=20, memory=memory, root=root)
                for k, q in enumerate(prefixes(word)):
                    for name, index, memory in cases if (k + rnd) % 2 == 0 else cases[::-1]:
                        t = time.process_time()
                        index.match(q, limit=20, memory=memory, root=root)
                        if rnd:
                            times[name].append((time.process_time() - t) * 1000)
        together = len(mem.together(os.path.join(root, a.under)))
    print(f"# {len(paths)} paths; {a.under}: {end + 1} commits remembered, {together} files "
          f"opened together with the latest; {len(words)} words x {a.rounds - 1} rounds")
    print("| ranking | median CPU ms/key | p95 | total | median, p95, total over without |")
    print("|---|---|---|---|---|")
    base = times["without memory"]
    for name, xs in times.items():
        print(f"| {name} | {statistics.median(xs):.2f} | {p95(xs):.1f} | {sum(xs):.0f} | "
              f"{statistics.median(xs) / statistics.median(base):.3f}, "
              f"{p95(xs) / p95(base):.3f}, {sum(xs) / sum(base):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
