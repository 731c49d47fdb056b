"""The candidate store and the search over it.

API contract used by the session (issue 5) and search (issue 4):

- ``Index(paths)``, ``len(index)``, ``index.paths`` (list, id = position), ``index.extend(paths)``
  (cheap: a few list appends per path).
- ``index.match(query, *, limit=None, compute_indices=False) -> list[FileMatch]``.
- ``index.run(query, *, within=None, start=0, end=None) -> MatchSet``: every match of ``query``
  among ids in ``[start, end)``; with ``within`` (the MatchSet of a query that ``query``
  narrows, see ``MatchSet.can_narrow``) only its ids are considered.
- ``index.top(matchset, limit=None, compute_indices=False) -> list[FileMatch]``: best first.
- ``MatchSet.merge(other)``: the MatchSet of the same query over both id ranges, exactly
  what one ``run`` over the union would give.  ``len(matchset)`` = total match count
  (typo matches included).

How a query is answered (see ``ffind.match`` for the score, ``ffind.rank`` for the order):

1. *Prefilter*, in compiled code: each positive term is looked for in the folded
   (lowercased, accent-stripped) paths; a one-character term with ``in``, longer fuzzy terms
   with rapidfuzz's ``LCSseq`` (a term is a subsequence exactly when its longest common
   subsequence with the path is the whole term).  Case- or accent-sensitive terms and
   negations then refine this superset.  The superset is what a ``MatchSet`` keeps, so a
   longer query narrows it and smart case can fall back to it.
2. *Bounds*: the score of a term can only reach its maximum when the term is a prefix of the
   file name, and every character matched outside the file name loses ``BONUS_NAME``; the
   longest common subsequence of the term and the file name (rapidfuzz again) bounds how
   many characters can be inside it.
3. *Branch and bound* (``ffind.rank``): the exact scorer runs on the best-bounded candidates
   first and stops once ``limit`` scores beat every remaining bound.
4. *Typos*: a single fuzzy term of four or more characters also finds file names (or stems)
   one edit away (rapidfuzz's ``OSA`` distance: a swap of neighbours, a wrong, missing or
   extra letter), when they could reach the top ``limit``.

``top`` (so ``match``, which is ``top(run(q))``) has a fast path for the commonest query, one
plain term, when the MatchSet covers the whole index: file names that start with it are found
through a first-letter table, scored in closed form, and returned at once when ``limit`` of
them beat the bound of everything else.  ``run`` is lazy (it records the query, the ranges and
the computed set it narrows), so a keystroke answered by the fast path never builds the
superset; narrowing filters only the previous set's ids; ``len`` computes the sets (and the
typo pass) only when asked.  The subsequence prefilter and the typo pass go through rapidfuzz's
``cdist`` into a numpy array when numpy is installed (no sort by score), else ``extract``.
"""

from __future__ import annotations

import heapq
import re
import sys
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from ffind.match import (
    BONUS_NAME,
    BONUS_SEP,
    CONTIG_NAME,
    CONTIG_PATH,
    GAP_START,
    HIDDEN,
    LEN_NAME,
    LEN_NAME_CAP,
    MATCH,
    NAME_PREFIX,
    TYPO_STEM,
    WHOLE_DIR,
    WHOLE_NAME,
    WHOLE_PARENT,
    FileMatch,
    dir_extras_max,
    folder_extras,
    fuzzy,
    initials,
    name_prefix_score,
    parent_prefix,
    substring,
    term_max,
    typo_score,
)
from ffind.query import Kind, Query, Term, fold, parse, variant
from ffind.rank import TopK, best, by_bound

TYPO_MIN = 4
"""Shortest term (characters) that gets a typo pass."""
EXACT_BUDGET = 1200
"""Most exact (dynamic programme) scorings per ``top``.  Only very unselective queries
(``s/`` over 100k paths) reach it; the candidates after it, in bound order, are ranked by their
bound less ``CHEAP_SLACK`` per query character instead.  Deterministic for a given candidate
set, so ``limit=k`` stays the prefix of ``limit=None``."""
CHEAP_SLACK = 9
OVERLAP = 120
"""What a several-term query loses when its terms' best placements share characters, unless
the folders-then-file reading does better (``workspace workspace.rs`` prefers
``src/workspace/workspace.rs`` to ``src/util/workspace.rs``)."""
PRECISE_MAX = 20000
"""Most candidates whose bound is refined (LCS with the name, word starts); beyond, the
optimistic bound is kept and ``EXACT_BUDGET`` does the rest."""

Range = tuple[int, int]


def _clip(ranges: Iterable[Range], start: int, end: int) -> list[Range]:
    out = []
    for s, e in ranges:
        s, e = max(s, start), min(e, end)
        if s < e:
            out.append((s, e))
    return out


