"""Each typed key's engine CPU when it narrows the key before's set, as a session does, without
the session: ``Index.run(prefix, within=previous)``, then ``top(20)`` and ``len``, on a warmed
index (numpy on).

    PYTHONPATH=CHECKOUT python benchmarks/chain_bench.py PATHS_FILE [--words W,W] [--repeat 5]

PATHS_FILE holds one path per line (``prefix_compare.py``'s).  Prints each prefix's median CPU
ms over the repeats (a fresh chain each repeat, the index and its tables kept): the keys'
engine time with neither the walk nor the session's idle work around it, to compare two
checkouts side by side (alternate the runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from ffind.engine.index import Index
from ffind.engine.matchset import MatchSet

WORDS = ["prom", "base_cod", "s/p/t", "test util"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", help="a file of paths, one a line")
    ap.add_argument("--words", default=",".join(WORDS))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with open(args.paths, encoding="utf-8", errors="surrogateescape") as f:
        paths = f.read().splitlines()
    ix = Index(paths, numpy=True)
    ix.numpy_ready(60)
    for _ in ix.warm():
        pass
    took: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for word in [w for w in args.words.split(",") if w]:
            prev: MatchSet | None = None
            for i in range(1, len(word) + 1):
                q = word[:i]
                if q.endswith(" "):
                    continue
                t = time.process_time()
                ms = (ix.run(q, within=prev) if prev is not None and prev.can_narrow(q)
                      else ix.run(q))
                ix.top(ms, 20)
                len(ms)
                took.setdefault(q, []).append((time.process_time() - t) * 1e3)
                prev = ms
    for q, v in took.items():
        print(f"  {q!r:18s} {statistics.median(v):7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
