"""Exact shortcuts of ``Index.top`` for the commonest queries, tried when the ``MatchSet``
covers the whole index and a limit is given; each returns None when it cannot be sure, and
the full ranking (``ffind.engine.ranker``) answers instead.

- One plain term (``one_term``): in *shells* of decreasing best possible score (names that
  start with it, through a first-letter table and scored in closed form; the files whose
  folder is or starts with it, through a table of folder initials; the paths with a folder
  that is the term; the names holding it), each shell split by one cheap test at a time,
  until ``limit`` exact scores beat the best the rest could score (``Bounds.shells``).
- One term with ``/`` (``aligned``): the paths whose last components it aligns with (each
  part a prefix of its component), which are the full ranking's first groups.

Why they are exact: every path outside the shells visited is bounded by a bound the answer's
``limit`` scores beat strictly, and inside them the same exact scores and the same budget
rule as the full ranking apply (``BranchAndBound.visit_exact`` gives up where the full
ranking would have given cheap scores).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ffind.engine.parts import Parts
from ffind.engine.prefilter import typo_term
from ffind.engine.prefixed import prefix_scan
from ffind.engine.rank import BranchAndBound, TopK, best, by_bound
from ffind.engine.ranker import results, visitor
from ffind.query import Kind, Query, Term, parse
from ffind.scoring.scorer import FileMatch

if TYPE_CHECKING:
    from ffind.engine.matchset import MatchSet


def shortcut(
    ix: Parts, ms: MatchSet, limit: int, ci: bool, least: int | None = None
) -> list[FileMatch] | None:
    """The answer of a shortcut for ``ms``, or None when none applies or none is sure; with
    ``least``, only the matches scoring at least ``least`` (as ``Index.top``: a shell whose
    best is below it is never visited)."""
    q = parse(ms.query)
    if len(q.terms) != 1 or limit <= 0 or q.groups:  # (a group: ``rank_each``)
        return None
    t = q.terms[0]
    if t.negate or t.kind is not Kind.FUZZY:
        return None
    if "/" in t.text:
        return aligned(ix, ms, q, t, limit, ci, least)
    return one_term(ix, ms, q, t, limit, ci, least)


def one_term(
    ix: Parts, ms: MatchSet, q: Query, t: Term, limit: int, ci: bool, least: int | None = None
) -> list[FileMatch] | None:
    """One plain term: rank in shells of decreasing best possible score (see the module
    docstring), stopping once ``limit`` exact scores beat everything outside them."""
    st = ix.store
    fq, key = t.folded, t.key
    texts = st.term_texts(t)
    base = st.base
    hidden_ok = q.targets_hidden
    bucket = st.first.get(fq[0], ())
    if texts is st.folded:  # (then ``key`` is ``fq``)
        ids = ix.prefixed.ids(bucket, key, texts, base, False,
                              scan=prefix_scan(st, ix.bounder, ix.numpy.module(), False)) or []
    else:
        ids = [i for i in bucket if texts[i].startswith(key, base[i])]
    scored = ix.bounder.prefix_scored(t, ids, hidden_ok)
    topk = TopK(limit, least)
    topk.add_many([s for s, _ in scored])
    seen = set(ids)
    walker = visitor(ix, q, hidden_ok, topk, scored, limit)

    def shell(cands: Iterable[int]) -> bool:
        """Score the new ids of ``cands`` in bound order; False when over budget."""
        new = [i for i in cands if i not in seen]
        if not new:
            return True
        seen.update(new)
        bounds, _ = ix.bounder.bounds(q, new, hidden_ok)
        return walker.visit_exact(by_bound(new, bounds))

    if not _shells(ix, ms, q, t, topk, shell, seen):
        return None
    return results(ix, q, best(_cut(scored, least), ix.paths, limit, walker.lens), set(), ci)


def _cut(pool: list[tuple[int, int]], least: int | None) -> list[tuple[int, int]]:
    """``pool``'s ``(score, id)`` scoring at least ``least``."""
    return pool if least is None else [p for p in pool if p[0] >= least]


