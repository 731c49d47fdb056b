"""Where each slow key of a typed query goes, as the session types it: CPU ms per stage.

    python benchmarks/typing_stages.py PATHS_FILE [--words W,W] [--rounds 3] [--over 30]
        [--fill] [--cold] [--json OUT]

PATHS_FILE holds one path per line.  Each round builds a fresh ``Index`` (numpy on; nothing
kept from the round before: the index keeps some answers between keys, which a second round
over the same index would find), runs ``warm`` to the end (the first round prints its steps'
CPU: a key of the session waits for one step at most), then types each word one key at a
time as the session does: ``run(prefix, within=the previous key's set)`` when the new key
narrows it, then ``top(set, 20)``.  Prints, for the last round, every key slower than
``--over`` ms with the CPU ms of the engine's stages in it (inclusive, each method wrapped
with a timer) and of the garbage collections it set off (``gc0``..``gc2``, by generation);
then, per key the least CPU ms over the rounds, pooled median / p95 / max.
``--json`` writes those per-key times (``{prefix: ms}``).  ``--fill``: after each key,
its set is computed when the key did not (a shortcut answered), as the session does in idle
time (``matchset.Filler``, untimed but its CPU totalled), so the next key narrows it.
Then, as the session does too, where a computed set's new one-character last term's greedy
ends are (``matchset.Ender``, also counted as idle).
``--cold``: the index is not warmed first; one ``warm`` step runs before each key instead,
as the session's idle loop does between keys typed back to back right after its walk (what
``keys_bench.py`` measures: at 1M paths its keys find the tables of ``warm`` unbuilt).
``profile_keys.py`` is the same for one fresh ``Index.match`` per prefix, under cProfile.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import statistics
import sys
import time
from typing import Any

from ffind.engine import exact, index, occur, rank, ranker, store
from ffind.engine.bounding import Bounder
from ffind.engine.index import Index
from ffind.engine.matchset import Filler

try:  # (a checkout before the tenth pass: no ends found between keys)
    from ffind.engine.matchset import Ender
except ImportError:
    Ender = None  # type: ignore[assignment,misc]
from ffind.searching.idle import IDLE_SLICE

WORDS = ["prom", "base_cod", "foobar", "mod.rs", "s/p/t", "controller", "readme", "test util",
         "session test", "web servlet", "src main java"]
STAGES: list[tuple[Any, list[str]]] = [
    (Index, ["compute", "find_typos"]),
    (Bounder, ["bounds", "early_total", "_last_plain", "_last_joined", "_aligned_bounds",
               "_one_char", "tighten_name_array", "tighten_name_upper", "refine", "starts_lcs",
               "prefix_scored"]),
    (ranker, ["_split_arrays", "_refine_and_visit_arrays", "_name_prefixed", "tightened_seed"]),
    (index, ["shortcut"]),
    (occur.FoldedBuffer, ["has", "find"]),
    (store.PathStore, ["initials", "names_of"]),
    (rank.BranchAndBound, ["visit"]),
    (exact.ExactScorer, ["score"]),
]


def wrap_stages(acc: dict[str, list[float]]) -> None:
    """Wrap each method of ``STAGES`` with a CPU timer adding to ``acc[name]`` ([calls, s])."""
    for owner, names in STAGES:
        for name in names:
            real = getattr(owner, name, None)
            if real is None:
                continue

            def timed(*a: Any, _real: Any = real, _name: str = name, **k: Any) -> Any:
                c = time.process_time()
                try:
                    return _real(*a, **k)
                finally:
                    d = acc.setdefault(_name, [0, 0.0])
                    d[0] += 1
                    d[1] += time.process_time() - c

            setattr(owner, name, functools.wraps(real)(timed))


def time_collections(acc: dict[str, list[float]]) -> None:
    """Add each garbage collection's CPU time to ``acc["gcN"]`` ([collections, s]; N its
    generation): a key that sets off a full one (``gc2``) pays a pass over every per-path
    list of the store."""
    began: dict[int, float] = {}

    def hook(phase: str, info: dict[str, int]) -> None:
        g = info["generation"]
        if phase == "start":
            began[g] = time.process_time()
        elif g in began:
            d = acc.setdefault(f"gc{g}", [0, 0.0])
            d[0] += 1
            d[1] += time.process_time() - began.pop(g)

    gc.callbacks.append(hook)


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", help="a file of paths, one per line")
    ap.add_argument("--words", default=",".join(WORDS), help="comma-separated queries")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--over", type=float, default=30.0, help="show the stages of keys over this")
    ap.add_argument("--fill", action="store_true",
                    help="compute each key's set after it (the session's idle work)")
    ap.add_argument("--cold", action="store_true",
                    help="do not warm the index first: one ``warm`` step before each key "
                         "instead, as the session does between keys typed back to back "
                         "right after its walk")
    ap.add_argument("--json", help="write the least CPU ms per key here")
    args = ap.parse_args()
    with open(args.paths, encoding="utf-8", errors="surrogateescape") as f:
        paths = f.read().splitlines()
    words = [w for w in args.words.split(",") if w]
    acc: dict[str, list[float]] = {}
    wrap_stages(acc)
    time_collections(acc)
    least: dict[str, float] = {}
    idle = 0.0
    for r in range(args.rounds):
        ix = Index(paths, numpy=True)
        ix.numpy_ready()
        steps = []
        warm = ix.warm()
        while not args.cold:
            c = time.process_time()
            if next(warm, True) is True:
                break
            steps.append((time.process_time() - c) * 1000)
        if r == 0 and steps:  # (what a key may wait for: one step)
            print(f"warm: {len(steps)} steps, CPU {sum(steps):.0f} ms in all, median"
                  f" {statistics.median(steps):.1f}, max {max(steps):.1f} ms")
        for w in words:
            prev = None
            for i in range(1, len(w) + 1):
                q = w[:i]
                if q.endswith(" "):
                    continue
                if args.cold:
                    next(warm, None)
                acc.clear()
                c = time.process_time()
                ms = ix.run(q, within=prev if prev is not None and prev.can_narrow(q) else None)
                ix.top(ms, 20)
                ms_cpu = (time.process_time() - c) * 1000
                prev = ms
                least[q] = min(least.get(q, ms_cpu), ms_cpu)
                if r == args.rounds - 1 and ms_cpu > args.over:
                    parts = sorted(acc.items(), key=lambda kv: -kv[1][1])
                    print(f"{q!r:16s} {ms_cpu:5.1f}: " + ", ".join(
                        f"{k} {v[1] * 1000:.1f}" + (f" x{int(v[0])}" if v[0] > 1 else "")
                        for k, v in parts if v[1] >= 0.0015))
                if args.fill and not ms.computed:
                    c = time.process_time()
                    filler = Filler(ix.run, ms, IDLE_SLICE)
                    while not filler.step():
                        pass
                    idle += time.process_time() - c
                if args.fill and Ender is not None and getattr(ix, "wants_ends", None) \
                        and ix.wants_ends(ms):
                    c = time.process_time()
                    ender = Ender(ix.find_ends, ms, IDLE_SLICE)
                    while not ender.step():
                        pass
                    idle += time.process_time() - c
    xs = list(least.values())
    print(f"least of {args.rounds} rounds, {len(xs)} keys: median {statistics.median(xs):.1f}"
          f"  p95 {p95(xs):.1f}  max {max(xs):.1f}"
          + (f"; idle fills {idle * 1000:.0f} ms of CPU in all" if args.fill else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(least, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