def _union(a: list[Range], b: list[Range]) -> list[Range]:
    out: list[Range] = []
    for s, e in sorted(a + b):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


_numpy_wanted: bool | None = None


def prefer_numpy(wanted: bool | None = True) -> None:
    """Whether the matcher reads rapidfuzz's ``cdist`` results, unsorted, through numpy.

    Long-lived callers (the session, the MCP server) say True: numpy makes unselective terms
    2-4x cheaper per keystroke.  A one-shot search leaves the default (None: use numpy only
    when something has imported it already), since importing numpy costs more than it saves
    in a single match.  False never uses it (``process.extract`` instead; same results).
    """
    global _numpy_wanted
    _numpy_wanted = wanted


def _numpy() -> Any:
    """The numpy module when it is to be used, else None."""
    if _numpy_wanted is False:
        return None
    np = sys.modules.get("numpy")
    if np is not None or not _numpy_wanted:
        return np
    try:
        import numpy
    except ImportError:  # numpy is a dependency, but the matcher works without it
        return None
    return numpy


def _subsequence_hits(key: str, texts: Sequence[str]) -> list[int]:
    """Positions (ascending) of the ``texts`` that hold ``key`` as a subsequence: their
    longest common subsequence with it is all of it.  rapidfuzz's ``cdist`` into a numpy
    array when numpy is in use (no sorting by score), else ``process.extract``."""
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq

    if not texts:
        return []
    np = _numpy()
    if np is None:
        res = process.extract(key, texts, scorer=LCSseq.similarity, score_cutoff=len(key),
                              limit=None)
        return sorted(r[2] for r in res)
    scores = process.cdist([key], texts, scorer=LCSseq.similarity, score_cutoff=len(key),
                           dtype=np.int32)
    hits: list[int] = np.flatnonzero(scores[0]).tolist()
    return hits


def _typo_term(q: Query) -> Term | None:
    """The term a typo pass is for: a lone fuzzy term of TYPO_MIN+ characters, no ``/``."""
    pos = q.positive
    if len(pos) != 1:
        return None
    t = pos[0]
    if t.kind is not Kind.FUZZY or len(t.text) < TYPO_MIN or "/" in t.text:
        return None
    return t


def _lone_term(q: Query) -> Term | None:
    """The query's only term when it is a plain fuzzy one without ``/``."""
    if len(q.terms) != 1:
        return None
    t = q.terms[0]
    if t.negate or t.kind is not Kind.FUZZY or "/" in t.text:
        return None
    return t


@lru_cache(maxsize=64)
def _aligned_rx(folded_term: str) -> re.Pattern[str]:
    """Matches the *reversed* paths where ``match.name_prefix_at`` holds for a term with
    ``/`` (reversed, the last components come first and ``re.match`` stays anchored)."""
    parts = [re.escape(p[::-1]) for p in reversed(folded_term.split("/"))]
    return re.compile("[^/]*" + "/[^/]*".join(parts) + "(?:/|$)")


