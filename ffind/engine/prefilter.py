"""What can match a query before any score (``Prefilter``, ``select``, ``refine``), and the query
shapes the engine treats specially (``typo_term``, ``lone_term``, ``aligned_rx``).  A fuzzy term
is a subsequence of a folded path exactly when their LCS is the whole term (rapidfuzz)."""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ffind.engine.accel import (
    CHUNK,
    Ids,
    ids_of,
    subsequence_array,
    subsequence_hits,
    subsequence_ids,
)
from ffind.query import Kind, Query, Term, fold, in_order, parse

TYPO_MIN = 4
"""Shortest term (characters) that gets a typo pass."""


def select(
    kind: Kind, key: str, texts: Sequence[str], ids: Sequence[int], negate: bool = False,
    np: Any = None, chunk: int = CHUNK,
) -> Ids:
    """The ``ids`` whose ``texts`` match (or, ``negate``, do not match) a term of ``kind`` and
    ``key``; fuzzy terms through rapidfuzz (``np``: numpy or None).  A list, or ``accel.Ids`` for
    many hits."""
    if negate and kind is Kind.FUZZY and len(key) > 1:  # (``!'foo``: no bulk path for it)
        return [i for i in ids if holds(kind, key, texts[i]) is not negate]
    if kind is Kind.FUZZY and len(key) > 1 and not negate:
        if isinstance(ids, range) and ids.step == 1:
            if np is not None:
                return subsequence_ids(key, texts, np, ids.start, ids.stop, chunk)
            return subsequence_hits(key, texts, np, ids.start, ids.stop, chunk)
        if np is not None and isinstance(ids, array):  # (``Ids``': no int objects made)
            hits = subsequence_array(key, [texts[i] for i in ids], np, chunk=chunk)
            return ids_of(np.frombuffer(ids, np.int32)[hits], np, chunk)
        return [ids[j] for j in subsequence_hits(key, [texts[i] for i in ids], np)]
    if np is not None and isinstance(ids, array):  # (``Ids``': a mask, no int objects)
        keep = np.array(_holds(kind, key, texts, ids, negate), dtype=bool)
        return ids_of(np.frombuffer(ids, np.int32)[keep], np, chunk)
    if kind is Kind.FUZZY or kind is Kind.EXACT:
        if negate:
            return [i for i in ids if key not in texts[i]]
        return [i for i in ids if key in texts[i]]
    return [i for i in ids if holds(kind, key, texts[i]) is not negate]


def _holds(kind: Kind, key: str, texts: Sequence[str], ids: Sequence[int],
           negate: bool) -> list[bool]:
    """Per id of ``ids``, whether its text matches a term of ``kind`` and ``key`` (does not,
    with ``negate``) as ``select`` tests it without rapidfuzz."""
    if kind is Kind.EXACT or (kind is Kind.FUZZY and len(key) == 1):
        return [(key in texts[i]) is not negate for i in ids]
    return [holds(kind, key, texts[i]) is not negate for i in ids]


def anchored_at(kind: Kind, key: str, text: str) -> int:
    """Where a term of ``kind`` (prefix, suffix or equal) and ``key`` matches ``text``, -1 when
    it does not.  As fzf, the anchors skip the text's leading / trailing whitespace unless the
    key itself starts / ends with whitespace (``^foo`` matches `` foo``)."""
    lead = 0 if key[:1].isspace() else len(text) - len(text.lstrip())
    if kind is Kind.PREFIX:
        return lead if text.startswith(key, lead) else -1
    end = len(text) if key[-1:].isspace() else len(text.rstrip())
    if kind is Kind.SUFFIX:
        at = end - len(key)
        return at if at >= 0 and text.startswith(key, at) else -1
    return lead if end - lead == len(key) and text.startswith(key, lead) else -1


def boundary_starts(key: str, text: str) -> list[int]:
    """Where ``key`` occurs in ``text`` with both ends on a word boundary (the text's ends or
    a character that is neither a letter nor a digit: ``-xyz-``, ``/xyz/``, ``_xyz_``)."""
    out = []
    m = len(key)
    p = text.find(key)
    while p >= 0:
        if (p == 0 or not text[p - 1].isalnum()) and (
                p + m == len(text) or not text[p + m].isalnum()):
            out.append(p)
        p = text.find(key, p + 1)
    return out


