"""Matching speed: ``Index.match(q, limit=20)`` on ~110k paths, queries typed one key at a time.

    python3 benchmarks/match_bench.py --tree TREE [--repeat 3]

The paths are ``git ls-files`` of TREE (a git work tree); frizbee is the ``frizbee`` Python
package (``pip install frizbee``).

Builds one ``ffind.Index`` (reports the build time), then for every prefix of each query
times one ``index.match(prefix, limit=20)`` call (a fresh call each time, nothing reused
between keystrokes) and the same for frizbee (``Matcher(q, casing="smart").match_list``,
the compiled SIMD reference) in the same run.  Prints median and slowest per query and over
all keystrokes, and the ratio to frizbee.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from binaries import TREE_HELP

QUERIES = ["prompt", "base_coder", "mod.rs", "s/p/t", "controller"]


def timed(fn: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True, help=TREE_HELP)
    ap.add_argument("--repeat", type=int, default=3, help="runs per keystroke (min taken)")
    ap.add_argument("--limit", type=int, default=20)
    args = ap.parse_args()
    out = subprocess.run(["git", "-C", args.tree, "ls-files"], capture_output=True, text=True,
                         check=True).stdout
    paths = out.splitlines()

    from ffind.engine.index import Index

    t0 = time.perf_counter()
    index = Index(paths)
    build = (time.perf_counter() - t0) * 1000
    try:
        import frizbee

        hay = frizbee.Haystacks(paths)
    except ImportError:
        frizbee = None
    print(f"{len(paths)} paths; Index build {build:.0f} ms")
    print("| query | ffind median ms | ffind max ms | frizbee median ms | frizbee max ms |")
    print("|---|---|---|---|---|")
    all_f: list[float] = []
    all_z: list[float] = []
    for q in QUERIES:
        tf, tz = [], []
        for i in range(1, len(q) + 1):
            p = q[:i]
            tf.append(timed(lambda p=p: index.match(p, limit=args.limit), args.repeat))
            if frizbee is not None:
                def fz(p: str = p) -> None:
                    res = frizbee.Matcher(p, casing="smart").match_list(hay)
                    sorted(res, key=lambda r: (-r.score, r.index))[:args.limit]
                tz.append(timed(fz, args.repeat))
        all_f += tf
        all_z += tz
        zs = (f"{statistics.median(tz):.1f} | {max(tz):.1f}" if tz else "- | -")
        print(f"| `{q}` | {statistics.median(tf):.1f} | {max(tf):.1f} | {zs} |")
    zs = (f"{statistics.median(all_z):.1f} | {max(all_z):.1f}" if all_z else "- | -")
    print(f"| all keystrokes | {statistics.median(all_f):.1f} | {max(all_f):.1f} | {zs} |")


if __name__ == "__main__":
    main()
