"""The git-oracle conformance check of tests/conformance_test.py on many more trees.

    python benchmarks/ignore_conformance.py [--cases 3000] [--start 100000]

Each case is a generated tree in a fresh repository; the walk must list exactly what
``git ls-files --others --exclude-standard`` lists (less hidden paths and DEFAULT_EXCLUDES).
Prints the failures (with the case, to reproduce) and a summary; exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import conformance_test as conf


class _Env:
    """The bits of pytest's monkeypatch that run_case uses, undone after each case."""

    def __init__(self) -> None:
        self.saved = dict(os.environ)

    def setenv(self, key: str, value: str) -> None:
        os.environ[key] = value

    def delenv(self, key: str, raising: bool = True) -> None:
        os.environ.pop(key, None)

    def undo(self) -> None:
        os.environ.clear()
        os.environ.update(self.saved)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--start", type=int, default=100_000,
                        help="first seed (the tests use 0..299)")
    args = parser.parse_args()
    rules = conf.rules()
    failures = 0
    paths = 0
    t0 = time.perf_counter()
    for seed in range(args.start, args.start + args.cases):
        case = conf.generate(seed, rules)
        env = _Env()
        try:
            with tempfile.TemporaryDirectory() as tmp:
                got, expected = conf.run_case(case, Path(tmp), env)  # type: ignore[arg-type]
        finally:
            env.undo()
        paths += len(expected)
        if got != expected:
            failures += 1
            print(f"seed {seed}: only ffind {sorted(got - expected)}, "
                  f"only git {sorted(expected - got)}\n{case.describe()}")
    print(f"{args.cases} trees, {paths} expected paths, {failures} disagreements, "
          f"{time.perf_counter() - t0:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
