"""Two values of one of the engine's constants, side by side on a machine whose speed drifts:
every key typed with each value in turns, so that a slow minute weighs on both alike.

    python benchmarks/constant_ab.py PATHS_FILE MODULE.NAME=A,B [--words W,W] [--repeat 5]
        [--limit 20]

PATHS_FILE holds one path per line.  ``MODULE.NAME`` is a module-level constant of the engine
read where it is used (``ffind.engine.bounding.JOINED_SHARE=3,5``); A and B are Python
literals.  Builds two ``Index`` objects of the paths (numpy on), each warmed to the end as an
idle session's, one for each value.  Then, ``--repeat`` times, each word is typed one key at a
time on both, as the session types it (``Index.run(prefix, within=the previous key's set)``
when the key narrows it, then ``Index.top(set, limit)``), the constant set to the index's value
around each key and the two indexes taking turns key by key (which goes first alternates).
Prints the keys whose median CPU ms differ by more than ``--show`` ms, the sum of the keys'
medians and the pooled median / p95 / max for each value, and checks that both values give
the same answers (every key, every repeat): a constant that changes the results is reported.

Each index keeps what it keeps between keys (the one-term shortcut's prefixed ids, a term's
marks), and a repeat types the same words again: a value that keeps more (``MARKS_KEPT`` 8
against 4) finds the last repeat's work there, which a new user's keys would not.  Compare
such values with ``--repeat 1`` over several runs instead.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import statistics
import sys
import time
from typing import Any

from keys_bench import WORDS, p95


def main() -> int:
    from ffind.engine.index import Index

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", help="a file of paths, one per line")
    ap.add_argument("constant", help="MODULE.NAME=A,B")
    ap.add_argument("--words", default=",".join(WORDS), help="comma-separated queries")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--show", type=float, default=1.0,
                    help="list the keys whose medians differ by more (ms)")
    args = ap.parse_args()
    target, _, values = args.constant.partition("=")
    modname, _, name = target.rpartition(".")
    module = importlib.import_module(modname)
    if not hasattr(module, name):
        raise SystemExit(f"constant_ab: {modname} has no {name}")
    a, b = (ast.literal_eval(v) for v in values.split(",", 1))
    shipped = getattr(module, name)
    with open(args.paths, encoding="utf-8", errors="surrogateescape") as f:
        paths = f.read().splitlines()
    indexes: dict[Any, Any] = {}
    for v in (a, b):
        setattr(module, name, v)
        ix = Index(paths, numpy=True)
        ix.numpy_ready()
        for _ in ix.warm():
            pass
        indexes[v] = ix
    words = [[w[:i] for i in range(1, len(w) + 1) if w[i - 1] != " "]
             for w in args.words.split(",") if w]
    keys = [q for prefixes in words for q in prefixes]
    ms: dict[Any, dict[str, list[float]]] = {v: {k: [] for k in keys} for v in (a, b)}
    differ: set[str] = set()
    turn = 0
    for _ in range(args.repeat):
        for prefixes in words:
            prev: dict[Any, Any] = {a: None, b: None}
            for q in prefixes:
                turn += 1
                got = {}
                for v in (a, b) if turn % 2 else (b, a):
                    setattr(module, name, v)
                    ix, p = indexes[v], prev[v]
                    t = time.process_time()
                    found = ix.run(q, within=p if p is not None and p.can_narrow(q) else None)
                    top = ix.top(found, args.limit)
                    ms[v][q].append((time.process_time() - t) * 1000)
                    prev[v] = found
                    got[v] = [(m.score, m.path) for m in top]
                if got[a] != got[b]:
                    differ.add(q)
    setattr(module, name, shipped)
    med = {v: {k: statistics.median(x) for k, x in ms[v].items()} for v in (a, b)}
    print(f"{len(paths)} paths, {len(keys)} keys, {args.repeat} repeats; {target}: {a!r} vs"
          f" {b!r} (shipped {shipped!r}); CPU ms, medians")
    for k in keys:
        if abs(med[a][k] - med[b][k]) > args.show:
            print(f"  {k!r:18s} {med[a][k]:7.1f} {med[b][k]:7.1f}")
    for v in (a, b):
        xs = list(med[v].values())
        print(f"  {v!r:>8}: sum {sum(xs):7.1f}  median {statistics.median(xs):5.1f}"
              f"  p95 {p95(xs):5.1f}  max {max(xs):5.1f}")
    print(f"  keys whose answers differ: {len(differ)} {sorted(differ)[:8]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
