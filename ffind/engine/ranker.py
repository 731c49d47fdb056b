"""The full ranking of a ``MatchSet`` (``rank``), when no shortcut answers: closed-form scores of a
lone term that prefixes the file name; bounds for the rest, the sure ones visited by branch and
bound; the loose ones refined (name LCS, ``Tuning.seed`` exact scores, then chunks and word
starts for those still in reach); then the typo pass.  No decision depends on ``limit``, so
``limit=k`` is the prefix of ``limit=None``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ffind.engine.accel import Ids
from ffind.engine.exact_many import batchable, scorer
from ffind.engine.parts import Parts
from ffind.engine.prefilter import lone_term, typo_term
from ffind.engine.prefixed import prefix_scan
from ffind.engine.rank import (
    BATCH_FROM,
    BranchAndBound,
    TopK,
    best,
    best_positions,
    by_bound,
    nth_highest,
)
from ffind.engine.tuning import DEFAULT as DEFAULT_TUNING
from ffind.engine.typos import add_typos, typo_indices
from ffind.query import Query, Term, parse
from ffind.scoring.scorer import FileMatch
from ffind.scoring.weights import DEFAULT

if TYPE_CHECKING:
    from ffind.engine.matchset import MatchSet


def visitor(
    ix: Parts, q: Query, hidden_ok: bool, topk: TopK, pool: list[tuple[int, int]],
    limit: int | None,
) -> BranchAndBound:
    """Branch and bound over ``ix`` for ``q``, with the index's exact budget."""
    exact = ix.exact.score

    def score(i: int) -> int | None:
        return exact(q, i, hidden_ok)

    slack = ix.tuning.slack * sum(len(t.text) for t in q.positive)
    return BranchAndBound(score, ix.paths, topk, pool, limit, ix.tuning.budget, slack,
                          path_lengths(ix), batch_scorer(ix, q, hidden_ok))


def batch_scorer(
    ix: Parts, q: Query, hidden_ok: bool
) -> Callable[[list[int], float, TopK | None], list[int | None]] | None:
    """Scores of many ids at once (``exact_many``, numpy), below the floor given; None for a term of
    another kind, non-default weights, or without numpy."""
    if ix.weights != DEFAULT or not batchable(q) or ix.numpy.module() is None:
        return None
    exact = ix.exact.score
    return scorer(ix.store, q, hidden_ok, lambda i: exact(q, i, hidden_ok), ix.exact.early_many)


def path_lengths(ix: Parts) -> Any:
    """Every path's length as a numpy array by id with numpy, else None."""
    np = ix.numpy.module()
    return None if np is None else ix.store.path_lengths(np)


def rank(
    ix: Parts, ms: MatchSet, limit: int | None, ci: bool, least: int | None = None
) -> list[FileMatch]:
    """The best ``limit`` matches of ``ms``, best first; with ``least``, only those scoring at least
    ``least`` (groups bounded below it are never scored)."""
    q = parse(ms.query)
    if q.groups:
        return rank_each(ix, ms, limit, ci, least)
    if ms.fallback:
        q = q.insensitive()
    ids = ms.ids
    if not q.positive:
        chosen = ids if limit is None else ids[:limit]
        return [FileMatch(0, ix.paths[i], [] if ci else None) for i in chosen]
    hidden_ok = q.targets_hidden
    topk = TopK(limit, least)
    pool: list[tuple[int, int]] = []
    lone = lone_term(q)
    at: Any = None
    if lone is not None:
        pre, ids, at = _name_prefixed(ix, lone, ids)
        pool = ix.bounder.prefix_scored(lone, pre, hidden_ok)
        topk.add_many([s for s, _ in pool])
    walker = visitor(ix, q, hidden_ok, topk, pool, limit)
    if walker.lens is not None and len(ids) >= ix.tuning.numpy_from:
        import numpy as np

        if at is None:
            at = np.asarray(ids, dtype=np.int64)  # (once: each numpy stage reads it)
        at.flags.writeable = False
        bounds, flagged = ix.bounder.bounds_any(q, ids, hidden_ok, at)
        scratch = at is not ids  # (our copy of the ids: ``_split_arrays`` may reuse it)
        at.flags.writeable = scratch
        oa, oba, groups = _split_arrays(at, bounds, flagged, scratch, ix.tuning.chunk)
        del at, bounds, flagged  # (copied into those: not held through the visits)
        u2 = int(oba.max()) if len(oba) else None
        done = walker.visit(groups, u2)
        if len(oa) and u2 is not None and not topk.beats(u2):
            _refine_and_visit_arrays(ix, q, walker, oa, oba, groups[done:])
    else:
        bounds, flagged = ix.bounder.bounds(q, ids, hidden_ok)
        oids, ob, groups = _split(ids, bounds, flagged)
        u2 = max(ob, default=None)
        done = walker.visit(groups, u2)
        if oids and u2 is not None and not topk.beats(u2):
            _refine_and_visit(ix, q, walker, oids, ob, groups[done:])
    typo_ids: set[int] = set()
    tt = typo_term(parse(ms.query))
    if tt is not None:
        ts = ix.bounds.typo_score(len(tt.folded))
        if not topk.below(ts) and not topk.above(ts - 1):
            pool, typo_ids = add_typos(ix.store, tt, ms.typos(), ts, hidden_ok, walker.pool)
    if least is not None:
        pool = [p for p in pool if p[0] >= least]
    return results(ix, q, best(pool, ix.paths, limit, walker.lens), typo_ids, ci)