def _shells(
    ix: Parts, ms: MatchSet, q: Query, t: Term, topk: TopK,
    shell: Callable[[Iterable[int]], bool], seen: set[int],
) -> bool:
    """Visit the shells after the name prefixes while their best can still enter; False when
    the full ranking must answer.  Each shell is split by one cheap test at a time (the term
    in the file name, a folder that is the term), so that a part whose best is beaten is
    never bounded path by path."""
    st, w = ix.store, ix.weights
    fq = t.folded
    m = len(t.key)
    tt = typo_term(q)
    sh = ix.bounds.shells(m, None if tt is None else len(tt.folded))
    u_in, u_out = sh.in_name, sh.in_path
    pp = w.parent_prefix_for(m)
    folded, base = st.folded, st.base
    mid = "/" + fq + "/"
    mid1 = mid[1:]

    def whole_dir(i: int) -> bool:
        f = folded[i]
        return mid in f or f.startswith(mid1)

    def in_name(i: int) -> bool:
        return folded[i].find(fq, base[i]) >= 0

    # the file's folder is the term, or starts with it
    if not topk.beats(u_in + w.whole_dir + pp + w.whole_parent):
        pst = st.pstart
        # the files whose folder starts with the term: from a shorter key's, when kept
        bucket = st.parent_first.get(fq[0], ())
        scan = prefix_scan(ix.store, ix.bounder, ix.numpy.module(), True)
        starts = ix.prefixed.ids(bucket, fq, folded, pst, True, kept_only=True, scan=scan)
        if not shell(i for i in (bucket if starts is None else starts)
                     if base[i] - 1 - pst[i] == m and folded[i].startswith(fq, pst[i])):
            return False
        if not topk.beats(u_in + w.whole_dir + pp):
            if starts is None:
                starts = ix.prefixed.ids(bucket, fq, folded, pst, True, scan=scan) or []
            longer = [i for i in starts if base[i] - 1 - pst[i] > m]
            if not shell(i for i in longer if in_name(i)):
                return False
            if not topk.beats(u_out + w.whole_dir + pp):
                longer = [i for i in longer if i not in seen]
                if not shell(i for i in longer if whole_dir(i)):
                    return False
                if not topk.beats(u_out + pp) and not shell(longer):
                    return False
    # Further shells are drawn from the query's superset (every path holding the term as a
    # subsequence), which the full ranking reuses if it comes to that.
    if not topk.beats(u_in + w.whole_dir):
        wd = [i for i in ms.superset if whole_dir(i)]
        if not shell(i for i in wd if in_name(i)):
            return False
        if not topk.beats(u_out + w.whole_dir) and not shell(wd):
            return False
    if not topk.beats(u_in) and not shell(
            i for i in ms.superset if folded[i].find(fq, base[i]) >= 0):
        return False
    return topk.beats(max(u_out, sh.scattered))


def aligned(
    ix: Parts, ms: MatchSet, q: Query, t: Term, limit: int, ci: bool, least: int | None = None
) -> list[FileMatch] | None:
    """One fuzzy term with ``/``: the paths whose last components it aligns with (each part a
    prefix of its component, see ``scorer.name_prefix_at``) are the full ranking's first
    groups (bound ``term_max``); when they fill ``limit`` above every other path's bound, the
    rest of the index is never looked at."""
    if t.case_sensitive or t.accent_sensitive:
        return None
    fq = t.folded
    bucket = ix.bounder.aligned_bucket(fq)
    if bucket is None:
        return None
    ids = _aligned_ids(ix, fq, bucket)
    m = len(fq)
    top = ix.bounds.term_max(m)
    # what ``Bounder.bounds`` gives a path that is not aligned, at most: as it is somewhere,
    # or (lower) nowhere as it is
    others, scattered = ix.bounds.unaligned(m)
    hidden_ok = q.targets_hidden
    topk = TopK(limit, least)
    pool: list[tuple[int, int]] = []
    bounds = [top - p for p in ix.store.penalties(ids, hidden_ok)]
    walker = visitor(ix, q, hidden_ok, topk, pool, limit)
    walker.visit(by_bound(ids, bounds), None)
    if not topk.beats(others):
        # then the paths holding the term as it is elsewhere; the others' bound is lower
        # (and must be beaten too: without that, the full ranking is needed anyway)
        if walker.budget == 0 or not topk.beats(scattered):
            return None
        if not _contiguous_shell(ix, ms, q, fq, set(ids), walker):
            return None
        if not topk.beats(scattered):
            return None
    return results(ix, q, best(_cut(pool, least), ix.paths, limit, walker.lens), set(), ci)


