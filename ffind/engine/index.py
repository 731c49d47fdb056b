"""``Index``, the seam of the matcher: ``Index(paths, weights=, tuning=)``, ``extend``, ``run(query,
within=) -> MatchSet`` (lazy), ``top(ms, limit)``, ``len(ms)``, ``match`` and the idle work
``warm`` / ``prepare``.  No ranking depends on the order the paths were added in."""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ffind.engine import tuning as tuned
from ffind.engine.accel import (
    Ids,
    NearPaths,
    NumpyUse,
    compact_ids,
    ids_of,
    subsequence_near,
)
from ffind.engine.bounding import Bounder
from ffind.engine.either import split_top
from ffind.engine.exact import ExactScorer
from ffind.engine.letters import bit_of
from ffind.engine.matchset import Ender, Filler, Greedy, MatchSet, Range, clip, compact_idle
from ffind.engine.occur import findable
from ffind.engine.prefilter import Prefilter, select, typo_term
from ffind.engine.prefixed import Prefixed
from ffind.engine.ranker import rank
from ffind.engine.recall import Rank, Recall, VisitSource, rank_with_memory
from ffind.engine.shortcuts import shortcut
from ffind.engine.store import PathStore
from ffind.engine.tuning import Tuning
from ffind.engine.typos import find_typos, refine
from ffind.engine.warmup import COLLECTING, WorkAhead
from ffind.query import Kind, Query, Term, implies, parse
from ffind.scoring.bounds import Bounds
from ffind.scoring.scorer import FileMatch
from ffind.scoring.weights import DEFAULT, Weights

if TYPE_CHECKING:
    from ffind.engine.counting import CountTable as CountTable

__all__ = ["Ender", "Filler", "Index", "MatchSet", "Prefilter", "Rank", "Recall",
           "Tuning", "VisitSource", "match", "rank_with_memory"]

BROAD = 0.75
"""A hint holding more than this share of its ranges' ids is not narrowed from unless it spares a
term: listing its ids costs about what it saves."""


def check_paths(paths: object, name: str) -> None:
    """``TypeError`` when ``paths`` is a single str or bytes (it would be read a character at a
    time)."""
    if isinstance(paths, (str, bytes)):
        raise TypeError(f"{name} must be an iterable of str paths, not a single "
                        f"{type(paths).__name__}")


def check_limit(limit: object) -> None:
    """``limit`` is None or an int of at least 0, else a ``TypeError``/``ValueError``."""
    if limit is None:
        return
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise TypeError(f"limit must be an int or None, not {type(limit).__name__}")
    if limit < 0:
        raise ValueError(f"limit must be at least 0, not {limit} (0 or None: every match)")


def public_limit(limit: object) -> int | None:
    """A caller's ``limit`` checked (``check_limit``), 0 read as None: every match, as the
    command's ``-l 0``.  (``top``, which the stages call with what is left, takes 0 as 0.)"""
    check_limit(limit)
    assert limit is None or isinstance(limit, int)
    return limit or None


def check_query(query: object) -> None:
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, not {type(query).__name__}")