def _name_prefixed(
    ix: Parts, t: Term, ids: Ids
) -> tuple[list[int], Ids, Any]:
    """The ids whose file name starts with the term and the others, and the others as an int64 array
    when numpy made one.  With numpy only the term's first-letter table is tested (or the ids the
    one-term shortcut kept for it)."""
    st = ix.store
    key, texts, base = t.key, st.term_texts(t), st.base
    np = ix.numpy.module()
    if np is None or len(ids) < ix.tuning.numpy_from or texts is not st.folded or not key:
        is_p = [texts[i].startswith(key, base[i]) for i in ids]
        return ([i for i, f in zip(ids, is_p, strict=True) if f],
                [i for i, f in zip(ids, is_p, strict=True) if not f], None)
    bucket = st.first.get(key[0])
    if not bucket:
        return [], ids, None
    n = len(st.paths)
    a = np.asarray(ids, dtype=np.int64)
    mark = np.zeros(n, dtype=bool)
    mark[a] = True
    # (the one-term shortcut, which gave up just before, kept the table's names that start
    # with the key: ``Prefixed``)
    known = ix.prefixed.ids(bucket, key, texts, base, False, kept_only=True,
                            scan=prefix_scan(st, ix.bounder, np, False))
    if known is not None:
        k = np.array(known, dtype=np.int64)
        pre: list[int] = k[mark[k]].tolist()
    else:
        b = np.frombuffer(bucket, dtype=f"i{bucket.itemsize}")
        pre = [i for i in b[mark[b]].tolist() if texts[i].startswith(key, base[i])]
    if not pre:
        return [], ids, a
    mark[pre] = False
    rest_a = a[mark[a]]
    rest: list[int] = rest_a.tolist()
    return pre, rest, rest_a


def _split(
    ids: Sequence[int], bounds: list[int], flagged: list[bool]
) -> tuple[list[int], list[int], list[tuple[int, list[int]]]]:
    """The loose ids and their bounds, and the others grouped by bound."""
    opt = [j for j, f in enumerate(flagged) if f]
    groups = []
    if len(opt) < len(ids):
        sure = [j for j, f in enumerate(flagged) if not f]
        groups = by_bound([ids[j] for j in sure], [bounds[j] for j in sure])
    return [ids[j] for j in opt], [bounds[j] for j in opt], groups


