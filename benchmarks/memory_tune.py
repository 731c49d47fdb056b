"""Choose the memory's prior by leave-one-repository-out, over the kit's commit-history replay.

``memory_eval.py`` (the benchmark kit) replays each repository's history through the real
ranking; it takes minutes per setting.  This tool replays it once without memory, keeping for
every target and keystroke the scores of the paths that could still pass the target once
boosted, then keeps the memory as the store does (``ffind.state.memory``: decayed counts, pairs
of files opened together) and ranks with any prior by the same arithmetic as
``ffind.scoring.recency`` and ``ffind.engine.recall`` (score + boost, a typo match gains none,
ties by length then path; the empty query: remembered first by boost).  A setting costs
seconds, so a grid can be searched and each repository's figure can come from the setting
chosen on the other thirteen.

    python benchmarks/memory_tune.py --data CORPUS --cache /tmp/memtune [--repos a,b]
        [--grid FIELD=v1,v2 ...] [--all] [--check MEMORY_EVAL.json]

Prints keys@1 with memory over without (pooled and per repository), the share of targets made
slower and new files' keys@1 for the shipped prior (``Prior()``: the package's values), every
setting of the grid (``--all``), the best, and the held-out figure (each repository scored with
the setting that is best on the other repositories).  ``--check`` counts the targets whose
keystrokes differ from a ``memory_eval.py --json`` run of the shipped prior (a few do: the store
ages rows out between visits, this tool does not).  The cache holds the memory-free replay of
the checkout that made it: delete it when the ranking changes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import pickle
import sys
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

import ffind
from ffind.scoring import recency
from ffind.state import memory as store

WARM, TARGETS = 200, 150  # as memory_eval.py
WIDEST_BOOST = 96
"""Candidates within this many points below a target are kept: the largest cap a grid may try."""


def load(data: Path, only: set[str]) -> dict[str, tuple[list[str], list[dict]]]:
    repos = {}
    for f in sorted((data / "history").glob("*.json")):
        if only and f.stem not in only:
            continue
        text = (data / "paths" / f"{f.stem}.txt").read_text("utf-8", "surrogateescape")
        paths = [p for p in text.splitlines()
                 if p and not any(part.startswith(".") for part in p.split("/"))]
        repos[f.stem] = (paths, json.loads(f.read_text())["commits"])
    return repos


# --- the replay without memory, once -----------------------------------------------------------

def prepare(paths: list[str], commits: list[dict]) -> dict:
    """Every visit (path id, or -1 for a path not ranked; time; path) and, per target (the visit
    it is asked before), per keystroke, the target's score and the candidates that could pass
    it (their ids, scores, typo flags and whether they win a tie)."""
    index = ffind.Index(paths)
    ids = {p: i for i, p in enumerate(paths)}
    order = np.array(sorted(range(len(paths)), key=lambda i: (len(paths[i]), paths[i])))
    rank_of = np.empty(len(paths), dtype=np.int64)
    rank_of[order] = np.arange(len(paths))  # tie order: shorter, then by path
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def scores(q: str) -> tuple[np.ndarray, np.ndarray]:
        got = cache.get(q)
        if got is None:
            s = np.full(len(paths), -(1 << 30), dtype=np.int64)
            typo = np.zeros(len(paths), dtype=bool)
            for m in index.match(q, limit=0):
                s[ids[m.path]] = m.score
                typo[ids[m.path]] = m.typo
            if len(cache) > 400:
                cache.clear()
            got = cache[q] = (s, typo)
        return got

    empty_first = ids[index.match("", limit=1)[0].path]
    visits, targets = [], []
    budget = TARGETS
    for n, c in enumerate(commits):
        for f in c["files"]:
            if n >= WARM and budget > 0:
                budget -= 1
                name = f.rsplit("/", 1)[-1].lower()
                t = ids.get(f, -1)
                keys = []
                for i in range(1, len(name) + 1):
                    s, typo = scores(name[:i])
                    if t < 0 or s[t] < -(1 << 29):
                        keys.append(None)
                        continue
                    near = np.flatnonzero(s >= s[t] - WIDEST_BOOST)
                    near = near[near != t]
                    keys.append((int(s[t]), bool(typo[t]), near.astype(np.int32),
                                 s[near].astype(np.int32), typo[near],
                                 rank_of[near] < rank_of[t]))
                targets.append({"visit": len(visits), "path": f, "id": t, "len": len(name),
                                "commit": n, "keys": keys})
            visits.append((ids.get(f, -1), float(c["t"]), f))
    return {"paths": paths, "visits": visits, "targets": targets, "empty_first": empty_first}


# --- a prior, as data ------------------------------------------------------------------------

@dataclass(frozen=True)
class Prior:
    """``recency.Prior``'s fields (ranked by ``recency.boosts`` itself) and the store's window
    and partners per visit (kept here as ``ffind.state.memory`` keeps them)."""

    points_per_e: float = recency.SHIPPED.points_per_e
    share_visited: float = recency.SHIPPED.share_visited
    share_neighbour: float = recency.SHIPPED.share_neighbour
    share_together: float = recency.SHIPPED.share_together
    share_elsewhere: float = recency.SHIPPED.share_elsewhere
    folder_files: float = recency.SHIPPED.folder_files
    max_boost: int = recency.SHIPPED.max_boost
    together_window: float = store.TOGETHER_WINDOW
    together_partners: int = store.TOGETHER_PARTNERS

    def ranking(self) -> recency.Prior:
        return recency.Prior(**{f.name: getattr(self, f.name) for f in fields(recency.Prior)})


def together_shares(prior: Prior, rows: dict[int, list[float]],
                   pairs: dict[int, dict[int, list[float]]], now: float,
                   named: dict[int, str]) -> dict[int, float]:
    """``{path: share}``: for each file opened in the last ``together_window`` seconds, the
    files opened within that window of it before, by decayed count, normalised (as the store)."""
    latest = sorted((-last, named[f], f) for f, (_, _, last) in rows.items()
                    if now - prior.together_window <= last <= now)[:store.LATEST_FILES]
    burst = [f for _, _, f in latest]
    opened = set(burst)
    out: dict[int, float] = {}
    counted = 0
    for f in burst:
        row = {q: w * 0.5 ** ((now - last) / store.HALF_LIFE)
               for q, (w, last) in pairs.get(f, {}).items() if q not in opened}
        total = sum(row.values())
        if not total:
            continue
        counted += 1
        for q, v in row.items():
            out[q] = out.get(q, 0.0) + v / total
    return {q: v / counted for q, v in out.items()}


def keys_needed(tgt: dict, b: np.ndarray, empty_first: int, names: list[str]) -> int:
    t = tgt["id"]
    if t >= 0:
        boosted = np.flatnonzero(b > 0)
        if len(boosted):
            top = b[boosted].max()
            best = min(names[i] for i in boosted if b[i] == top)
            if b[t] == top and names[t] == best:
                return 0
        elif empty_first == t:
            return 0
    for i, k in enumerate(tgt["keys"], start=1):
        if k is None:
            continue
        ts, ttypo, near, sc, typo, tie = k
        mine = ts + (0 if ttypo else b[t])
        final = sc + np.where(typo, 0, b[near])
        if not ((final > mine) | ((final == mine) & tie)).any():
            return i
    return tgt["len"] + 3


def replay(prior: Prior | None, prep: dict) -> list[int]:
    """Keystrokes per target under ``prior`` (None: without memory), the memory kept as the
    store keeps it (``ffind.state.memory``: decayed counts, pairs of files opened together)."""
    paths = prep["paths"]
    n = len(paths)
    if prior is None:
        zero = np.zeros(n, dtype=np.int64)
        return [keys_needed(t, zero, prep["empty_first"], paths) for t in prep["targets"]]
    folders: dict[str, list[str]] = {}
    for path in paths:
        folders.setdefault(path.rsplit("/", 1)[0] if "/" in path else "", []).append(path)
    ids = {path: i for i, path in enumerate(paths)}
    ranking = prior.ranking()
    rows: dict[int, list[float]] = {}  # path -> [weight, recent, last]
    pairs: dict[int, dict[int, list[float]]] = {}  # path -> {partner: [weight, last]}
    recent: list[tuple[int, float]] = []
    asked = {t["visit"]: t for t in prep["targets"]}
    out = []
    unlisted: dict[str, int] = {}  # hidden files: remembered, never ranked (ids from n)
    named: dict[int, str] = {}
    for v, (p, t, name) in enumerate(prep["visits"]):
        tgt = asked.get(v)
        if tgt is not None:
            known = {q: (w * 0.5 ** ((t - last) / store.HALF_LIFE),
                         r * 0.5 ** ((t - last) / store.RECENT_HALF_LIFE))
                     for q, (w, r, last) in rows.items() if q < n}
            known = {paths[q]: wr for q, wr in known.items() if wr[0] >= store.MIN_WEIGHT}
            shares = (together_shares(prior, rows, pairs, t, named)
                      if prior.share_together > 0 else {})
            together = {paths[q]: x for q, x in shares.items() if q < n}
            b = np.zeros(n, dtype=np.int64)
            for path, boost in recency.boosts(known, folders, together, ranking).items():
                b[ids[path]] = boost
            out.append(keys_needed(tgt, b, prep["empty_first"], paths))
        if p < 0:
            p = unlisted.setdefault(name, n + len(unlisted))
        named[p] = name
        recent = [(q, tq) for q, tq in recent if tq >= t - prior.together_window]
        latest = {q: tq for q, tq in recent if q != p}  # (the store: ORDER BY last DESC, path)
        partners = sorted(latest, key=lambda q: (-latest[q], named[q]))[:prior.together_partners]
        for q in partners:
            for a, b_ in ((p, q), (q, p)):
                pw = pairs.setdefault(a, {}).get(b_)
                pairs[a][b_] = ([pw[0] * 0.5 ** ((t - pw[1]) / store.HALF_LIFE) + 1, t]
                                if pw else [1.0, t])
        recent.append((p, t))
        r = rows.get(p)
        rows[p] = ([r[0] * 0.5 ** ((t - r[2]) / store.HALF_LIFE) + 1,
                    r[1] * 0.5 ** ((t - r[2]) / store.RECENT_HALF_LIFE) + 1, t]
                   if r else [1.0, 1.0, t])
    return out


# --- reporting ---------------------------------------------------------------------------------

def summary(base: dict[str, list[int]], got: dict[str, list[int]],
            new: dict[str, list[bool]]) -> dict:
    k0 = sum(sum(v) for v in base.values())
    k1 = sum(sum(got[r]) for r in base)
    slower = sum(a > b for r in base for a, b in zip(got[r], base[r], strict=True))
    nn = [(a, f) for r in base for a, f in zip(got[r], new[r], strict=True) if f]
    count = sum(len(v) for v in base.values())
    return {"ratio": k1 / k0, "keys": k1 / count, "slower": slower / count,
            "new_keys": sum(a for a, _ in nn) / max(1, len(nn)),
            "per_repo": {r: sum(got[r]) / max(1, sum(base[r])) for r in base}}


def grid(spec: list[str]) -> list[Prior]:
    axes: dict[str, list[float]] = {}
    for item in spec:
        name, _, values = item.partition("=")
        axes[name] = [float(v) for v in values.split(",")]
    names = list(axes)
    out = []
    for combo in itertools.product(*(axes[k] for k in names)):
        kw = {k: (int(v) if k in ("max_boost", "together_partners") else v)
              for k, v in zip(names, combo, strict=True)}
        out.append(replace(Prior(), **kw))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--cache", required=True, type=Path, help="folder for the prepared replays")
    ap.add_argument("--repos", default="")
    ap.add_argument("--grid", nargs="*", default=[],
                    help="FIELD=v1,v2 ... (fields of Prior); every combination is tried")
    ap.add_argument("--check", help="a memory_eval.py --json file to compare per target")
    ap.add_argument("--all", action="store_true", help="print every setting of the grid")
    a = ap.parse_args()
    repos = load(a.data, {r for r in a.repos.split(",") if r})
    a.cache.mkdir(parents=True, exist_ok=True)
    preps = {}
    for repo, (paths, commits) in repos.items():
        f = a.cache / f"{repo}.pickle"
        if not f.exists():
            print(f"preparing {repo} ({len(paths)} paths)", file=sys.stderr)
            tmp = f.with_suffix(".part")
            tmp.write_bytes(pickle.dumps(prepare(paths, commits)))
            os.replace(tmp, f)
        preps[repo] = pickle.loads(f.read_bytes())
    base = {r: replay(None, p) for r, p in preps.items()}
    new = {r: [tgt["path"] not in {v[2] for v in p["visits"][:tgt["visit"]]}
               for tgt in p["targets"]] for r, p in preps.items()}
    shipped = Prior()
    runs = {shipped: {r: replay(shipped, p) for r, p in preps.items()}}
    if a.check:
        recs = json.loads(Path(a.check).read_text())["records"]["ffind+memory"]
        mine = [k for r in preps for k in runs[shipped][r]]
        theirs = [x["keys1"] if x["keys1"] is not None else x["len"] + 3 for x in recs
                  if x["repo"] in preps]
        diff = sum(x != y for x, y in zip(mine, theirs, strict=True))
        print(f"check: {diff} of {len(mine)} targets differ from {a.check}")
    for prior in grid(a.grid):
        runs[prior] = {r: replay(prior, p) for r, p in preps.items()}
    report(base, runs, new, shipped, a.all)


def report(base: dict, runs: dict, new: dict, shipped: Prior, every: bool) -> None:
    def show(label: str, s: dict) -> None:
        per = " ".join(f"{r} {v:.3f}" for r, v in s["per_repo"].items())
        print(f"{label}: {s['ratio']:.3f}x ({s['keys']:.2f} keys), slower {100 * s['slower']:.1f}%,"
              f" new {s['new_keys']:.2f} | {per}")

    count = sum(len(v) for v in base.values())
    new_base = [k for r in base for k, f in zip(base[r], new[r], strict=True) if f]
    print(f"without memory: {sum(map(sum, base.values())) / count:.2f} keys, new files "
          f"{sum(new_base) / max(1, len(new_base)):.2f}")
    scored = {p: summary(base, g, new) for p, g in runs.items()}
    show("shipped", scored[shipped])
    if every:
        varied = [f.name for f in fields(Prior)
                  if len({getattr(p, f.name) for p in runs}) > 1]
        for p in sorted(scored, key=lambda p: scored[p]["ratio"]):
            show(" ".join(f"{k}={getattr(p, k)}" for k in varied), scored[p])
    best = min(scored, key=lambda p: scored[p]["ratio"])
    print("best:", {f.name: getattr(best, f.name) for f in fields(Prior)})
    show("best", scored[best])
    held: dict[str, list[int]] = {}
    for r in base:
        others = {x: v for x, v in base.items() if x != r}
        pick = min(runs, key=lambda p: summary(others, {x: runs[p][x] for x in others},
                                                {x: new[x] for x in others})["ratio"])
        held[r] = runs[pick][r]
    show("held out", summary(base, held, new))


if __name__ == "__main__":
    main()
