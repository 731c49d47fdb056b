"""Upper bounds of each candidate's exact score, in bulk, and their refinements
(``Bounder``); the arithmetic comes from ``ffind.scoring.bounds``.

The score of a term can only reach its maximum when the term is a prefix of the file name,
and every character matched outside the file name loses ``bonus_name``.  Bounds are refined
in stages, each only for the paths still in reach (``ffind.engine.ranker``): the term's
longest common subsequence with the file name (rapidfuzz) bounds how many characters can be
inside it (``tighten_name``); then the chunks a scattered term must be split into (``m`` less
the term's bigrams found in the path: a gap before each; ``chunks``, ``tighten_gaps``) and
how many of them can start on a word start (the term's LCS with the path's word starts,
``tighten_starts``).  A term before a query's last keeps its bounds per path between
rankings (``early_bounds``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ffind.engine.accel import NumpyUse
from ffind.engine.exact import kept
from ffind.engine.letters import bit_of
from ffind.engine.occur import FoldedBuffer, findable
from ffind.engine.store import DOT_CAP, INIT_SHIFT, PathStore
from ffind.query import Query, Term
from ffind.scoring.bounds import Bounds
from ffind.scoring.scorer import folder_extras, name_prefix_score

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass

UNKNOWN = -(1 << 31)
"""A kept bound not computed yet (``Bounder.early_bounds``)."""


@dataclass(frozen=True, slots=True)
class _Marks:
    """Where a term occurs in each of some ids (``Bounder._marks``), as numpy arrays by
    position: ``found`` anywhere, ``in_dirs`` starting before the file name (the term has no
    ``/``, so inside the folders), ``in_name``, ``name_start`` (at the name's start),
    ``parent`` (at the start of the file's folder name), ``in_parent`` (inside it),
    ``whole_dir`` (a whole folder name)."""

    at: Any
    base: Any
    pstart: Any
    found: Any
    in_dirs: Any
    in_name: Any
    name_start: Any
    parent: Any
    in_parent: Any
    whole_dir: Any


class Bounder:
    """Bounds of the paths of one ``PathStore`` (see the module docstring)."""

    def __init__(self, store: PathStore, numpy: NumpyUse) -> None:
        self.store = store
        self.weights = store.weights
        self.b = Bounds(store.weights)
        self.numpy = numpy
        self.tuning = store.tuning
        self._buffer: FoldedBuffer | None = None
        self.early_bounds: dict[str, array[int]] = {}
        """Per folded term before a query's last: its bound per id (``UNKNOWN`` when not
        computed yet), kept between rankings."""
        self._kept_holders: tuple[str, int, Any] | None = None
        """``has``' last term, how many paths it covered, and the ids (int32) of the paths
        holding it, when few (``Tuning.few_share``)."""
        self._kept_marks: dict[str, tuple[int, Any]] = {}
        """``_marks``' last answers over every path: per term, how many paths they cover and
        the seven marks packed a bit a path (``Tuning.kept`` terms, oldest first)."""

    def aligned_bucket(self, fq: str) -> Sequence[int] | None:
        """Every id that ``aligned_rx(fq)`` can match, from the first-letter tables: the file
        name starts with the term's last part, or (that part empty) its folder with the part
        before; None when neither gives a letter."""
        parts = fq.split("/")
        if parts[-1]:
            return self.store.first.get(parts[-1][0], ())
        if len(parts) >= 2 and parts[-2]:
            return self.store.parent_first.get(parts[-2][0], ())
        return None

    def prefix_scored(self, t: Term, ids: list[int], hidden_ok: bool) -> list[tuple[int, int]]:
        """Exact scores of a lone fuzzy term that is a prefix of each id's file name, in closed
        form (``Bounds.name_prefix_score``: the placement at the name's start is the best one
        there is)."""
        if len(ids) >= self.tuning.numpy_from:
            np = self.numpy.module()
            if np is not None:
                return self._prefix_scored_array(t, ids, hidden_ok, np)
        st, w = self.store, self.weights
        key = t.key
        m = len(key)
        texts = st.term_texts(t)
        base, paths, hidden = st.base, st.paths, st.hidden
        const = self.b.name_prefix_score(m)
        whole_ok = "." not in key
        scored = []
        for i in ids:
            p = paths[i]
            b = base[i]
            if not p[b].isalnum():
                s = name_prefix_score(key, texts[i], p, b, w) - st.penalty(i, hidden_ok)
            else:
                end = b + m
                s = (const - min(len(p) - b, w.len_name_cap) * w.len_name
                     - (w.hidden if hidden[i] and not hidden_ok else 0))
                if end == len(p) or (whole_ok and p[end] == "."):
                    s += w.whole_name
            scored.append((s, i))
        # the folder extras, for the few whose folder starts with the term or is it
        pst = st.pstart
        mid = "/" + key + "/"
        mid1 = mid[1:]
        for j in [j for j, i in enumerate(ids) if base[i] and paths[i][base[i]].isalnum() and (
                texts[i].startswith(key, pst[i]) or mid in texts[i]
                or texts[i].startswith(mid1))]:
            s, i = scored[j]
            scored[j] = (s + folder_extras(key, texts[i], base[i], w), i)
        return scored

    def _prefix_scored_array(
        self, t: Term, ids: list[int], hidden_ok: bool, np: Any
    ) -> list[tuple[int, int]]:
        """``prefix_scored``'s closed form as array arithmetic: only whether the name starts
        on a letter or digit and whether a dot follows the term are read path by path (each
        one C-level ``map``); the folder extras' test, from the first-letter table of the
        folders and the one-character folders' letter masks for a one-character folded term,
        else path by path."""
        st, w = self.store, self.weights
        key = t.key
        m = len(key)
        texts = st.term_texts(t)
        base, paths = st.base, st.paths
        a = np.array(ids, dtype=np.int64)
        base_a = st.offsets(np)[0]
        b = base_a[a].astype(np.int64)
        plen = st.path_lengths(np)[a].astype(np.int64)
        alnum, dot = st.name_heads(a, np)
        s = self.b.name_prefix_score(m) - np.minimum(plen - b, w.len_name_cap) * w.len_name
        if not hidden_ok and st.any_hidden:
            hid = np.frombuffer(st.hidden, dtype=np.uint8)
            s -= w.hidden * (hid[a] != 0)
            del hid  # (the store's bytearray grows later: no view of it may outlive this)
        end = b + m
        whole = end == plen
        if "." not in key:  # (``p[end] == "."``: where the name's first dot is ``m``, or ...)
            whole |= (dot == m) & (dot < DOT_CAP)
            # ... where a dot comes before it (the folded name starts with the key: no dot
            # there but from folding), read path by path
            odd = np.flatnonzero(((dot >= 0) & (dot < m)) | ((dot >= DOT_CAP) & (m >= DOT_CAP)))
            for j in odd.tolist():
                if paths[ids[j]].startswith(".", int(end[j])):
                    whole[j] = True
        s += w.whole_name * whole
        out = s.tolist()
        for j in np.flatnonzero(~alnum).tolist():  # (rare: the full closed form)
            i = ids[j]
            out[j] = (name_prefix_score(key, texts[i], paths[i], base[i], w)
                      - st.penalty(i, hidden_ok))
        # the folder extras, for the few whose folder starts with the term or is it
        c = key
        one = (m == 1 and texts is st.folded and c == t.folded and bit_of(c) is not None
               and int(a.max()) < st.masks_len())
        if one:
            bit = bit_of(c)
            assert bit is not None
            near = (self._member(st.parent_first.get(c, ()), a, len(base_a), np)
                    | self._member(st.one_char_folders(bit, np), a, len(base_a), np))
            for j in np.flatnonzero(near & alnum & (b > 0)).tolist():
                i = ids[j]
                out[j] += folder_extras(key, texts[i], base[i], w)
        else:  # (``folder_extras`` inline: the median keys at 1M call it for 14-30k names)
            pst = st.pstart
            mid = "/" + key + "/"
            mid1 = mid[1:]
            whole_dir, whole_parent = w.whole_dir, w.whole_parent
            pp = w.parent_prefix_for(m)
            no_sep = "/" not in key
            # the extras are those of the folder ``f[:bi]`` (the folded texts' ``pstart`` is
            # the ``parent`` below): a name in the folder of the name before takes its extras
            share = texts is st.folded
            pb, pf, pe = -1, "", 0
            for j in np.flatnonzero(alnum & (b > 0)).tolist():
                i = ids[j]
                f = texts[i]
                bi = base[i]
                if bi == pb and f.startswith(pf):
                    out[j] += pe
                    continue
                if share:
                    pb, pf, pe = bi, f[:bi], 0
                at0 = f.startswith(mid1)
                inside = mid in f
                if not (inside or at0 or f.startswith(key, pst[i])):
                    continue
                # ``mid in "/" + f[:bi]``: at its start, or inside ``f[:bi]``
                e = (whole_dir if (at0 and bi > m) or (inside and f.find(mid, 0, bi) >= 0)
                     else 0)
                parent = f.rfind("/", 0, bi - 1) + 1
                if no_sep and bi - 1 - parent >= m and f.startswith(key, parent):
                    e += pp + (whole_parent if bi - 1 - parent == m else 0)
                out[j] += e
                if share:
                    pe = e
        return list(zip(out, ids, strict=True))

    def early_total(self, q: Query, ids: Sequence[int], hidden_ok: bool, at: Any = None) -> Any:
        """Per id: the bounds of every term but the last, less the path's penalty (a list;
        with numpy, for ``Tuning.numpy_from`` ids or more, an int64 array; ``at``: ``ids`` as
        one already, see ``bounds_any``).

        Each of those terms is scored anywhere, or against the folder path with the file's
        folder as the name (``ExactScorer.score``): no file-name bound; but a term that is
        nowhere contiguous gets no prefix, whole-name, contiguity or folder bonus in either
        reading (unless it has a ``/``, which may align with the folders instead)."""
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
            if new:
                np = self.numpy.module() if self.wide(new) and findable(fq) else None
                got = None if np is None else self._early_joined(fq, new, most, np)
                tbn = self._early_term(fq, new, most) if got is None else got.tolist()
                for i, v in zip(new, tbn, strict=True):
                    known[i] = v
                if new is ids:
                    total = [a + v for a, v in zip(total, tbn, strict=True)]
                    continue
            total = [a + known[i] for a, i in zip(total, ids, strict=True)]
        return total

    def _early_total_array(self, q: Query, ids: Sequence[int], hidden_ok: bool, np: Any) -> Any:
        """``early_total`` in numpy (int64): the penalties and the kept bounds read as arrays,
        the new ids' bounds written back in one assignment instead of one per id."""
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
        """The most an earlier term ``fq`` can score (its bound where it is a prefix)."""
        m = len(fq)
        return self.b.tiers(m).top + self.b.dir_extras_max(m)

    def _known(self, fq: str) -> tuple[array[int], bool]:
        """The kept bounds of the earlier term ``fq`` (``early_bounds``), one per path
        (``UNKNOWN`` where not computed yet), and whether they were made just now (all
        unknown: its bounds kept between rankings, computed for new ids only)."""
        known, made = kept(self.early_bounds, fq, lambda: array("i"), self.tuning.kept)
        n = len(self.store.paths)
        if len(known) < n:  # (a part at a time: no second table's worth of temporary)
            fill = array("i", [UNKNOWN]) * min(n - len(known), self.tuning.chunk)
            while len(known) < n:
                known.extend(fill if n - len(known) >= len(fill) else fill[:n - len(known)])
        return known, made

    def _early_term(self, fq: str, new: Sequence[int], most: int) -> list[int]:
        """The bound of an earlier term (folded ``fq``, no ``/``) per id of ``new``: where it
        is contiguous, a prefix of the file name or of its folder's name, inside one of them,
        or elsewhere; the folder extras only when it is inside the folders.

        Each rule is read from the term's first occurrence ``p`` where it can be (a search
        per rule cost 4-5 searches a path: a million paths' ``test u``, 611k ids, ~250 ms):
        the term is in the folders (an occurrence inside ``[0, base)``) exactly when the first
        one ends by ``base``; when ``p >= base`` every occurrence is in the name; the first
        occurrence at or after the file's folder's start ``ps`` is ``p`` itself when
        ``p >= ps``, so the folder holds one (inside ``[ps, base - 1)``) exactly when ``p``
        ends inside it.  Only a name search from ``base`` and, when ``p < ps``, a search in
        the file's folder remain."""
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

    def bounds(self, q: Query, ids: Sequence[int], hidden_ok: bool) -> tuple[list[int], list[bool]]:
        """An upper bound of the exact score of each id, and whether it is *optimistic*
        (assumes every character can be in the file name; ``tighten_name`` computes that part
        with rapidfuzz's LCSseq against the file name instead)."""
        bounds, flagged = self.bounds_any(q, ids, hidden_ok)
        if not isinstance(bounds, list):
            return bounds.tolist(), flagged.tolist()
        return bounds, flagged

    def bounds_any(
        self, q: Query, ids: Sequence[int], hidden_ok: bool, at: Any = None
    ) -> tuple[Any, Any]:
        """``bounds`` as they come: two lists, or two numpy arrays (int64, bool) when computed
        in numpy (for a caller that goes on in numpy: no ``tolist`` and back).  ``at``: the
        same ids as an int64 array when the caller has one (read, never written): each numpy
        stage reads it instead of converting ``ids`` again (14 ms for 837k ids)."""
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
        """A last term bounded path by path (``per_path(ids)``: each id's bound and whether
        it is loose, which adds ``bonus``) added to the earlier terms' ``total``: a list (new
        lists), or ``early_total``'s numpy array (a new array, ours: in place,
        ``Tuning.chunk`` ids at a time, so that the lists are a part's, not every
        candidate's; the loose flags as a bool array)."""
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
        """Per id, the bound of the last term ``fq`` (no ``/``) before the file-name bonus of
        its characters, and whether it is loose (not in the file name as it is: that bonus
        is then added for every character, for ``tighten_name`` to take back).

        One search per candidate finds the term's first occurrence ``p``, and the rules read
        from it: the term has no ``/`` and ``base - 1`` is the ``/`` before the name, so an
        occurrence that starts in the folders ends there, and the term is in the folders
        exactly when ``p < base``; otherwise it is at the name's start exactly when
        ``p == base``.  A folder prefix at ``pstart`` is an occurrence, so none when
        ``p > pstart``.  One search from ``base`` then tells both "at the name's start" and
        "in the name" (a search per rule took 20-30% longer: ``session te``'s 29.6k
        candidates 13.6 -> 10-11 ms)."""
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

    def folded_buffer(self) -> FoldedBuffer | None:
        """The folded paths as one byte buffer (``ffind.engine.occur``) once ``warm`` has
        built it over every path (``build_buffer``), else None: a keystroke never waits for
        it (a million paths take about half a second), the per-path code answers meanwhile.
        """
        buf = self._buffer
        if buf is None or buf.broken or buf.covered < len(self.store.paths):
            return None
        return buf

    def build_buffer(self, np: Any, upto: int) -> None:
        """Extend ``folded_buffer`` to the paths up to ``upto`` (``warm``, a slice at a
        time); once the store holds more than ``Tuning.buffer_upto`` paths, drop it instead (what
        was built is freed, and nothing more is)."""
        if self._buffer is None:
            self._buffer = FoldedBuffer(np, self.tuning.slice)
        if len(self.store.paths) > self.tuning.buffer_upto:
            self._buffer.drop()
            return
        self._buffer.sync(self.store.folded, upto)

    def buffer_len(self) -> int:
        """How many paths ``folded_buffer`` covers so far (all of them once a path with a NUL
        made it give up: there is nothing to build)."""
        if self._buffer is None:
            return 0
        return len(self.store.paths) if self._buffer.broken else self._buffer.covered

    def has(self, fq: str, buf: FoldedBuffer, np: Any) -> Any:
        """``buf.has(fq)`` (``fq`` findable; ``buf`` the ``folded_buffer``): per path covered,
        whether ``fq`` occurs in it.  When the paths holding the last term asked for were
        few (``Tuning.few_share``) and that term is inside ``fq``, only they can hold ``fq``:
        each is tested (``in``) instead of a pass over the whole buffer (``s/p/t`` after
        ``s/p/``)."""
        n = buf.covered
        kept = self._kept_holders
        if kept is not None and kept[1] == n and kept[0] in fq:
            holders = kept[2]
            folded = self.store.folded
            hit = np.array([fq in folded[i] for i in holders.tolist()], dtype=bool)
            out = np.zeros(n, dtype=bool)
            out[holders[hit]] = True
        else:
            out = buf.has(fq)
        ids = np.flatnonzero(out)
        self._kept_holders = (
            (fq, n, ids.astype(np.int32)) if len(ids) * self.tuning.few_share <= n else None)
        return out

    def wide(self, ids: Sequence[int], share: int | None = None) -> bool:
        """Whether ``ids`` are enough of the index for the searches over the whole buffer to
        beat the per-candidate ones (``Tuning.numpy_from``, and one ``share``-th of the index:
        ``Tuning.joined_share`` when None)."""
        share = self.tuning.joined_share if share is None else share
        return len(ids) >= self.tuning.numpy_from and len(ids) * share >= len(self.store.paths)

    def _marks(self, fq: str, ids: Sequence[int], np: Any) -> Iterator[_Marks] | None:
        """Where the term ``fq`` (``findable``, no ``/``) occurs in each of ``ids``, from the
        folded paths' buffer (``folded_buffer``), ``Tuning.chunk`` ids at a time (in order);
        None when there is no buffer.  Folding keeps one code point for one
        (``ffind.query.fold``), so ``base`` and ``pstart`` are positions in the folded path
        too, and with no ``/`` in the term an occurrence never spans the ``/`` before a name
        or a folder: "inside the folders" is an occurrence that starts before ``base``, and so
        on.

        The marks of every path are kept for the last ``Tuning.kept`` terms: a term bounded
        as the last one (``test``) is bounded again as an earlier one at the next key
        (``test u``), and its occurrences are not searched for again."""
        got = self._every_marks(fq, np)
        if got is None:
            return None
        every, base_a, pst_a = got
        at = np.asarray(ids, dtype=np.int64)

        def parts() -> Iterator[_Marks]:
            for s in range(0, len(at), self.tuning.chunk):
                a = at[s:s + self.tuning.chunk]
                found, in_dirs, in_name, name_start, parent, in_parent, whole_dir = every[:, a]
                yield _Marks(
                    at=a, base=base_a[a].astype(np.int64), pstart=pst_a[a].astype(np.int64),
                    found=found, in_dirs=in_dirs, in_name=in_name, name_start=name_start,
                    parent=parent, in_parent=in_parent, whole_dir=whole_dir)

        return parts()

    def _every_marks(self, fq: str, np: Any) -> tuple[Any, Any, Any] | None:
        """``_marks``' seven marks of every path (``_every_mark``: kept for the last
        ``Tuning.kept`` terms) and the paths' ``base`` and ``pstart`` arrays; None when there
        is no buffer."""
        buf = self.folded_buffer()
        if buf is None:
            return None
        base_a, pst_a = self.store.offsets(np)
        n_all = buf.covered
        kept = self._kept_marks.pop(fq, None)
        if kept is not None and kept[0] == n_all:
            every = np.unpackbits(kept[1], axis=1, count=n_all).view(bool)
        else:
            every = self._every_mark(fq, buf, base_a, pst_a, np)
            kept = (n_all, np.packbits(every, axis=1))
        self._kept_marks[fq] = kept  # (last: the most recent)
        while len(self._kept_marks) > self.tuning.kept:
            del self._kept_marks[next(iter(self._kept_marks))]
        return every, base_a, pst_a

    @staticmethod
    def _every_mark(fq: str, buf: FoldedBuffer, base_a: Any, pst_a: Any, np: Any) -> Any:
        """``_marks``' seven marks for every path the buffer covers, as a (7, paths) bool
        array, in ``_Marks``' order from ``found``."""
        slash = ord("/")
        every = np.zeros((7, buf.covered), dtype=bool)
        for t, r, before, after in buf.find_parts(fq):  # (a slice's occurrences at a time)
            tb, tp = base_a[t].astype(np.int64), pst_a[t].astype(np.int64)
            for row, sel in enumerate((
                    slice(None), r < tb, r >= tb, r == tb, r == tp,
                    (r >= tp) & (r < tb - 1) & (tp >= 0),
                    ((r == 0) | (before == slash)) & (after == slash))):
                every[row, t[sel]] = True
        return every

    def _last_joined(
        self, fq: str, ids: Sequence[int], total: list[int], np: Any, at: Any = None
    ) -> tuple[Any, Any] | None:
        """``bounds`` for a last term ``fq`` of two characters or more (``findable``, no
        ``/``), from its occurrences (``_every_marks``); None when there is no buffer.  The
        bound is worked out for the paths that hold the term only (a third of ``sr``'s
        candidates), then read for the candidates: the others are nowhere as it is."""
        got = self._every_marks(fq, np)
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

    def _early_joined(self, fq: str, new: Sequence[int], most: int, np: Any) -> Any:
        """``_early_term`` from the term's occurrences (``_marks``), as an int64 array; None
        when there is no buffer."""
        marks = self._marks(fq, new, np)
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

    def _one_char(
        self, c: str, ids: Sequence[int], total: list[int], np: Any, at: Any = None
    ) -> tuple[Any, Any] | None:
        """``bounds`` for a one-character last term ``c`` (which has a bit of its own), as
        array arithmetic over the letter masks (``ffind.engine.letters``): whether ``c`` is in
        the folders, in the file name, a folder of its own; the first-letter tables say
        whether it starts the file name or the file's folder name.  None while the masks
        (built by ``warm``, a slice at a time) do not cover every id yet."""
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
        # some 40 bytes an id, a part at a time: ``test u`` at 1M, 611k ids, 26 -> 9 MiB)
        starts = self._marks_of(st.first.get(c, ()), n_all, np)
        parents = self._marks_of(st.parent_first.get(c, ()), n_all, np)
        alone = self._marks_of(st.one_char_folders(j, np), n_all, np)
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

    @staticmethod
    def _member(table: Sequence[int], a: Any, n: int, np: Any) -> Any:
        """Per id of ``a``: whether it is in ``table`` (ids below ``n``)."""
        return Bounder._marks_of(table, n, np)[a]

    @staticmethod
    def _marks_of(table: Sequence[int], n: int, np: Any) -> Any:
        """Per id below ``n``: whether it is in ``table``."""
        t = np.array(table, dtype=np.int64)
        mark = np.zeros(n, dtype=bool)
        mark[t[t < n]] = True
        return mark

    def _aligned_bounds(
        self, fq: str, ids: Sequence[int], total: list[int], at: Any = None
    ) -> tuple[Any, Any]:
        """``bounds`` for a last term with ``/``: ``term_max`` where it aligns with the last
        components, else ``Bounds.unaligned`` (loose: every character could be in the name)."""
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

    def tighten_name(self, q: Query, ids: list[int], bounds: list[int]) -> list[int]:
        """Optimistic ``bounds`` (every character in the file name) made precise on that
        point: only the term's LCS with the file name (rapidfuzz) can be in it."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        fq = q.positive[-1].folded
        m = len(fq)
        names_of = self.store.names_of
        bonus = self.weights.bonus_name
        np = self.numpy.module()
        if np is not None and ids:
            # the file names a part at a time (past NAMES_KEPT_UPTO paths the store slices them)
            v = np.concatenate([
                process.cdist([fq], names_of(ids[s:s + self.tuning.chunk]),
                              scorer=LCSseq.similarity, dtype=np.int32)[0]
                for s in range(0, len(ids), self.tuning.chunk)])
            arr = np.asarray(bounds, dtype=np.int64) + bonus * (v - m)
            out: list[int] = arr.tolist()
            return out
        texts = names_of(ids)
        out = [b - self.b.name_bonus(m) for b in bounds]
        res = process.extract_iter(fq, texts, scorer=LCSseq.similarity, score_cutoff=1)
        for _, v, j in res:
            out[j] += self.b.name_bonus(v)
        return out

    def tighten_name_array(self, q: Query, ids: Any, bounds: Any, np: Any) -> Any:
        """``tighten_name`` over numpy arrays of ids and bounds (int64), into an array."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        fq = q.positive[-1].folded
        names_of = self.store.names_of
        if not len(ids):
            return np.array(bounds, dtype=np.int64)
        v = np.concatenate([
            process.cdist([fq], names_of(ids[s:s + self.tuning.chunk].tolist()),
                          scorer=LCSseq.similarity, dtype=np.int64)[0]
            for s in range(0, len(ids), self.tuning.chunk)])
        return bounds + self.weights.bonus_name * (v - len(fq))

    def tighten_name_upper(self, q: Query, ids: Any, bounds: Any, np: Any) -> Any:
        """An upper bound of ``tighten_name_array``'s bounds (int64 ``ids`` and ``bounds``),
        from the letter masks of the file names (``ffind.engine.letters``) instead of the
        term's LCS with each name: ``name_lcs_upper``; a new int64 array, or None while the
        masks do not cover every id."""
        fq = q.positive[-1].folded
        most = self.name_lcs_upper(fq, ids, np)
        if most is None:
            return None
        out = most.astype(np.int64)
        out -= len(fq)
        out *= self.weights.bonus_name
        out += bounds
        return out

    def name_lcs_upper(self, fq: str, ids: Any, np: Any) -> Any:
        """Per id of ``ids`` (int64), at least the LCS of ``fq`` with the folded file name
        (int16 for a term that short): each character of ``fq`` as often as it is in
        ``fq`` when the name holds it (its bit in the name's letter mask), a ``/`` never (no
        name holds one), a character without a bit of its own always; None while the masks
        do not cover every id."""
        st = self.store
        if not len(ids) or int(ids.max()) >= st.masks_len():
            return None
        names = st.letter_masks(np)[1]
        most = np.zeros(len(ids), dtype=np.int16 if len(fq) < 1 << 14 else np.int64)
        always = sum(fq.count(c) for c in set(fq) if c != "/" and bit_of(c) is None)
        bits = [(np.uint64(1) << np.uint64(j), most.dtype.type(fq.count(c)))
                for c in sorted(set(fq)) if c != "/" and (j := bit_of(c)) is not None]
        for s in range(0, len(ids), self.tuning.chunk):  # (the masks' temporaries a part at a time)
            part = names[ids[s:s + self.tuning.chunk]]
            held = np.empty(len(part), dtype=np.uint64)
            got = most[s:s + self.tuning.chunk]
            for bit, times in bits:
                np.bitwise_and(part, bit, out=held)
                got += (held != 0) * times
        most += always
        return most

    def chunks(self, q: Query, ids: list[int]) -> list[int]:
        """Per id, how many chunks the last term must at least be split into there
        (``m - bigrams`` found), or 0 when it is contiguous somewhere (or one character)."""
        fq = q.positive[-1].folded
        m = len(fq)
        folded = self.store.folded
        if m < 2:
            return [0] * len(ids)
        texts = [folded[i] for i in ids]
        chunks = [0 if fq in f else m for f in texts]
        for k in range(m - 1):
            g = fq[k:k + 2]
            chunks = [c - (g in f) if c else 0 for c, f in zip(chunks, texts, strict=True)]
        return chunks

    def tighten_gaps(self, bounds: list[int], chunks: list[int]) -> list[int]:
        """Each chunk after the first starts after a gap (``Bounds.gaps_loss``)."""
        loss = self.b.gaps_loss
        return [b - loss(c) for b, c in zip(bounds, chunks, strict=True)]

    def tighten_starts(
        self, q: Query, ids: list[int], bounds: list[int], chunks: list[int]
    ) -> list[int]:
        """Of ``c`` chunks at most ``w`` (the term's LCS with the characters at word starts,
        rapidfuzz) start on a boundary (``Bounds.starts_loss``)."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        fq = q.positive[-1].folded
        out = list(bounds)
        scat = [j for j, c in enumerate(chunks) if c]
        if scat:
            inits = self.store.initials([ids[j] for j in scat], fq)
            on = [0] * len(scat)
            for _, v, j in process.extract_iter(fq, inits, scorer=LCSseq.similarity,
                                                score_cutoff=1):
                on[j] = v
            loss = self.b.starts_loss
            for j, wj in zip(scat, on, strict=True):
                out[j] -= loss(chunks[j], wj)
        return out

    def refine(
        self, q: Query, ids: Any, bounds: Any, floor: float, np: Any
    ) -> tuple[Any, Any]:
        """``chunks``, ``tighten_gaps``, the cut at ``floor`` and ``tighten_starts`` at once,
        as numpy arrays (int64 ids and bounds, in the order of ``ids``): the same bounds as
        those four steps give one after the other, with one pass over the paths per bigram
        of the term and rapidfuzz's ``cdist`` (into an array) for the word starts
        (``starts_lcs``)."""
        a = np.array(ids, dtype=np.int64)
        b = np.array(bounds, dtype=np.int64)
        fq = q.positive[-1].folded
        m = len(fq)
        if m < 2:
            keep = b >= floor
            return a[keep], b[keep]
        # each bigram of the term found takes a chunk off (a repeated one as often as it
        # occurs in the term)
        grams: dict[str, int] = {}
        for k in range(m - 1):
            grams[fq[k:k + 2]] = grams.get(fq[k:k + 2], 0) + 1
        chunks = np.full(len(a), m, dtype=np.int64)
        buf = self.folded_buffer() if self.wide(a) and findable(fq) else None
        if buf is not None:  # over every path at once
            for g, times in grams.items():
                chunks -= times * buf.has(g)[a]
            # (contiguous only where every bigram is: those few tested one by one)
            folded = self.store.folded
            every = np.flatnonzero(chunks == 1)
            whole = [fq in folded[i] for i in a[every].tolist()]
            chunks[every[np.array(whole, dtype=bool)]] = 0
        else:
            folded = self.store.folded
            texts = [folded[i] for i in a.tolist()]
            for g, times in grams.items():
                chunks -= times * np.array([g in f for f in texts], dtype=np.int64)
            chunks[np.array([fq in f for f in texts], dtype=bool)] = 0
        b -= self.b.gaps_loss_many(chunks, np)
        keep = b >= floor
        a, b, chunks = a[keep], b[keep], chunks[keep]
        scat = np.flatnonzero(chunks)
        if len(scat):
            on = self.starts_lcs(fq, a[scat], np)
            b[scat] -= self.b.starts_loss_many(chunks[scat], on, np)
        return a, b

    def starts_lcs(self, fq: str, ids: Any, np: Any) -> Any:
        """Per id of ``ids`` (an int64 array), the LCS of ``fq`` with its word starts
        (rapidfuzz's ``cdist``), as an int64 array.  Where ``Tuning.block_from`` ids or more
        fall in one block of word starts, the whole block is split and scored at once and
        their entries taken by position: no string sliced per id (``s/p/t``'s 57k at 110k
        paths: 10.9 -> 8.7 ms); the other ids are scored from ``PathStore.initials``."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        st = self.store
        out = np.zeros(len(ids), dtype=np.int64)
        order = np.argsort(ids, kind="stable")
        s_ids = ids[order]
        blk = s_ids >> INIT_SHIFT
        cuts = np.flatnonzero(blk[1:] != blk[:-1]) + 1
        done = st.initials_len()
        rest = []
        for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(s_ids)], strict=True):
            if hi - lo < self.tuning.block_from or int(s_ids[hi - 1]) >= done:
                rest.append(order[lo:hi])
                continue
            k = int(blk[lo])
            v = process.cdist([fq], st.initials_block(k, fq), scorer=LCSseq.similarity,
                              dtype=np.int64)[0]
            out[order[lo:hi]] = v[s_ids[lo:hi] - (k << INIT_SHIFT)]
        if rest:
            at = np.concatenate(rest)
            out[at] = process.cdist([fq], st.initials(ids[at].tolist(), fq),
                                    scorer=LCSseq.similarity, dtype=np.int64)[0]
        return out