def holds(kind: Kind, key: str, text: str) -> bool:
    """Whether ``text`` matches a term of ``kind`` and ``key``, path by path."""
    if kind is Kind.FUZZY:
        return in_order(key, text)
    if kind is Kind.EXACT:
        return key in text
    if kind is Kind.BOUNDARY:
        return bool(boundary_starts(key, text))
    return anchored_at(kind, key, text) >= 0


def typo_term(q: Query) -> Term | None:
    """The term a typo pass is for: a lone fuzzy term of TYPO_MIN+ characters, no ``/``."""
    pos = q.positive
    if len(pos) != 1 or q.groups:
        return None
    t = pos[0]
    if t.kind is not Kind.FUZZY or len(t.text) < TYPO_MIN or "/" in t.text:
        return None
    return t


def lone_term(q: Query) -> Term | None:
    """The query's only term when it is a plain fuzzy one without ``/``."""
    if len(q.terms) != 1 or q.groups:
        return None
    t = q.terms[0]
    if t.negate or t.kind is not Kind.FUZZY or "/" in t.text:
        return None
    return t


@lru_cache(maxsize=64)
def aligned_rx(folded_term: str) -> re.Pattern[str]:
    """Matches the *reversed* paths where ``scorer.name_prefix_at`` holds for a term with
    ``/`` (reversed, the last components come first and ``re.match`` stays anchored)."""
    parts = [re.escape(p[::-1]) for p in reversed(folded_term.split("/"))]
    return re.compile("[^/]*" + "/[^/]*".join(parts) + "(?:/|$)")


class Prefilter:
    """``Prefilter(query)(paths)``: the paths ``query`` can match, in order (every one
    ``Index(paths).run(query)`` counts, perhaps a few more), for the walk's workers.  Ranking
    only depends on matching paths, so an index of the kept ones ranks as an index of all.
    Pickles as its query; ``active`` is False without positive terms."""

    def __init__(self, query: str) -> None:
        from rapidfuzz import process
        from rapidfuzz.distance import OSA, LCSseq

        self.query = query
        q = parse(query)
        self._terms = sorted(q.positive, key=lambda t: -len(t.text))
        self.active = bool(self._terms)
        typo = typo_term(q)
        self._typo_key = typo.folded if typo is not None else None
        self._extract = process.extract_iter
        self._lcs = LCSseq.similarity
        self._osa = OSA.distance

    def __reduce__(self) -> tuple[Any, ...]:
        return (Prefilter, (self.query,))

    def __call__(self, paths: list[str]) -> list[str]:
        if not self.active or not paths:
            return paths
        folded = ([p.lower() for p in paths] if "".join(paths).isascii()
                  else [p.lower() if p.isascii() else fold(p) for p in paths])
        first, *rest = self._terms
        key = first.folded
        typo_key = self._typo_key
        near: list[int] = []
        ids: Sequence[int]
        if first.kind is Kind.FUZZY and len(key) > 1:
            m = len(key)
            # The term's longest common subsequence with a path: all of it, a match; one short,
            # the path may hold a name one edit away (a typo match).
            cut = m - 1 if typo_key is not None else m
            hits = []
            for _, score, j in self._extract(key, folded, scorer=self._lcs, score_cutoff=cut):
                if score == m:
                    hits.append(j)
                else:
                    near.append(j)
            ids = hits
        else:
            ids = select(first.kind, key, folded, range(len(folded)))
        for t in rest:
            key = t.folded
            if t.kind is Kind.FUZZY and len(key) > 1 and ids:
                # not select with numpy: a forked worker must not import it
                sub = [folded[j] for j in ids]
                ids = [ids[r[2]] for r in self._extract(key, sub, scorer=self._lcs,
                                                        score_cutoff=len(key))]
            else:
                ids = select(t.kind, key, folded, ids)
        if near and typo_key is not None:
            m = len(typo_key)
            whole = "." in typo_key
            osa = self._osa
            typos = []
            for j in near:
                f = folded[j]
                start = f.rfind("/") + 1
                end = len(f)
                if not whole:  # the stem: up to the last dot, unless the name starts with it
                    dot = f.rfind(".", start + 1)
                    if dot > 0:
                        end = dot
                if m - 1 <= end - start <= m + 1 and osa(typo_key, f[start:end],
                                                         score_cutoff=1) <= 1:
                    typos.append(j)
            if typos:
                ids = sorted([*ids, *typos])
        return [paths[j] for j in ids]