def _split_arrays(
    ids: Any, bounds: Sequence[int], flagged: Sequence[bool], scratch: bool = False,
    chunk: int = DEFAULT_TUNING.chunk,
) -> tuple[Any, Any, list[tuple[int, Any]]]:
    """``_split`` in numpy.  ``scratch``: ``ids`` (and int64 ``bounds``) may be overwritten, the
    loose ones moved to the front a part at a time instead of copied out."""
    import numpy as np

    a = np.asarray(ids, dtype=np.int64)
    b = np.asarray(bounds, dtype=np.int64)
    f = np.asarray(flagged, dtype=bool)
    rest = ~f
    groups = grouped(a[rest], b[rest]) if rest.any() else []
    del rest
    if not scratch:
        return a[f], b[f], groups
    n = compact(a, f, chunk)
    compact(b, f, chunk)
    if 2 * n < len(a):  # (the views would hold the whole arrays: copies of the few instead)
        return a[:n].copy(), b[:n].copy(), groups
    return a[:n], b[:n], groups


def compact(a: Any, keep: Any, chunk: int) -> int:
    """Move the items of ``a`` where ``keep`` to its front, in order, in place, ``chunk`` at a time;
    how many there are."""
    n = 0
    for s in range(0, len(a), chunk):
        e = s + chunk
        part = a[s:e][keep[s:e]]
        a[n:n + len(part)] = part
        n += len(part)
    return n


def grouped(ids: Any, bounds: Any) -> list[tuple[int, Any]]:
    """``by_bound`` over numpy arrays (a stable sort, highest bound first; each group a view of one
    sorted copy).  A radix sort of a uint16 key when the bounds span less than ``KEY_RANGE``."""
    import numpy as np

    if not len(ids):
        return []
    hi = int(bounds.max())
    if hi - int(bounds.min()) >= KEY_RANGE:
        order = np.argsort(-bounds, kind="stable")
        sb, si = bounds[order], ids[order]
        del order
        cuts = np.flatnonzero(sb[1:] != sb[:-1]) + 1
        heads = sb[np.concatenate(([0], cuts))].tolist()
        return list(zip(heads, np.split(si, cuts), strict=True))
    # each bound's distance from the highest as a uint16 key: the stable sort of it is a
    # radix sort (the same order as of ``-bounds``), and its counts give the groups' bounds
    # and sizes (no sorted copy of the bounds)
    key = np.empty(len(bounds), dtype=np.uint16)
    np.subtract(hi, bounds, out=key, casting="unsafe")
    order = np.argsort(key, kind="stable")
    counts = np.bincount(key)
    del key
    si = ids[order]
    del order
    at = np.flatnonzero(counts)
    cuts = np.cumsum(counts[at])[:-1]
    return list(zip((hi - at).tolist(), np.split(si, cuts), strict=True))


KEY_RANGE = 1 << 16
"""``grouped`` sorts by a uint16 key (a radix sort) when the bounds span less than this."""


def _joined(groups: list[tuple[int, Any]], floor: float, np: Any) -> tuple[Any, Any]:
    """The ids of ``groups`` bounded at ``floor`` or more, in order, and their bounds (int64
    arrays)."""
    kept = [(b, g) for b, g in groups if b >= floor]
    if not kept:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return (np.concatenate([np.asarray(g, dtype=np.int64) for _, g in kept]),
            np.concatenate([np.full(len(g), b, dtype=np.int64) for b, g in kept]))


def _refine_and_visit(
    ix: Parts, q: Query, walker: BranchAndBound, oids: list[int], ob: list[int],
    left_groups: list[tuple[int, list[int]]],
) -> None:
    """The loose candidates' bounds refined stage by stage (the module docstring), then visited with
    the sure groups not visited yet.  Lists: the path without numpy."""
    bounder, topk = ix.bounder, walker.topk
    ob = bounder.tighten_name(q, oids, ob)
    # Seed: the exact scores of the ``Tuning.seed`` best-bounded first (whatever the limit,
    # outside the budget), so the k-th score is known before the costlier refinements
    # (chunks, word starts), which then skip every path bounded below it.
    lens = walker.lens
    seed = best_positions(ob, ix.tuning.seed, lambda j: ix.paths[oids[j]],
                          None if lens is None else lens[oids])
    if topk.least is not None:  # (bounded below ``least``: no score of theirs is wanted)
        seed = [j for j in seed if ob[j] >= topk.least]
    sids = [oids[j] for j in seed]
    many = walker.score_many
    got = (many(sids, topk.floor(), topk) if many is not None and len(sids) >= BATCH_FROM
           else map(walker.score, sids))
    for j, sc in zip(seed, got, strict=True):
        if sc is not None:
            walker.pool.append((sc, oids[j]))
            topk.add(sc)
    # only bounds that can still reach the top ``limit`` matter
    floor = topk.floor()
    left = [i for b, g in left_groups if b >= floor for i in g]
    lb = [b for b, g in left_groups if b >= floor for _ in g]
    oids, ob = _above(oids, ob, floor, seed)
    chunks = bounder.chunks(q, oids)
    ob = bounder.tighten_gaps(ob, chunks)
    keep = [j for j, b in enumerate(ob) if b >= floor]
    if len(keep) < len(ob):
        oids, ob, chunks = ([oids[j] for j in keep], [ob[j] for j in keep],
                            [chunks[j] for j in keep])
    ob = bounder.tighten_starts(q, oids, ob, chunks)
    # grouped, then each group in id order (as grouping the id-sorted pairs would)
    regroup = by_bound(left + oids, lb + ob)
    for _, g in regroup:
        g.sort()
    walker.visit(regroup, None)