def _aligned_ids(ix: Parts, fq: str, bucket: Sequence[int]) -> list[int]:
    """``PathStore.aligned(fq, bucket)`` (``bucket``: ``Bounder.aligned_bucket(fq)``), from fewer
    tests: for ``a/`` (``aligned_rx`` then wants only ``a`` a prefix of the file's folder) the
    folder-prefixed ids of ``a``, else the table narrowed by ``_parent_narrowed``.  The same ids
    in the same order, unless a path's folded form changed its length (then ``PathStore.aligned``
    answers, as it tests those whatever their tables)."""
    st = ix.store
    parts = fq.split("/")
    if len(parts) == 2 and parts[0] and not parts[1] and not st._resized:
        hits = ix.prefixed.ids(bucket, parts[0], st.folded, st.pstart, True,
                               scan=prefix_scan(st, ix.bounder, ix.numpy.module(), True)) or []
    else:
        hits = st.aligned(fq, _parent_narrowed(ix, fq, bucket))
    # (what the full ranking's bounds ask next, over the whole table, when this shortcut
    # cannot answer: ``Bounder._aligned_bounds``)
    st.keep_aligned(fq, bucket, hits)
    return hits


def _parent_narrowed(ix: Parts, fq: str, bucket: Sequence[int]) -> Sequence[int]:
    """``bucket`` (the first-letter table of the file names that ``fq``'s last part starts)
    without the ids whose folder does not start with the part before it, which ``aligned_rx``
    wants a prefix of the file's folder (``s/p``: a name from ``p``'s table in a folder from
    ``s``'s table of folders, ``PathStore.parent_first``), in order: what ``PathStore.aligned``
    keeps is the same, tested over fewer ids.  Left as it is without numpy, for a small table, or
    when a path's folded form changed its length (its offsets are off, and ``PathStore.aligned``
    tests it whatever its tables)."""
    parts = fq.split("/")
    st = ix.store
    np = ix.numpy.module()
    if (len(parts) < 2 or not parts[-1] or not parts[-2] or np is None
            or len(bucket) < ix.tuning.numpy_from or st._resized):
        return bucket
    folders = st.parent_first.get(parts[-2][0])
    if not folders:
        return []
    mark = np.zeros(len(st.paths), dtype=bool)
    mark[np.frombuffer(folders, dtype=f"i{folders.itemsize}")] = True
    b = np.frombuffer(bucket, dtype=f"i{bucket.itemsize}")  # type: ignore[attr-defined]
    kept: list[int] = b[mark[b]].tolist()
    return kept


def _contiguous_shell(
    ix: Parts, ms: MatchSet, q: Query, fq: str, aligned_ids: set[int], walker: BranchAndBound
) -> bool:
    """Visit the paths that hold ``fq`` as it is but do not align with it, with their bounds
    refined as the full ranking refines them; False when over budget."""
    bounder = ix.bounder
    folded = ix.store.folded
    contig = [i for i in ms.superset if fq in folded[i] and i not in aligned_ids]
    cb, cf = bounder.bounds(q, contig, q.targets_hidden)
    loose = [j for j, f in enumerate(cf) if f]
    lids = [contig[j] for j in loose]
    chunks = bounder.chunks(q, lids)
    tight = bounder.tighten_starts(q, lids, bounder.tighten_gaps(
        bounder.tighten_name(q, lids, [cb[j] for j in loose]), chunks), chunks)
    for j, b in zip(loose, tight, strict=True):
        cb[j] = b
    return walker.visit_exact(by_bound(contig, cb))
