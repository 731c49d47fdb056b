"""The exact scores of many paths at once (``ExactScorer.score``'s, with the batch scorer
``ffind.scoring.batch.fuzzy_many``, numpy), for a query of fuzzy terms.

One term: its batch score less the path's penalty.  Several terms: ``ExactScorer.score`` reads
them two ways (every term anywhere, less ``overlap`` when their best placements share a
character; or the terms before the last against the folder path, the last one anywhere) and
keeps the better.  Only the overlap needs the placements' positions, which the batch scorer
does not give; so several terms are batched only when no position can be matched by two of
them: their keys, folded, share no character (a position matched by two terms would hold a
character whose folded form is in both).  ``test u``, ``src main j``, ``session t`` are batched;
``test ut`` (``t`` twice) is scored one path at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from ffind.engine.store import PathStore
from ffind.query import Kind, Query, fold

Many = Callable[[list[int]], list[int | None]]


def batchable(q: Query) -> bool:
    """Whether ``scorer`` can score ``q`` in bulk: only fuzzy terms, whose folded keys share no
    character when there are several."""
    terms = q.positive
    if not terms or any(t.kind is not Kind.FUZZY for t in terms):
        return False
    keys = [set(fold(t.key)) for t in terms]
    return all(a.isdisjoint(b) for a, b in combinations(keys, 2))


def scorer(store: PathStore, q: Query, hidden_ok: bool) -> Many:
    """The exact scores of many ids at once for ``q`` (``batchable``): the same as
    ``ExactScorer.score`` gives one by one (None where a path does not match)."""
    from ffind.scoring.batch import fuzzy_many

    terms = q.positive
    paths, base = store.paths, store.base

    def many(ids: list[int]) -> list[int | None]:
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
            out.append(best - p)
        return out

    return many