def _refine_and_visit_arrays(
    ix: Parts, q: Query, walker: BranchAndBound, oids: Any, ob: Any,
    left_groups: list[tuple[int, Any]],
) -> None:
    """``_refine_and_visit`` in numpy int64 arrays end to end: the same stages and bounds."""
    import numpy as np

    bounder, topk = ix.bounder, walker.topk
    lens = walker.lens
    loose = ob
    # (what the names' letter masks leave of the loose bounds: still at least the tightened;
    # tightened in place where it matters)
    ob = bounder.tighten_name_upper(q, oids, loose, np)
    if ob is None:
        ob = loose.copy()

    def tighten(at: Any) -> Any:  # (positions of ``oids``)
        return bounder.tighten_name_array(q, oids[at], loose[at], np)

    def pick(values: Any, at: Any) -> list[int]:  # (``best_positions`` over those positions)
        return best_positions(values, ix.tuning.seed, lambda j: ix.paths[int(oids[at[j]])],
                              lens[oids[at]])

    # ``tighten_name`` only where it can matter: the seed's candidates, then the ids whose
    # upper bound reaches the floor (2-8% of them for ``sr``, ``src``, ``test u``, ``test ut``)
    done, seed = tightened_seed(ob, ix.tuning.seed, tighten, pick, np, ix.tuning.chunk)
    if topk.least is not None:
        seed = [j for j in seed if ob[j] >= topk.least]
    sids = oids[seed].tolist()
    many = walker.score_many
    got = (many(sids, topk.floor(), topk) if many is not None and len(sids) >= BATCH_FROM
           else map(walker.score, sids))
    for i, sc in zip(sids, got, strict=True):
        if sc is not None:
            walker.pool.append((sc, i))
            topk.add(sc)
    floor = topk.floor()
    left, lb = _joined(left_groups, floor, np)
    tighten_from(floor, ob, tighten, done, np, ix.tuning.chunk)
    mask = done & (ob >= floor)  # (the others' upper bound is below the floor)
    mask[seed] = False
    ra, rb = bounder.refine(q, oids[mask], ob[mask], floor, np)
    a = np.concatenate([left, ra])
    b = np.concatenate([lb, rb])
    del left, lb
    order = np.lexsort((a, -b))  # by bound, highest first, then by id
    walker.visit(grouped(a[order], b[order]), None)


def tighten_from(least: float, bounds: Any, tighten: Callable[[Any], Any], done: Any,
                 np: Any, chunk: int = DEFAULT_TUNING.chunk) -> None:
    """Tighten, ``chunk`` at a time, every position not ``done`` whose bound (an upper bound of its
    tightened one) reaches ``least``, in place, and mark it ``done``."""
    for s in range(0, len(bounds), chunk):
        e = s + chunk
        todo = ~done[s:e] & (bounds[s:e] >= least)
        at = np.flatnonzero(todo)
        if len(at):
            at += s
            bounds[at] = tighten(at)
            done[at] = True


