"""The exact scores of many paths at once (``ExactScorer.score``'s, with the batch scorer
``ffind.scoring.batch.fuzzy_many``, numpy), for a query of fuzzy terms.

One term: its batch score less the path's penalty.  Several terms: ``ExactScorer.score`` reads
them two ways (every term anywhere, less ``overlap`` when their best placements share a
character; or the terms before the last against the folder path, the last one anywhere) and
keeps the better.  Only the overlap needs the placements' positions, which the batch scorer
does not give.  Without it, the batch gives an upper bound (``hi``: no overlap), which is the
exact score when no position can be matched by two terms: their keys, folded, share no
character (a position matched by two terms would hold a character whose folded form is in
both: ``test u``, ``src main j``, ``session t``).  Otherwise (``test ut``: ``t`` twice) a path
is scored one by one only when its ``hi`` reaches the ranking's floor (the ``limit``-th score
so far, or ``least``); below it, ``hi`` stands in for the score: it cannot enter the answer,
whatever the exact score under it is.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from ffind.engine.store import PathStore
from ffind.query import Kind, Query, fold

Many = Callable[[list[int], float], list[int | None]]
"""``many(ids, floor)``: per id, its exact score (None when it does not match), or, when that
is below ``floor``, maybe some other value below ``floor``."""


def batchable(q: Query) -> bool:
    """Whether ``scorer`` can score ``q`` in bulk: only fuzzy terms."""
    return bool(q.positive) and all(t.kind is Kind.FUZZY for t in q.positive)


def disjoint(q: Query) -> bool:
    """Whether no character can be matched by two terms of ``q``: their folded keys share no
    character."""
    keys = [set(fold(t.key)) for t in q.positive]
    return all(a.isdisjoint(b) for a, b in combinations(keys, 2))


def scorer(
    store: PathStore, q: Query, hidden_ok: bool, exact: Callable[[int], int | None]
) -> Many:
    """The scores of many ids at once for ``q`` (``batchable``; see ``Many``); ``exact(id)``:
    ``ExactScorer.score`` for the paths whose overlap needs positions."""
    from ffind.scoring.batch import fuzzy_many

    terms = q.positive
    paths, base = store.paths, store.base
    sure = disjoint(q)

    def many(ids: list[int], floor: float) -> list[int | None]:
        if not sure and floor == float("-inf"):  # (nothing to skip: one by one)
            return [exact(i) for i in ids]
        origs = [paths[i] for i in ids]
        bases = [base[i] for i in ids]
        texts_of = [store.term_texts(t) for t in terms]
        anywhere = [fuzzy_many(t.key, [texts[i] for i in ids], origs, bases)
                    for t, texts in zip(terms, texts_of, strict=True)]
        # the folder path of each path with a folder (``term_score(..., dirs_only=True)``)
        inner = [j for j, b in enumerate(bases) if b]
        cut_origs = [origs[j][:bases[j] - 1] for j in inner]
        dirs: list[list[int | None]] = []
        for t, texts in zip(terms[:-1], texts_of[:-1], strict=True):
            cut = [texts[ids[j]][:bases[j] - 1] for j in inner]
            got = fuzzy_many(t.key, cut, cut_origs, [c.rfind("/") + 1 for c in cut])
            per: list[int | None] = [None] * len(ids)
            for j, g in zip(inner, got, strict=True):
                per[j] = g
            dirs.append(per)
        pen = store.penalties(ids, hidden_ok)
        out: list[int | None] = []
        for j, p in enumerate(pen):
            scores = [a[j] for a in anywhere]
            if any(s is None for s in scores):
                out.append(None)
                continue
            best = sum(s for s in scores if s is not None)
            split = [d[j] for d in dirs]
            last = scores[-1]
            if dirs and last is not None and all(s is not None for s in split):
                best = max(best, sum(s for s in split if s is not None) + last)
            hi = best - p
            out.append(hi if sure or hi < floor else exact(ids[j]))
        return out

    return many
