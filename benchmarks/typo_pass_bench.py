"""The typo pass of one term over every path of a tree, by what it may read (issue 17).

    python benchmarks/typo_pass_bench.py TREE [--words W,W] [--repeat 3]

Walks TREE (``ffind.walk``, default options) into a ``PathStore`` and, per word, prints the
best of ``--repeat`` wall ms of:

- ``cdist m`` / ``cdist m-1``: the superset's ``cdist`` over every path with the cutoff ``m``
  (``accel.subsequence_array``) and with ``m - 1`` (``accel.subsequence_near``, which also
  finds the paths near the term): the same pass, the near paths for free;
- how many paths are hits and near, and how many names of near length there are, and in the
  near paths;
- ``typos`` (``typos.find_typos``): without the names' lengths' table, with the near paths
  (only their names measured when they are at most one in ``typos.NEAR_SHARE``, else the
  table built, its time included) and without them (the table built); then with the table
  built, with and without the near paths.  The same typo matches each way (checked).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from binaries import TREE_HELP

from ffind import walk
from ffind.engine import typos
from ffind.engine.accel import NearPaths, NumpyUse, subsequence_array, subsequence_near
from ffind.engine.store import PathStore
from ffind.query import parse
from ffind.scoring.weights import DEFAULT

WORDS = ["base_cod", "controller", "readme", "foobar", "mod.rs", "prom"]


def best(f: Callable[[], Any], repeat: int, before: Callable[[], None] = lambda: None,
         ) -> tuple[float, Any]:
    """The best wall ms of ``repeat`` calls of ``f`` (``before`` run untimed before each)."""
    out: Any = None
    times = []
    for _ in range(repeat):
        before()
        t = time.perf_counter()
        out = f()
        times.append((time.perf_counter() - t) * 1e3)
    return min(times), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--words", default=",".join(WORDS))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    nu = NumpyUse(True)
    nu.ready(60)
    np = nu.module()
    store = PathStore(DEFAULT)
    store.extend(list(walk(args.tree)))
    n = len(store.paths)
    print(f"{args.tree}: {n} paths")
    for word in args.words.split(","):
        q = parse(word)
        key = q.positive[0].folded
        m, whole = len(key), "." in key
        t_m, _ = best(lambda: subsequence_array(key, store.folded, np), args.repeat)  # noqa: B023
        t_near, (hits, bits) = best(
            lambda: subsequence_near(key, store.folded, np, 0, n), args.repeat)  # noqa: B023
        near = NearPaths(key, [(0, n, bits)])
        ids = near.ids(0, n, np)
        lens = store.lengths(whole, np)
        of_len = int(((lens >= m - 1) & (lens <= m + 1)).sum())
        in_near = int(((lens[ids] >= m - 1) & (lens[ids] <= m + 1)).sum())

        def unbuilt() -> None:
            store._lens.clear()  # (the table as a session typed straight after its walk has it)

        def run(with_near: bool, q: Any = q, near: NearPaths = near) -> Any:
            return typos.find_typos(store, nu, q, [(0, n)], None, near if with_near else None)

        cold_near, a = best(lambda: run(True), args.repeat, unbuilt)
        cold_plain, b = best(lambda: run(False), args.repeat, unbuilt)
        warm_near, c = best(lambda: run(True), args.repeat)
        warm_plain, d = best(lambda: run(False), args.repeat)
        assert list(a) == list(b) == list(c) == list(d)
        print(f"{word:12} cdist m {t_m:6.1f}  m-1 {t_near:6.1f} | hits {len(hits):7} near "
              f"{len(ids):7} names of near length {of_len:7}, in the near paths {in_near:7} | "
              f"typos without the table: near {cold_near:6.1f} plain {cold_plain:6.1f}; with "
              f"it: near {warm_near:5.1f} plain {warm_plain:5.1f} ({len(a)} typos)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