def tightened_seed(
    bounds: Any, n: int, tighten: Callable[[Any], Any], pick: Callable[[Any, Any], list[int]],
    np: Any, chunk: int = DEFAULT_TUNING.chunk,
) -> tuple[Any, list[int]]:
    """The ``n`` best positions by tightened bound (as ``pick`` over every position gives them),
    tightening only those whose upper bound reaches the ``n``-th tightened bound; and which are
    tightened.  Exact since ``tighten(at) <= bounds[at]``: a position left out ranks below ``n``
    others."""
    done = np.zeros(len(bounds), dtype=bool)
    if n <= 0:
        return done, []
    if len(bounds) <= n:  # (``pick`` then gives every position, in order)
        tighten_from(float("-inf"), bounds, tighten, done, np, chunk)
        return done, pick(bounds, np.arange(len(bounds)))
    tighten_from(nth_highest(bounds, n, np), bounds, tighten, done, np, chunk)
    if done.all():  # (``s/p/t``: every upper bound the same)
        return done, pick(bounds, np.arange(len(bounds)))
    tighten_from(nth_highest(bounds[done], n, np), bounds, tighten, done, np, chunk)
    at = np.flatnonzero(done)
    chosen: list[int] = at[pick(bounds[at], at)].tolist()
    # (by bound, then position, as ``pick`` orders more than ``n`` positions: over ``n``
    # exactly it gives them in order)
    return done, sorted(chosen, key=lambda j: (-int(bounds[j]), j))


def _above(
    oids: list[int], ob: list[int], floor: float, seed: list[int]
) -> tuple[list[int], list[int]]:
    """The ids bounded at ``floor`` or more, but for the positions ``seed``, in order."""
    seeded = set(seed)
    keep = [j for j, b in enumerate(ob) if b >= floor and j not in seeded]
    return [oids[j] for j in keep], [ob[j] for j in keep]


def rank_each(
    ix: Parts, ms: MatchSet, limit: int | None, ci: bool, least: int | None = None,
    among: Sequence[int] | None = None,
) -> list[FileMatch]:
    """``rank`` of a query with groups (``Query.groups``): every match scored exactly, without
    bounds or shortcuts (their arithmetic has no OR group in it), ordered as ``rank`` orders.
    ``among``: only these of the matches (ascending; holding the answer) are scored."""
    q = parse(ms.query)
    if ms.fallback:
        q = q.insensitive()
    ids = ms.ids if among is None else among
    if not q.scored:  # (every match scores 0: in id order, as ``rank``'s)
        chosen = ids if limit is None else ids[:limit]
        if least is not None and least > 0:
            chosen = []
        return [FileMatch(0, ix.paths[i], [] if ci else None) for i in chosen]
    hidden_ok = q.targets_hidden
    ids = list(ids)
    bulk = ix.weights == DEFAULT and ix.numpy.module() is not None
    totals: list[int | None] = [0] * len(ids)
    for g in q.groups:  # (``extended_score``'s sum, a group at a time)
        got = ix.exact.group_scores(g, ids, bulk)
        totals = [None if a is None or b is None else a + b
                  for a, b in zip(totals, got, strict=True)]
    if q.positive:
        plain, score = Query(q.raw, q.terms), ix.exact.score
        firsts = [None if t is None else score(plain, i, hidden_ok)
                  for t, i in zip(totals, ids, strict=True)]
    else:
        firsts = [-p for p in ix.store.penalties(ids, hidden_ok)]
    pool = []
    for t, f, i in zip(totals, firsts, ids, strict=True):
        if t is not None and f is not None and (least is None or t + f >= least):
            pool.append((t + f, i))
    return results(ix, q, best(pool, ix.paths, limit, path_lengths(ix)), set(), ci)


def results(
    ix: Parts, q: Query, chosen: list[tuple[int, int]], typo_ids: set[int], ci: bool
) -> list[FileMatch]:
    """``FileMatch`` objects for the chosen ``(score, id)``, with positions when ``ci``."""
    out = []
    tt = typo_term(q)
    for s, i in chosen:
        typo = i in typo_ids
        idx = None
        if ci:
            idx = (typo_indices(ix.store, tt, i) if typo and tt is not None
                   else ix.exact.indices(q, i))
        out.append(FileMatch(s, ix.paths[i], idx, typo))
    return out
