"""The exact scores of many paths at once for fuzzy terms (``ExactScorer.score``'s, from the batch
scorer ``ffind.scoring.batch``).  Without positions the overlap of several terms is unknown, so
the batch gives an upper bound ``hi``: exact when the terms share no folded character; otherwise
a path is scored alone only when ``hi`` reaches the floor (the ``limit``-th score so far),
highest first.  Earlier terms' scores are kept per id between rankings."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

from ffind.engine.exact import Early, kept
from ffind.engine.rank import TopK
from ffind.engine.store import PathStore
from ffind.query import Kind, Query, fold

Many = Callable[[list[int], float, "TopK | None"], list[int | None]]
"""``many(ids, floor, topk)``: per id, its exact score (None: no match), or some value below
``floor`` when the score is; with ``topk``, the floor rises with the scores as they come."""


def batchable(q: Query) -> bool:
    """Whether ``scorer`` can score ``q`` in bulk: only fuzzy terms."""
    return bool(q.positive) and all(t.kind is Kind.FUZZY for t in q.positive)


def disjoint(q: Query) -> bool:
    """Whether no character can be matched by two terms of ``q``: their folded keys share no
    character."""
    keys = [set(fold(t.key)) for t in q.positive]
    return all(a.isdisjoint(b) for a, b in combinations(keys, 2))


def scorer(
    store: PathStore, q: Query, hidden_ok: bool, exact: Callable[[int], int | None],
    early: dict[Any, Early] | None = None,
) -> Many:
    """The scores of many ids at once for ``q`` (see ``Many``); ``exact(id)``: the scalar score for
    paths whose overlap needs positions; ``early``: the earlier terms' kept scores, or None."""
    from ffind.scoring.batch import fuzzy_many

    terms = q.positive
    paths, base = store.paths, store.base
    sure = disjoint(q)

    def many(ids: list[int], floor: float, topk: TopK | None = None) -> list[int | None]:
        if not sure and floor == float("-inf"):  # (nothing to skip: one by one)
            return [exact(i) for i in ids]
        anywhere: list[list[int | None]] = []
        dirs: list[list[int | None]] = []
        for t in terms[:-1]:
            a, d = _before_last(store, early, t, ids)
            anywhere.append(a)
            dirs.append(d)
        final = terms[-1]
        texts = store.term_texts(final)
        anywhere.append(fuzzy_many(final.key, [texts[i] for i in ids],
                                   [paths[i] for i in ids], [base[i] for i in ids]))
        pen = store.penalties(ids, hidden_ok)
        out: list[int | None] = []
        pending: list[int] = []  # (positions whose ``hi`` may not be the score)
        for j, p in enumerate(pen):
            scores = [a[j] for a in anywhere]
            if any(s is None for s in scores):
                out.append(None)
                continue
            best = sum(s for s in scores if s is not None)
            split = [d[j] for d in dirs]
            last = scores[-1]
            whole = False  # (the split reading reaches the one that may lose ``overlap``)
            if dirs and last is not None and all(s is not None for s in split):
                folders = sum(s for s in split if s is not None) + last
                whole = folders >= best
                best = max(best, folders)
            hi = best - p
            if not (sure or whole or hi < floor):
                pending.append(j)
            out.append(hi)
        if pending:
            rescore(ids, out, pending, floor, topk)
        return out

    def rescore(ids: list[int], out: list[int | None], pending: list[int], floor: float,
                topk: TopK | None) -> None:
        """The exact scores of ``pending`` (an upper bound at or above ``floor``), highest first;
        with ``topk``, a bound below its risen floor stands."""
        wait = set(pending)
        local = None
        if topk is not None and topk.k is not None:
            local = topk.copy()
            local.add_many([s for j, s in enumerate(out) if s is not None and j not in wait])
        for j in sorted(pending, key=lambda j: -(out[j] or 0)):
            hi = out[j]
            if local is not None and hi is not None and hi < local.floor():
                continue
            s = out[j] = exact(ids[j])
            if local is not None and s is not None:
                local.add(s)

    return many


def _both(store: PathStore, t: Any, ids: list[int]
          ) -> tuple[list[int | None], list[int | None]]:
    """Per id, the score of ``t`` anywhere and against the folder path (None where it
    does not match, or the path has no folder: ``term_score(..., dirs_only=True)``)."""
    from ffind.scoring.batch import fuzzy_many

    texts, paths, base = store.term_texts(t), store.paths, store.base
    origs = [paths[i] for i in ids]
    bases = [base[i] for i in ids]
    anywhere = fuzzy_many(t.key, [texts[i] for i in ids], origs, bases)
    inner = [j for j, b in enumerate(bases) if b]
    cut = [texts[ids[j]][:bases[j] - 1] for j in inner]
    got = fuzzy_many(t.key, cut, [origs[j][:bases[j] - 1] for j in inner],
                     [c.rfind("/") + 1 for c in cut])
    dirs: list[int | None] = [None] * len(ids)
    for j, g in zip(inner, got, strict=True):
        dirs[j] = g
    return anywhere, dirs

def _before_last(store: PathStore, early: dict[Any, Early] | None, t: Any,
                 ids: list[int]) -> tuple[list[int | None], list[int | None]]:
    """``_both`` for a term before the last, from what ``early`` keeps of it, the ids it
    lacks scored and kept."""
    if early is None:
        return _both(store, t, ids)
    known = kept(early, t, dict, store.tuning.kept)[0]
    new = [i for i in dict.fromkeys(ids) if i not in known]
    if new:
        for i, a, d in zip(new, *_both(store, t, new), strict=True):
            known[i] = (a, d)
    got = [known[i] for i in ids]
    return [g[0] for g in got], [g[1] for g in got]
