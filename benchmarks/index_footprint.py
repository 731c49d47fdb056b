"""What an ``Index`` keeps per path: the size of each of its per-path tables.

    python benchmarks/index_footprint.py PATHS_FILE [--queries Q,Q]

PATHS_FILE holds one path per line.  Builds an ``Index`` (traced by ``tracemalloc``), warms it
(``Index.warm``, as the idle session does), runs a few queries (so the tables built on first
use exist), then prints every ``PathStore`` attribute's deep size (the container, plus each
element object it alone holds: a str, an int outside CPython's small-int cache, a nested
list), its bytes per path, and the total; then what a ``MatchSet`` of a broad query holds.
Sizes are ``sys.getsizeof``'s, so they exclude the allocator's rounding.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from array import array
from typing import Any

from ffind.engine.index import Index

QUERIES = ["s/p/t", "test u", "base_cod", "c", "Readme"]


def deep(obj: Any, seen: set[int]) -> int:
    """Bytes of ``obj`` and of the objects it holds (each counted once over ``seen``)."""
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, (str, bytes, bytearray, array)) or obj is None:
        return size
    if isinstance(obj, int):
        return 0 if -5 <= obj <= 256 else size  # the small ints are shared by everyone
    if isinstance(obj, dict):
        return size + sum(deep(k, seen) + deep(v, seen) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return size + sum(deep(x, seen) for x in obj)
    nbytes = getattr(obj, "nbytes", None)  # a numpy array: its size holds its own data only
    if isinstance(nbytes, int) and getattr(obj, "base", None) is not None:
        return size + nbytes
    return size


def mib(n: float) -> str:
    return f"{n / 2**20:7.1f} MiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths")
    ap.add_argument("--queries", default=",".join(QUERIES))
    args = ap.parse_args()
    with open(args.paths) as f:
        paths = f.read().splitlines()
    n = len(paths)
    raw = sum(len(p.encode()) for p in paths)
    print(f"{n} paths, {mib(raw)} of UTF-8 text ({raw / n:.1f} bytes per path)")
    tracemalloc.start()
    t = time.perf_counter()
    index = Index(paths)
    built = tracemalloc.get_traced_memory()[0]
    for _ in index.warm():
        pass
    warmed = tracemalloc.get_traced_memory()[0]
    for q in args.queries.split(","):
        index.match(q, limit=20)
    used = tracemalloc.get_traced_memory()[0]
    print(f"traced: {mib(built)} after Index(paths) (includes the list of paths read),"
          f" {mib(warmed)} after warm, {mib(used)} after {args.queries!r}"
          f" ({1000 * (time.perf_counter() - t):.0f} ms)")
    tracemalloc.stop()
    seen: set[int] = set()
    rows = []
    for name, value in vars(index.store).items():
        size = deep(value, seen)
        if size > 4096:
            rows.append((size, name, type(value).__name__))
    total = sum(r[0] for r in rows)
    print(f"\n{'PathStore attribute':20s} {'type':10s} {'size':>11s} {'B/path':>7s}")
    for size, name, typ in sorted(rows, reverse=True):
        print(f"{name:20s} {typ:10s} {mib(size)} {size / n:7.1f}")
    print(f"{'total':31s} {mib(total)} {total / n:7.1f}")
    ms = index.run("s")
    sup = ms.superset
    print(f"\nMatchSet of 's': superset of {len(sup)} ids, {mib(deep(sup, set()))}"
          f" ({deep(sup, set()) / max(1, len(sup)):.1f} B per id)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