class MatchSet:
    """Every match of one query over some id ranges of an ``Index``.

    Keeps the superset a narrower query needs (ids matching every positive term folded), the
    exact matches under the case rules (``strict``) and case-insensitively (``loose``, smart
    case's fallback); typo matches are found lazily over ``ranges``.

    Lazy: ``Index.run`` only records the query, the ranges and the nearest computed set it
    narrows (``hint``); the sets are computed on first use (``Index.top`` when its fast path is
    not enough, ``len``, ``merge`` of unrelated sets), from ``hint`` when there is one.
    """

    def __init__(
        self, index: Index, query: str, ranges: list[Range], superset: list[int] | None,
        strict: list[int] | None = None, loose: list[int] | None = None,
        typos: list[int] | None = None, hint: MatchSet | None = None,
    ) -> None:
        self.index = index
        self.query = query
        self.ranges = ranges
        self._superset = superset
        self._strict = strict
        self._loose = loose
        self._typos = typos
        self._hint = hint
        self._count: int | None = None

    @property
    def computed(self) -> bool:
        return self._superset is not None

    def _compute(self) -> None:
        if self._superset is None:
            sup, self._strict, self._loose = self.index._compute(
                self.query, self.ranges, self._hint)
            self._superset = sup  # last: another thread may be reading ``computed``
            self._hint = None

    @property
    def superset(self) -> list[int]:
        self._compute()
        assert self._superset is not None
        return self._superset

    @property
    def strict(self) -> list[int]:
        self._compute()
        assert self._strict is not None
        return self._strict

    @property
    def loose(self) -> list[int]:
        self._compute()
        assert self._loose is not None
        return self._loose

    @property
    def fallback(self) -> bool:
        """True when the query has capitals but matches nothing case-sensitively."""
        return not self.strict and self.strict is not self.loose and bool(self.loose)

    @property
    def ids(self) -> list[int]:
        """The exact (non-typo) matches, ascending."""
        return self.loose if self.fallback else self.strict

    def typos(self) -> list[int]:
        if self._typos is None:
            self._typos = self.index._typos(self)
        return self._typos

    def __len__(self) -> int:
        if self._count is None:
            ids = self.ids
            n = len(ids)
            if _typo_term(parse(self.query)) is not None:
                typos = self.typos()
                if typos:
                    n += len(set(typos).difference(ids))
            self._count = n
        return self._count

    def can_narrow(self, new_query: str) -> bool:
        """True when ``new_query``'s matches are a subset of this set's superset (typing more
        of a term, or adding a term); False when unsure."""
        from ffind.query import implies

        new = parse(new_query).positive
        return all(any(implies(t2, t1) for t2 in new) for t1 in parse(self.query).positive)

    def merge(self, other: MatchSet) -> MatchSet:
        if (self._superset is None and other._superset is None
                and self._hint is other._hint):
            return MatchSet(self.index, self.query, _union(self.ranges, other.ranges), None,
                            hint=self._hint)

        def cat(a: list[int], b: list[int]) -> list[int]:
            return sorted(a + b) if a and b and a[-1] > b[0] else a + b

        loose_is_strict = self.loose is self.strict and other.loose is other.strict
        strict = cat(self.strict, other.strict)
        typos = (cat(self._typos, other._typos)
                 if self._typos is not None and other._typos is not None else None)
        return MatchSet(
            self.index, self.query, _union(self.ranges, other.ranges),
            cat(self.superset, other.superset), strict,
            strict if loose_is_strict else cat(self.loose, other.loose), typos,
        )


