"""How much of the ranking benchmark is tie-break luck: ffind with another order among equal
scores, on ``rank_eval.py``'s own plan and scoring.

    python3 benchmarks/rank_tiebreak.py --rank-eval KIT/rank_eval.py --corpus CORPUS \
        --rule path --seed 4 --json out/seed4.path.json

``--rank-eval`` is the ranking benchmark's script and ``--corpus`` its folder of path lists
(``paths/<repo>.txt``); neither is part of this repository (see docs/benchmarks.md).

``--rule``: ``spec`` (ffind as it is: shorter path, then path), ``path`` (path only: the input
order of a sorted list, what frizbee and rapidfuzz fall back to), ``longer`` (longer path
first, then path descending).  Each keystroke ranks the first 300 results and re-sorts them by
(score, rule), which is exact for the first place whenever fewer than 300 paths share the top
score.  The output is a ``rank_eval.py --json`` file whose only system is ``ffind``; pool it
with the peers' files through ``benchmarks/rank_pool.py``.  No rule can be better in
expectation (the benchmark samples its targets uniformly), so the spread between rules is the
size of the noise in one seed's figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

RULES: dict[str, Callable[[str], Any]] = {
    "spec": lambda p: (len(p), p),
    "path": lambda p: p,
    "longer": lambda p: (-len(p), [-ord(c) for c in p]),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rule", choices=sorted(RULES), required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--targets", type=int, default=40)
    ap.add_argument("--rank-eval", type=Path, required=True,
                    help="the ranking benchmark's rank_eval.py (imported for its plan and scoring)")
    ap.add_argument("--corpus", type=Path, required=True,
                    help="the corpus folder rank_eval.py --data reads (paths/<repo>.txt)")
    ap.add_argument("--json", type=Path, required=True)
    args = ap.parse_args()
    sys.path.insert(0, str(args.rank_eval.resolve().parent))
    import rank_eval  # type: ignore[import-not-found]

    key = RULES[args.rule]

    class Ranker(rank_eval.FfindRanker):  # type: ignore[misc]
        def rank(self, query: str, k: int) -> list[str]:
            res = self.index.match(query, limit=max(k, 300))
            res.sort(key=lambda m: (-m.score, key(m.path)))
            return [m.path for m in res[:k]]

    repos = rank_eval.load_repos(args.corpus, None)
    rng = random.Random(args.seed)  # the same plan as rank_eval.py --seed
    plan = {repo: [(t, rank_eval.typed_strings(t, rng))
                   for t in rank_eval.pick_targets(paths, args.targets, rng)]
            for repo, paths in repos.items()}
    records: list[dict[str, Any]] = []
    rank_eval.run_system(Ranker(), repos, plan, ["name", "dirname", "words", "typo"],
                         records, [])
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"records": {"ffind": records}}))


if __name__ == "__main__":
    main()
