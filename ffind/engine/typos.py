"""The typo pass: a single fuzzy term of ``TYPO_MIN`` characters or more also finds file names (or
stems) one ``OSA`` edit away, when they could reach the top ``limit``.  A typo match scores
``Bounds.typo_score`` less the path's penalty, ``typo_stem`` less for a stem."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ffind.engine.accel import Ids, NearPaths, NumpyUse
from ffind.engine.matchset import Range
from ffind.engine.prefilter import select, typo_term
from ffind.engine.store import PathStore
from ffind.query import Query, Term

NEAR_SHARE = 4
"""Before the names' lengths are built, only the near paths' names are measured, when they are at
most one in ``NEAR_SHARE`` of a range."""


def find_typos(store: PathStore, numpy: NumpyUse, q: Query, ranges: list[Range],
               name_lcs_upper: Callable[[str, Any, Any], Any] | None = None,
               near_paths: NearPaths | None = None) -> Ids:
    """The ids in ``ranges`` whose file name (or stem) is one edit from the query's typo term,
    ascending.  Names whose LCS with the term is under its length less one cannot be: the letter
    masks (``name_lcs_upper``) or the prefilter's near bits (``near_paths``) leave them out
    first."""
    t = typo_term(q)
    if t is None or not ranges:
        return []
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    key = t.folded
    whole = "." in key
    sliced = store.names_of if whole else store.stems_of
    found: list[int] = []
    np = numpy.module()
    m = len(key)
    for s, e in ranges:
        if np is not None:
            # one edit changes the length by one at most: only those names are compared
            few = None
            if near_paths is not None and store.lengths_len(whole) < e:
                few = near_paths.ids(s, e, np)
            if few is not None and NEAR_SHARE * len(few) <= e - s:
                # the lengths not built that far (keys typed straight after the walk): only
                # the near paths' names measured, the table left to the warm-up
                ids = few.tolist()
                near_a = np.array([i for i, n in zip(ids, store.name_lengths(whole, ids),
                                                     strict=True) if m - 1 <= n <= m + 1],
                                  dtype=np.int64)
                del ids
            else:
                lens = store.lengths(whole, np)[s:e]
                near_a = np.flatnonzero((lens >= m - 1) & (lens <= m + 1)) + s
                del lens
                if near_paths is not None:
                    near_a = near_paths.near(near_a, np)
            del few
            most = None if name_lcs_upper is None else name_lcs_upper(key, near_a, np)
            if most is not None:
                near_a = near_a[most >= m - 1]
            # a chunk of names at a time: the strings and ints of a part, not of all
            chunk = store.tuning.chunk
            for p in range(0, len(near_a), chunk):
                near = near_a[p:p + chunk].tolist()
                d = process.cdist([key], sliced(near), scorer=OSA.distance,
                                  score_cutoff=1, dtype=np.int32)
                found.extend(near[j] for j in np.flatnonzero(d[0] == 1).tolist())
            continue
        # one edit changes the length by one at most: only those names are compared
        lens = store.name_lengths(whole, range(s, e))
        near = [i for i, n in zip(range(s, e), lens, strict=True) if m - 1 <= n <= m + 1]
        res = process.extract_iter(key, sliced(near), scorer=OSA.distance, score_cutoff=1)
        found.extend(near[r[2]] for r in res if r[1] == 1)
    found.sort()
    return refine(store, found, q.insensitive(), np)


def refine(store: PathStore, ids: Ids, q: Query, np: object = None) -> Ids:
    """``ids`` narrowed by the query's case- or accent-sensitive terms, its negations and its
    groups."""
    for t in q.positive:
        if t.case_sensitive or t.accent_sensitive:
            ids = select(t.kind, t.key, store.term_texts(t), ids, np=np,
                         chunk=store.tuning.chunk)
    for t in q.negative:
        ids = select(t.kind, t.key, store.term_texts(t), ids, negate=True, np=np,
                     chunk=store.tuning.chunk)
    for g in q.groups:
        ids = select_group(store, g, ids)
    return ids


def select_group(store: PathStore, group: tuple[Term, ...], ids: Ids) -> list[int]:
    """The ``ids`` that one alternative of the OR group ``group`` matches, ascending."""
    left: Ids | list[int] = ids
    kept: set[int] = set()
    for t in group:
        kept.update(select(t.kind, t.key, store.term_texts(t), left, negate=t.negate))
        left = [i for i in left if i not in kept]
    return [i for i in ids if i in kept]


def add_typos(
    store: PathStore, t: Term, typo_ids: Iterable[int], typo_score: int, hidden_ok: bool,
    pool: list[tuple[int, int]],
) -> tuple[list[tuple[int, int]], set[int]]:
    """``pool`` (``(score, id)``) with the typo matches ``typo_ids`` added where they score
    more than the id's exact match; and the ids whose score is now their typo score."""
    stems_only = "." not in t.folded
    folded, base = store.folded, store.base
    stem = store.weights.typo_stem
    have = {i: s for s, i in pool}
    chosen: set[int] = set()
    for i in typo_ids:
        s = typo_score - store.penalty(i, hidden_ok)
        if stems_only and folded[i].rfind(".", base[i]) > base[i]:  # a dot in the name
            s -= stem
        if s > have.get(i, s - 1):
            chosen.add(i)
            have[i] = s
    return [(s, i) for i, s in have.items()], chosen


def typo_indices(store: PathStore, t: Term, i: int) -> list[int]:
    """The positions of path ``i`` that a typo match of ``t`` keeps (its name's characters
    that the edit leaves alone)."""
    from rapidfuzz.distance import Levenshtein

    key = t.folded
    target = store.name(i) if "." in key else store.stem(i)
    base = store.base[i]
    out: list[int] = []
    for op in Levenshtein.opcodes(key, target):
        if op.tag == "equal":
            out.extend(range(base + op.dest_start, base + op.dest_end))
    return out