class Index:
    """Paths plus what matching needs: folded forms, file-name offsets, a first-letter table."""

    def __init__(self, paths: Iterable[str] = ()) -> None:
        self.paths: list[str] = []
        self._folded: list[str] = []
        self._base: list[int] = []
        self._names: list[str] = []  # folded file names
        self._hidden: bytearray = bytearray()
        self._first: dict[str, list[int]] = {}
        self._parent_first: dict[str, list[int]] = {}
        self._variants: dict[tuple[bool, bool], list[str]] = {}
        self._stems: list[str] = []
        self._inits: list[str | None] = []
        self._rev: list[str] = []
        self._pen: dict[bool, list[int]] = {False: [], True: []}
        self._pstart: list[int] = []
        self.extend(paths)

    def __len__(self) -> int:
        return len(self.paths)

    def extend(self, paths: Iterable[str]) -> None:
        new = list(paths)
        if not new:
            return
        n0 = len(self.paths)
        self.paths.extend(new)
        folded = [fold(p) for p in new]
        self._folded.extend(folded)
        base = [p.rfind("/") + 1 for p in new]
        self._base.extend(base)
        names = [f[b:] for f, b in zip(folded, base, strict=True)]
        self._names.extend(names)
        self._hidden.extend(p[0] == "." or "/." in p for p in new)
        first = self._first
        for i, nm in enumerate(names, n0):
            c = nm[:1]
            lst = first.get(c)
            if lst is None:
                first[c] = [i]
            else:
                lst.append(i)
        parent_first = self._parent_first
        for i, (f, b) in enumerate(zip(folded, base, strict=True), n0):
            if b:
                c = f[f.rfind("/", 0, b - 1) + 1]
                lst = parent_first.get(c)
                if lst is None:
                    parent_first[c] = [i]
                else:
                    lst.append(i)

    # ------------------------------------------------------------------ texts
    def _texts(self, lower: bool, strip: bool) -> list[str]:
        if lower and strip:
            return self._folded
        if not lower and not strip:
            return self.paths
        lst = self._variants.setdefault((lower, strip), [])
        if len(lst) < len(self.paths):
            lst.extend(variant(p, lower, strip) for p in self.paths[len(lst):])
        return lst

    def _term_texts(self, t: Term) -> list[str]:
        return self._texts(not t.case_sensitive, not t.accent_sensitive)

    def _stem_list(self) -> list[str]:
        st = self._stems
        if len(st) < len(self.paths):
            for nm in self._names[len(st):]:
                d = nm.rfind(".")
                st.append(nm[:d] if d > 0 else nm)
        return st

    # ------------------------------------------------------------------ filtering
    @staticmethod
    def _select(
        kind: Kind, key: str, texts: Sequence[str], ids: Sequence[int], negate: bool = False
    ) -> list[int]:
        if kind is Kind.FUZZY and len(key) > 1 and not negate:
            if isinstance(ids, range) and ids.step == 1:
                off = ids.start
                return [off + j for j in _subsequence_hits(key, texts[ids.start:ids.stop])]
            return [ids[j] for j in _subsequence_hits(key, [texts[i] for i in ids])]
        if kind is Kind.FUZZY or kind is Kind.EXACT:
            if negate:
                return [i for i in ids if key not in texts[i]]
            return [i for i in ids if key in texts[i]]
        if kind is Kind.PREFIX:
            return [i for i in ids if texts[i].startswith(key) is not negate]
        if kind is Kind.SUFFIX:
            return [i for i in ids if texts[i].endswith(key) is not negate]
        return [i for i in ids if (texts[i] == key) is not negate]

    def _refine(self, ids: list[int], q: Query) -> list[int]:
        for t in q.positive:
            if t.case_sensitive or t.accent_sensitive:
                ids = self._select(t.kind, t.key, self._term_texts(t), ids)
        for t in q.negative:
            ids = self._select(t.kind, t.key, self._term_texts(t), ids, negate=True)
        return ids

    def run(
        self, query: str, *, within: MatchSet | None = None, start: int = 0,
        end: int | None = None,
    ) -> MatchSet:
        n = len(self.paths)
        end = n if end is None else min(end, n)
        if within is not None:
            ranges = _clip(within.ranges, start, end)
            hint: MatchSet | None = within if within.computed else within._hint
            if hint is not None and hint is not within and not hint.can_narrow(query):
                hint = None
        else:
            ranges = [(start, end)] if start < end else []
            hint = None
        return MatchSet(self, query, ranges, None, hint=hint)

    def _compute(
        self, query: str, ranges: list[Range], hint: MatchSet | None
    ) -> tuple[list[int], list[int], list[int]]:
        """The superset, strict and loose ids of ``query`` over ``ranges`` (narrowing the
        computed set ``hint`` when given)."""
        q = parse(query)
        cands: list[Sequence[int]]
        if hint is not None:
            sup0 = hint.superset
            if ranges == hint.ranges:
                cands = [sup0]
            else:
                from bisect import bisect_left

                cands = [sup0[bisect_left(sup0, s):bisect_left(sup0, e)] for s, e in ranges]
        else:
            cands = [range(s, e) for s, e in ranges]
        superset: list[int] = []
        for cand in cands:
            sup: Sequence[int] = cand
            for t in sorted(q.positive, key=lambda t: -len(t.text)):
                sup = self._select(t.kind, t.folded, self._folded, sup)
            superset.extend(sup)
        strict = self._refine(superset, q)
        loose = self._refine(superset, q.insensitive()) if q.case_sensitive else strict
        return superset, strict, loose

    def _typos(self, ms: MatchSet) -> list[int]:
        q = parse(ms.query)
        t = _typo_term(q)
        if t is None or not ms.ranges:
            return []
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        key = t.folded
        names = self._names if "." in key else self._stem_list()
        found: list[int] = []
        np = _numpy()
        for s, e in ms.ranges:
            if np is not None:
                d = process.cdist([key], names[s:e], scorer=OSA.distance, score_cutoff=1,
                                  dtype=np.int32)
                found.extend((np.flatnonzero(d[0] == 1) + s).tolist())
                continue
            res = process.extract(key, names[s:e], scorer=OSA.distance, score_cutoff=1,
                                  limit=None)
            found.extend(s + r[2] for r in res if r[1] == 1)
        found.sort()
        return self._refine(found, q.insensitive())

    # ------------------------------------------------------------------ scoring
    def _penalty(self, i: int, hidden_ok: bool) -> int:
        p = LEN_NAME * min(len(self.paths[i]) - self._base[i], LEN_NAME_CAP)
        if self._hidden[i] and not hidden_ok:
            p += HIDDEN
        return p

    def _term_score(
        self, t: Term, i: int, want: bool, dirs_only: bool = False
    ) -> tuple[int, list[int] | None] | None:
        text = self._term_texts(t)[i]
        orig = self.paths[i]
        base = self._base[i]
        if dirs_only:
            if base == 0 or t.kind is Kind.SUFFIX or t.kind is Kind.EQUAL:
                return None
            text, orig = text[:base - 1], orig[:base - 1]
            base = text.rfind("/") + 1
        key = t.key
        if t.kind is Kind.FUZZY:
            return fuzzy(key, text, orig, base, want)
        if t.kind is Kind.EXACT:
            return substring(key, text, orig, base, want)
        if t.kind is Kind.PREFIX or t.kind is Kind.EQUAL:
            return substring(key, text, orig, base, want, at=0)
        return substring(key, text, orig, base, want, at=len(text) - len(key))

    def _score(self, q: Query, i: int, hidden_ok: bool) -> int | None:
        total = -self._penalty(i, hidden_ok)
        terms = q.positive
        if len(terms) == 1:
            r = self._term_score(terms[0], i, False)
            return None if r is None else total + r[0]
        scores = []
        used: set[int] = set()
        overlap = False
        for t in terms:
            r = self._term_score(t, i, True)
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
            best -= OVERLAP
        # The reading "folders, then the file": every term but the last scored against the
        # folder path (its last folder counting as the name), the last one anywhere.
        split = scores[-1]
        for t in terms[:-1]:
            d = self._term_score(t, i, False, dirs_only=True)
            if d is None:
                break
            split += d[0]
        else:
            best = max(best, split)
        return total + best

    def _indices(self, q: Query, i: int) -> list[int]:
        out: set[int] = set()
        for t in q.positive:
            r = self._term_score(t, i, True)
            if r is not None and r[1] is not None:
                out.update(r[1])
        return sorted(out)

    def _typo_indices(self, t: Term, i: int) -> list[int]:
        from rapidfuzz.distance import Levenshtein

        key = t.folded
        target = self._names[i] if "." in key else self._stem_list()[i]
        base = self._base[i]
        out: list[int] = []
        for op in Levenshtein.opcodes(key, target):
            if op.tag == "equal":
                out.extend(range(base + op.dest_start, base + op.dest_end))
        return out

    def _penalties(self, ids: Sequence[int], hidden_ok: bool) -> list[int]:
        pen = self._pen[hidden_ok]
        n = len(self.paths)
        if len(pen) < n:
            base, paths, hidden = self._base, self.paths, self._hidden
            pen.extend(LEN_NAME * min(len(paths[i]) - base[i], LEN_NAME_CAP)
                       + (HIDDEN if hidden[i] and not hidden_ok else 0)
                       for i in range(len(pen), n))
        if isinstance(ids, range) and ids.step == 1:
            return pen[ids.start:ids.stop]
        return [pen[i] for i in ids]

    def _parent_starts(self) -> list[int]:
        """Per id, where its file's folder name starts in the path (-1: no folder)."""
        ps = self._pstart
        if len(ps) < len(self.paths):
            folded, base = self._folded, self._base
            ps.extend(folded[i].rfind("/", 0, base[i] - 1) + 1 if base[i] else -1
                      for i in range(len(ps), len(self.paths)))
        return ps

    def _bounds(
        self, q: Query, ids: list[int], hidden_ok: bool, precise: bool
    ) -> tuple[list[int], list[bool]]:
        """An upper bound of the exact score of each id, and whether it is *optimistic*
        (assumes every character can be in the file name; ``precise`` computes that part with
        rapidfuzz's LCSseq against the file name instead)."""
        names, folded = self._names, self._folded
        total = [-p for p in self._penalties(ids, hidden_ok)]
        flagged = [False] * len(ids)
        for n, t in enumerate(q.positive):
            fq = t.folded
            m = len(fq)
            top = term_max(m)
            if n < len(q.positive) - 1:
                # may score against its folder path (see ``_score``): no file-name bound
                total = [a + top + dir_extras_max(m) for a in total]
                continue
            # not contiguous anywhere: no contiguity or folder extras
            rest = top - NAME_PREFIX - WHOLE_NAME - CONTIG_NAME - BONUS_NAME * m
            in_path = rest + CONTIG_PATH
            in_name = rest + CONTIG_NAME + BONUS_NAME * m
            base = self._base
            if "/" in fq:
                aligned = _aligned_rx(fq).match
                rev = self._reversed()
                bucket = self._aligned_bucket(fq)
                if bucket is None:
                    tb = [top if aligned(rev[i])
                          else in_path + WHOLE_DIR if fq in folded[i] else rest for i in ids]
                else:
                    hit = {i for i in bucket if aligned(rev[i])}
                    tb = [top if i in hit
                          else in_path + WHOLE_DIR if fq in folded[i] else rest for i in ids]
            else:
                # the folder extras need the term as it is inside the folders
                # (bounded inline: a call per id dominated one-letter terms)
                mid = "/" + fq + "/"
                mid1 = mid[1:]
                pst = self._parent_starts()
                pp = parent_prefix(m)
                tb = [(top if names[i].startswith(fq)
                       else in_name if fq in names[i] else in_path if fq in folded[i] else rest)
                      + ((pp + (WHOLE_PARENT if base[i] - 1 - pst[i] == m else 0)
                          if folded[i].startswith(fq, pst[i]) else 0)
                         + (WHOLE_DIR if mid in folded[i] or folded[i].startswith(mid1) else 0)
                         if folded[i].find(fq, 0, base[i]) >= 0 else 0)
                      for i in ids]
            # "loose": not a name prefix and not in the name as it is (never, with a ``/``)
            if "/" in fq:
                is_loose = [b != top for b in tb]
            else:
                is_loose = [b != top and fq not in names[i]
                            for b, i in zip(tb, ids, strict=True)]
            loose = [j for j, f in enumerate(is_loose) if f] if precise else []
            if loose and len(loose) <= PRECISE_MAX:
                from rapidfuzz import process
                from rapidfuzz.distance import LCSseq

                res = process.extract(fq, [names[ids[j]] for j in loose],
                                      scorer=LCSseq.similarity, score_cutoff=1, limit=None)
                for _, v, j in res:
                    tb[loose[j]] += BONUS_NAME * v
                # Scattered placements: c >= m - bigrams chunks, of which at most w (the
                # term's LCS with the characters at word starts) start on a boundary.
                scat = [j for j in loose if fq not in folded[ids[j]]]
                if scat and m > 1:
                    grams = [fq[k:k + 2] for k in range(m - 1)]
                    inits = self._initials([ids[j] for j in scat])
                    wres = process.extract(fq, inits, scorer=LCSseq.similarity,
                                           score_cutoff=1, limit=None)
                    w = [0] * len(scat)
                    for _, v, j in wres:
                        w[j] = v
                    texts = [folded[ids[j]] for j in scat]
                    chunks = [m] * len(scat)
                    for g in grams:
                        chunks = [c - (g in f) for c, f in zip(chunks, texts, strict=True)]
                    for j, wj, c in zip(scat, w, chunks, strict=True):
                        tb[j] -= BONUS_SEP * max(0, c - wj) + GAP_START * max(0, c - 1)
            else:
                bonus = BONUS_NAME * m
                tb = [b + bonus if f else b for b, f in zip(tb, is_loose, strict=True)]
                flagged = is_loose  # only the last term gets here
            total = [a + b for a, b in zip(total, tb, strict=True)]
        return total, flagged

    def _aligned_bucket(self, fq: str) -> Sequence[int] | None:
        """Every id that ``_aligned_rx(fq)`` can match, from the first-letter tables: the file
        name starts with the term's last part, or (that part empty) its folder with the part
        before; None when neither gives a letter."""
        parts = fq.split("/")
        if parts[-1]:
            return self._first.get(parts[-1][0], ())
        if len(parts) >= 2 and parts[-2]:
            return self._parent_first.get(parts[-2][0], ())
        return None

    def _reversed(self) -> list[str]:
        """The folded paths reversed (for terms with ``/``; built on first use)."""
        rev = self._rev
        if len(rev) < len(self.paths):
            rev.extend(f[::-1] for f in self._folded[len(rev):])
        return rev

    def _initials(self, ids: list[int]) -> list[str]:
        """Per id, the folded characters that earn a word-start bonus (cached)."""
        cache = self._inits
        if len(cache) < len(self.paths):
            cache.extend([None] * (len(self.paths) - len(cache)))
        out = []
        for i in ids:
            v = cache[i]
            if v is None:
                v = cache[i] = fold(initials(self.paths[i]))
            out.append(v)
        return out

    def _prefix_scored(self, t: Term, ids: list[int], hidden_ok: bool) -> list[tuple[int, int]]:
        """Exact scores of a lone fuzzy term that is a prefix of each id's file name, in closed
        form (the placement at the name's start is the best one there is)."""
        key = t.key
        m = len(key)
        texts = self._term_texts(t)
        base, paths, hidden = self._base, self.paths, self._hidden
        const = ((MATCH + BONUS_NAME) * m + 2 * BONUS_SEP + BONUS_SEP * (m - 1) + NAME_PREFIX
                 + CONTIG_NAME)
        whole_ok = "." not in key
        scored = []
        for i in ids:
            p = paths[i]
            b = base[i]
            if not p[b].isalnum():
                s = name_prefix_score(key, texts[i], p, b) - self._penalty(i, hidden_ok)
            else:
                end = b + m
                s = (const - min(len(p) - b, LEN_NAME_CAP) * LEN_NAME
                     - (HIDDEN if hidden[i] and not hidden_ok else 0))
                if end == len(p) or (whole_ok and p[end] == "."):
                    s += WHOLE_NAME
            scored.append((s, i))
        # the folder extras, for the few whose folder starts with the term or is it
        pst = self._parent_starts()
        mid = "/" + key + "/"
        mid1 = mid[1:]
        for j in [j for j, i in enumerate(ids) if base[i] and paths[i][base[i]].isalnum() and (
                texts[i].startswith(key, pst[i]) or mid in texts[i]
                or texts[i].startswith(mid1))]:
            s, i = scored[j]
            scored[j] = (s + folder_extras(key, texts[i], base[i]), i)
        return scored

    def top(
        self, ms: MatchSet, limit: int | None = None, compute_indices: bool = False
    ) -> list[FileMatch]:
        if limit is not None and ms.ranges == [(0, len(self.paths))]:
            fast = self._fast(ms, limit, compute_indices)
            if fast is not None:
                return fast
        q = parse(ms.query)
        if ms.fallback:
            q = q.insensitive()
        ids = ms.ids
        if not q.positive:
            chosen = ids if limit is None else ids[:limit]
            return [FileMatch(0, self.paths[i], [] if compute_indices else None)
                    for i in chosen]
        hidden_ok = q.targets_hidden
        topk = TopK(limit)
        pool: list[tuple[int, int]] = []
        lone = _lone_term(q)
        if lone is not None:
            key, texts, base = lone.key, self._term_texts(lone), self._base
            is_p = [texts[i].startswith(key, base[i]) for i in ids]
            pre = [i for i, f in zip(ids, is_p, strict=True) if f]
            pool = self._prefix_scored(lone, pre, hidden_ok)
            for s, _ in pool:
                topk.add(s)
            ids = [i for i, f in zip(ids, is_p, strict=True) if not f]
        budget = [EXACT_BUDGET]
        slack = CHEAP_SLACK * sum(len(t.text) for t in q.positive)
        paths = self.paths

        def tie_key(i: int) -> tuple[int, str]:
            return (len(paths[i]), paths[i])

        def visit(groups: list[tuple[int, list[int]]], stop_at: int | None) -> int:
            """Score groups in order; returns how many groups were consumed."""
            for n, (bound, group) in enumerate(groups):
                if topk.beats(bound) or (stop_at is not None and bound < stop_at):
                    return n
                cheap = group
                if budget[0] > 0:
                    exact, cheap = group[:budget[0]], group[budget[0]:]
                    budget[0] -= len(exact)
                    for i in exact:
                        s = self._score(q, i, hidden_ok)
                        if s is not None:
                            pool.append((s, i))
                            topk.add(s)
                if cheap:
                    s = bound - slack
                    if limit is not None and len(cheap) > limit:
                        # one score for the whole group: only its ``limit`` best by the
                        # tie-breaks can be among the ``limit`` best of all
                        cheap = heapq.nsmallest(limit, cheap, key=tie_key)
                    pool.extend([(s, i) for i in cheap])
                    for _ in cheap:
                        topk.add(s)
            return len(groups)

        bounds, flagged = self._bounds(q, ids, hidden_ok, precise=False)
        opt = [j for j, f in enumerate(flagged) if f]
        u2 = max((bounds[j] for j in opt), default=None)
        sure = [(i, b) for i, b, f in zip(ids, bounds, flagged, strict=True) if not f]
        groups = by_bound([i for i, _ in sure], [b for _, b in sure])
        done = visit(groups, u2)
        if opt and u2 is not None and not topk.beats(u2):
            left = [i for _, g in groups[done:] for i in g]
            lb = [b for b, g in groups[done:] for _ in g]
            oids = [ids[j] for j in opt]
            if len(opt) > PRECISE_MAX:
                ob = [bounds[j] for j in opt]
            else:
                ob, _ = self._bounds(q, oids, hidden_ok, precise=True)
            # grouped, then each group in id order (as grouping the id-sorted pairs would)
            regroup = by_bound(left + oids, lb + ob)
            for _, g in regroup:
                g.sort()
            visit(regroup, None)
        typo_ids: set[int] = set()
        tt = _typo_term(parse(ms.query))
        if tt is not None and not topk.beats(typo_score(len(tt.folded)) - 1):
            ts = typo_score(len(tt.folded))
            # a term without "." is compared with the stems: one edit from a whole name
            # ranks above one edit from the stem of a longer name
            stems_only = "." not in tt.folded
            names = self._names
            have = {i: s for s, i in pool}
            for i in ms.typos():
                s = ts - self._penalty(i, hidden_ok)
                if stems_only and names[i].rfind(".") > 0:
                    s -= TYPO_STEM
                if s > have.get(i, s - 1):
                    typo_ids.add(i)
                    have[i] = s
            pool = [(s, i) for i, s in have.items()]
        return self._results(q, best(pool, self.paths, limit), typo_ids, compute_indices)

    def _results(
        self, q: Query, chosen: list[tuple[int, int]], typo_ids: set[int], ci: bool
    ) -> list[FileMatch]:
        out = []
        tt = _typo_term(q)
        for s, i in chosen:
            typo = i in typo_ids
            idx = None
            if ci:
                idx = (self._typo_indices(tt, i) if typo and tt is not None
                       else self._indices(q, i))
            out.append(FileMatch(s, self.paths[i], idx, typo))
        return out

    def match(
        self, query: str, *, limit: int | None = None, compute_indices: bool = False
    ) -> list[FileMatch]:
        return self.top(self.run(query), limit, compute_indices)

    @staticmethod
    def _holding(key: str, texts: Sequence[str]) -> list[int]:
        """Ids (ascending) of the ``texts`` that contain ``key``: its subsequence hits in
        compiled code, then the substring test on those only."""
        hits = _subsequence_hits(key, texts)
        if len(key) == 1:
            return hits
        return [i for i in hits if key in texts[i]]

    def _fast(self, ms: MatchSet, limit: int, ci: bool) -> list[FileMatch] | None:
        """One plain term: rank in *shells* of decreasing best possible score (see the module
        docstring), stopping once ``limit`` exact scores beat everything outside them."""
        q = parse(ms.query)
        if len(q.terms) != 1 or limit <= 0:
            return None
        t = q.terms[0]
        if t.negate or t.kind is not Kind.FUZZY or "/" in t.text:
            return None
        fq = t.folded
        key = t.key
        texts = self._term_texts(t)
        base, paths, folded = self._base, self.paths, self._folded
        m = len(key)
        hidden_ok = q.targets_hidden
        ids = [i for i in self._first.get(fq[0], ()) if texts[i].startswith(key, base[i])]
        scored = self._prefix_scored(t, ids, hidden_ok)
        topk = TopK(limit)
        for s, _ in scored:
            topk.add(s)
        seen = set(ids)
        # The best a path can score without the term starting its file name: as it is in the
        # name (u_in), only in the folders (u_out), nowhere as it is (scattered); plus the
        # folder extras when a folder is the term (WHOLE_DIR) or the file's folder starts with
        # it (PARENT_PREFIX, WHOLE_PARENT when it is all of it).
        u_in = term_max(m) - NAME_PREFIX - WHOLE_NAME - LEN_NAME
        u_out = u_in - CONTIG_NAME + CONTIG_PATH
        scattered = u_in - CONTIG_NAME
        tt = _typo_term(q)
        if tt is not None:
            scattered = max(scattered, typo_score(len(tt.folded)) - 1)
        pp = parent_prefix(m)
        budget = [EXACT_BUDGET]

        def shell(cands: Iterable[int]) -> bool:
            """Score the new ids of ``cands`` in bound order; False when over budget."""
            new = [i for i in cands if i not in seen]
            if not new:
                return True
            seen.update(new)
            bounds, _ = self._bounds(q, new, hidden_ok, precise=False)
            for bound, group in by_bound(new, bounds):
                if topk.beats(bound):
                    break
                budget[0] -= len(group)
                if budget[0] < 0:  # the full ranking would use cheap scores: let it decide
                    return False
                for i in group:
                    sc = self._score(q, i, hidden_ok)
                    if sc is not None:
                        scored.append((sc, i))
                        topk.add(sc)
            return True

        if not topk.beats(u_in + WHOLE_DIR + pp + WHOLE_PARENT):
            pst = self._parent_starts()
            bucket = self._parent_first.get(fq[0], ())
            if not shell(i for i in bucket
                         if base[i] - 1 - pst[i] == m and folded[i].startswith(fq, pst[i])):
                return None
            if not topk.beats(u_in + WHOLE_DIR + pp) and not shell(i for i in bucket
                         if base[i] - 1 - pst[i] > m and folded[i].startswith(fq, pst[i])):
                return None
        # Further shells are drawn from the query's superset (every path holding the term as a
        # subsequence), which the full ranking reuses if it comes to that.
        if not topk.beats(u_in + WHOLE_DIR):
            mid = "/" + fq + "/"
            mid1 = mid[1:]
            if not shell(i for i in ms.superset
                         if mid in folded[i] or folded[i].startswith(mid1)):
                return None
        names = self._names
        if not topk.beats(u_in) and not shell(i for i in ms.superset if fq in names[i]):
            return None
        if not topk.beats(max(u_out, scattered)):
            return None
        return self._results(q, best(scored, paths, limit), set(), ci)


def match(
    query: str, candidates: Iterable[str], *, limit: int | None = None,
    compute_indices: bool = False,
) -> list[FileMatch]:
    """One call: ``Index(candidates).match(query, ...)``."""
    return Index(candidates).match(query, limit=limit, compute_indices=compute_indices)
