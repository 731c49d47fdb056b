"""The batch scorer against the scalar one, on the candidates a slow key scores exactly.

    python benchmarks/batch_bench.py DIR [--repeat 5]

DIR holds what ``profile_keys.py --dump DIR`` wrote: per query, the paths that reached the
exact scorer (``Index._score``), one per line; the file name is the query, %-quoted.  For
each term of each query (fuzzy, folded, as the engine scores it), times ``scorer.fuzzy``
once per path and ``batch.fuzzy_many`` once over them all (best of ``--repeat``), checks the
scores are equal, and prints the CPU time per candidate of both.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from urllib.parse import unquote

from ffind.query import fold
from ffind.scoring.batch import fuzzy_many
from ffind.scoring.scorer import fuzzy


def scalar_all(key: str, cands: list[tuple[str, str, int]]) -> None:
    for t, o, b in cands:
        fuzzy(key, t, o, b, False)


def best_of(repeat: int, fn: object) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()  # CPU time: what a loaded machine does not inflate
        fn()  # type: ignore[operator]
        best = min(best, time.process_time() - t)
    return best * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'query':14s} {'term':10s} {'cands':>6s} {'scalar ms':>10s} {'batch ms':>9s}"
          f" {'us/cand':>8s} {'us/cand':>8s} {'x':>5s}")
    for fname in sorted(os.listdir(args.dir)):
        query = unquote(fname[:-4])
        with open(os.path.join(args.dir, fname)) as f:
            origs = f.read().splitlines()
        if not origs:
            continue
        texts = [fold(p) for p in origs]
        bases = [p.rfind("/") + 1 for p in origs]
        for term in query.split():
            key = fold(term)
            want = [None if r is None else r[0]
                    for r in (fuzzy(key, t, o, b, False)
                              for t, o, b in zip(texts, origs, bases, strict=True))]
            if fuzzy_many(key, texts, origs, bases) != want:
                print(f"MISMATCH {query!r} {term!r}")
                return 1
            cands = list(zip(texts, origs, bases, strict=True))
            scalar = best_of(args.repeat, partial(scalar_all, key, cands))
            batch = best_of(args.repeat, partial(fuzzy_many, key, texts, origs, bases))
            n = len(origs)
            print(f"{query!r:14s} {term!r:10s} {n:6d} {scalar:10.2f} {batch:9.2f}"
                  f" {1000 * scalar / n:8.1f} {1000 * batch / n:8.1f} {scalar / batch:5.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
