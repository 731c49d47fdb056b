"""The walk against fd, side by side: wall time, file counts, peak memory; threads=1 vs 2.

    python benchmarks/walk_bench.py --tree TREE [--rounds 15] [--hyperfine]

Tools, found on ``PATH``: ``fdfind`` (fd), and ``hyperfine`` with ``--hyperfine``.

Each round runs every command once, in a shuffled order, as a user would (a new process
whose output is read through a pipe), so slow drifts of the shared machine's load hit all
commands alike; the figures are medians over rounds, ratios taken within each round.  Peak memory
is the largest resident set of any one process of the command (``wait4``; fd's threads share
one process, ffind's workers are separate processes, each counted on its own).  Then, in
process: time to the first batch (what a picker waits for) and how long a cancel takes.
``--hyperfine`` also runs ``hyperfine -N`` on the same commands.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import TREE_HELP

# The walk alone, printed as the command would (the ``ffind`` command adds its own start-up).
_WALK = (
    "import sys\n"
    "from ffind import SearchOptions, walk_batches\n"
    "write = sys.stdout.buffer.write\n"
    "for batch in walk_batches('.', SearchOptions(threads=int(sys.argv[1]))):\n"
    "    write(('\\n'.join(batch) + '\\n').encode('utf-8', 'surrogateescape'))\n"
)
FFIND = [sys.executable, "-c", _WALK]


def commands() -> dict[str, list[str]]:
    return {
        "fd": ["fdfind", "-t", "f"],
        "ffind threads=2": [*FFIND, "2"],
        "ffind threads=1": [*FFIND, "1"],
    }


def run(cmd: list[str], cwd: str) -> tuple[float, int, float, float]:
    """(wall seconds, lines printed, peak RSS MiB, CPU seconds user + sys) of one run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    data = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{cmd} exited with {proc.returncode}")
    return wall, data.count(b"\n"), usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def side_by_side(tree: str, rounds: int) -> None:
    cmds = commands()
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    ratios: dict[str, list[float]] = {k: [] for k in cmds}
    counts: dict[str, int] = {}
    rss: dict[str, float] = {k: 0.0 for k in cmds}
    cpu: dict[str, list[float]] = {k: [] for k in cmds}
    for cmd in cmds.values():  # warm-up: page cache, pyc files
        run(cmd, tree)
    for _ in range(rounds):
        order = list(cmds)
        random.shuffle(order)
        this: dict[str, float] = {}
        for name in order:
            wall, lines, peak, used = run(cmds[name], tree)
            this[name] = wall
            cpu[name].append(used)
            counts[name] = lines
            rss[name] = max(rss[name], peak)
        for name in cmds:
            walls[name].append(this[name])
            ratios[name].append(this[name] / this["fd"])
    print(f"tree {tree}, {rounds} rounds, load average {os.getloadavg()[0]:.1f}")
    print("| command | median wall | ratio to fd (median per round) | CPU user+sys | files "
          "| peak RSS |")
    print("|---|---|---|---|---|---|")
    for name in cmds:
        print(f"| {name} "
              f"| {statistics.median(walls[name]) * 1000:.0f} ms "
              f"| {statistics.median(ratios[name]):.2f} "
              f"| {statistics.median(cpu[name]) * 1000:.0f} ms | {counts[name]} "
              f"| {rss[name]:.0f} MiB |")
    t1_t2 = [a / b for a, b in zip(walls["ffind threads=1"], walls["ffind threads=2"],
                                   strict=True)]
    print(f"threads=1 / threads=2 wall ratio: {statistics.median(t1_t2):.2f}")


def in_process(tree: str, rounds: int) -> None:
    from ffind import SearchOptions, walk_batches

    for threads in (1, 2):
        firsts = []
        cancels = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            batches = walk_batches(tree, SearchOptions(threads=threads))
            next(iter(batches))
            firsts.append(time.perf_counter() - t0)
            batches.close()  # type: ignore[attr-defined]
            # Cancel from another thread in the middle of the walk; the walk must end (its
            # workers killed and joined) soon after.
            cancel = threading.Event()
            asked: list[float] = []

            def request(cancel: threading.Event = cancel, asked: list[float] = asked) -> None:
                asked.append(time.perf_counter())
                cancel.set()

            it = walk_batches(tree, SearchOptions(threads=threads), cancel=cancel)
            next(it)
            timer = threading.Timer(0.05, request)
            timer.start()
            for _batch in it:
                pass
            t_end = time.perf_counter()
            timer.join()
            cancels.append(t_end - asked[0] if asked else 0.0)
        print(f"threads={threads}: first batch after {statistics.median(firsts) * 1000:.1f} ms "
              f"(median of {rounds}); cancel done {max(0.0, statistics.median(cancels)) * 1000:.0f}"
              f" ms after the request")


def hyperfine(tree: str) -> None:
    if shutil.which("hyperfine") is None:
        print("hyperfine not found")
        return
    cmds = commands()
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(["hyperfine", "-N", "-w", "3", "-r", "20", "--export-json", out.name,
                        *(" ".join(c) for c in cmds.values())], cwd=tree, check=True,
                       stdout=subprocess.DEVNULL)
        with open(out.name) as f:
            results = json.load(f)["results"]
    fd = statistics.median(results[0]["times"])
    for name, r in zip(cmds, results, strict=True):
        med = statistics.median(r["times"])
        print(f"hyperfine {name}: median {med * 1000:.0f} ms, ratio to fd {med / fd:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", required=True, help=TREE_HELP)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--hyperfine", action="store_true")
    args = parser.parse_args()
    side_by_side(args.tree, args.rounds)
    in_process(args.tree, 5)
    if args.hyperfine:
        hyperfine(args.tree)


if __name__ == "__main__":
    main()
