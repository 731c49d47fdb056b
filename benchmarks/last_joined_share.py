"""From what share of the index a last term's bounds are faster from the whole buffer
(``Bounder._last_joined``) than candidate by candidate (``Bounder._last_plain``):
``bounding.LAST_JOINED_SHARE``.

    python benchmarks/last_joined_share.py PATHS_FILE [--firsts W,W] [--lasts W,W] [--repeat 3]
        [--rows]

PATHS_FILE holds one path per line.  Builds one ``Index`` (numpy on), warmed to the end as
an idle session's (the folded paths' buffer built).  For every query ``FIRST LAST`` of the
two lists whose matches are ``bounding.JOINED_FROM`` or more, times both ways of bounding
``LAST`` over those matches (the candidates a key ranks), least wall ms of the repeats, the
marks of the term not kept between the repeats (a new term's first key).  Prints, by share of
the index in steps of 5%, how many queries the buffer won and the summed ms of each way;
``--rows`` lists every query too.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from typing import Any

FIRSTS = ["session", "test", "src", "web", "main", "java", "core", "util", "a", "lib", "doc",
          "ts", "go"]
LASTS = ["te", "tes", "test", "ut", "uti", "util", "ma", "mai", "main", "se", "ser", "serv",
         "co", "con", "rs", "py", "ja", "servlet", "session", "controller", "readme", "java",
         "model", "index", "config", "handler", "spec"]


def least(f: Callable[[], object], n: int, before: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(n):
        before()
        t = time.perf_counter()
        f()
        best = min(best, (time.perf_counter() - t) * 1000)
    return best


def main() -> int:
    import numpy as np

    from ffind.engine import bounding
    from ffind.engine.index import Index

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", help="a file of paths, one per line")
    ap.add_argument("--firsts", default=",".join(FIRSTS))
    ap.add_argument("--lasts", default=",".join(LASTS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rows", action="store_true", help="list every query")
    ap.add_argument("--ab", help="two values of LAST_JOINED_SHARE to compare, as A,B")
    ap.add_argument("--words", default="prom,base_cod,foobar,mod.rs,s/p/t,controller,readme,"
                    "test util,session test,web servlet,src main java")
    args = ap.parse_args()
    with open(args.paths, encoding="utf-8", errors="surrogateescape") as f:
        paths = f.read().splitlines()
    ix = Index(paths, numpy=True)
    ix.numpy_ready()
    for _ in ix.warm():
        pass
    b = ix.bounder
    if args.ab:
        return ab(ix, [int(x) for x in args.ab.split(",")], args.words.split(","), args.repeat)
    buckets: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for first in args.firsts.split(","):
        for last in args.lasts.split(","):
            ids = list(ix.run(f"{first} {last}").ids)
            if len(ids) < bounding.JOINED_FROM:
                continue
            zeros = np.zeros(len(ids), dtype=np.int64)
            plain = least(partial(b._last_plain, last, ids), args.repeat, lambda: None)
            joined = least(partial(b._last_joined, last, ids, zeros, np), args.repeat,
                           b._kept_marks.clear)
            share = len(ids) / len(paths)
            buckets[int(share * 20)].append((plain, joined))
            if args.rows:
                print(f"{share:6.1%}  plain {plain:6.1f}  joined {joined:6.1f}  {first} {last}")
    print(f"{len(paths)} paths; last-term bounds over the matches of FIRST LAST, least ms of"
          f" {args.repeat}")
    print("| share of the index | queries | the buffer faster | ms per candidate | ms buffer |")
    print("| --- | --- | --- | --- | --- |")
    for k in sorted(buckets):
        rows = buckets[k]
        print(f"| {5 * k}-{5 * k + 5}% | {len(rows)} | {sum(j < p for p, j in rows)} |"
              f" {sum(p for p, _ in rows):.1f} | {sum(j for _, j in rows):.1f} |")
    return 0


def ab(ix: Any, shares: list[int], words: list[str], repeat: int) -> int:
    import statistics

    from ffind.engine import bounding

    total = dict.fromkeys(shares, 0.0)
    for w in words:
        for q in (w[:i] for i in range(1, len(w) + 1) if w[i - 1] != " "):
            ms: dict[int, list[float]] = {s: [] for s in shares}
            for r in range(repeat):
                for s in shares if r % 2 else shares[::-1]:
                    bounding.LAST_JOINED_SHARE = s
                    found = ix.run(q)
                    found.ids  # noqa: B018 (the set computed, untimed)
                    ix.bounder._kept_marks.clear()
                    t = time.process_time()
                    ix.top(found, 20)
                    ms[s].append((time.process_time() - t) * 1000)
            med = {s: statistics.median(v) for s, v in ms.items()}
            for s in shares:
                total[s] += med[s]
            if max(med.values()) - min(med.values()) > 0.5:
                print(f"  {q!r:18s} " + "  ".join(f"{s}: {med[s]:6.1f}" for s in shares))
    print("sum of the keys' medians, CPU ms: "
          + ", ".join(f"LAST_JOINED_SHARE {s}: {total[s]:.1f}" for s in shares))
    return 0


if __name__ == "__main__":
    sys.exit(main())
