"""The first bounds of every candidate (``FirstBounds``): per term, what its best placement can
score given where it occurs as it is (``ffind.scoring.bounds``).  Each stage runs on the folded
buffer's marks, the letter masks, or path by path, with the same answer."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from ffind.engine.exact import kept
from ffind.engine.letters import bit_of
from ffind.engine.marks import UNKNOWN, Occurrences, marks_of
from ffind.engine.occur import findable
from ffind.query import Query


class FirstBounds(Occurrences):
    """``bounds``: an upper bound of each id's exact score and whether it is loose."""

    def early_total(self, q: Query, ids: Sequence[int], hidden_ok: bool, at: Any = None) -> Any:
        """Per id: the bounds of every term but the last, less the path's penalty (an int64 array
        with numpy from ``Tuning.numpy_from`` ids, else a list; ``at``: ``ids`` as an array
        already).  Each is bounded anywhere or against the folder path, never as the file name."""
        np = self.numpy.module() if len(ids) >= self.tuning.numpy_from else None
        if np is not None:
            return self._early_total_array(q, ids if at is None else at, hidden_ok, np)
        st = self.store
        total = [-p for p in st.penalties(ids, hidden_ok)]
        for t in q.positive[:-1]:
            fq = t.folded
            most = self._most(fq)
            if "/" in fq:
                total = [a + most for a in total]
                continue
            known, made = self._known(fq)
            new = ids if made else [i for i in ids if known[i] == UNKNOWN]
            if new:  # (path by path: the buffer's marks are for ``numpy_from`` ids or more)
                tbn = self._early_term(fq, new, most)
                for i, v in zip(new, tbn, strict=True):
                    known[i] = v
                if new is ids:
                    total = [a + v for a, v in zip(total, tbn, strict=True)]
                    continue
            total = [a + known[i] for a, i in zip(total, ids, strict=True)]
        return total

    def _early_total_array(self, q: Query, ids: Sequence[int], hidden_ok: bool, np: Any) -> Any:
        """``early_total`` in numpy: kept bounds read and new ones written as arrays."""
        st = self.store
        a = np.asarray(ids, dtype=np.int64)
        total = st.penalties_array(hidden_ok, np, a)  # (a new array: negated in place)
        np.negative(total, out=total)
        for t in q.positive[:-1]:
            fq = t.folded
            most = self._most(fq)
            if "/" in fq:
                total += most
                continue
            known, made = self._known(fq)
            kv = np.frombuffer(known, dtype=f"i{known.itemsize}")  # (a view: written through)
            new = a if made else a[kv[a] == UNKNOWN]
            if len(new):
                wide = self.wide(new) and findable(fq)
                got = self._early_joined(fq, new, most, np) if wide else None
                if got is not None:
                    kv[new] = got
                for s in range(0, len(new) if got is None else 0, self.tuning.chunk):
                    part = new[s:s + self.tuning.chunk]  # (a list of ints a part at a time)
                    kv[part] = self._early_term(fq, part.tolist(), most)
            for s in range(0, len(a), self.tuning.chunk):  # (the values read a part at a time)
                total[s:s + self.tuning.chunk] += kv[a[s:s + self.tuning.chunk]]
            del kv  # (``known`` may grow later: no view of it may outlive this)
        return total

    def _most(self, fq: str) -> int:
        """The most an earlier term ``fq`` can score."""
        m = len(fq)
        return self.b.tiers(m).top + self.b.dir_extras_max(m)

    def _known(self, fq: str) -> tuple[array[int], bool]:
        """The kept bounds of the earlier term ``fq``, one per path (``UNKNOWN`` where not computed
        yet), and whether they were made just now."""
        known, made = kept(self.early_bounds, fq, lambda: array("i"), self.tuning.kept)
        n = len(self.store.paths)
        if len(known) < n:  # (a part at a time: no second table's worth of temporary)
            fill = array("i", [UNKNOWN]) * min(n - len(known), self.tuning.chunk)
            while len(known) < n:
                known.extend(fill if n - len(known) >= len(fill) else fill[:n - len(known)])
        return known, made

    def _early_term(self, fq: str, new: Sequence[int], most: int) -> list[int]:
        """The bound of an earlier term ``fq`` (no ``/``) per id: contiguous as a prefix of the file
        name or its folder's name, inside one, or elsewhere; the folder extras only when in the
        folders. Every rule is read from the first occurrence ``p`` where it can be, so at most a
        name search and a folder search remain."""
        st = self.store
        folded, base, pst = st.folded, st.base, st.pstart
        m = len(fq)
        tiers = self.b.tiers(m)
        top, in_name = tiers.top, tiers.in_name
        extra = self.b.dir_extras_max(m)
        bonus = self.b.name_bonus(m)
        in_path = tiers.in_path + bonus
        # nowhere: ``rest`` (read as ``in_path`` by the rules when that is the term's most)
        none = in_path if tiers.rest + bonus == most else tiers.rest + bonus
        tbn: list[int] = []
        put = tbn.append
        for i in new:
            f = folded[i]
            p = f.find(fq)
            if p < 0:
                put(none)
                continue
            b = base[i]
            if p >= b:  # only in the name: neither the folders nor the file's folder
                put(top if p == b else in_name)
                continue
            n = f.find(fq, b)
            if n == b:
                v = top
            else:
                ps = pst[i]
                if ps < 0:
                    q = -1
                elif p >= ps:
                    q = p if p + m <= b - 1 else -1
                else:
                    q = f.find(fq, ps, b - 1)
                if q == ps and b - 1 - ps >= m:  # (``q == ps``: ``ps >= 0``)
                    v = top
                elif n >= 0 or q >= 0:
                    v = in_name
                else:
                    v = in_path
            put(v + extra if p + m <= b else v)
        return tbn

    def _early_joined(self, fq: str, new: Sequence[int], most: int, np: Any) -> Any:
        """``_early_term`` from the term's marks, as an int64 array; None without the buffer."""
        marks = self.marks(fq, new, np)
        if marks is None:
            return None
        m = len(fq)
        tiers = self.b.tiers(m)
        bonus = self.b.name_bonus(m)
        out = np.empty(len(new), dtype=np.int64)
        s = 0
        for k in marks:  # (the temporaries of a part at a time)
            e = s + len(k.at)
            room = (k.pstart >= 0) & (k.base - 1 - k.pstart >= m)
            top = k.name_start | (room & k.parent)
            inside = k.in_name | ((k.pstart >= 0) & k.in_parent)
            v = np.where(top, tiers.top,
                         np.where(inside, tiers.in_name, tiers.in_path + bonus))
            out[s:e] = np.where(k.found, v + self.b.dir_extras_max(m) * k.in_dirs,
                                tiers.rest + bonus)
            s = e
        return out

    def bounds(self, q: Query, ids: Sequence[int], hidden_ok: bool) -> tuple[list[int], list[bool]]:
        """An upper bound of each id's exact score, and whether it is loose (assumes every character
        can be in the file name, which ``tighten_name`` refines)."""
        bounds, flagged = self.bounds_any(q, ids, hidden_ok)
        if not isinstance(bounds, list):
            return bounds.tolist(), flagged.tolist()
        return bounds, flagged

    def bounds_any(
        self, q: Query, ids: Sequence[int], hidden_ok: bool, at: Any = None
    ) -> tuple[Any, Any]:
        """``bounds`` as computed: two lists, or int64 and bool arrays for a caller that goes on in
        numpy. ``at``: the ids as an int64 array, read only."""
        total = self.early_total(q, ids, hidden_ok, at)
        fq = q.positive[-1].folded
        if "/" in fq:
            return self._aligned_bounds(fq, ids, total, at)
        m = len(fq)
        if m == 1 and len(ids) >= self.tuning.numpy_from and bit_of(fq) is not None:
            np = self.numpy.module()
            got = None if np is None else self._one_char(fq, ids, total, np, at)
            if got is not None:
                return got
        if m >= 2 and self.wide(ids, self.tuning.last_joined_share) and findable(fq):
            np = self.numpy.module()
            got = None if np is None else self._last_joined(fq, ids, total, np, at)
            if got is not None:
                return got
        return self._per_path_into(total, ids, lambda part: self._last_plain(fq, part),
                                   self.b.name_bonus(m))

    def _per_path_into(
        self, total: Any, ids: Sequence[int],
        per_path: Callable[[Sequence[int]], tuple[list[int], list[bool]]], bonus: int,
    ) -> tuple[Any, Any]:
        """The last term bounded path by path (``per_path``; ``bonus`` added where loose) added to
        ``total``: new lists, or ``total``'s array in place a ``Tuning.chunk`` at a time."""
        if isinstance(total, list):
            tb, flagged = per_path(ids)
            return [a + (b + bonus if f else b)
                    for a, b, f in zip(total, tb, flagged, strict=True)], flagged
        np = self.numpy.module()
        loose = np.empty(len(ids), dtype=bool)
        for s in range(0, len(ids), self.tuning.chunk):
            tb, flagged = per_path(ids[s:s + self.tuning.chunk])
            f = np.array(flagged, dtype=bool)
            total[s:s + len(f)] += np.array(tb, dtype=np.int64) + bonus * f
            loose[s:s + len(f)] = f
        return total, loose

    def _last_plain(self, fq: str, ids: Sequence[int]) -> tuple[list[int], list[bool]]:
        """Per id, the last term's bound before the file-name bonus, and whether it is loose.  One
        search finds the first occurrence ``p``: in the folders exactly when ``p < base``, at the
        name's start when ``p == base``; one search from ``base`` tells the rest."""
        st = self.store
        folded, base = st.folded, st.base
        m = len(fq)
        tiers = self.b.tiers(m)
        top, in_name, in_path = tiers.top, tiers.in_name, tiers.in_path
        w = self.weights
        # the folder extras need the term as it is inside the folders
        # (bounded inline: a call per id dominated one-letter terms)
        mid = "/" + fq + "/"
        mid1 = mid[1:]
        pst = st.pstart
        pp = w.parent_prefix_for(m)
        whole_parent, whole_dir = w.whole_parent, w.whole_dir
        tb = [tiers.rest] * len(ids)  # nowhere as it is: no extra
        # "loose" (flagged): not in the file name as it is
        flagged = [True] * len(ids)
        # (one character is in every candidate as it is)
        where = (range(len(ids)) if m == 1
                 else [j for j, i in enumerate(ids) if fq in folded[i]])
        for j in where:
            i = ids[j]
            f, b = folded[i], base[i]
            p = f.find(fq)
            if p < 0 or p >= b:  # only in the file name
                tb[j] = top if p == b else in_name
                flagged[j] = False
                continue
            n = f.find(fq, b)
            if n == b:
                v = top
                flagged[j] = False
            elif n > b:
                v = in_name
                flagged[j] = False
            else:
                v = in_path
            ps = pst[i]
            if p <= ps and (p == ps or f.startswith(fq, ps)):
                v += pp + (whole_parent if b - 1 - ps == m else 0)
            if (p == 0 and f.startswith(mid1)) or mid in f:
                v += whole_dir
            tb[j] = v
        return tb, flagged

    def _last_joined(
        self, fq: str, ids: Sequence[int], total: list[int], np: Any, at: Any = None
    ) -> tuple[Any, Any] | None:
        """``bounds`` for a last term of two characters or more from its marks (worked out for the
        paths holding it, then read per candidate); None without the buffer."""
        got = self.every_marks(fq, np)
        if got is None:
            return None
        every, base_a, pst_a = got
        found, in_dirs, in_name, name_start, parent, _, whole_dir = every
        w = self.weights
        m = len(fq)
        tiers = self.b.tiers(m)
        bonus = self.b.name_bonus(m)
        per = np.full(len(found), tiers.rest + bonus, dtype=np.int32)  # (nowhere: loose)
        loose = np.ones(len(found), dtype=bool)
        holders = np.flatnonzero(found)
        for s in range(0, len(holders), self.tuning.chunk):  # (the temporaries a part at a time)
            f = holders[s:s + self.tuning.chunk]
            b, ps = base_a[f].astype(np.int64), pst_a[f].astype(np.int64)
            v = np.where(name_start[f], tiers.top,
                         np.where(in_name[f], tiers.in_name, tiers.in_path))
            dirs = in_dirs[f]
            extras = (parent[f] * (w.parent_prefix_for(m) + w.whole_parent * (b - 1 - ps == m))
                      + whole_dir[f] * w.whole_dir)
            lo = dirs & ~in_name[f]
            per[f] = np.where(dirs, v + extras, v) + bonus * lo
            loose[f] = lo
        a = np.asarray(ids if at is None else at, dtype=np.int64)
        out = np.asarray(total, dtype=np.int64)  # (``early_total``'s array, ours: no copy)
        out += per[a]
        return out, loose[a]

    def _one_char(
        self, c: str, ids: Sequence[int], total: list[int], np: Any, at: Any = None
    ) -> tuple[Any, Any] | None:
        """``bounds`` for a one-character last term from the letter masks and the first-letter
        tables; None while the masks do not cover every id."""
        st, w = self.store, self.weights
        a = np.array(ids, dtype=np.int64) if at is None else at
        if not len(a) or int(a.max()) >= st.masks_len():
            return None
        dirs_m, name_m = st.letter_masks(np)
        base_a, pst_a = st.offsets(np)
        j = bit_of(c)
        assert j is not None
        bit = np.uint64(1) << np.uint64(j)
        n_all = len(base_a)
        # which paths start their name or folder name with ``c``, or have it as a folder:
        # a byte a path, once; then the ids ``Tuning.chunk`` at a time (the temporaries,
        # some 40 bytes an id, a part at a time)
        starts = marks_of(st.first.get(c, ()), n_all, np)
        parents = marks_of(st.parent_first.get(c, ()), n_all, np)
        alone = marks_of(st.one_char_folders(j, np), n_all, np)
        tiers = self.b.tiers(1)
        prefix, whole_parent = w.parent_prefix_for(1), w.whole_parent
        bonus = self.b.name_bonus(1)
        out = np.asarray(total, dtype=np.int64)  # (``early_total``'s array, ours: no copy)
        flagged = np.empty(len(a), dtype=bool)
        for s in range(0, len(a), self.tuning.chunk):
            e = min(s + self.tuning.chunk, len(a))
            ai = a[s:e]
            in_dirs = (dirs_m[ai] & bit) != 0
            in_name = (name_m[ai] & bit) != 0
            name_starts = starts[ai]
            parent = in_dirs & parents[ai]
            b, ps = base_a[ai].astype(np.int64), pst_a[ai].astype(np.int64)
            v = np.where(name_starts, tiers.top,
                         np.where(in_name | ~in_dirs, tiers.in_name, tiers.in_path))
            v += parent * (prefix + whole_parent * (b - 1 - ps == 1))
            v += (in_dirs & alone[ai]) * w.whole_dir
            f = in_dirs & ~name_starts & ~in_name
            flagged[s:e] = f
            out[s:e] += v + bonus * f
        return out, flagged

    def _aligned_bounds(
        self, fq: str, ids: Sequence[int], total: list[int], at: Any = None
    ) -> tuple[Any, Any]:
        """``bounds`` for a last term with ``/``: ``term_max`` where it aligns with the last
        components, else ``Bounds.unaligned`` (loose)."""
        bucket = self.aligned_bucket(fq)
        aligned = self.store.aligned(fq, ids if bucket is None else bucket)
        top = self.b.term_max(len(fq))
        contig, other = self.b.unaligned(len(fq))
        np = self.numpy.module() if self.wide(ids) and findable(fq) else None
        buf = None if np is None else self.folded_buffer()
        if buf is not None and np is not None:  # (the term as it is: from the buffer)
            at = np.asarray(ids if at is None else at, dtype=np.int64)
            mark = np.zeros(buf.covered, dtype=bool)
            mark[np.asarray(aligned, dtype=np.int64)] = True
            on = mark[at]
            out = np.asarray(total, dtype=np.int64)  # (``early_total``'s array, ours: no copy)
            out += np.where(on, top, np.where(self.has(fq, buf, np)[at], contig, other))
            return out, ~on
        hit = set(aligned)
        folded = self.store.folded

        def per_path(part: Sequence[int]) -> tuple[list[int], list[bool]]:
            return ([top if i in hit else contig if fq in folded[i] else other for i in part],
                    [i not in hit for i in part])

        return self._per_path_into(total, ids, per_path, 0)
