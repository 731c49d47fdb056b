"""Two values of one tuning field, side by side on a machine whose speed drifts: every key
typed on an index of each value in turns, so that a slow minute weighs on both alike.

    python benchmarks/constant_ab.py PATHS_FILE FIELD=A,B [--words W,W] [--repeat 5]
        [--limit 20] [--show 1.0]

PATHS_FILE holds one path per line.  FIELD is a field of the engine's tuning record
(``ffind.engine.tuning.Tuning``, a frozen record passed as ``Index(paths, tuning=...)``); A and
B are Python literals.  Builds two indexes, ``Index(paths, tuning=replace(Tuning(), FIELD=A))``
and the same with B, each warmed to the end as an idle session's.  Then, ``--repeat`` times,
each word is typed one key at a time on both, as the session types it
(``Index.run(prefix, within=the previous key's set)`` when the key narrows it, then
``Index.top(set, limit)``), the two indexes taking turns key by key (which goes first
alternates).  Prints the keys whose median CPU ms differ by more than ``--show``, the sum of
the keys' medians and the pooled median / p95 / max of each value, and the keys whose answers
differ: a field that changes the results is reported.

An index keeps some work between keys (a term's marks, the one-term shortcut's ids), and a
repeat types the same words again: a value that keeps more finds the last repeat's work,
which a new user's keys would not.  Compare such values with ``--repeat 1`` over several runs.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import statistics
import sys
import time
from typing import Any

from benchlib import WORDS, new_index, p95, prefixes, read_paths


def main() -> int:
    from ffind.engine.tuning import Tuning

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", help="a file of paths, one per line")
    ap.add_argument("field", help="FIELD=A,B: a field of ffind.engine.tuning.Tuning, two values")
    ap.add_argument("--words", default=",".join(WORDS), help="comma-separated queries")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--show", type=float, default=1.0,
                    help="list the keys whose medians differ by more (ms)")
    args = ap.parse_args()
    name, _, values = args.field.partition("=")
    shipped = Tuning()
    names = [f.name for f in dataclasses.fields(shipped)]
    if name not in names:
        raise SystemExit(f"constant_ab: Tuning has no field {name!r} (fields: {names})")
    a, b = (ast.literal_eval(v) for v in values.split(",", 1))
    paths = read_paths(args.paths)
    indexes = {v: new_index(paths, tuning=dataclasses.replace(shipped, **{name: v}))
               for v in (a, b)}
    words = [prefixes(w) for w in args.words.split(",") if w]
    keys = [q for typed in words for q in typed]
    ms: dict[Any, dict[str, list[float]]] = {v: {k: [] for k in keys} for v in (a, b)}
    differ: set[str] = set()
    turn = 0
    for _ in range(args.repeat):
        for typed in words:
            prev: dict[Any, Any] = {a: None, b: None}
            for q in typed:
                turn += 1
                got = {}
                for v in (a, b) if turn % 2 else (b, a):
                    ix, p = indexes[v], prev[v]
                    t = time.process_time()
                    found = ix.run(q, within=p if p is not None and p.can_narrow(q) else None)
                    top = ix.top(found, args.limit)
                    ms[v][q].append((time.process_time() - t) * 1000)
                    prev[v] = found
                    got[v] = [(m.score, m.path) for m in top]
                if got[a] != got[b]:
                    differ.add(q)
    med = {v: {k: statistics.median(x) for k, x in ms[v].items()} for v in (a, b)}
    print(f"{len(paths)} paths, {len(keys)} keys, {args.repeat} repeats; {name}: {a!r} vs"
          f" {b!r} (shipped {getattr(shipped, name)!r}); CPU ms, medians")
    for k in keys:
        if abs(med[a][k] - med[b][k]) > args.show:
            print(f"  {k!r:18s} {med[a][k]:7.1f} {med[b][k]:7.1f}")
    for v in (a, b):
        xs = list(med[v].values())
        print(f"  {v!r:>8}: sum {sum(xs):7.1f}  median {statistics.median(xs):5.1f}"
              f"  p95 {p95(xs):5.1f}  max {max(xs):5.1f}")
    print(f"  keys whose answers differ: {len(differ)} {sorted(differ)[:8]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
