"""Would two processes answer the slow keys sooner? One ``Index`` of every path against two
``Index`` objects of half the paths each (every other path), asked at once, their top
``limit`` merged by the results' order (score, shorter path, path).

    python benchmarks/shard_bench.py PATHS_FILE [--words W,W] [--limit 20]

PATHS_FILE holds one path per line (``ffind --no-cache -l 2000000 '' > PATHS`` in a tree).
Each index lives in a process of its own (started fresh: its peak RSS is its own) and is
warmed first (``Index.warm`` to the end, as an idle session's); then each word's prefixes are
matched one after the other (``Index.match(q, limit)``, a fresh match each, nothing reused
but what the index keeps), on the one index, then on the two halves at once.  Prints the
wall ms of each setup as the caller sees it (median / p95 / max and the slowest keys), the
peak RSS of each process, and the keys whose merged answer is not the one index's (a ranking
that meets ``EXACT_BUDGET`` ranks part of its candidates by their bounds, per index: two
halves spend two budgets).  A spike for docs/speed.md, not a
feature: the session does not shard.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import statistics
import sys
import time
from multiprocessing.connection import Connection

from keys_bench import WORDS, p95

from ffind.engine.index import Index

Answer = list[tuple[int, str]]


def read(name: str, part: int, parts: int) -> list[str]:
    """Every ``parts``-th path of the file ``name`` from the ``part``-th on."""
    with open(name, encoding="utf-8") as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    return paths[part::parts]


def server(conn: Connection, name: str, part: int, parts: int, limit: int) -> None:
    """One index of its share of the paths, warmed; answers each query sent until None, then
    sends its peak RSS (MiB)."""
    ix = Index(read(name, part, parts))
    ix.numpy_ready(60)
    for _ in ix.warm():
        pass
    conn.send("ready")
    while (q := conn.recv()) is not None:
        conn.send([(m.score, m.path) for m in ix.match(q, limit=limit)])
    conn.send(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def order(m: tuple[int, str]) -> tuple[int, int, str]:
    return (-m[0], len(m[1]), m[1])


def run(name: str, parts: int, keys: list[str], limit: int
        ) -> tuple[list[float], dict[str, Answer], list[float]]:
    """The wall ms of each key with ``parts`` processes (one index each), their merged answers
    and each process's peak RSS."""
    ctx = mp.get_context("spawn")  # (a fresh interpreter each: its RSS is its own)
    conns, procs = [], []
    for part in range(parts):
        mine, theirs = ctx.Pipe()
        p = ctx.Process(target=server, args=(theirs, name, part, parts, limit))
        p.start()
        conns.append(mine)
        procs.append(p)
    for c in conns:
        if c.recv() != "ready":
            raise SystemExit("shard_bench: a process did not start")
    ms, out = [], {}
    for q in keys:
        t = time.perf_counter()
        for c in conns:
            c.send(q)
        got: Answer = []
        for c in conns:
            got.extend(c.recv())
        out[q] = sorted(got, key=order)[:limit]
        ms.append((time.perf_counter() - t) * 1000)
    peaks = []
    for c, p in zip(conns, procs, strict=True):
        c.send(None)
        peaks.append(c.recv())
        p.join()
    return ms, out, peaks


def stats(ms: list[float]) -> str:
    return f"median {statistics.median(ms):6.1f}  p95 {p95(ms):6.1f}  max {max(ms):6.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", help="a file of paths, one per line")
    ap.add_argument("--words", default=",".join(WORDS), help="comma-separated queries")
    ap.add_argument("--limit", type=int, default=20)
    args = ap.parse_args()
    keys = [w[:i] for w in args.words.split(",") if w
            for i in range(1, len(w) + 1) if w[i - 1] != " "]
    ms_one, a, peak_one = run(args.paths, 1, keys, args.limit)
    ms_two, b, peak_two = run(args.paths, 2, keys, args.limit)
    print(f"{args.paths}: {len(keys)} keys, limit {args.limit}; wall ms")
    print(f"  one index    {stats(ms_one)}   peak RSS {peak_one[0]:.0f} MiB")
    print(f"  two halves   {stats(ms_two)}   peak RSS {peak_two[0]:.0f} + {peak_two[1]:.0f} MiB")
    print("  slowest keys (one -> two):")
    for j in sorted(range(len(keys)), key=lambda j: -ms_one[j])[:10]:
        print(f"    {keys[j]!r:18s} {ms_one[j]:7.1f} -> {ms_two[j]:7.1f}")
    differ = [q for q in keys if a[q] != b[q]]
    print(f"  keys whose merged answer differs from the one index's: {len(differ)} {differ[:8]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
