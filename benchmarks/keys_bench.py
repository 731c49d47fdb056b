"""Keystroke latency by query shape: the session and ``Index.match`` alone, key by key.

    python benchmarks/keys_bench.py TREE [--repeat 2] [--words W,W] [--pause MS] [--json OUT]
    python benchmarks/keys_bench.py --compare BEFORE.json[,MORE.json] AFTER.json[,MORE.json]
        [--wall]

Walks TREE once with a ``FileSearcher`` (limit 20), then for each query types it one key at a
time (``set_query`` -> ``wait`` -> ``results(20)``, the session's cache cleared before each
query so every query starts cold, as a new user's would) and backspaces back to one key.  Each
typed prefix is also timed through one fresh ``Index.match(prefix, limit=20)`` on the same
index (nothing reused).  Prints, per query and pooled: median, p95 and max of the session's
typing keys, its backspacing keys and ``Index.match``, then the slowest keys, and the peak RSS
after the walk and at the end.  ``--json`` writes every timing (ms) for later comparison;
``--compare`` prints, from such files (several runs of one checkout pooled, comma-separated),
a markdown table by query of the CPU (``--wall``: wall) median / p95 / max before and after,
for the session's typing and for ``Index.match``, and the pooled backspacing.

``--pause MS`` sleeps MS milliseconds before each of the session's keys (typing and
backspacing), outside the timed window: a typist's gap, in which the session does its idle
work (default 0: keys back to back, as before).  The CPU time of the whole run (every thread)
is printed too, and the part of it spent in the pauses, so idle work is not hidden.

Each session key also records the wall time of the session's idle work it waited for (the
steps of ``Index.warm``, the idle fill, ... running on the match thread inside the key's
window: typed back to back right after the walk, the first keys wait for ``warm``'s steps)
and how late its answer reached the caller (how long the state had been published when
``wait`` returned: the caller needs the GIL, which the next idle step holds); both are
printed, with the keys net of them, and the wall time of the ``warm`` steps a key slower than
``SLOW_KEY`` took itself before its answer was published (``FileSearcher._warm_within``).
``--per-key`` lists each typed key's wall ms and those three parts.  ``--settle`` types only
once the session's ``warm`` has
ended (the keys of a session looked at before typing: the session's own key path).
``--match-first`` times each word's ``Index.match`` before the session types the word, not
after: whichever comes second finds the index primed by the other (kept prefixed ids, marks,
name heads), so each is fairly measured only when first.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from binaries import TREE_HELP

from ffind.options import SearchOptions
from ffind.searching.session import FileSearcher

WORDS = ["prom", "base_cod", "foobar", "mod.rs", "s/p/t", "controller", "readme", "test util",
         "session test", "web servlet", "src main java"]


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


IDLE_STEPS = ("_fill_step", "_ends_step", "_compact_step", "_warm_up_step")
"""The session's idle steps (``FileSearcher._match_loop``), each True when it did work."""


def watch_idle(fs: FileSearcher) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """From now on, the ``(start, end)`` (``perf_counter``) of each idle step of ``fs`` that
    did work, and of each ``_warm_within`` (the ``warm`` steps a slow key takes before its
    answer is published: part of the key's own window); the instance's methods wrapped (the
    match thread looks them up on each turn)."""
    spans: list[tuple[float, float]] = []
    within: list[tuple[float, float]] = []

    def wrap(step: Callable[[], bool]) -> Callable[[], bool]:
        def timed() -> bool:
            t = time.perf_counter()
            did = step()
            if did:
                spans.append((t, time.perf_counter()))
            return did
        return timed

    def wrap_within(step: Callable[[float, int], None]) -> Callable[[float, int], None]:
        def timed(started: float, gen: int) -> None:
            t = time.perf_counter()
            step(started, gen)
            within.append((t, time.perf_counter()))
        return timed

    for name in IDLE_STEPS:
        setattr(fs, name, wrap(getattr(fs, name)))
    if hasattr(fs, "_warm_within"):  # (a checkout before the nineteenth pass has none)
        fs._warm_within = wrap_within(fs._warm_within)  # type: ignore[method-assign]
    return spans, within


def waited(spans: list[tuple[float, float]], t0: float, t1: float) -> float:
    """Milliseconds of ``spans`` inside ``[t0, t1]``."""
    return sum(max(0.0, min(b, t1) - max(a, t0)) for a, b in spans) * 1000


