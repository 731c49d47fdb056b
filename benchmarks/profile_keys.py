"""Where a slow keystroke's time goes: ``Index.match(q, limit=20)`` under cProfile.

    python benchmarks/profile_keys.py PATHS_FILE [--queries Q,Q] [--top 12] [--dump DIR]

PATHS_FILE holds one path per line (what a walk of the tree found).  Builds one ``Index``,
warms it (``Index.warm``, as the idle session does), then for each query: the wall time of one
``match`` call (best of 3), the CPU time of its stages (methods wrapped with a timer, no
profiler), and one profiled call: the cumulative time of the engine's stages
(prefilter, bounds and their refinements, exact scoring, typo pass) and how many times the
exact scorer ran.  ``--dump DIR`` saves each query's candidates that reached the exact
scorer (one path per line), for ``batch_bench.py``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from typing import Any
from urllib.parse import quote

from ffind.engine.index import Index

QUERIES = ["s/p/", "s/p/t", "foob", "fooba", "foobar", "c", "test u", "test ut", "base_",
           "base_cod", "prom", "src main j"]
STAGES = ["match", "top", "shortcut", "one_term", "aligned", "rank", "compute", "bounds",
          "early_total", "tighten_name", "chunks", "tighten_starts", "initials",
          "prefix_scored", "visit", "score", "term_score", "fuzzy", "fuzzy_many", "substring",
          "find_typos", "first_by_ties", "best", "results"]


def stage_table(stats: pstats.Stats) -> dict[str, tuple[int, float]]:
    """Per function name of ``STAGES`` (and of the scorer module): (calls, cumulative s)."""
    out: dict[str, tuple[int, float]] = {}
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (path, _, name), (_cc, nc, _tt, ct, _) in raw.items():
        if name in STAGES and ("ffind" in path or name == "best"):
            calls, cum = out.get(name, (0, 0.0))
            out[name] = (calls + nc, max(cum, ct))
    return out


TIMED = [("", "top"), ("", "compute"), ("", "find_typos"), ("bounder", "bounds"),
         ("bounder", "early_total"), ("bounder", "tighten_name"), ("bounder", "chunks"),
         ("bounder", "tighten_starts"), ("bounder", "prefix_scored"), ("exact", "score")]
"""The engine's stages (``ffind/engine/``): (the Index's component, method)."""


def stage_times(index: Index, q: str) -> tuple[float, dict[str, list[float]]]:
    """CPU ms of one ``match(q, limit=20)`` and, per method of ``TIMED``, [calls, CPU ms]
    (inclusive: ``top`` holds the stages it calls, ``bounds`` holds ``early_total``).
    Each method is wrapped on its object, so the per-call overhead is ~1 us (``exact.score``'s
    is counted in, a few hundred calls)."""
    acc: dict[str, list[float]] = {}

    def wrap(owner: Any, name: str, label: str) -> Any:
        real = getattr(owner, name)

        def timed(*a: Any, **k: Any) -> Any:
            t = time.process_time()
            try:
                return real(*a, **k)
            finally:
                slot = acc.setdefault(label, [0, 0.0])
                slot[0] += 1
                slot[1] += 1000 * (time.process_time() - t)
        return timed

    owners = [(getattr(index, part) if part else index, name) for part, name in TIMED]
    for (part, name), (owner, _) in zip(TIMED, owners, strict=True):
        setattr(owner, name, wrap(owner, name, f"{part}.{name}" if part else name))
    t = time.process_time()
    index.match(q, limit=20)
    total = 1000 * (time.process_time() - t)
    for owner, name in owners:
        delattr(owner, name)
    return total, acc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths")
    ap.add_argument("--queries", default=",".join(QUERIES))
    ap.add_argument("--top", type=int, default=0, help="also print cProfile's N top lines")
    ap.add_argument("--dump", help="write the exact-scored candidates per query here")
    args = ap.parse_args()
    with open(args.paths) as f:
        paths = f.read().splitlines()
    t = time.perf_counter()
    index = Index(paths)
    for _ in index.warm():
        pass
    print(f"{len(paths)} paths, index+warm {1000 * (time.perf_counter() - t):.0f} ms")
    scored: list[int] = []
    real_score = index.exact.score

    def spy(q: Any, i: int, hidden_ok: bool) -> int | None:
        scored.append(i)
        return real_score(q, i, hidden_ok)

    for q in [q for q in args.queries.split(",") if q]:
        index.match(q, limit=20)
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            index.match(q, limit=20)
            best = min(best, time.perf_counter() - t)
        cpu, acc = stage_times(index, q)
        print(f"\n{q!r}: stages, CPU ms (inclusive), one call of {cpu:.1f} ms: " + ", ".join(
            f"{k} {v[1]:.1f}" + (f" ({int(v[0])} calls)" if v[0] > 1 else "")
            for k, v in sorted(acc.items(), key=lambda kv: -kv[1][1])))
        scored.clear()
        index.exact.score = spy  # type: ignore[method-assign]
        prof = cProfile.Profile()
        prof.enable()
        index.match(q, limit=20)
        prof.disable()
        del index.exact.score
        stats = pstats.Stats(prof)
        table = stage_table(stats)
        total = table.get("match", (0, 0.0))[1]
        print(f"{q!r}: {1000 * best:.1f} ms (profiled {1000 * total:.1f} ms);"
              f" exact scorings (exact.score) {len(scored)}")
        for name in STAGES:
            if name in table and name != "match":
                calls, cum = table[name]
                print(f"    {name:18s} calls {calls:7d}  cum {1000 * cum:7.1f} ms"
                      f"  {100 * cum / total if total else 0:5.1f}%")
        if args.top:
            stats.sort_stats("tottime").print_stats(args.top)
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            with open(os.path.join(args.dump, quote(q, safe="") + ".txt"), "w") as f:
                f.write("".join(paths[i] + "\n" for i in scored))
    return 0


if __name__ == "__main__":
    sys.exit(main())
