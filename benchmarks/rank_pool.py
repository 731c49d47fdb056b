"""Ranking quality over many seeds: pool ``rank_eval.py --json`` outputs, seed by seed and all
together.

    python3 benchmarks/rank_pool.py DIR_OR_FILES... [--tie-noise RULE_FILES...]

Each file is one ``rank_eval.py --json`` output; its seed is the number after
``seed`` in the file name (``seed7.json``, ``seed7.peers.json``, ``seed7.ffind.json``: files of
one seed are merged, so the peers, which are slow, can be run once and ffind again after each
change).  For every seed, and pooled over all targets of all seeds, prints ffind against the
peers on the issue's three tests:

- keys@1 on ``name``, ``dirname`` and ``words`` lower than every peer's (a target never ranked
  first counts as its query's length + 3, as ``rank_eval.py`` prints it);
- reach@1 at least the best peer's (counted in targets, not rounded percentages);
- typo hit@5 at least 80%.

A miss is marked ``!``.  ``benchmarks/rank_quality.sh`` writes such files when ``OUT`` is set.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

Record = dict[str, Any]
STRATEGIES = ("name", "dirname", "words")
ME = "ffind"


def load(paths: list[Path]) -> dict[int, dict[str, list[Record]]]:
    """seed -> system -> records."""
    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.glob("*.json")) if p.is_dir() else [p])
    seeds: dict[int, dict[str, list[Record]]] = defaultdict(dict)
    for f in files:
        m = re.search(r"seed(\d+)", f.name)
        if not m:
            raise SystemExit(f"rank_pool: no seed number in the file name: {f}")
        records = json.loads(f.read_text())["records"]
        seeds[int(m.group(1))].update(records)
    return dict(sorted(seeds.items()))


def keys(r: Record) -> int:
    return int(r["keys1"] if r["keys1"] is not None else r["len"] + 3)


def tally(systems: dict[str, list[Record]]) -> dict[str, dict[str, tuple[int, int]]]:
    """system -> test -> (sum, count): keystrokes for keys@1, targets for reach@1 / hit@5."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for name, recs in systems.items():
        t: dict[str, tuple[int, int]] = {}
        for st in STRATEGIES:
            rs = [r for r in recs if r["strategy"] == st]
            t[f"{st} keys@1"] = (sum(keys(r) for r in rs), len(rs))
            t[f"{st} reach@1"] = (sum(r["keys1"] is not None for r in rs), len(rs))
        rs = [r for r in recs if r["strategy"] == "typo"]
        t["typo hit@5"] = (sum((r["rank_full"] or 99) <= 5 for r in rs), len(rs))
        out[name] = t
    return out


def add(a: dict[str, dict[str, tuple[int, int]]], b: dict[str, dict[str, tuple[int, int]]]) -> None:
    for name, t in b.items():
        mine = a.setdefault(name, {})
        for k, (s, n) in t.items():
            s0, n0 = mine.get(k, (0, 0))
            mine[k] = (s0 + s, n0 + n)


def row(label: str, t: dict[str, dict[str, tuple[int, int]]]) -> tuple[str, int]:
    """One line: ffind's figure, the best peer's, and ``!`` where ffind misses."""
    if ME not in t:
        raise SystemExit(f"rank_pool: no {ME} records for {label}")
    peers = {n: v for n, v in t.items() if n != ME}
    cells, misses = [], 0
    for st in STRATEGIES:
        k = f"{st} keys@1"
        mine = t[ME][k][0] / max(t[ME][k][1], 1)
        best_n, best = min(((n, v[k][0] / max(v[k][1], 1)) for n, v in peers.items()),
                           key=lambda x: x[1], default=("-", float("inf")))
        miss = not mine < best
        cells.append(f"{mine:.3f} vs {best:.3f} {best_n[:9]}{' !' if miss else ''}")
        misses += miss
        k = f"{st} reach@1"
        mine_r = t[ME][k][0]
        best_rn, best_r = max(((n, v[k][0]) for n, v in peers.items()),
                              key=lambda x: x[1], default=("-", 0))
        miss = mine_r < best_r
        cells.append(f"{mine_r} vs {best_r} {best_rn[:9]}{' !' if miss else ''}")
        misses += miss
    hit, n = t[ME]["typo hit@5"]
    miss = hit < 0.8 * n
    cells.append(f"{hit}/{n} = {100 * hit / max(n, 1):.1f}%{' !' if miss else ''}")
    misses += miss
    return f"| {label} | " + " | ".join(cells) + " |", misses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", type=Path, help="rank_eval.py --json files or folders")
    args = ap.parse_args()
    seeds = load(args.paths)
    pooled: dict[str, dict[str, tuple[int, int]]] = {}
    print("| seed | " + " | ".join(f"{s} keys@1 (ffind vs best peer) | {s} reach@1 (targets)"
                                    for s in STRATEGIES) + " | typo hit@5 |")
    print("|---" * (2 * len(STRATEGIES) + 2) + "|")
    missed = 0
    for seed, systems in seeds.items():
        t = tally(systems)
        add(pooled, t)
        line, m = row(str(seed), t)
        missed += m > 0
        print(line)
    line, m = row(f"all {len(seeds)}", pooled)
    print(line)
    print(f"seeds with a miss: {missed} of {len(seeds)}; pooled over all seeds: "
          f"{'no miss' if not m else f'{m} misses'}")


if __name__ == "__main__":
    main()
