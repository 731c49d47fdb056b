"""Where a cold ``ffind --no-cache -l 20 Q`` spends its time: a timeline of one call, or the
search's own CPU against its walk's child's.

    PYTHON benchmarks/cold_timeline.py TREE [--query Q] [--child auto|on|off]
    PYTHON benchmarks/cold_timeline.py TREE --runs N [--query Q]

Run it with the interpreter of the ffind to measure (a regular install: an editable one adds
its finder's imports).  Without ``--runs``: one call of the console script's entry point, in
this process, with a mark (wall ms since this script started, and CPU ms of the process) at
each step: the imports of the walk, the engine and rapidfuzz, ``git status`` started, the
walk started (``walk_ahead``) and its batches, ``git status`` asked, the ranking done (the
output formatted).  With ``--runs N``: N fresh processes of each of ``--child on`` and
``--child off`` interleaved, and the medians of their wall time, their own CPU time and
their children's (the walk's child, ``git status`` when it was reaped).  ``--child on`` and
``off`` patch ``ffind.fs.load.cpu_idle`` (what the console
script asks before it forks the walk, ``ffind.frontends.early``) to say a CPU is idle, or
none is (so ``on`` forks the walk's child on a busy machine too, and ``off`` forks no child
and no worker); ``auto`` leaves it.  (This script imports the walk's modules before the
call: the console script's child does not find them imported.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

T0 = time.perf_counter()


def timeline(tree: str, query: str, child: str, summary: bool) -> None:
    marks: list[tuple[float, float, str]] = []

    def mark(what: str) -> None:
        marks.append((time.perf_counter() - T0, time.process_time(), what))

    import builtins

    real_import = builtins.__import__
    watch = {"ffind.fs.walk", "ffind.engine.index", "rapidfuzz", "ffind.state.gitstatus"}

    def traced(name: str, *args: object, **kwargs: object) -> object:
        if name in watch and name not in sys.modules:
            mark(f"import {name}")
            found = real_import(name, *args, **kwargs)  # type: ignore[arg-type]
            mark(f"imported {name}")
            return found
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    builtins.__import__ = traced  # type: ignore[assignment]
    os.chdir(tree)
    import gc

    gc.disable()  # (as the console script)
    import ffind.fs.load as load
    import ffind.fs.walk as walk
    import ffind.state.gitstatus as gitstatus
    from ffind.frontends import cli, early, entry, exits, output

    if child != "auto":
        load.cpu_idle = lambda *args: child == "on"  # type: ignore[assignment]
    real_ahead, real_run = walk.walk_ahead, walk.Ahead._run
    real_started, real_fork = walk.started_walk, early._fork

    def ahead(*args: object, **kwargs: object) -> walk.Ahead:
        mark("walk started")
        found = real_ahead(*args, **kwargs)  # type: ignore[arg-type]
        mark("walk: child forked" if found._child is not None else "walk: no child")
        return found

    def started(*args: object, **kwargs: object) -> walk.Ahead:
        mark("walk taken over (forked by the console script)")
        return real_started(*args, **kwargs)  # type: ignore[arg-type]

    def fork(*args: object, **kwargs: object) -> early.Started | None:
        mark("console script: fork the walk")
        found = real_fork(*args, **kwargs)  # type: ignore[arg-type]
        mark("console script: forked" if found is not None else "console script: no fork")
        return found

    def run(self: walk.Ahead) -> object:
        n = 0
        for batch in real_run(self):
            n += 1
            if n == 1:
                mark("first batch")
            yield batch
        mark(f"walk done ({n} batches)")

    walk.walk_ahead = ahead  # type: ignore[assignment]
    walk.started_walk = started  # type: ignore[assignment]
    early._fork = fork  # type: ignore[assignment]
    walk.Ahead._run = run  # type: ignore[assignment,method-assign]
    real_init, real_changed = gitstatus.GitChanges.__init__, gitstatus.GitChanges.changed

    def init(self: gitstatus.GitChanges, *args: object, **kwargs: object) -> None:
        mark("git status: start")
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]
        mark("git status: started")

    def changed(self: gitstatus.GitChanges, *args: object, **kwargs: object) -> object:
        found = real_changed(self, *args, **kwargs)  # type: ignore[arg-type]
        mark(f"git status asked: answered={self.answered()}")
        return found

    gitstatus.GitChanges.__init__ = init  # type: ignore[method-assign]
    gitstatus.GitChanges.changed = changed  # type: ignore[method-assign]
    real_plain, real_json = output.format_plain, output.format_json

    def plain(*args: object, **kwargs: object) -> object:
        mark("ranked: the output")
        return real_plain(*args, **kwargs)  # type: ignore[arg-type]

    def json(*args: object, **kwargs: object) -> object:
        mark("ranked: the output")
        return real_json(*args, **kwargs)  # type: ignore[arg-type]

    output.format_plain, output.format_json = plain, json  # type: ignore[assignment]

    def done(code: int) -> None:
        mark("exit")
        import resource

        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        if summary:
            print(f"{marks[-1][0] * 1000:.2f} {time.process_time() * 1000:.2f} "
                  f"{(kids.ru_utime + kids.ru_stime) * 1000:.2f}", file=sys.stderr)
        else:
            for wall, cpu, what in marks:
                print(f"{wall * 1000:7.1f} ms  CPU {cpu * 1000:6.1f}  {what}", file=sys.stderr)
        os._exit(code)

    exits.exit_now = done  # type: ignore[assignment]
    cli.exit_now = done  # type: ignore[attr-defined]
    sys.argv = ["ffind", "--no-cache", "-l", "20", query]
    try:
        entry.main()
    finally:
        done(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree")
    parser.add_argument("--query", default="main")
    parser.add_argument("--child", choices=("auto", "on", "off"), default="auto")
    parser.add_argument("--runs", type=int, default=0)
    parser.add_argument("--summary", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.runs:
        timeline(os.path.abspath(args.tree), args.query, args.child, args.summary)
        return
    got: dict[str, list[tuple[float, ...]]] = {"on": [], "off": []}
    for _ in range(args.runs):
        for child in got:
            proc = subprocess.run([sys.executable, __file__, args.tree, "--query", args.query,
                                   "--child", child, "--summary"], capture_output=True,
                                  text=True, check=False)
            got[child].append(tuple(float(x) for x in proc.stderr.split()[-3:]))
    print(f"{args.tree}, {args.query!r}, medians of {args.runs} interleaved runs, ms "
          f"(load {os.getloadavg()[0]:.1f})")
    for child, rows in got.items():
        wall, own, kids = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"  child {child:<3}  wall {wall:6.1f}  own CPU {own:6.1f}  children's CPU "
              f"{kids:6.1f}")


if __name__ == "__main__":
    main()
