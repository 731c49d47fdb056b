"""One-shot search, side by side: ``ffind -l 20 QUERY`` against
``fdfind -t f | fzf --filter QUERY --scheme=path | head -20``, and ``ffind --version``.

Usage: ``python benchmarks/cli_bench.py --tree TREE [--runs 5] [--rounds 1] [QUERY ...]``

Tools, found on ``PATH`` (a pyenv shim resolved to its program): ``hyperfine``, ``fdfind``
(fd), ``fzf``; ``ffind`` is the console script next to this interpreter.

Everything runs in one hyperfine invocation (so machine load hits both sides alike); the
ratio is ffind's median over the pipeline's median, per query.  ``--rounds R`` repeats the whole
run R times and pools the times, so drifting load from other processes hits both sides alike;
"paired" is the median over rounds of the ratio within each round (commands shuffled per round).
CPU time (user + system, children included) is shown too, being less sensitive to load.
"vs min" compares ffind's median with the pipeline's fastest run: on the 2-core test machine
``fdfind`` alternates, for minutes at a time, between ~340 ms and ~540 ms for the same walk
(user and system time both grow; ``ffind`` does not move), so the median ratio depends on
which phase a run meets; "vs min" is the conservative figure.
The ``ffind`` measured is the console script next to this interpreter, not a pyenv shim (a
shim adds ~60 ms per call).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile

from binaries import TREE_HELP, require

QUERIES = ["prom", "base_cod", "main", "srcui"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True, help=TREE_HELP)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("queries", nargs="*", default=QUERIES)
    args = ap.parse_args()
    hyper = require("hyperfine")
    fd, fzf, ffind = (shlex.quote(require(t)) for t in ("fdfind", "fzf", "ffind"))
    commands: list[tuple[str, str]] = []
    for q in args.queries:
        qq = shlex.quote(q)
        commands.append((f"ffind {q}", f"{ffind} -l 20 {qq}"))
        commands.append((f"fd|fzf {q}",
                         f"{fd} -t f | {fzf} --filter {qq} --scheme=path | head -20"))
    times: dict[str, list[float]] = {name: [] for name, _ in commands}
    cpu: dict[str, list[float]] = {name: [] for name, _ in commands}
    paired: dict[str, list[float]] = {q: [] for q in args.queries}
    rng = random.Random(4)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        for _ in range(args.rounds):  # several rounds interleave the commands under drifting load
            cmd = [hyper, "--style", "none", "--shell=bash", "--warmup", str(args.warmup),
                   "--runs", str(args.runs), "--export-json", out, "--ignore-failure"]
            order = commands[:] if args.rounds == 1 else rng.sample(commands, len(commands))
            for name, command in order:
                cmd += ["-n", name, command]
            subprocess.run(cmd, cwd=args.tree, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            with open(out) as f:
                results = {r["command"]: r for r in json.load(f)["results"]}
            for name, r in results.items():
                times[name] += r["times"]
                cpu[name].append(r["user"] + r["system"])
            for q in args.queries:  # the ratio within this round
                paired[q].append(statistics.median(results[f"ffind {q}"]["times"])
                                 / statistics.median(results[f"fd|fzf {q}"]["times"]))

    def median_ms(name: str, table: dict[str, list[float]] = times) -> float:
        return statistics.median(table[name]) * 1000

    print(f"tree: {args.tree}; {args.rounds} round(s) of {args.runs} runs each; medians")
    print(f"{'query':<10} {'ffind ms':>9} {'fd|fzf ms':>10} {'ratio':>6} {'paired':>7} "
          f"{'fd|fzf min':>11} {'vs min':>7} {'cpu ffind':>10} {'cpu fd|fzf':>11} {'ratio':>6}")
    ratios, worst = [], []
    for q in args.queries:
        a, b = median_ms(f"ffind {q}"), median_ms(f"fd|fzf {q}")
        low = min(times[f"fd|fzf {q}"]) * 1000
        ca, cb = median_ms(f"ffind {q}", cpu), median_ms(f"fd|fzf {q}", cpu)
        ratios.append(a / b)
        worst.append(a / low)
        pr = statistics.median(paired[q])
        print(f"{q:<10} {a:>9.0f} {b:>10.0f} {a / b:>6.2f} {pr:>7.2f} {low:>11.0f} "
              f"{a / low:>7.2f} {ca:>10.0f} {cb:>11.0f} {ca / cb:>6.2f}")
    print(f"median wall ratio {statistics.median(ratios):.2f} (target <= 1.0), "
          f"worst {max(ratios):.2f}; against the pipeline's fastest run: median "
          f"{statistics.median(worst):.2f}, worst {max(worst):.2f}")
    # Start-up, without a shell in between: ffind --version next to a bare interpreter.
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "version.json")
        py = shlex.quote(sys.executable)
        subprocess.run(["hyperfine", "--style", "none", "-N", "--warmup", "3", "--runs",
                        str(max(10, args.runs * args.rounds)), "--export-json", out,
                        "-n", "version", f"{ffind} --version", "-n", "python", f"{py} -c pass"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            start = {r["command"]: statistics.median(r["times"]) * 1000
                     for r in json.load(f)["results"]}
    print(f"ffind --version: {start['version']:.0f} ms (target <= 60 ms); "
          f"bare interpreter: {start['python']:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
