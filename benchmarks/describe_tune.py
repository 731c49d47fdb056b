"""The description ranking's weights (``ffind.agent.describe.Weights``) tuned on described
files, and checked leave-one-repository-out.

    python benchmarks/describe_tune.py CORPUS TREES [--fields a,b] [--rounds 1] [--repos a,b]
        [--json OUT]

CORPUS holds ``describe/<repo>.json`` (``{"cases": [{"query", "short", "files"}]}``: a
description as written and without its ``area:`` prefix, and the files it is about); TREES
holds one folder per repository, ``TREES/<repo>/<repo>``, the tree ``find_files`` searches
(the benchmark kit's ``describe_eval.py --trees`` builds them).  Each repository is walked and
indexed once as ``find_files`` does (``ffind.agent.tool.TreeSnapshot``); every description is
answered by ``search_snapshot(snapshot, description, 10)``, so the figures are
``find_files``'s.

The objective is the number of hits in the first 10 (both forms) plus half the hits at 1.
From the shipped weights, each field in ``--fields`` (default: every float field) is tried at
0.7x and 1.4x its value (or 0.15 when it is 0), kept when the objective grows, for
``--rounds`` passes.  Every weight set tried is kept with its figures per repository; then,
for each repository, the set best on the other repositories is chosen and that repository's
figures under it are pooled: the held-out line, to set beside the tuned one (a large gap
means the weights fit these repositories rather than descriptions).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

Ranks = dict[str, dict[str, list[int | None]]]  # repo -> form -> rank of the first file


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", help="a folder with describe/<repo>.json")
    ap.add_argument("trees", help="a folder with <repo>/<repo>, each repository's tree")
    ap.add_argument("--fields", help="comma-separated Weights fields (default: every float)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--repos", help="comma-separated names (default: every describe/*.json)")
    ap.add_argument("--json", help="write every weight set tried and its figures here")
    args = ap.parse_args()
    os.environ.update(FFIND_NO_MEMORY="1", FFIND_NO_SERVER="1")
    from ffind.agent.describe import Weights

    corpus = Path(args.corpus)
    names = (args.repos.split(",") if args.repos
             else sorted(p.stem for p in (corpus / "describe").glob("*.json")))
    bench = Bench(corpus, Path(args.trees), names)
    shipped = Weights()
    fields = (args.fields.split(",") if args.fields else
              [f.name for f in dataclasses.fields(shipped)
               if isinstance(getattr(shipped, f.name), float)])
    tried: list[tuple[Any, Ranks]] = [(shipped, bench.ranks(shipped))]
    best, best_score = tried[0][0], objective(tried[0][1], names)
    for _ in range(args.rounds):
        for name in fields:
            now = getattr(best, name)
            for value in ((now * 0.7, now * 1.4) if now else (0.15,)):
                weights = dataclasses.replace(best, **{name: round(value, 3)})
                ranks = bench.ranks(weights)
                tried.append((weights, ranks))
                score = objective(ranks, names)
                print(f"{name}={value:.3f}: {score:.1f} (best {best_score:.1f})", file=sys.stderr)
                if score > best_score:
                    best, best_score = weights, score
    ranks = dict(next(r for w, r in tried if w == best))
    print("shipped:  " + figures(tried[0][1], names))
    print("tuned:    " + figures(ranks, names))
    print("held out: " + figures(held_out(tried, names), names))
    changed = {f.name: getattr(best, f.name) for f in dataclasses.fields(best)
               if getattr(best, f.name) != getattr(shipped, f.name)}
    print(f"tuned weights (changed): {changed}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"weights": dataclasses.asdict(w), "ranks": r} for w, r in tried]))
    return 0


class Bench:
    """The repositories' snapshots and descriptions, answered under one weight set at a time."""

    def __init__(self, corpus: Path, trees: Path, names: list[str]) -> None:
        from ffind.agent import tool

        self.cases = {n: json.loads((corpus / "describe" / f"{n}.json").read_text())["cases"]
                      for n in names}
        self.snaps = {n: tool.TreeSnapshot.build(tool.tool_walk(str(trees / n / n)))
                      for n in names}

    def ranks(self, weights: Any) -> Ranks:
        from ffind.agent.describe import Describer
        from ffind.agent.tool import search_snapshot

        out: Ranks = {}
        for name, snap in self.snaps.items():
            d = snap.describer
            if d is None or d.weights.generic != weights.generic:
                d = snap.describer = Describer(snap.main.paths, weights)
            d.weights = weights  # the other fields are read by ``rank``
            snap.answers.clear()
            out[name] = {"query": [], "short": []}
            for case in self.cases[name]:
                for form in ("query", "short"):
                    lines = search_snapshot(snap, case[form], 10).splitlines()
                    got = [ln for ln in lines[2:] if ln and not ln.startswith("(")]
                    out[name][form].append(
                        next((i + 1 for i, p in enumerate(got) if p in case["files"]), None))
        return out


def objective(ranks: Ranks, names: list[str]) -> float:
    return sum(sum(r is not None for r in ranks[n][f]) + 0.5 * sum(r == 1 for r in ranks[n][f])
               for n in names for f in ("query", "short"))


def held_out(tried: list[tuple[Any, Ranks]], names: list[str]) -> Ranks:
    """Each repository's ranks under the weight set best on the other repositories."""
    out: Ranks = {}
    for name in names:
        others = [n for n in names if n != name]
        _, ranks = max(tried, key=lambda t: objective(t[1], others))
        out[name] = ranks[name]
    return out


def figures(ranks: Ranks, names: list[str]) -> str:
    parts = []
    for form in ("query", "short"):
        pooled = [r for n in names for r in ranks[n][form]]
        hit1 = sum(r == 1 for r in pooled) / len(pooled)
        hit10 = sum(r is not None for r in pooled) / len(pooled)
        parts.append(f"{form} hit@1 {hit1:.1%} hit@10 {hit10:.1%}")
    return "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