def keystroke(fs: FileSearcher, query: str, pause: float = 0.0,
              idle: list[float] | None = None,
              spans: tuple[list[tuple[float, float]], list[tuple[float, float]]] | None = None,
              ) -> tuple[float, float, float, float, float]:
    """Wall and CPU milliseconds (CPU: every thread of this process, so the figure a loaded
    machine does not inflate), the wall ms of the idle steps (``spans[0]``) inside the key's
    window, how long the key's answer had been published when ``wait`` returned (0 when
    it published none: a query seen before), and the wall ms of the ``warm`` steps the key
    took before its answer was published (``spans[1]``), after ``pause`` seconds of sleep
    (untimed; the CPU the process spends meanwhile, its idle work, is added to ``idle[0]``,
    in ms)."""
    if pause:
        c = time.process_time()
        time.sleep(pause)
        if idle is not None:
            idle[0] += (time.process_time() - c) * 1000
    t, c = time.perf_counter(), time.process_time()
    published = fs._published
    fs.set_query(query)
    fs.wait()
    late = time.monotonic() - fs._published if fs._published != published else 0.0
    fs.results(20)
    t1, c1 = time.perf_counter(), time.process_time()
    return ((t1 - t) * 1000, (c1 - c) * 1000, waited(spans[0] if spans else [], t, t1),
            late * 1000, waited(spans[1] if spans else [], t, t1))


def row(label: str, xs: list[float]) -> str:
    if not xs:
        return f"{label:14s} -"
    return (f"{label:14s} n={len(xs):3d} median {statistics.median(xs):6.1f}"
            f"  p95 {p95(xs):6.1f}  max {max(xs):6.1f}")


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stats(xs: list[float]) -> str:
    if not xs:
        return "-"
    return f"{statistics.median(xs):.1f} / {p95(xs):.1f} / {max(xs):.1f}"


def compare(before: str, after: str, col: int = 2) -> int:
    """The table of ``--compare`` (CPU ms; ``col`` 1: wall ms)."""
    def load(names: str) -> list[dict[str, Any]]:
        out = []
        for name in names.split(","):
            with open(name) as f:
                out.append(json.load(f))
        return out

    runs = [load(before), load(after)]
    words = list(runs[0][0]["typing"])
    print("| query | session typing, before | after | `Index.match`, before | after |")
    print("| --- | --- | --- | --- | --- |")
    for w in [*words, None]:
        cells = []
        for table in ("typing", "match"):
            for run in runs:
                xs = [x[col] for r in run for q in ([w] if w else words) for x in r[table][q]]
                cells.append(stats(xs))
        label = f"`{w}`" if w else "**all**"
        print(f"| {label} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} |")
    for name, run in zip(("before", "after"), runs, strict=True):
        back = [x[col] for r in run for q in words for x in r["backspacing"][q]]
        rss = ", ".join(f"{r['rss_walked']:.0f} / {r['rss_end']:.0f}" for r in run)
        cpu = ", ".join(f"{r['cpu_run_ms']:.0f} ({r['cpu_idle_ms']:.0f} in the pauses)"
                        for r in run if "cpu_run_ms" in r)
        print(f"\nbackspacing {name}: {stats(back)}; peak RSS after the walk / at the end"
              f" (MiB): {rss}" + (f"; CPU ms of each run after the walk: {cpu}" if cpu else ""))
    return 0