class Index:
    """Paths plus what matching needs.  ``weights``: the scoring weights; ``tuning``: the engine's
    sizes (``tuning.DEFAULT`` when None); ``numpy``: True, False, or None (once the index ranks a
    second time: ``ffind.engine.accel``)."""

    def __init__(
        self, paths: Iterable[str] = (), *, weights: Weights = DEFAULT,
        tuning: Tuning | None = None, numpy: bool | None = None,
    ) -> None:
        check_paths(paths, "paths")
        if not isinstance(weights, Weights):
            raise TypeError(f"weights must be a Weights, not {type(weights).__name__}")
        self.weights = weights
        self.bounds = Bounds(weights)
        self.tuning = tuned.DEFAULT if tuning is None else tuning
        if not isinstance(self.tuning, Tuning):
            raise TypeError(f"tuning must be a Tuning, not {type(self.tuning).__name__}")
        self.numpy = NumpyUse(numpy)
        self.store = PathStore(weights, self.tuning)
        self.paths: list[str] = self.store.paths
        self.exact = ExactScorer(self.store)
        self.bounder = Bounder(self.store, self.numpy)
        self._ahead = WorkAhead(self.store, self.numpy, self.bounder)
        self._ranked = 0
        self._recall: Recall | None = None  # ranking with memory (``match(memory=...)``)
        self.prefixed = Prefixed(self.tuning.kept)  # (the one-term shortcut's, key to key)
        self._near: NearPaths | None = None
        """The near-path bits of the last typo term matched from scratch with numpy, which
        ``find_typos`` reads first."""
        self.extend(paths)

    def __len__(self) -> int:
        return len(self.paths)

    def extend(self, paths: Iterable[str]) -> None:
        """Add ``paths`` (ids continue from ``len(self)``), a ``Tuning.chunk`` at a time; a
        ``TypeError`` leaves the index as it was."""
        check_paths(paths, "paths")
        new = list(paths)
        at_once = self.tuning.chunk
        if new and not isinstance(new[0], str):
            raise TypeError(f"paths must hold str, not {type(new[0]).__name__}")
        if len(new) > at_once and not all(issubclass(t, str) for t in set(map(type, new))):
            raise TypeError("paths must hold str only")  # (before the first slice is added)
        try:
            for s in range(0, len(new), at_once):
                self.store.extend(new[s:s + at_once])
        except (TypeError, AttributeError) as e:
            raise TypeError("paths must hold str only") from e

    def numpy_ready(self, timeout: float | None = None) -> bool:
        """Start numpy's import if this index wants it and wait; True when numpy is in use."""
        return self.numpy.ready(timeout)

    # --- matching

    def run(
        self, query: str, *, within: MatchSet | None = None, start: int = 0,
        end: int | None = None, hint: MatchSet | None = None,
    ) -> MatchSet:
        """The lazy match set of ``query`` (narrowing ``within`` when given).  ``hint``: the
        computed set to narrow from, which may cover part of the ranges only (the idle
        ``Filler``'s so far)."""
        check_query(query)
        n = len(self.paths)
        end = n if end is None else min(end, n)
        if within is not None:
            ranges = clip(within.ranges, start, end)
            if hint is None or not hint.computed:
                hint = within.nearest_computed()
            if hint is not None and ((hint is not within and not hint.can_narrow(query))
                                     or not parse(hint.query).positive):
                hint = None  # (a set without positive terms holds every id of its ranges)
        else:
            ranges = [(start, end)] if start < end else []
            hint = None
        return MatchSet(self, query, ranges, None, hint=hint)

    def compute(
        self, query: str, ranges: list[Range], hint: MatchSet | None
    ) -> tuple[Ids, Ids, Ids, Greedy | None]:
        """The superset, strict and loose ids of ``query`` over ``ranges`` (narrowing ``hint``), and
        the last term's greedy ends when known: what a ``MatchSet`` computes itself with."""
        q = parse(query)
        np = self.numpy.module()
        chunk = self.tuning.chunk
        step = self._greedy_step(q, ranges, hint, np)
        if step is not None:
            superset = ids_of(step[0], np, chunk)
            greedy: Greedy | None = step
        else:
            superset, greedy = self._superset(q, ranges, hint, np)
            superset = compact_ids(superset, np, chunk)
        strict = refine(self.store, superset, q, np)
        loose = refine(self.store, superset, q.insensitive(), np) if q.case_sensitive else strict
        if strict is not superset:
            strict = compact_ids(strict, np, chunk)
        if loose is not strict and loose is not superset:
            loose = compact_ids(loose, np, chunk)
        return superset, strict, loose, greedy

    def _greedy_step(
        self, q: Query, ranges: list[Range], hint: MatchSet | None, np: Any,
    ) -> Greedy | None:
        """The superset from ``hint``'s by one more character of the last term (fzf's way,
        ``Greedy``), when the other terms are the same and ``hint`` knows its greedy ends; else
        None."""
        if hint is None or np is None:
            return None
        greedy = hint.greedy
        if greedy is None:
            return None
        last = plain_last(q)
        if last is None or len(last) < 2:
            return None
        old = parse(hint.query).positive
        new = q.positive
        if (len(old) != len(new) or plain_last(parse(hint.query)) != last[:-1]
                or [(t.kind, t.folded) for t in old[:-1]]
                != [(t.kind, t.folded) for t in new[:-1]]):
            return None
        buf = self.bounder.folded_buffer()
        if buf is None:
            return None
        ids, ends = greedy
        if ranges != hint.ranges:  # (a slice of them: ``Filler``'s)
            if not ranges or clip(hint.ranges, ranges[0][0], ranges[-1][1]) != ranges:
                return None
            lo, hi = np.searchsorted(ids, [ranges[0][0], ranges[-1][1]]).tolist()
            ids, ends = ids[lo:hi], ends[lo:hi]
        return buf.advance(last[-1], ids, ends)

    def _superset(
        self, q: Query, ranges: list[Range], hint: MatchSet | None, np: Any,
    ) -> tuple[Ids, Greedy | None]:
        """The superset of ``q`` over ``ranges`` (narrowing ``hint``), with the greedy ends when
        ``q`` is a lone character matched from scratch."""
        cands: list[tuple[Sequence[int], list[Term]]]
        terms = sorted(q.positive, key=lambda t: -len(t.text))
        narrow: list[Term] = []
        if hint is not None:
            # every id of the hint's superset matches each of its terms, so a term that one
            # of them implies (the same term, or one it narrows: ``test`` in ``test u`` ->
            # ``test ut``) holds for each already and is not looked for again
            old = parse(hint.query).positive
            narrow = [t for t in terms if not any(implies(o, t) for o in old)]
            if len(narrow) == len(terms) and hint.size() > BROAD * sum(
                    e - s for s, e in hint.ranges):
                hint = None  # (broad, and nothing skipped: every path again is as fast)
        if hint is not None:
            sup0 = hint.superset
            if ranges == hint.ranges:
                cands = [(sup0, narrow)]
            else:  # (the ids of ``ranges`` the hint does not cover: every term, from scratch)
                cands = []
                for s, e, inside in _split(ranges, hint.ranges):
                    if inside:
                        cands.append((sup0[bisect_left(sup0, s):bisect_left(sup0, e)], narrow))
                    else:
                        cands.append((range(s, e), terms))
        else:
            typo = typo_term(q)
            if typo is not None and np is not None:  # (every id: the near paths kept too)
                return self._typo_superset(typo, ranges, np), None
            cands = [(range(s, e), terms) for s, e in ranges]
        last = plain_last(q)
        buf = None
        if (last is not None and len(last) == 1 and len(q.positive) == 1 and hint is None
                and np is not None):
            # (a first key, over every path of the ranges: ``advance`` from the start of each
            # path costs 3-5 times ``in``, so only here, where the session computes the set
            # between keys, ``Filler``; the next keys then follow the ends)
            buf = self.bounder.folded_buffer()
        first: Term | None = q.positive[-1] if buf is not None else None
        superset: Ids = []
        parts_ids: list[Any] = []
        parts_ends: list[Any] = []
        folded = self.store.folded
        for cand, terms in cands:
            sup: Sequence[int] = cand
            for t in terms:
                if t is not first:
                    sup = self._select(t, folded, sup, np)
            if buf is not None and first is not None:
                ids = (np.arange(sup.start, sup.stop, dtype=np.int32)
                       if isinstance(sup, range) else np.array(sup, dtype=np.int32))
                ids, ends = buf.advance(first.folded, ids, np.zeros(len(ids), np.int32))
                parts_ids.append(ids)
                parts_ends.append(ends)
                sup = ids_of(ids, np, self.tuning.chunk)
            if not superset and isinstance(sup, (list, array)) and sup is not cand:
                superset = sup  # ids of their own (``select``'s): not copied
            elif isinstance(sup, array) and not superset:
                superset = array("i", sup)  # (a copy: a hint's own ids)
            elif isinstance(superset, array):  # (a new array: ``superset`` may be a hint's)
                superset = superset + (sup if isinstance(sup, array) else array("i", sup))
            else:
                superset.extend(sup)
        if buf is None or first is None:
            return superset, None
        if len(parts_ids) == 1:
            return superset, (parts_ids[0], parts_ends[0])
        return superset, (np.concatenate(parts_ids), np.concatenate(parts_ends))

    def _typo_superset(self, t: Term, ranges: list[Range], np: Any) -> Ids:
        """The superset of the lone typo term ``t``; the same ``cdist`` pass keeps which paths are
        near it (``_near``), the only names the typo pass reads."""
        hits, parts = [], []
        for s, e in ranges:
            h, bits = subsequence_near(t.folded, self.store.folded, np, s, e,
                                       self.tuning.chunk)
            hits.append(h)
            parts.append((s, e, bits))
        kept = self._near
        if kept is None or kept.key != t.folded or not kept.add(parts):
            self._near = NearPaths(t.folded, parts)  # (else the next slice: ``Filler``'s)
        if not hits:
            return []
        return ids_of(hits[0] if len(hits) == 1 else np.concatenate(hits), np,
                      self.tuning.chunk)

    def _select(self, t: Term, folded: list[str], ids: Sequence[int], np: Any) -> Ids:
        """``select`` of ``t`` among ``ids``; one character with a bit of its own is read from the
        letter masks once built (in a folder or file-name mask exactly when in the path)."""
        if (np is not None and isinstance(ids, array) and len(ids) and len(t.folded) == 1
                and t.kind in (Kind.FUZZY, Kind.EXACT)):
            j = bit_of(t.folded)
            st = self.store
            if j is not None and ids[-1] < st.masks_len():
                dirs_m, name_m = st.letter_masks(np)
                bit = np.uint64(1) << np.uint64(j)
                a = np.frombuffer(ids, dtype=np.int32)
                keep = np.empty(len(a), dtype=bool)
                at_once = self.tuning.chunk
                for s in range(0, len(a), at_once):  # (the temporaries of a part)
                    part = a[s:s + at_once]
                    keep[s:s + at_once] = ((dirs_m[part] | name_m[part]) & bit) != 0
                return ids_of(a[keep], np, at_once)
        return select(t.kind, t.folded, folded, ids, np=np, chunk=self.tuning.chunk)

    def wants_ends(self, ms: MatchSet) -> bool:
        """True when ``ms`` lacks greedy ends its lone-character last term after others could
        have."""
        if not ms.computed or ms.greedy is not None or self.numpy.module() is None:
            return False
        q = parse(ms.query)
        last = plain_last(q)
        return (last is not None and len(last) == 1 and len(q.positive) > 1
                and self.bounder.folded_buffer() is not None)

    def find_ends(self, ms: MatchSet, ids: Any) -> Any | None:
        """The greedy ends of ``ms``'s last term (``wants_ends``) in the superset ids ``ids``
        (int32), or None when unknown; for an idle caller (``matchset.Ender``)."""
        np = self.numpy.module()
        buf = self.bounder.folded_buffer()
        last = plain_last(parse(ms.query))
        if np is None or buf is None or last is None or len(last) != 1 or not ms.computed:
            return None
        found, ends = buf.advance(last, ids, np.zeros(len(ids), np.int32))
        if len(found) != len(ids):  # (every id of a superset holds each of its terms)
            return None
        return ends

    def find_typos(self, ms: MatchSet) -> Ids:
        """The typo matches of ``ms`` (``ffind.engine.typos``); what ``MatchSet.typos`` uses."""
        q = parse(ms.query)
        near = self._near
        t = typo_term(q)
        if near is not None and (t is None or not near.covers(t.folded)):
            near = None
        return find_typos(self.store, self.numpy, q, ms.ranges, self.bounder.name_lcs_upper,
                          near)

    def top(
        self, ms: MatchSet, limit: int | None = None, compute_indices: bool = False, *,
        least: int | None = None,
    ) -> list[FileMatch]:
        """The best ``limit`` matches of ``ms``, best first; with ``least``, only those scoring at
        least ``least`` (the candidates bounded below it are never scored)."""
        check_limit(limit)
        if not self.numpy.earned:
            self._ranked += 1
            self.numpy.earned = self._ranked > 1
        if limit is not None and ms.ranges == [(0, len(self.paths))]:
            fast = shortcut(self, ms, limit, compute_indices, least)
            if fast is None:
                fast = split_top(self, ms, limit, compute_indices, least)
            if fast is not None:
                return fast
        return rank(self, ms, limit, compute_indices, least)

    def match(
        self, query: str, *, limit: int | None = None, compute_indices: bool = False,
        memory: VisitSource | None = None, root: str | os.PathLike[str] | None = None,
        now: float | None = None,
    ) -> list[FileMatch]:
        """The ranking of ``query``, best first, at most ``limit``.  With ``memory``
        (``ffind.Memory``), remembered paths and their neighbours gain a bounded boost; ``root``
        is the folder the paths are relative to (default: the working directory), ``now`` the
        time recency is judged at.  ``limit`` 0 or None: every match."""
        limit = public_limit(limit)
        if memory is not None:
            if self._recall is None:
                self._recall = Recall(
                    lambda paths: Index(paths, weights=self.weights, tuning=self.tuning))
            base = os.path.abspath(os.getcwd() if root is None else os.fspath(root))
            ms = self.run(query)
            return rank_with_memory(
                self._recall, self.paths, query,
                lambda k: self.top(ms, k, compute_indices), limit=limit,
                compute_indices=compute_indices, memory=memory, root=base, now=now,
                main=ms)
        return self.top(self.run(query), limit, compute_indices)

    # --- work ahead

    def warm(self, step: int = 4096) -> Iterator[str | None]:
        """Build the tables a ranking would build on first use, ``step`` paths at a time (a
        generator for an idle caller: ``ffind.engine.warmup``)."""
        return self._ahead.warm(step)

    def prepare(self, query: str, start: int, limit: int | None) -> None:
        """Work ahead on the ids from ``start`` for a ranking of ``query`` to follow."""
        self._ahead.prepare(query, start, limit)

    # --- for an idle caller, a slice at a time (``ffind.engine.matchset``, ``counting``)

    COLLECTING = COLLECTING
    """What ``warm`` yields just before its full collection (a long step)."""

    def filler(self, ms: MatchSet, size: int) -> Filler:
        """Computes ``ms`` (a shortcut's lazy set) ``size`` ids a step."""
        return Filler(self.run, ms, size)

    def ender(self, ms: MatchSet, size: int) -> Ender:
        """Finds the greedy ends of ``ms``'s last term ``size`` ids a step."""
        ender = Ender(self.find_ends, ms, size)
        ender.finished = not self.wants_ends(ms)
        return ender

    @staticmethod
    def compact(cached: Iterable[MatchSet | None], hot: Iterable[MatchSet | None],
                most: int | None = None) -> int:
        """``compact_idle``: compact the sets of ``cached`` but ``hot``'s."""
        return compact_idle(cached, hot, most)

    def count_table(self) -> CountTable:
        """A count table of this index's paths (``build`` it, then ``count``)."""
        from ffind.engine.counting import CountTable

        return CountTable(self.store)

    @staticmethod
    def typo_pass(query: str) -> bool:
        """Whether counting ``query`` runs a typo pass (a lone long fuzzy term)."""
        return typo_term(parse(query)) is not None


def plain_last(q: Query) -> str | None:
    """The folded last positive term when it is fuzzy and ``findable`` (its greedy ends can be
    followed), else None."""
    pos = q.positive
    if not pos or pos[-1].kind is not Kind.FUZZY:
        return None
    key = pos[-1].folded
    return key if findable(key) else None


def _split(ranges: list[Range], cover: list[Range]) -> Iterator[tuple[int, int, bool]]:
    """``ranges`` cut where ``cover`` starts and ends: ``(start, end, inside cover)``, ascending."""
    for s, e in ranges:
        at = s
        for cs, ce in clip(cover, s, e):
            if at < cs:
                yield at, cs, False
            yield cs, ce, True
            at = ce
        if at < e:
            yield at, e, False


def match(
    query: str, candidates: Iterable[str], *, limit: int | None = None,
    compute_indices: bool = False,
) -> list[FileMatch]:
    """One call: ``Index(candidates).match(query, ...)`` (``limit`` 0 or None: every match)."""
    check_query(query)
    check_paths(candidates, "candidates")
    limit = public_limit(limit)
    return Index(candidates).match(query, limit=limit, compute_indices=compute_indices)
