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

How a query is answered (``scoring.scorer``: the score; ``engine.rank``: the order):

1. *Prefilter*, in compiled code: each positive term is looked for in the folded
   (lowercased, accent-stripped) paths; a one-character term with ``in``, longer fuzzy terms
   with rapidfuzz's ``LCSseq`` (a term is a subsequence exactly when its longest common
   subsequence with the path is the whole term).  Case- or accent-sensitive terms and
   negations then refine this superset.  The superset is what a ``MatchSet`` keeps, so a
   longer query narrows it and smart case can fall back to it.
2. *Bounds*: the score of a term can only reach its maximum when the term is a prefix of the
   file name, and every character matched outside the file name loses ``BONUS_NAME``.
   Bounds are refined in stages, each only for the paths still in reach: the term's longest
   common subsequence with the file name (rapidfuzz again) bounds how many characters can be
   inside it; then ``SEED`` of the best-bounded paths are scored exactly, so the k-th score is
   known; then, for the paths whose bound still reaches it, the chunks a scattered term must
   be split into (``m`` less the term's bigrams found in the path: a gap before each) and how
   many of them can start on a word start (the term's LCS with the path's word starts).
3. *Branch and bound* (``ffind.engine.rank``): the exact scorer runs on groups of equal bound, best
   first, and stops once ``limit`` scores beat every remaining bound.  At most
   ``EXACT_BUDGET`` paths are scored exactly: from the first group that does not fit, paths
   score their bound less ``CHEAP_SLACK`` per query character (a huge group of equal bounds,
   ``s/`` over 100k paths, is then ranked by the tie-breaks).  Every decision depends on the
   path and its candidate set only, never on ``limit``, so ``limit=k`` is the prefix of
   ``limit=None``.
4. *Typos*: a single fuzzy term of four or more characters also finds file names (or stems)
   one edit away (rapidfuzz's ``OSA`` distance: a swap of neighbours, a wrong, missing or
   extra letter; only names within one character of its length are compared), when they
   could reach the top ``limit``.

``top`` (so ``match``, which is ``top(run(q))``) tries first, when the MatchSet covers the
whole index, to answer the commonest queries without the superset:

- one plain term: in *shells* of decreasing best possible score (names that start with it,
  through a first-letter table and scored in closed form; the files whose folder is or starts
  with it, through a table of folder initials; the paths with a folder that is the term; the
  names holding it), each shell split by one cheap test at a time, until ``limit`` exact
  scores beat the best the rest could score;
- one term with ``/``: the paths whose last components it aligns with (each part a prefix of
  its component), which are the full ranking's first groups.

``Prefilter(query)`` is the prefilter alone, for a caller that has the query before the paths
(``search``: the walk's workers apply it, so only candidates reach an index); ``prepare``
computes, batch by batch while that walk goes on, the word starts a scattered term will need.
Nothing in a ranking depends on the order the paths were added in (seeds break ties by path),
so the parallel walk's varying batch order never changes a result.

``run`` is lazy (it records the query, the ranges and the computed set it narrows), so a
keystroke answered that way never builds the superset; narrowing filters only the previous
set's ids; ``len`` computes the sets (and the typo pass) only when asked.  ``warm`` builds
the tables ranking creates on first use, a slice at a time, for an idle caller (the session).
A term before a query's last stays the same while the last is typed (``test u``, ``test ut``,
...): its bound and its exact scores are kept per path between rankings (``_kept``), for the
last few such terms.
The subsequence prefilter, the name refinement and the typo pass go through rapidfuzz's
``cdist`` into a numpy array when numpy is in use, else ``extract_iter`` (no sort by score).
"""

from __future__ import annotations

import contextlib
import heapq
import os
import re
import sys
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any, TypeVar

from ffind.engine.rank import TopK, best, by_bound
from ffind.engine.recall import Recall, VisitSource, rank_with_memory
from ffind.query import Kind, Query, Term, fold, parse, variant
from ffind.scoring.scorer import (
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
    initials_many,
    name_prefix_score,
    parent_prefix,
    substring,
    term_max,
    typo_score,
)

TYPO_MIN = 4
"""Shortest term (characters) that gets a typo pass."""
EXACT_BUDGET = 500
"""Most exact (dynamic programme) scorings per ``top`` (besides ``SEED``), spent on whole
groups of equal bound in bound order.  Only unselective queries (``s/`` over 100k paths) reach
it; from the first group that does not fit, paths are ranked by their bound less
``CHEAP_SLACK`` per query character instead.  Deterministic for a given candidate set, so
``limit=k`` stays the prefix of ``limit=None``."""
CHEAP_SLACK = 9
OVERLAP = 120
"""What a several-term query loses when its terms' best placements share characters, unless
the folders-then-file reading does better (``workspace workspace.rs`` prefers
``src/workspace/workspace.rs`` to ``src/util/workspace.rs``)."""
SEED = 64
"""How many of the best-bounded loose candidates are scored exactly (whatever the limit) before
the costlier refinements of the bounds, which then skip the paths bounded below the k-th."""
EARLY_TERMS = 4
"""How many terms (before a query's last) keep their bounds and exact scores between rankings:
while ``test u`` becomes ``test util``, ``test`` is bounded and scored once per path (an array
of one int per indexed path, 4 MB at 1M paths, and a dict of the paths scored)."""
UNKNOWN = -(1 << 31)  # a bound not computed yet (``Index._early_total``)
V = TypeVar("V")
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
_numpy_earned = False
"""Set once one ``Index`` ranks a second time: repeated matching pays numpy's import back."""
_numpy_lock = threading.Lock()
_numpy_loader: threading.Thread | None = None


def prefer_numpy(wanted: bool | None = True) -> None:
    """Whether the matcher reads rapidfuzz's ``cdist`` results, unsorted, through numpy.

    True: always (the session and the MCP server say so: numpy makes unselective terms 2-4x
    cheaper per keystroke).  None, the default: once something has imported numpy, or once
    an ``Index`` ranks for the second time (a long-lived index pays the import once; a
    one-shot search, which ranks once, never pays it: it costs more than it saves in one
    match).  False: never (``process.extract_iter`` instead; same results).

    The import itself never holds a ranking up: it runs in a thread of its own (40-80 ms,
    which would otherwise delay a picker's first results), and rankings use the plain path
    until it is done (``numpy_ready`` waits for it).
    """
    global _numpy_wanted
    _numpy_wanted = wanted


def _load_numpy() -> None:
    # numpy is a dependency, but the matcher works without it
    with contextlib.suppress(ImportError):
        import numpy  # noqa: F401


def _numpy() -> Any:
    """The numpy module when it is to be used and loaded, else None (starting its import in
    the background when it is wanted)."""
    global _numpy_loader
    if _numpy_wanted is False:
        return None
    loader = _numpy_loader
    if loader is not None:
        return None if loader.is_alive() else sys.modules.get("numpy")
    np = sys.modules.get("numpy")
    if np is not None or not (_numpy_wanted or _numpy_earned):
        return np
    with _numpy_lock:
        if _numpy_loader is None:
            _numpy_loader = threading.Thread(target=_load_numpy, name="ffind-numpy")
            _numpy_loader.start()
    return None


def numpy_ready(timeout: float | None = None) -> bool:
    """Start numpy's import if it is wanted and wait for it; True when numpy is in use."""
    _numpy()
    loader = _numpy_loader
    if loader is not None:
        loader.join(timeout)
    return _numpy() is not None


def _subsequence_hits(key: str, texts: Sequence[str]) -> list[int]:
    """Positions (ascending) of the ``texts`` that hold ``key`` as a subsequence: their
    longest common subsequence with it is all of it.  rapidfuzz's ``cdist`` into a numpy
    array when numpy is in use, else ``process.extract_iter`` (in order, no sorting by score)."""
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq

    if not texts:
        return []
    np = _numpy()
    if np is None:
        return [r[2] for r in process.extract_iter(key, texts, scorer=LCSseq.similarity,
                                                   score_cutoff=len(key))]
    scores = process.cdist([key], texts, scorer=LCSseq.similarity, score_cutoff=len(key),
                           dtype=np.int32)
    hits: list[int] = np.flatnonzero(scores[0]).tolist()
    return hits


def _best_positions(values: list[int], n: int, path_of: Callable[[int], str]) -> list[int]:
    """Positions of the ``n`` highest ``values``, ties by the results' tie-breaks (shorter
    ``path_of(j)`` first, then by path): never by position, which depends on the order the
    paths were added in (a parallel walk's batches interleave differently at every run)."""
    if n <= 0:
        return []
    if len(values) <= n:
        return list(range(len(values)))
    cut = heapq.nlargest(n, values)[-1]
    above = [j for j, v in enumerate(values) if v > cut]
    at = [j for j, v in enumerate(values) if v == cut]
    need = n - len(above)
    if len(at) > need:
        at = heapq.nsmallest(need, at, key=lambda j: (len(path_of(j)), path_of(j)))
    return sorted(above + at, key=lambda j: (-values[j], j))


def _tiers(m: int) -> tuple[int, int, int, int]:
    """The bounds of an ``m``-character term, before folder extras: a prefix of the file name
    (``term_max``), as it is in the name, as it is elsewhere in the path, nowhere as it is (no
    contiguity bonus; a placement in the folders also loses ``BONUS_NAME`` per character)."""
    top = term_max(m)
    rest = top - NAME_PREFIX - WHOLE_NAME - CONTIG_NAME - BONUS_NAME * m
    return top, rest + CONTIG_NAME + BONUS_NAME * m, rest + CONTIG_PATH, rest


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


class Prefilter:
    """``Prefilter(query)(paths)``: the paths that ``query`` can match, in order: every path
    ``Index(paths).run(query)`` counts (folded matches of each positive term, and for a lone
    term of ``TYPO_MIN``+ characters the names one edit away), possibly a few more.

    For a caller that knows the query before it has the paths (``search``: the walk's workers
    drop what cannot match, so only candidates reach the index).  An index of the kept paths
    ranks them exactly as an index of all of them would: a path's score, and every ranking
    decision, depend only on the paths that match.  Built in the parent process (it imports
    rapidfuzz there), it pickles as its query; calling it imports nothing, so a forked worker may.
    ``active`` is False for a query without positive terms (everything can match).
    """

    def __init__(self, query: str) -> None:
        from rapidfuzz import process
        from rapidfuzz.distance import OSA, LCSseq

        self.query = query
        q = parse(query)
        self._terms = sorted(q.positive, key=lambda t: -len(t.text))
        self.active = bool(self._terms)
        typo = _typo_term(q)
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
            ids = Index._select(first.kind, key, folded, range(len(folded)))
        for t in rest:
            key = t.folded
            if t.kind is Kind.FUZZY and len(key) > 1 and ids:
                # not Index._select: it may reach for numpy, which a forked worker must not
                sub = [folded[j] for j in ids]
                ids = [ids[r[2]] for r in self._extract(key, sub, scorer=self._lcs,
                                                        score_cutoff=len(key))]
            else:
                ids = Index._select(t.kind, key, folded, ids)
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



class _Visitor:
    """Branch and bound over groups of candidates sharing an upper bound (``rank.by_bound``).

    Groups are scored exactly (``Index._score``) while they fit in what is left of
    ``EXACT_BUDGET``; the first group that does not fit and every group after it get a cheap
    score (the bound less ``CHEAP_SLACK`` per query character), so a huge group of equal
    bounds (``s/`` over 100k paths) is ranked by the tie-breaks alone.  The budget is spent in
    bound order, so the outcome depends only on the candidate set: ``limit=k`` stays the
    prefix of ``limit=None``.
    """

    def __init__(
        self, index: Index, q: Query, hidden_ok: bool, topk: TopK,
        pool: list[tuple[int, int]], limit: int | None,
    ) -> None:
        self.index = index
        self.q = q
        self.hidden_ok = hidden_ok
        self.topk = topk
        self.pool = pool
        self.limit = limit
        self.budget = EXACT_BUDGET
        self.slack = CHEAP_SLACK * sum(len(t.text) for t in q.positive)

    def visit(self, groups: list[tuple[int, list[int]]], stop_at: int | None) -> int:
        """Score groups in order until the rest cannot compete (or their bound is below
        ``stop_at``); returns how many groups were consumed."""
        topk, pool, score = self.topk, self.pool, self.index._score
        q, hidden_ok, limit = self.q, self.hidden_ok, self.limit
        for n, (bound, group) in enumerate(groups):
            if topk.beats(bound) or (stop_at is not None and bound < stop_at):
                return n
            if len(group) <= self.budget:
                self.budget -= len(group)
                for i in group:
                    s = score(q, i, hidden_ok)
                    if s is not None:
                        pool.append((s, i))
                        topk.add(s)
                continue
            self.budget = 0
            s = bound - self.slack
            cheap = group
            if limit is not None and len(cheap) > limit:
                # one score for the whole group: only its ``limit`` best by the tie-breaks
                # can be among the ``limit`` best of all
                cheap = self.index._first_by_ties(cheap, limit)
            pool.extend([(s, i) for i in cheap])
            for _ in cheap:
                topk.add(s)
        return len(groups)

    def visit_exact(self, groups: list[tuple[int, list[int]]]) -> bool:
        """Score groups exactly, in order, until the rest cannot compete; False (and nothing
        of the group scored) at the first group that does not fit in the budget: the full
        ranking would give it cheap scores, so a shortcut must leave the answer to it."""
        for bound, group in groups:
            if self.topk.beats(bound):
                break
            if len(group) > self.budget:
                return False
            self.visit([(bound, group)], None)
        return True


class Index:
    """Paths plus what matching needs: folded forms, file-name offsets, a first-letter table."""

    def __init__(self, paths: Iterable[str] = ()) -> None:
        self.paths: list[str] = []
        self._folded: list[str] = []
        self._base: list[int] = []
        self._names: list[str] = []  # folded file names
        self._hidden: bytearray = bytearray()
        self._any_hidden = False
        self._first: dict[str, list[int]] = {}
        self._parent_first: dict[str, list[int]] = {}
        self._variants: dict[tuple[bool, bool], list[str]] = {}
        self._stems: list[str] = []
        self._inits: list[str | None] = []
        self._rev: list[str] = []
        self._pen: dict[bool, list[int]] = {False: [], True: []}
        self._pstart: list[int] = []  # where each file's folder name starts (-1: none)
        self._lens: dict[bool, Any] = {}
        self._ranked = 0
        self._warm_inits = 0  # ``warm`` computed the word starts of ids below this
        self._prepared: dict[str, int] = {}  # per term: file names holding it (``prepare``)
        # kept for the terms before a query's last (``_kept``), oldest first
        self._early_bounds: dict[str, array[int]] = {}
        self._early_scores: dict[Term, dict[int, tuple[Any, int | None]]] = {}
        self._recall: Recall | None = None  # ranking with memory (``match(memory=...)``)
        self.extend(paths)

    def __len__(self) -> int:
        return len(self.paths)

    def extend(self, paths: Iterable[str]) -> None:
        new = list(paths)
        if not new:
            return
        n0 = len(self.paths)
        self.paths.extend(new)
        joined = "\n".join(new)
        # fold() inline when every path is ASCII (the common case): no call per path
        folded = ([p.lower() for p in new] if joined.isascii()
                  else [p.lower() if p.isascii() else fold(p) for p in new])
        self._folded.extend(folded)
        base = [p.rfind("/") + 1 for p in new]
        self._base.extend(base)
        names = [f[b:] for f, b in zip(folded, base, strict=True)]
        self._names.extend(names)
        if "/." in joined or joined.startswith(".") or "\n." in joined:
            self._hidden.extend(p[0] == "." or "/." in p for p in new)
            self._any_hidden = True
        else:  # no hidden path in the batch (the default walk skips them)
            self._hidden.extend(bytes(len(new)))
        first = self._first
        for i, nm in enumerate(names, n0):
            c = nm[:1]
            lst = first.get(c)
            if lst is None:
                first[c] = [i]
            else:
                lst.append(i)
        parent_first = self._parent_first
        pstart = self._pstart
        for i, (f, b) in enumerate(zip(folded, base, strict=True), n0):
            if b:
                ps = f.rfind("/", 0, b - 1) + 1
                pstart.append(ps)
                c = f[ps]
                lst = parent_first.get(c)
                if lst is None:
                    parent_first[c] = [i]
                else:
                    lst.append(i)
            else:
                pstart.append(-1)

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

    def _stem_list(self, upto: int | None = None) -> list[str]:
        st = self._stems
        n = len(self.paths) if upto is None else upto
        if len(st) < n:
            names = self._names[len(st):n]
            # the stem is what comes before the last dot, unless it starts the name (.env)
            parts = map(str.rpartition, names, ["."] * len(names))
            st.extend(h or nm for nm, (h, _, _) in zip(names, parts, strict=True))
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

    def _lengths(self, whole: bool) -> Any:
        """The length of every file name (``whole``) or stem, as a numpy array (cached)."""
        np = _numpy()
        arr = self._lens.get(whole)
        n = len(self.paths)
        if arr is None or len(arr) < n:
            texts = self._names if whole else self._stem_list(n)
            have = 0 if arr is None else len(arr)
            more = np.fromiter(map(len, texts[have:n]), dtype=np.int32, count=n - have)
            arr = more if arr is None else np.concatenate([arr, more])
            self._lens[whole] = arr
        return arr

    def _typos(self, ms: MatchSet) -> list[int]:
        q = parse(ms.query)
        t = _typo_term(q)
        if t is None or not ms.ranges:
            return []
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        key = t.folded
        whole = "." in key
        names = self._names if whole else self._stem_list()
        found: list[int] = []
        np = _numpy()
        m = len(key)
        for s, e in ms.ranges:
            if np is not None:
                # one edit changes the length by one at most: only those names are compared
                lens = self._lengths(whole)[s:e]
                near = (np.flatnonzero((lens >= m - 1) & (lens <= m + 1)) + s).tolist()
                d = process.cdist([key], [names[i] for i in near], scorer=OSA.distance,
                                  score_cutoff=1, dtype=np.int32)
                found.extend(near[j] for j in np.flatnonzero(d[0] == 1).tolist())
                continue
            res = process.extract_iter(key, names[s:e], scorer=OSA.distance, score_cutoff=1)
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
        # The reading "folders, then the file": every term but the last scored against the
        # folder path (its last folder counting as the name), the last one anywhere.
        split: int | None = 0
        last = len(terms) - 1
        for n, t in enumerate(terms):
            if n < last:
                # the same for every ranking while the last term is typed: kept (``_kept``)
                known = self._kept(self._early_scores, t, dict)[0]
                got = known.get(i)
                if got is None:
                    r = self._term_score(t, i, True)
                    d = None if r is None else self._term_score(t, i, False, dirs_only=True)
                    got = known[i] = (r, None if d is None else d[0])
                r, dirs = got
                split = None if split is None or dirs is None else split + dirs
            else:
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
        if split is not None:
            best = max(best, split + scores[-1])
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

    def _penalties(
        self, ids: Sequence[int], hidden_ok: bool, upto: int | None = None
    ) -> list[int]:
        if not LEN_NAME and (hidden_ok or not self._any_hidden):
            return [0] * len(ids)
        pen = self._pen[hidden_ok]
        n = len(self.paths) if upto is None else upto
        if len(pen) < n:
            base, paths, hidden = self._base, self.paths, self._hidden
            if LEN_NAME:
                pen.extend(LEN_NAME * min(len(paths[i]) - base[i], LEN_NAME_CAP)
                           + (HIDDEN if hidden[i] and not hidden_ok else 0)
                           for i in range(len(pen), n))
            elif hidden_ok or not any(hidden[len(pen):n]):
                pen.extend([0] * (n - len(pen)))
            else:
                pen.extend([HIDDEN * h for h in hidden[len(pen):n]])
        if isinstance(ids, range) and ids.step == 1:
            return pen[ids.start:ids.stop]
        return [pen[i] for i in ids]

    @staticmethod
    def _kept(store: dict[Any, V], key: Any, make: Callable[[], V]) -> tuple[V, bool]:
        """What ``store`` keeps for ``key`` (a term before a query's last, which stays the same
        while the next one is typed: ``test u``, ``test ut``, ...), made when missing, and
        whether it was; only the ``EARLY_TERMS`` used last are kept.  A path's entry never
        changes, so paths added in between change nothing."""
        known = store.pop(key, None)
        made = known is None
        if known is None:
            known = make()
            while len(store) >= EARLY_TERMS:
                del store[next(iter(store))]
        store[key] = known
        return known, made

    def _early_total(self, q: Query, ids: list[int], hidden_ok: bool) -> list[int]:
        """Per id: the bounds of every term but the last, less the path's penalty.

        Each of those terms is scored anywhere, or against the folder path with the file's
        folder as the name (see ``_score``): no file-name bound; but a term that is nowhere
        contiguous gets no prefix, whole-name, contiguity or folder bonus in either reading
        (unless it has a ``/``, which may align with the folders instead)."""
        names, folded, base = self._names, self._folded, self._base
        total = [-p for p in self._penalties(ids, hidden_ok)]
        for t in q.positive[:-1]:
            fq = t.folded
            m = len(fq)
            top, in_name, in_path, rest = _tiers(m)
            extra = dir_extras_max(m)
            most = top + extra
            if "/" in fq:
                total = [a + most for a in total]
                continue
            # its bound per path, kept between rankings (``_kept``): computed for new ids only
            known, made = self._kept(self._early_bounds, fq, lambda: array("i"))
            if len(known) < len(self.paths):
                known.extend(array("i", [UNKNOWN]) * (len(self.paths) - len(known)))
            new = ids if made else [i for i in ids if known[i] == UNKNOWN]
            if new:
                tbn = [most if fq in folded[i] else rest + BONUS_NAME * m for i in new]
                # where it is contiguous: a prefix of the file name or of its folder's name,
                # inside one of them, or elsewhere; the folder extras only when it is inside
                # the folders
                pst = self._pstart
                for j in [j for j, v in enumerate(tbn) if v == most]:
                    i = new[j]
                    f, b, nm, ps = folded[i], base[i], names[i], pst[i]
                    if nm.startswith(fq) or (ps >= 0 and b - 1 - ps >= m
                                             and f.startswith(fq, ps)):
                        v = top
                    elif fq in nm or (ps >= 0 and f.find(fq, ps, b - 1) >= 0):
                        v = in_name
                    else:
                        v = in_path + BONUS_NAME * m
                    tbn[j] = v + (extra if f.find(fq, 0, b) >= 0 else 0)
                for i, v in zip(new, tbn, strict=True):
                    known[i] = v
                if new is ids:
                    total = [a + v for a, v in zip(total, tbn, strict=True)]
                    continue
            total = [a + known[i] for a, i in zip(total, ids, strict=True)]
        return total

    def _bounds(
        self, q: Query, ids: list[int], hidden_ok: bool
    ) -> tuple[list[int], list[bool]]:
        """An upper bound of the exact score of each id, and whether it is *optimistic*
        (assumes every character can be in the file name; ``_tighten`` computes that part
        with rapidfuzz's LCSseq against the file name instead)."""
        names, folded, base = self._names, self._folded, self._base
        total = self._early_total(q, ids, hidden_ok)
        fq = q.positive[-1].folded
        m = len(fq)
        top, in_name, in_path, rest = _tiers(m)
        if "/" in fq:
            aligned = _aligned_rx(fq).match
            rev = self._reversed()
            bucket = self._aligned_bucket(fq)
            if bucket is None:
                hit = {i for i in ids if aligned(rev[i])}
            else:
                hit = {i for i in bucket if aligned(rev[i])}
            # not aligned: loose (every character could be in the file name)
            bonus = BONUS_NAME * m
            contig, other = in_path + WHOLE_DIR + bonus, rest + bonus
            total = [a + (top if i in hit else contig if fq in folded[i] else other)
                     for a, i in zip(total, ids, strict=True)]
            return total, [i not in hit for i in ids]
        # the folder extras need the term as it is inside the folders
        # (bounded inline: a call per id dominated one-letter terms)
        mid = "/" + fq + "/"
        mid1 = mid[1:]
        pst = self._pstart
        pp = parent_prefix(m)
        tb = [rest] * len(ids)  # nowhere as it is: no extra
        # "loose" (flagged): not in the file name as it is
        flagged = [True] * len(ids)
        # (one character is in every candidate as it is)
        where = (range(len(ids)) if m == 1
                 else [j for j, i in enumerate(ids) if fq in folded[i]])
        for j in where:
            i = ids[j]
            f, b = folded[i], base[i]
            if f.find(fq, 0, b) < 0:  # only in the file name
                tb[j] = top if names[i].startswith(fq) else in_name
                flagged[j] = False
                continue
            nm = names[i]
            if nm.startswith(fq):
                v = top
                flagged[j] = False
            elif fq in nm:
                v = in_name
                flagged[j] = False
            else:
                v = in_path
            ps = pst[i]
            if f.startswith(fq, ps):
                v += pp + (WHOLE_PARENT if b - 1 - ps == m else 0)
            if mid in f or f.startswith(mid1):
                v += WHOLE_DIR
            tb[j] = v
        bonus = BONUS_NAME * m
        total = [a + (b + bonus if f else b)
                 for a, b, f in zip(total, tb, flagged, strict=True)]
        return total, flagged

    def _fast_aligned(
        self, ms: MatchSet, q: Query, t: Term, limit: int, ci: bool
    ) -> list[FileMatch] | None:
        """One fuzzy term with ``/``: the paths whose last components it aligns with (each
        part a prefix of its component, see ``match.name_prefix_at``) are the full ranking's
        first groups (bound ``term_max``); when they fill ``limit`` above every other path's
        bound, the rest of the index is never looked at."""
        if t.case_sensitive or t.accent_sensitive:
            return None
        fq = t.folded
        bucket = self._aligned_bucket(fq)
        if bucket is None:
            return None
        aligned, rev = _aligned_rx(fq).match, self._reversed()
        ids = [i for i in bucket if aligned(rev[i])]
        m = len(fq)
        top, _, in_path, _ = _tiers(m)
        # what ``_bounds`` gives a path that is not aligned, at most
        others = in_path + WHOLE_DIR + BONUS_NAME * m
        hidden_ok = q.targets_hidden
        topk = TopK(limit)
        pool: list[tuple[int, int]] = []
        bounds = [top - p for p in self._penalties(ids, hidden_ok)]
        visitor = _Visitor(self, q, hidden_ok, topk, pool, limit)
        visitor.visit(by_bound(ids, bounds), None)
        if not topk.beats(others):
            # then the paths holding the term as it is elsewhere; the others' bound is lower
            # (and must be beaten too: without that, the full ranking is needed anyway)
            if visitor.budget == 0 or not topk.beats(others - CONTIG_PATH - WHOLE_DIR):
                return None
            al = set(ids)
            folded = self._folded
            contig = [i for i in ms.superset if fq in folded[i] and i not in al]
            cb, cf = self._bounds(q, contig, hidden_ok)
            loose = [j for j, f in enumerate(cf) if f]
            lids = [contig[j] for j in loose]
            chunks = self._chunks(q, lids)
            tight = self._tighten_starts(q, lids, self._tighten_gaps(
                self._tighten_name(q, lids, [cb[j] for j in loose]), chunks), chunks)
            for j, b in zip(loose, tight, strict=True):
                cb[j] = b
            if not visitor.visit_exact(by_bound(contig, cb)):
                return None
            if not topk.beats(others - CONTIG_PATH - WHOLE_DIR):
                return None
        return self._results(q, best(pool, self.paths, limit), set(), ci)

    def _tighten_name(self, q: Query, ids: list[int], bounds: list[int]) -> list[int]:
        """Optimistic ``_bounds`` (every character in the file name) made precise on that
        point: only the term's LCS with the file name (rapidfuzz) can be in it."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        fq = q.positive[-1].folded
        m = len(fq)
        names = self._names
        texts = [names[i] for i in ids]
        np = _numpy()
        if np is not None and texts:
            v = process.cdist([fq], texts, scorer=LCSseq.similarity, dtype=np.int32)[0]
            arr = np.asarray(bounds, dtype=np.int64) + BONUS_NAME * (v - m)
            out: list[int] = arr.tolist()
            return out
        out = [b - BONUS_NAME * m for b in bounds]
        res = process.extract_iter(fq, texts, scorer=LCSseq.similarity, score_cutoff=1)
        for _, v, j in res:
            out[j] += BONUS_NAME * v
        return out

    def _chunks(self, q: Query, ids: list[int]) -> list[int]:
        """Per id, how many chunks the last term must at least be split into there
        (``m - bigrams`` found), or 0 when it is contiguous somewhere (or one character)."""
        fq = q.positive[-1].folded
        m = len(fq)
        folded = self._folded
        if m < 2:
            return [0] * len(ids)
        texts = [folded[i] for i in ids]
        chunks = [0 if fq in f else m for f in texts]
        for k in range(m - 1):
            g = fq[k:k + 2]
            chunks = [c - (g in f) if c else 0 for c, f in zip(chunks, texts, strict=True)]
        return chunks

    def _tighten_gaps(self, bounds: list[int], chunks: list[int]) -> list[int]:
        """Each chunk after the first starts after a gap: ``GAP_START`` less."""
        return [b - GAP_START * (c - 1) if c > 1 else b
                for b, c in zip(bounds, chunks, strict=True)]

    def _tighten_starts(
        self, q: Query, ids: list[int], bounds: list[int], chunks: list[int]
    ) -> list[int]:
        """Of ``c`` chunks at most ``w`` (the term's LCS with the characters at word starts,
        rapidfuzz) start on a boundary: ``BONUS_SEP`` less for each other one."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        fq = q.positive[-1].folded
        out = list(bounds)
        scat = [j for j, c in enumerate(chunks) if c]
        if scat:
            inits = self._initials([ids[j] for j in scat])
            w = [0] * len(scat)
            for _, v, j in process.extract_iter(fq, inits, scorer=LCSseq.similarity,
                                                score_cutoff=1):
                w[j] = v
            for j, wj in zip(scat, w, strict=True):
                out[j] -= BONUS_SEP * max(0, chunks[j] - wj)
        return out

    def warm(self, step: int = 4096) -> Iterator[None]:
        """Compute, ``step`` paths at a time, the tables a ranking builds on first use
        (numpy's import when it is wanted, stems, reversed paths, penalties, name lengths,
        word starts), so that an idle caller (the session, between batches of its walk and
        after it) can prepare them before a keystroke needs them.  A generator: each step
        takes a few milliseconds, and it ends once every path indexed so far is covered (a
        new one picks up where it ended)."""
        _numpy()
        yield
        while True:
            n = len(self.paths)
            have = len(self._rev)
            if have < n:
                upto = min(have + step, n)
                self._stem_list(upto)
                self._reversed(upto)
                self._penalties(range(0), False, upto)
                self._penalties(range(0), True, upto)
                yield
            elif _numpy() is not None and any(
                    len(self._lens.get(whole, ())) < n for whole in (False, True)):
                # once, over every path: numpy arrays grow by copying, not a slice at a time
                self._lengths(False)
                self._lengths(True)
                yield
            elif self._warm_inits < n:
                upto = min(self._warm_inits + step, n)
                self._initials(list(range(self._warm_inits, upto)))
                self._warm_inits = upto
                yield
            else:
                return

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

    def _reversed(self, upto: int | None = None) -> list[str]:
        """The folded paths reversed (for terms with ``/``; built on first use)."""
        rev = self._rev
        n = len(self.paths) if upto is None else upto
        if len(rev) < n:
            rev.extend(f[::-1] for f in self._folded[len(rev):n])
        return rev

    def prepare(self, query: str, start: int, limit: int | None) -> None:
        """Work ahead, for a ranking of ``query`` that is to follow, on the ids from ``start``
        (``search`` calls it for each batch of its walk, while the main process would otherwise
        wait).  A lone plain term that fewer than ``limit`` file names hold so far is likely to
        be ranked by its scattered matches (the shortcut of ``top`` will not do), whose bounds
        need every candidate's word starts: they are computed now."""
        t = _lone_term(parse(query))
        if t is None or limit is None or len(t.folded) < 2:
            return
        key = t.folded
        names = self._names
        seen = self._prepared.get(key, 0)
        if seen >= limit:
            return
        end = len(self.paths)
        seen += sum(1 for j in range(start, end) if key in names[j])
        self._prepared[key] = seen
        if seen < limit:
            self._initials(list(range(start, end)))

    def _initials(self, ids: list[int]) -> list[str]:
        """Per id, the folded characters that earn a word-start bonus (cached)."""
        cache = self._inits
        if len(cache) < len(self.paths):
            cache.extend([None] * (len(self.paths) - len(cache)))
        paths = self.paths
        missing = [i for i in ids if cache[i] is None]
        if missing:
            for i, v in zip(missing, initials_many([paths[i] for i in missing]), strict=True):
                cache[i] = v if v.isascii() else fold(v)
        return [cache[i] for i in ids]  # type: ignore[misc]

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
        pst = self._pstart
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
        global _numpy_earned
        if not _numpy_earned:
            self._ranked += 1
            _numpy_earned = self._ranked > 1
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
        walker = _Visitor(self, q, hidden_ok, topk, pool, limit)
        visit = walker.visit

        bounds, flagged = self._bounds(q, ids, hidden_ok)
        opt = [j for j, f in enumerate(flagged) if f]
        u2 = max(map(bounds.__getitem__, opt), default=None)
        if len(opt) == len(ids):
            groups = []
        else:
            sure = [j for j, f in enumerate(flagged) if not f]
            groups = by_bound([ids[j] for j in sure], [bounds[j] for j in sure])
        done = visit(groups, u2)
        if opt and u2 is not None and not topk.beats(u2):
            oids = [ids[j] for j in opt]
            ob = [bounds[j] for j in opt]
            ob = self._tighten_name(q, oids, ob)
            # Seed: the exact scores of the SEED best-bounded first (whatever the limit, and
            # outside the budget), so the k-th score is known before the costlier refinements
            # (chunks, word starts), which then skip every path bounded below it.
            seed = _best_positions(ob, SEED, lambda j: self.paths[oids[j]])
            for j in seed:
                sc = self._score(q, oids[j], hidden_ok)
                if sc is not None:
                    pool.append((sc, oids[j]))
                    topk.add(sc)
            seeded = set(seed)
            # only bounds that can still reach the top ``limit`` matter
            floor = topk.floor()
            left = [i for b, g in groups[done:] if b >= floor for i in g]
            lb = [b for b, g in groups[done:] if b >= floor for _ in g]
            keep = [j for j, b in enumerate(ob) if b >= floor and j not in seeded]
            oids, ob = [oids[j] for j in keep], [ob[j] for j in keep]
            chunks = self._chunks(q, oids)
            ob = self._tighten_gaps(ob, chunks)
            keep = [j for j, b in enumerate(ob) if b >= floor]
            oids, ob, chunks = ([oids[j] for j in keep], [ob[j] for j in keep],
                                [chunks[j] for j in keep])
            ob = self._tighten_starts(q, oids, ob, chunks)
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

    def _first_by_ties(self, ids: list[int], limit: int) -> list[int]:
        """The ``limit`` first of ``ids`` by the tie-breaks (shorter path, then path)."""
        paths = self.paths
        lens = [len(paths[i]) for i in ids]
        cut = heapq.nsmallest(limit, lens)[-1]
        near = [i for i, n in zip(ids, lens, strict=True) if n <= cut]
        return heapq.nsmallest(limit, near, key=lambda i: (len(paths[i]), paths[i]))

    def match(
        self, query: str, *, limit: int | None = None, compute_indices: bool = False,
        memory: VisitSource | None = None, root: str | os.PathLike[str] | None = None,
        now: float | None = None,
    ) -> list[FileMatch]:
        """The ranking of ``query``, best first, at most ``limit``.

        With ``memory`` (an ``ffind.Memory``), remembered paths and their neighbours gain a
        bounded boost (``ffind.engine.recall``); ``root`` is the absolute folder the index's
        paths are relative to (default: the working directory), ``now`` the time recency is
        judged at (default: now).  Without it the ranking is the memory-free one."""
        if memory is not None:
            if self._recall is None:
                self._recall = Recall(Index)
            base = os.path.abspath(os.getcwd() if root is None else os.fspath(root))
            ms = self.run(query)
            return rank_with_memory(
                self._recall, self.paths, query,
                lambda k: self.top(ms, k, compute_indices), limit=limit,
                compute_indices=compute_indices, memory=memory, root=base, now=now)
        return self.top(self.run(query), limit, compute_indices)

    def _fast(self, ms: MatchSet, limit: int, ci: bool) -> list[FileMatch] | None:
        """One plain term: rank in *shells* of decreasing best possible score (see the module
        docstring), stopping once ``limit`` exact scores beat everything outside them."""
        q = parse(ms.query)
        if len(q.terms) != 1 or limit <= 0:
            return None
        t = q.terms[0]
        if t.negate or t.kind is not Kind.FUZZY:
            return None
        if "/" in t.text:
            return self._fast_aligned(ms, q, t, limit, ci)
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
        visitor = _Visitor(self, q, hidden_ok, topk, scored, limit)

        def shell(cands: Iterable[int]) -> bool:
            """Score the new ids of ``cands`` in bound order; False when over budget."""
            new = [i for i in cands if i not in seen]
            if not new:
                return True
            seen.update(new)
            bounds, _ = self._bounds(q, new, hidden_ok)
            return visitor.visit_exact(by_bound(new, bounds))

        # Each shell is split by one cheap test at a time (the term in the file name, a folder
        # that is the term), so that a part whose best is beaten is never bounded path by path.
        names = self._names
        mid = "/" + fq + "/"
        mid1 = mid[1:]

        def whole_dir(i: int) -> bool:
            f = folded[i]
            return mid in f or f.startswith(mid1)

        if not topk.beats(u_in + WHOLE_DIR + pp + WHOLE_PARENT):
            pst = self._pstart
            bucket = self._parent_first.get(fq[0], ())
            if not shell(i for i in bucket
                         if base[i] - 1 - pst[i] == m and folded[i].startswith(fq, pst[i])):
                return None
            if not topk.beats(u_in + WHOLE_DIR + pp):
                longer = [i for i in bucket
                          if base[i] - 1 - pst[i] > m and folded[i].startswith(fq, pst[i])]
                if not shell(i for i in longer if fq in names[i]):
                    return None
                if not topk.beats(u_out + WHOLE_DIR + pp):
                    longer = [i for i in longer if i not in seen]
                    if not shell(i for i in longer if whole_dir(i)):
                        return None
                    if not topk.beats(u_out + pp) and not shell(longer):
                        return None
        # Further shells are drawn from the query's superset (every path holding the term as a
        # subsequence), which the full ranking reuses if it comes to that.
        if not topk.beats(u_in + WHOLE_DIR):
            wd = [i for i in ms.superset if whole_dir(i)]
            if not shell(i for i in wd if fq in names[i]):
                return None
            if not topk.beats(u_out + WHOLE_DIR) and not shell(wd):
                return None
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
