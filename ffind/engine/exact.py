"""The exact score of one path for a whole query (``ExactScorer``).  Several terms are read two ways
and the better kept: every term anywhere (less ``overlap``), or every term but the last against
the folder path and the last anywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ffind.engine.prefilter import anchored_at, boundary_starts, holds, select
from ffind.engine.store import PathStore
from ffind.query import Kind, Query, Term
from ffind.scoring.scorer import fuzzy, substring

V = TypeVar("V")
TermScore = tuple[int, list[int] | None]
Early = dict[int, tuple[int | None, int | None]]
"""Per id, a term's score anywhere and against the folder path (``ExactScorer.early_many``)."""


def kept(store: dict[Any, V], key: Any, make: Callable[[], V], most: int) -> tuple[V, bool]:
    """What ``store`` keeps for ``key`` (an earlier term, the same while the next is typed), made
    when missing, and whether it was; only the ``most`` used last are kept."""
    known = store.pop(key, None)
    made = known is None
    if known is None:
        known = make()
        while len(store) >= most:
            del store[next(iter(store))]
    store[key] = known
    return known, made


class ExactScorer:
    """Exact scores of the paths of one ``PathStore`` with its weights."""

    def __init__(self, store: PathStore) -> None:
        self.store = store
        self.weights = store.weights
        self.early_scores: dict[Term, dict[int, tuple[TermScore | None, int | None]]] = {}
        """Per term before a query's last: per id scored, its score anywhere and against the
        folders (``kept``)."""
        self.early_many: dict[Term, Early] = {}
        """The same scores without positions, as the batch scorer gives them
        (``ffind.engine.exact_many``)."""

    def term_score(
        self, t: Term, i: int, want: bool, dirs_only: bool = False
    ) -> TermScore | None:
        """The score of ``t`` on path ``i`` (and its positions when ``want``), None when it does not
        match; ``dirs_only``: against the folder path, its last folder as the name."""
        store = self.store
        text = store.term_texts(t)[i]
        orig = store.paths[i]
        base = store.base[i]
        if dirs_only:
            if base == 0 or t.kind is Kind.SUFFIX or t.kind is Kind.EQUAL or (
                    t.kind is Kind.BOUNDARY):
                return None
            text, orig = text[:base - 1], orig[:base - 1]
            base = text.rfind("/") + 1
        key = t.key
        w = self.weights
        if t.kind is Kind.FUZZY:
            return fuzzy(key, text, orig, base, want, w)
        if t.kind is Kind.EXACT:
            return substring(key, text, orig, base, want, w=w)
        if t.kind is Kind.BOUNDARY:  # (an exact match, at word boundaries only)
            scored = [substring(key, text, orig, base, want, at=p, w=w)
                      for p in boundary_starts(key, text)]
            return max(scored, key=lambda r: r[0] if r else -1, default=None)
        at = anchored_at(t.kind, key, text)
        return None if at < 0 else substring(key, text, orig, base, want, at=at, w=w)

    def group_score(self, group: tuple[Term, ...], i: int, want: bool) -> TermScore | None:
        """The score of an OR group on path ``i``: its best alternative's (a negated one that
        holds scores 0, without positions), None when none holds."""
        found: TermScore | None = None
        for t in group:
            if t.negate:
                r: TermScore | None = None
                if not holds(t.kind, t.key, self.store.term_texts(t)[i]):
                    r = (0, [] if want else None)
            else:
                r = self.term_score(t, i, want)
            if r is not None and (found is None or r[0] > found[0]):
                found = r
        return found

    def group_scores(self, group: tuple[Term, ...], ids: list[int],
                     bulk: bool) -> list[int | None]:
        """``group_score`` of each id of ``ids`` (its score, None when no alternative holds);
        with ``bulk`` (default weights, numpy loaded), fuzzy alternatives through the batch
        scorer (``fuzzy_many``: ``fuzzy``'s scores, in numpy)."""
        st = self.store
        best: list[int | None] = [None] * len(ids)
        for t in group:
            texts = st.term_texts(t)
            got: list[int | None]
            if t.negate:
                got = [None if holds(t.kind, t.key, texts[i]) else 0 for i in ids]
            elif bulk and t.kind is Kind.FUZZY:
                from ffind.scoring.batch import fuzzy_many

                hit = select(t.kind, t.key, texts, ids)  # (only those scored)
                got = [None] * len(ids)
                at = {i: j for j, i in enumerate(ids)}
                for i, sc in zip(hit, fuzzy_many(t.key, [texts[i] for i in hit],
                                                 [st.paths[i] for i in hit],
                                                 [st.base[i] for i in hit]), strict=True):
                    got[at[i]] = sc
            else:
                got = [r[0] if (r := self.term_score(t, i, False)) is not None else None
                       for i in ids]
            best = [g if b is None or (g is not None and g > b) else b
                    for b, g in zip(best, got, strict=True)]
        return best

    def extended_score(self, q: Query, i: int, hidden_ok: bool) -> int | None:
        """The exact score of path ``i`` for a query with groups: its plain terms' score (as
        ``score`` gives it) plus each group's best alternative's."""
        total = 0
        for g in q.groups:
            r = self.group_score(g, i, False)
            if r is None:
                return None
            total += r[0]
        if not q.positive:
            return total - self.store.penalty(i, hidden_ok)
        plain = self.score(Query(q.raw, q.terms), i, hidden_ok)
        return None if plain is None else plain + total

    def score(self, q: Query, i: int, hidden_ok: bool) -> int | None:
        """The exact score of path ``i`` for query ``q`` (a query with groups: ``extended_score``),
        None when it does not match."""
        total = -self.store.penalty(i, hidden_ok)
        terms = q.positive
        if len(terms) == 1:
            r = self.term_score(terms[0], i, False)
            return None if r is None else total + r[0]
        scores = []
        used: set[int] = set()
        overlap = False
        split: int | None = 0
        last = len(terms) - 1
        for n, t in enumerate(terms):
            if n < last:
                # the same for every ranking while the last term is typed: kept
                known = kept(self.early_scores, t, dict, self.store.tuning.kept)[0]
                got = known.get(i)
                if got is None:
                    r = self.term_score(t, i, True)
                    d = None if r is None else self.term_score(t, i, False, dirs_only=True)
                    got = known[i] = (r, None if d is None else d[0])
                r, dirs = got
                split = None if split is None or dirs is None else split + dirs
            else:
                r = self.term_score(t, i, True)
            if r is None:
                return None
            scores.append(r[0])
            pos = set(r[1] or ())
            overlap = overlap or not used.isdisjoint(pos)
            used |= pos
        best = sum(scores)
        if overlap:
            # Terms share characters (``workspace workspace.rs`` on ``util/workspace.rs``):
            # each term should find its own.
            best -= self.weights.overlap
        if split is not None:
            best = max(best, split + scores[-1])
        return total + best

    def indices(self, q: Query, i: int) -> list[int]:
        """The positions of path ``i`` that the query's terms matched, sorted."""
        out: set[int] = set()
        for t in q.positive:
            r = self.term_score(t, i, True)
            if r is not None and r[1] is not None:
                out.update(r[1])
        for g in q.groups:
            r = self.group_score(g, i, True)
            if r is not None and r[1] is not None:
                out.update(r[1])
        return sorted(out)
