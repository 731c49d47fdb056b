"""Would a pure-Python prefilter spare a small tree's cold call rapidfuzz's import?

    python benchmarks/pure_prefilter.py PATHS [--queries Q,Q] [--runs N]

PATHS: a file of paths, one a line (e.g. ``ffind --no-cache -l 0 '' > PATHS`` in the tree;
``-l 0`` lists everything).  For each query, the paths it is a subsequence of (lowercased),
found three ways, checked to agree, and the median time of ``--runs`` runs of each:

- rapidfuzz: ``process.extract_iter(key, paths, scorer=LCSseq.similarity,
  score_cutoff=len(key))``, as ``ffind.engine.accel`` does without numpy;
- a regular expression per path (``p.*?r.*?o.*?m``, ``search``);
- one regular expression over the paths joined by newlines (``p[^\\n]*?r...``), the hits
  mapped back to their lines.

Then the cost of the imports each needs, each in a fresh interpreter (median of ``--runs``
starts): ``python -c pass``, ``import re``, ``import rapidfuzz`` (which imports ``typing``,
``re`` and ``enum``).  The exact subsequence test is the smallest part of what a search asks
rapidfuzz for (the typo-tolerant prefilter asks for "all but one character", the bounds for
longest common subsequences), so the regex times are a lower bound for a pure-Python engine.
"""

from __future__ import annotations

import argparse
import bisect
import re
import statistics
import subprocess
import sys
import time


def by_rapidfuzz(key: str, paths: list[str]) -> list[int]:
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq

    return [j for _, _, j in process.extract_iter(key, paths, scorer=LCSseq.similarity,
                                                  score_cutoff=len(key))]


def by_regex_each(key: str, paths: list[str]) -> list[int]:
    pat = re.compile(".*?".join(map(re.escape, key)), re.S)
    return [j for j, p in enumerate(paths) if pat.search(p)]


def by_regex_joined(key: str, paths: list[str]) -> list[int]:
    pat = re.compile("[^\n]*?".join(map(re.escape, key)))
    buf = "\n".join(paths)
    starts, at = [], 0
    for p in paths:
        starts.append(at)
        at += len(p) + 1
    hits: list[int] = []
    pos = 0
    while (m := pat.search(buf, pos)) is not None:
        j = bisect.bisect_right(starts, m.start()) - 1
        hits.append(j)
        pos = starts[j + 1] if j + 1 < len(starts) else len(buf) + 1
    return hits


def timed(fn: object, key: str, paths: list[str], runs: int) -> tuple[float, list[int]]:
    times, out = [], []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn(key, paths)  # type: ignore[operator]
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), out


def start_ms(code: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", help="a file of paths, one a line")
    ap.add_argument("--queries", default="prom,base_cod,main,setup.py,zzqx")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with open(args.paths, encoding="utf-8", errors="surrogateescape") as f:
        paths = [line.rstrip("\n").lower() for line in f if line.strip()]
    print(f"{len(paths)} paths, median of {args.runs} runs, ms")
    print(f"{'query':<12} {'hits':>6} {'rapidfuzz':>10} {'re each':>8} {'re joined':>10}")
    for key in [q for q in args.queries.split(",") if q]:
        t1, r1 = timed(by_rapidfuzz, key, paths, args.runs)
        t2, r2 = timed(by_regex_each, key, paths, args.runs)
        t3, r3 = timed(by_regex_joined, key, paths, args.runs)
        if not r1 == r2 == r3:
            print(f"{key}: the three disagree", file=sys.stderr)
            return 1
        print(f"{key:<12} {len(r1):>6} {t1:>10.2f} {t2:>8.2f} {t3:>10.2f}")
    base = start_ms("pass", args.runs)
    print(f"imports, fresh interpreter: python -c pass {base:.1f}; import re +"
          f"{start_ms('import re', args.runs) - base:.1f}; import rapidfuzz +"
          f"{start_ms('import rapidfuzz', args.runs) - base:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