def main() -> int:
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--compare":
        return compare(sys.argv[2], sys.argv[3], 1 if sys.argv[4:] == ["--wall"] else 2)
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--words", default=",".join(WORDS), help="comma-separated queries")
    ap.add_argument("--pause", type=float, default=0.0, metavar="MS",
                    help="sleep MS ms before each session key, untimed (a typist's gap)")
    ap.add_argument("--settle", action="store_true",
                    help="type only once the session's warm-up (Index.warm) has ended")
    ap.add_argument("--match-first", action="store_true",
                    help="time each word's Index.match before the session types it (default:"
                    " after; the second finds the index primed by the first)")
    ap.add_argument("--per-key", action="store_true",
                    help="list each typed key: wall ms, the idle steps it waited for, how late"
                    " its answer was, the warm steps it took itself")
    ap.add_argument("--json", help="write every timing here")
    args = ap.parse_args()
    pause = args.pause / 1000
    words = [w for w in args.words.split(",") if w]
    # query -> (prefix, wall, cpu[, wall of the idle steps the key waited for, ms its answer
    # was published before ``wait`` returned, wall of the ``warm`` steps it took itself])
    Timings = dict[str, list[tuple[str, float, float]
                             | tuple[str, float, float, float, float, float]]]
    typing: Timings = {w: [] for w in words}
    back: Timings = {w: [] for w in words}
    direct: Timings = {w: [] for w in words}
    t = time.perf_counter()
    with FileSearcher(args.tree, SearchOptions(limit=20)) as fs:
        fs.wait()
        walk_ms = (time.perf_counter() - t) * 1000
        walked = rss_mib()
        n = fs.snapshot().scanned_file_count
        index = fs._index
        spans = watch_idle(fs)
        if args.settle:
            while fs._warmed != len(index):
                time.sleep(0.01)
        idle = [0.0]  # CPU ms spent in the pauses (the session's idle work)
        c_run = time.process_time()
        for _ in range(args.repeat):
            for word in words:
                fs._cache.clear()
                prefixes = [word[:i] for i in range(1, len(word) + 1) if word[i - 1] != " "]
                if not args.match_first:
                    for q in prefixes:
                        typing[word].append((q, *keystroke(fs, q, pause, idle, spans)))
                for q in prefixes:
                    t, c = time.perf_counter(), time.process_time()
                    with fs._ilock:  # (the session's idle ``warm`` steps take it too)
                        index.match(q, limit=20)
                    direct[word].append((q, (time.perf_counter() - t) * 1000,
                                         (time.process_time() - c) * 1000))
                if args.match_first:
                    for q in prefixes:
                        typing[word].append((q, *keystroke(fs, q, pause, idle, spans)))
                for q in reversed(prefixes[:-1]):
                    back[word].append((q, *keystroke(fs, q, pause, idle, spans)))
                fs.set_query("")
                fs.wait()
        run_cpu = (time.process_time() - c_run) * 1000
        keys_cpu = sum(x[2] for table in (typing, back) for w in words for x in table[w])
        match_cpu = sum(x[2] for w in words for x in direct[w])
    print(f"tree {args.tree}: {n} paths, walk+index {walk_ms:.0f} ms; peak RSS {walked:.0f} MiB"
          f" after the walk, {rss_mib():.0f} MiB at the end")
    print(f"pause {args.pause:g} ms{'; typed once warm had ended' if args.settle else ''};"
          f" CPU of the run after the walk (every thread) {run_cpu:.0f} ms:"
          f" session keys {keys_cpu:.0f}, in the pauses (idle work) {idle[0]:.0f},"
          f" Index.match {match_cpu:.0f}, the rest {run_cpu - keys_cpu - idle[0] - match_cpu:.0f}")
    for title, table in (("typing", typing), ("backspacing", back)):
        rows = [x for w in words for x in table[w]]
        wait = [x[3] for x in rows if len(x) > 3]
        took = [x[5] for x in rows if len(x) > 5]
        print(f"session {title}: the idle steps waited for, wall ms: {sum(wait):.0f} in all,"
              f" in {sum(1 for x in wait if x >= 0.05)} of {len(rows)} keys; the answer"
              f" published before wait() returned: {stats([x[4] for x in rows if len(x) > 4])};"
              f" the keys net of both (wall):"
              f" {stats([x[1] - x[3] - x[4] for x in rows if len(x) > 4])}; warm steps taken"
              f" by slow keys before their answer: {sum(took):.0f} ms in all, in"
              f" {sum(1 for x in took if x >= 0.05)} keys")
    for title, table in (("session, typing", typing), ("session, backspacing", back),
                         ("Index.match(q, limit=20)", direct)):
        for col, what in ((1, "wall"), (2, "CPU")):
            print(f"\n{title} ({what} ms)")
            for w in words:
                print("  " + row(w, [x[col] for x in table[w]]))
            print("  " + row("ALL", [x[col] for w in words for x in table[w]]))
    if args.per_key:
        print("\ntyped keys (every repeat): wall ms = waited for idle steps + late + own"
              " (of which warm steps taken before its answer)")
        for w in words:
            for x in typing[w]:
                if len(x) > 5:
                    q, wall, _, wait, late, took = x  # type: ignore[misc]
                    print(f"  {q!r:18s} {wall:6.1f} = {wait:5.1f} + {late:5.1f}"
                          f" + {wall - wait - late:6.1f} ({took:5.1f})")
    print("\nslowest typed keys, worst of the repeats: session wall / CPU, Index.match wall / CPU")
    worst: dict[str, list[float]] = {}
    for w in words:
        for (q, a, b, *_), (_, c, d) in zip(typing[w], direct[w], strict=True):
            old = worst.get(q, [0.0] * 4)
            worst[q] = [max(x, y) for x, y in zip(old, (a, b, c, d), strict=True)]
    for q, v in sorted(worst.items(), key=lambda kv: -kv[1][1])[:15]:
        print(f"  {q!r:18s} " + "  ".join(f"{x:7.1f}" for x in v))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tree": args.tree, "paths": n, "walk_ms": walk_ms, "rss_walked": walked,
                       "rss_end": rss_mib(), "pause_ms": args.pause, "cpu_run_ms": run_cpu,
                       "cpu_keys_ms": keys_cpu, "cpu_idle_ms": idle[0], "typing": typing,
                       "backspacing": back, "match": direct}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
