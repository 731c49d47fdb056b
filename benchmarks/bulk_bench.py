"""The engine's bulk paths against the per-candidate code they replace (issue 17, docs/speed.md
section 5, "Third pass").

    python benchmarks/bulk_bench.py PATHS_FILE [--terms src,sr,...] [--words W,W] [--repeat 5]

PATHS_FILE holds one path per line.  Builds one ``Index`` (numpy on) and runs ``warm`` to the
end, as the idle session does.  Then:

1. the bounds of a last term of two characters or more over its candidates, least CPU ms of
   the repeats, four ways: ``Bounder.bounds`` with the per-candidate string searches
   (``_last_plain``); ``Bounder.bounds`` from the folded paths' buffer built by ``warm``
   (``ffind.engine.occur``; what the engine does when the candidates are a large enough share
   of the index, ``bounding.JOINED_SHARE``); the searches alone over a buffer of the
   candidates joined at the keystroke; and the searches alone as C-level ``map`` passes
   (``str.find``, ``str.rfind``, ``str.startswith``).  The first two give the same bounds
   (checked);
2. the buffer's size and the CPU it takes to build;
3. per typed prefix of ``--words`` (queries of several terms), ``Index.match(prefix, 20)`` with
   the batch scorer for several terms (``ffind.engine.exact_many``) and without it (one
   ``ExactScorer.score`` per path): least CPU ms over the repeats, each repeat a fresh index.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from itertools import repeat
from typing import Any

TERMS = ["src", "sr", "test", "main", "ma", "session", "te", "servlet"]
WORDS = ["test util", "session test", "web servlet", "src main java"]


def least(f: Callable[[], object], n: int) -> float:
    best = float("inf")
    for _ in range(n):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return 1000 * best


def warmed(paths: list[str]) -> Any:
    from ffind.engine.index import Index

    ix = Index(paths, numpy=True)
    ix.numpy_ready()
    for _ in ix.warm():
        pass
    return ix


def one_term(ix: Any, fq: str, n: int) -> str:
    """A row of ``bounds_ways`` for the term ``fq``."""
    import numpy as np

    from ffind.engine import bounding
    from ffind.engine.occur import FoldedBuffer
    from ffind.query import parse

    b, st = ix.bounder, ix.store
    q = parse(fq)
    ids = ix.run(fq).ids
    want = b.bounds(q, ids, False)
    total = b.early_total(q, ids, False)

    def plain() -> object:  # (the whole ``bounds`` call, the buffer turned off)
        saved = bounding.JOINED_SHARE
        bounding.JOINED_SHARE = 0
        try:
            return b.bounds(q, ids, False)
        finally:
            bounding.JOINED_SHARE = saved

    def joined() -> object:
        # the candidates joined at the keystroke, then the same searches
        one = FoldedBuffer(np)
        one.sync([st.folded[i] for i in ids])
        return one.find(fq), one.has(fq)

    def mapped() -> object:
        texts = [st.folded[i] for i in ids]
        pos = np.fromiter(map(str.find, texts, repeat(fq)), dtype=np.int64, count=len(ids))
        np.fromiter(map(str.rfind, texts, repeat(fq)), dtype=np.int64, count=len(ids))
        sub = [texts[j] for j in np.flatnonzero(pos >= 0).tolist()]
        list(map(str.startswith, sub, repeat(fq)))
        list(map(str.startswith, sub, repeat(fq)))
        list(map(str.__contains__, sub, repeat("/" + fq + "/")))
        return list(map(str.startswith, sub, repeat(fq + "/")))

    with_buffer = least(lambda: b.bounds(q, ids, False), n)
    assert plain() == want, fq
    tb, fl = b._last_plain(fq, ids)
    bonus = b.b.name_bonus(len(fq))
    assert [a + v + (bonus if f else 0) for a, v, f in zip(total, tb, fl, strict=True)
            ] == want[0], fq
    return (f"{fq:10s} {len(ids):10d} {least(plain, n):9.1f} {with_buffer:7.1f}"
            f" {least(joined, n):7.1f} {least(mapped, n):7.1f}")


def bounds_ways(paths: list[str], terms: list[str], n: int) -> None:
    import numpy as np

    from ffind.engine.occur import FoldedBuffer

    ix = warmed(paths)
    print("bounds of a last term over its candidates, least CPU ms of", n)
    print(f"{'term':10s} {'candidates':>10s} {'per path':>9s} {'buffer':>7s} {'joined':>7s}"
          f" {'map':>7s}")
    for fq in terms:
        print(one_term(ix, fq, n))
    folded = ix.store.folded
    one = FoldedBuffer(np)
    t = time.process_time()
    for upto in range(0, len(folded) + 16384, 16384):
        one.sync(folded, upto)
    ms = 1000 * (time.process_time() - t)
    print(f"\nthe buffer: {one.nbytes() / 2**20:.1f} MiB for {len(paths)} paths"
          f" ({one.nbytes() / max(1, len(paths)):.0f} B a path), built in {ms:.0f} ms CPU")


def batch_on_off(paths: list[str], words: list[str], n: int) -> None:
    from ffind.engine import ranker

    print("\nIndex.match(prefix, 20), least CPU ms of", n, "fresh warmed indexes:"
          " one score per path / the batch scorer for several terms")
    times: dict[str, list[float]] = {}
    real = ranker.batchable
    for mode in (0, 1):
        ranker.batchable = (lambda q: real(q) and len(q.positive) == 1) if mode == 0 else real
        try:
            for _ in range(n):
                ix = warmed(paths)
                for w in words:
                    for k in range(1, len(w) + 1):
                        p = w[:k]
                        if p.endswith(" ") or " " not in p:
                            continue
                        t = time.process_time()
                        ix.match(p, limit=20)
                        ms = 1000 * (time.process_time() - t)
                        slot = times.setdefault(p, [float("inf")] * 2)
                        slot[mode] = min(slot[mode], ms)
        finally:
            ranker.batchable = real
    for p, (a, b) in times.items():
        print(f"  {p!r:18s} {a:6.1f} {b:6.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths")
    ap.add_argument("--terms", default=",".join(TERMS))
    ap.add_argument("--words", default=",".join(WORDS))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with open(args.paths, encoding="utf-8", errors="surrogateescape") as f:
        paths = f.read().splitlines()
    bounds_ways(paths, [t for t in args.terms.split(",") if t], args.repeat)
    batch_on_off(paths, [w for w in args.words.split(",") if w], max(1, args.repeat // 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
