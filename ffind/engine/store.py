"""The path store of an ``Index``: the paths (id = position) and the per-path tables matching
needs, kept compact (issue 17: a session at 1M paths): the folded form shares the path's
string when folding changes nothing; the first-letter tables and penalties are
``array('i')`` (4 bytes an id, not a list slot plus an int object); reversed paths are not
kept, nor file names and stems past ``Tuning.names_upto`` paths (sliced, or reversed, where they
are needed); the word starts are kept a block of ids to one string, one byte a character
(``NARROW``); the one-character folders' letter masks only for the paths that have one.  Some
tables are built on ``extend`` (folded forms, offsets, first-letter tables, names and stems),
the others on first use and then extended as paths arrive (``penalties``, ``lengths``,
``initials``, letter masks; ``ffind.engine.warmup`` builds them ahead)."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate, compress, count, repeat
from operator import add, not_, sub
from typing import Any

from ffind.engine.accel import loaded_numpy
from ffind.engine.letters import Slices
from ffind.engine.prefilter import aligned_rx
from ffind.engine.tuning import DEFAULT, Tuning
from ffind.query import Term, fold, variant
from ffind.scoring.scorer import initials, initials_many
from ffind.scoring.weights import Weights

INIT_SHIFT = 12
"""The word starts are kept ``1 << INIT_SHIFT`` ids to a string (``PathStore.initials``)."""
INIT_BLOCK = 1 << INIT_SHIFT
_INIT_MASK = INIT_BLOCK - 1
NARROW = "\x7f"
"""What stands in the blocks of word starts for a character beyond ASCII (the exact strings
are kept beside them, ``PathStore.initials``): an ASCII term without it has the same longest
common subsequence with either."""
_BEYOND_ASCII = re.compile("[^\x00-\x7f]")
DENSE = INIT_BLOCK // 16
"""From how many ids in one block ``PathStore.initials`` splits the block instead of slicing."""


DOT_CAP = 16000
"""``PathStore.name_heads`` keeps where a file name's first ``.`` is up to this offset (two
bytes a path); past it, ``DOT_CAP``."""


class PathStore:
    """Paths plus what matching needs: folded forms, file-name offsets, first-letter tables.

    Public tables, one entry per path id: ``paths``, ``folded`` (lowercased, accents
    stripped; the path's own string when that changes nothing), ``base`` (where the file name
    starts), ``hidden`` (a component starts with ``.``), ``pstart`` (where the file's folder
    name starts, -1 for none); ``first`` and ``parent_first``: ids by the first folded letter
    of the file name and of its folder's name, as ``array('i')``; ``base`` and ``pstart``
    stay lists (indexed in every hot loop, where a list is faster; their ints are small and
    shared).  The folded file name of id ``i`` is ``folded[i][base[i]:]``
    (``name``, ``names_of``); ``stem``, ``stems_of`` and ``aligned`` slice or reverse on use.
    """

    def __init__(self, weights: Weights, tuning: Tuning = DEFAULT) -> None:
        self.weights = weights
        self.tuning = tuning
        self.paths: list[str] = []
        self.folded: list[str] = []
        self.base: list[int] = []
        self.hidden = bytearray()
        self.any_hidden = False
        self.first: dict[str, array[int]] = {}
        self.parent_first: dict[str, array[int]] = {}
        self.pstart: list[int] = []
        self._resized: set[int] = set()  # ids whose folded form differs in length
        # the folded file names and stems, kept while the store is small (``Tuning.names_upto``)
        self._names: list[str] | None = []
        self._stems: list[str] | None = []
        self._aligned_memo: tuple[str, int, tuple[int, ...]] | None = None
        self._variants: dict[tuple[bool, bool], list[str]] = {}
        # word starts: whole blocks of INIT_BLOCK ids, each string ended by a NUL (the last
        # block partial, re-joined as it grows), each id's end in its block; ids computed
        # ahead of the blocks in a dict
        self._iblocks: list[str] = []
        self._iends = array("I")
        self._iloose: dict[int, str] = {}
        # the word starts holding a character beyond ASCII, by id: in the blocks each such
        # character is ``NARROW`` (a block stays one byte a character; ``initials``)
        self._iwide: dict[int, str] = {}
        self._pen: dict[bool, array[int]] = {False: array("i"), True: array("i")}
        self._lens: dict[bool, Any] = {}
        self._plen: Any = None
        self._offsets: tuple[Any, Any] | None = None
        # the letter masks: folders' and names' in two arrays with room for every path (one
        # allocation each, filled a slice at a time: no slices joined, no holes left between
        # the word starts' blocks built meanwhile), how many they cover, and per slice the
        # ids with a one-character folder and their masks
        self._mask_arrays: tuple[Any, Any] | None = None
        self._masks_n = 0
        self._mask_parts: list[tuple[Any, Any]] = []
        self._heads: Any = None  # (``name_heads``: int16 by id, -1 not read yet)

    def __len__(self) -> int:
        return len(self.paths)

    def extend(self, new: list[str]) -> None:
        if not new:
            return
        joined = "\n".join(new)  # first: a TypeError (not a str) leaves the store as it was
        n0 = len(self.paths)
        self.paths.extend(new)
        # fold() inline when every path is ASCII (the common case): no call per path; the
        # path itself when folding changes nothing (most paths: one string, not two)
        if joined.isascii():
            folded = [p if f == p else f for p, f in zip(new, map(str.lower, new),
                                                         strict=True)]
        else:
            folded = [p if f == p else f for p, f in zip(
                new, [p.lower() if p.isascii() else fold(p) for p in new], strict=True)]
            self._resized.update(i for i, (p, f) in enumerate(zip(new, folded, strict=True), n0)
                                 if len(p) != len(f))
        self.folded.extend(folded)
        base = [p.rfind("/") + 1 for p in new]
        self.base.extend(base)
        if self._names is not None and self._stems is not None:
            if len(self.paths) > self.tuning.names_upto:
                self._names = self._stems = None
            else:
                names = [f[b:] for f, b in zip(folded, base, strict=True)]
                self._names.extend(names)
                self._stems.extend([nm[:d] if (d := nm.rfind(".")) > 0 else nm
                                    for nm in names])
        if "/." in joined or joined.startswith(".") or "\n." in joined:
            self.hidden.extend(p[0] == "." or "/." in p for p in new)
            self.any_hidden = True
        else:  # no hidden path in the batch (the default walk skips them)
            self.hidden.extend(bytes(len(new)))
        first = self.first
        for i, (f, b) in enumerate(zip(folded, base, strict=True), n0):
            c = f[b:b + 1]
            lst = first.get(c)
            if lst is None:
                first[c] = array("i", [i])
            else:
                lst.append(i)
        parent_first = self.parent_first
        pstart = self.pstart
        for i, (f, b) in enumerate(zip(folded, base, strict=True), n0):
            if b:
                ps = f.rfind("/", 0, b - 1) + 1
                pstart.append(ps)
                c = f[ps]
                lst = parent_first.get(c)
                if lst is None:
                    parent_first[c] = array("i", [i])
                else:
                    lst.append(i)
            else:
                pstart.append(-1)

    # --- sliced on use

    def name(self, i: int) -> str:
        """The folded file name of path ``i``."""
        return self.folded[i][self.base[i]:]

    def names_of(self, ids: Sequence[int]) -> list[str]:
        """``name`` of each id (from the kept names while the store is small)."""
        names = self._names
        if names is not None:
            return [names[i] for i in ids]
        folded, base = self.folded, self.base
        return [folded[i][base[i]:] for i in ids]

    def stem(self, i: int) -> str:
        """The folded file name of path ``i`` up to its last dot, unless it starts the name
        (``.env``)."""
        f, b = self.folded[i], self.base[i]
        dot = f.rfind(".", b)
        return f[b:dot] if dot > b else f[b:]

    def stems_of(self, ids: Sequence[int]) -> list[str]:
        """``stem`` of each id."""
        stems = self._stems
        if stems is not None:
            return [stems[i] for i in ids]
        folded, base = self.folded, self.base
        return [f[b:d] if (d := f.rfind(".", b)) > b else f[b:]
                for f, b in zip(map(folded.__getitem__, ids), map(base.__getitem__, ids),
                                strict=True)]

    def name_lengths(self, whole: bool, ids: Sequence[int]) -> list[int]:
        """The length of each id's file name (``whole``) or stem (``lengths`` in Python)."""
        folded, base = self.folded, self.base
        if whole:
            return [max(len(folded[i]) - base[i], 0) for i in ids]
        return [_stem_len(folded[i], base[i]) for i in ids]

    def aligned(self, fq: str, ids: Sequence[int]) -> list[int]:
        """The ids of ``ids`` (in order) that ``prefilter.aligned_rx(fq)`` matches reversed
        (``fq`` holds a ``/``): each part of the term a prefix of its path component, the last
        part of the last one.  The path is reversed only where the file name (or, the last
        part empty, the folder name) starts with its part, which the match implies."""
        match = aligned_rx(fq).match
        folded, resized = self.folded, self._resized
        parts = fq.split("/")
        last = parts[-1]
        if last:
            at, head = self.base, last
        elif len(parts) >= 2 and parts[-2]:
            at, head = self.pstart, parts[-2]
        else:
            return [i for i in ids if match(folded[i][::-1])]
        # the first-letter table of ``head`` (the shortcut, then the full ranking's bounds,
        # ask for the same one): the last answer kept while the table has not grown
        table = (self.first if last else self.parent_first).get(head[:1])
        memo = self._aligned_memo
        if ids is table and memo is not None and memo[0] == fq and memo[1] == len(table):
            return list(memo[2])
        # (a path whose folded form is not as long as it has its offsets off: no shortcut)
        hits = [i for i in ids if ((at[i] >= 0 and folded[i].startswith(head, at[i]))
                                   or (resized and i in resized))
                and match(folded[i][::-1])]
        if ids is table:
            self._aligned_memo = (fq, len(table), tuple(hits))
        return hits

    def keep_aligned(self, fq: str, table: Sequence[int], hits: list[int]) -> None:
        """Keep ``hits`` as ``aligned(fq, table)``'s answer (``table``: the first-letter table
        that ``aligned`` keeps its last answer for), found by a caller from fewer ids
        (``shortcuts._aligned_ids``: the same ids in the same order)."""
        self._aligned_memo = (fq, len(table), tuple(hits))

    # --- built on first use

    def texts(self, lower: bool, strip: bool) -> list[str]:
        """The paths lowercased and/or with accents stripped."""
        if lower and strip:
            return self.folded
        if not lower and not strip:
            return self.paths
        lst = self._variants.setdefault((lower, strip), [])
        if len(lst) < len(self.paths):
            lst.extend(variant(p, lower, strip) for p in self.paths[len(lst):])
        return lst

    def term_texts(self, t: Term) -> list[str]:
        """The paths as the term ``t`` compares with them (its case and accent rules)."""
        return self.texts(not t.case_sensitive, not t.accent_sensitive)

    def initials(self, ids: Sequence[int], term: str | None = None) -> list[str]:
        """Per id, the folded characters that can earn a word-start bonus (computed once: a
        block of ids at a time by ``build_initials``, else one by one).  With a ``term`` that
        ``narrow_for`` accepts: strings whose longest common subsequence with ``term`` is
        that of the word starts (the few that hold characters beyond ASCII are left with
        ``NARROW`` in their place, as the blocks keep them); otherwise the exact strings."""
        out = self._initials(ids)
        wide = self._iwide
        if wide and not narrow_for(term):
            done = len(self._iends)
            for j, i in enumerate(ids):
                if i < done and i in wide:
                    out[j] = wide[i]
        return out

    def _initials(self, ids: Sequence[int]) -> list[str]:
        done = len(self._iends)
        loose = self._iloose
        if ids and max(ids) >= done:  # (once ``warm`` has built every block, none is)
            missing = [i for i in ids if i >= done and i not in loose]
            if missing:
                self._add_loose(missing)
        blocks, ends = self._iblocks, self._iends
        if len(ids) < DENSE or not isinstance(ids, list) or ids != sorted(ids):
            return [blocks[i >> INIT_SHIFT][ends[i - 1] + 1 if i & _INIT_MASK else 0:ends[i]]
                    if i < done else loose[i] for i in ids]
        # ascending: a block that many ids fall in is split once (in C), not sliced per id
        out: list[str] = []
        lo, n = 0, len(ids)
        while lo < n:
            k = ids[lo] >> INIT_SHIFT
            k0 = k << INIT_SHIFT
            hi = bisect_left(ids, k0 + INIT_BLOCK, lo)
            run = ids[lo:hi]
            if run[-1] < done and hi - lo >= DENSE:
                out.extend(map(blocks[k].split("\0").__getitem__, map(sub, run, repeat(k0))))
            else:
                out.extend([blocks[k][ends[i - 1] + 1 if i & _INIT_MASK else 0:ends[i]]
                            if i < done else loose[i] for i in run])
            lo = hi
        return out

    def initials_block(self, k: int, term: str | None = None) -> list[str]:
        """The word starts of block ``k``'s ids that ``build_initials`` has computed
        (``k << INIT_SHIFT`` on), in id order: the block's string split once; ``term`` as
        ``initials``."""
        if k >= len(self._iblocks):
            return []
        words = self._iblocks[k].split("\0")
        words.pop()  # (after the last NUL)
        if self._iwide and not narrow_for(term):
            k0 = k << INIT_SHIFT
            for i, v in self._iwide.items():
                if k0 <= i < k0 + len(words):
                    words[i - k0] = v
        return words

    def _add_loose(self, ids: list[int]) -> None:
        paths, loose = self.paths, self._iloose
        # a block at a time: ``initials_many``'s regex pass over a joined text holds a few
        # objects per character of it (~1 KiB a path; 55 MiB for 57k paths at once)
        for s in range(0, len(ids), INIT_BLOCK):
            part = ids[s:s + INIT_BLOCK]
            for i, v in zip(part, initials_many([paths[i] for i in part], loaded_numpy()),
                            strict=True):
                loose[i] = v if v.isascii() else fold(v)

    def build_initials(self, upto: int) -> None:
        """Compute the word starts of every id below ``upto`` into the blocks."""
        upto = min(upto, len(self.paths))
        ends, blocks, loose = self._iends, self._iblocks, self._iloose
        while len(ends) < upto:
            s = len(ends)
            e = min((s | _INIT_MASK) + 1, upto)  # to the end of its block at most
            if loose:
                need = [i for i in range(s, e) if i not in loose]
                if need:
                    self._add_loose(need)
                vals = [loose.pop(i) for i in range(s, e)]
            else:
                vals = _initials_of(self.paths[s:e])
            k = s >> INIT_SHIFT
            off = ends[s - 1] + 1 if s & _INIT_MASK else 0
            text = "\0".join(vals) + "\0"
            if not text.isascii():  # (one such character would make the block 2-4 bytes one)
                for j in list(compress(range(len(vals)), map(not_, map(str.isascii, vals)))):
                    self._iwide[s + j] = vals[j]
                    vals[j] = _BEYOND_ASCII.sub(NARROW, vals[j])  # (one for one)
                text = "\0".join(vals) + "\0"
            # each word-start string ends with a NUL, which no path holds: where they are
            np = loaded_numpy()
            if np is not None and ends.itemsize == 4:
                at = np.flatnonzero(np.frombuffer(text.encode("ascii"), dtype=np.uint8) == 0)
                ends.frombytes((at + off).astype(np.uint32).tobytes())
            else:  # (the j-th: the lengths up to it plus j)
                ends.extend(map(add, accumulate(map(len, vals)), count(off)))
            if k < len(blocks):
                blocks[k] += text
            else:
                blocks.append(text)

    def initials_len(self) -> int:
        """How many ids (from 0) the blocks of word starts cover."""
        return len(self._iends)

    def penalty(self, i: int, hidden_ok: bool) -> int:
        """The per-path part of a score, subtracted: the file name's length, a hidden path."""
        w = self.weights
        p = w.len_name * min(len(self.paths[i]) - self.base[i], w.len_name_cap)
        if self.hidden[i] and not hidden_ok:
            p += w.hidden
        return p

    def penalties(
        self, ids: Sequence[int], hidden_ok: bool, upto: int | None = None
    ) -> Sequence[int]:
        """``penalty`` of each id (cached per path)."""
        w = self.weights
        if not w.len_name and (hidden_ok or not self.any_hidden):
            return [0] * len(ids)
        pen = self._pen[hidden_ok]
        n = len(self.paths) if upto is None else upto
        if len(pen) < n:
            base, paths, hidden = self.base, self.paths, self.hidden
            if w.len_name:
                pen.extend([w.len_name * min(len(paths[i]) - base[i], w.len_name_cap)
                            + (w.hidden if hidden[i] and not hidden_ok else 0)
                            for i in range(len(pen), n)])
            elif hidden_ok or not any(hidden[len(pen):n]):
                pen.extend(array("i", [0]) * (n - len(pen)))
            else:
                pen.extend([w.hidden * h for h in hidden[len(pen):n]])
        if isinstance(ids, range) and ids.step == 1:
            return pen[ids.start:ids.stop]
        return [pen[i] for i in ids]

    def penalties_array(self, hidden_ok: bool, np: Any, at: Any = None) -> Any:
        """``penalty`` of every id as an int64 array (a copy: the table grows with the
        store, which a numpy view of it would forbid); with ``at`` (an array of ids), of
        those ids only (no array of every id made on the way)."""
        n = len(self.paths)
        if not n:
            return np.zeros(0 if at is None else len(at), dtype=np.int64)
        got = self.penalties(range(n - 1, n), hidden_ok)  # (fills the table up to n)
        pen = self._pen[hidden_ok]
        if len(pen) < n:  # (no table: every penalty is 0)
            return np.full(n if at is None else len(at), got[0], dtype=np.int64)
        view = np.frombuffer(pen, dtype=f"i{pen.itemsize}", count=n)
        out = view.astype(np.int64) if at is None else view[at].astype(np.int64)
        del view  # (the table grows later: no view of it may outlive this)
        return out

    def penalties_len(self) -> int:
        """How many paths (from 0) ``penalties`` covers so far."""
        w, n = self.weights, len(self.paths)
        return min(n if not w.len_name and (ok or not self.any_hidden) else len(self._pen[ok])
                   for ok in (False, True))

    def lengths(self, whole: bool, np: Any, upto: int | None = None,
                slices: Slices | None = None) -> Any:
        """The length of every file name (``whole``) or stem, as a numpy array (cached; uint8
        or int16 while every value fits, see ``narrow``); ``upto``: built up to that id only
        (``warm``, a slice at a time); ``slices``: the folded paths' buffer, which the lengths
        are read from where it covers them (``ffind.engine.letters.texts``)."""
        arr = self._lens.get(whole)
        n = len(self.paths) if upto is None else min(upto, len(self.paths))
        if arr is None or len(arr) < n:
            have = 0 if arr is None else len(arr)
            more = narrow(np, self._lengths_of(whole, have, n, np, slices))
            arr = more if arr is None else np.concatenate([arr, more])
            self._lens[whole] = arr
        return arr

    def _lengths_of(self, whole: bool, lo: int, hi: int, np: Any,
                    slices: Slices | None) -> Any:
        """``name_lengths(whole, range(lo, hi))`` as an int32 array, in whole-array arithmetic:
        over the paths' bytes where ``slices`` cover them (the lengths from where the paths
        start, the stems' dots found in the bytes), else over the folded paths' lengths and
        ``str.rfind`` mapped in C.  No Python-level step a path."""
        from ffind.engine.letters import texts

        if lo >= hi:
            return np.zeros(0, dtype=np.int32)
        parts = []
        bases = self._bases(hi)
        for a, z, raw, starts, _ in (texts(self.folded, lo, hi, np, slices, self.tuning.slice)
                                     if slices else ()):
            b = np.asarray(bases[a:z], dtype=np.int64)
            lens = starts[1:] - starts[:-1] - 1
            name = np.maximum(lens - b, 0)
            if not whole:
                # the last dot before each path's end, if it is after the name's first character
                dots = np.flatnonzero(raw == ord("."))
                j = np.searchsorted(dots, starts[1:] - 1) - 1
                dot = dots[np.maximum(j, 0)] - starts[:-1] if len(dots) else np.full(z - a, -1)
                name = np.where((j >= 0) & (dot > b), dot - b, name)
            parts.append(name.astype(np.int32))
            lo = z
        if lo < hi:
            parts.append(self._lengths_here(whole, lo, hi, np))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _lengths_here(self, whole: bool, lo: int, hi: int, np: Any) -> Any:
        folded, bases = self.folded[lo:hi], self.base[lo:hi]
        k = hi - lo
        b = np.asarray(self._bases(hi)[lo:hi], dtype=np.int32)
        name = np.maximum(np.fromiter(map(len, folded), dtype=np.int32, count=k) - b, 0)
        if whole:
            return name
        dot = np.fromiter(map(str.rfind, folded, repeat("."), bases), dtype=np.int32, count=k)
        return np.where(dot > b, dot - b, name)

    def path_lengths(self, np: Any, upto: int | None = None) -> Any:
        """The length of every path, as a numpy array by id (cached; uint8, int16 or int32,
        see ``narrow``; the selections of
        ``ffind.engine.rank`` cut large groups with it); ``upto`` as ``lengths``."""
        arr = self._plen
        n = len(self.paths) if upto is None else min(upto, len(self.paths))
        if arr is None or len(arr) < n:
            have = 0 if arr is None else len(arr)
            more = narrow(np, np.fromiter(map(len, self.paths[have:n]), dtype=np.int32,
                                          count=n - have))
            arr = more if arr is None else np.concatenate([arr, more])
            self._plen = arr
        return arr

    def name_heads(self, a: Any, np: Any) -> tuple[Any, Any]:
        """Per id of ``a`` (an int64 array): whether the path's file name starts with a letter
        or digit, and the offset in the name of its first ``.`` (-1 for none; ``DOT_CAP`` for
        that far or farther), as numpy arrays; read from the path (not its folded form) once
        an id and kept (int16 by id, -1 until read: the one-term shortcut's keys, typed a
        character at a time, ask about the ids of the key before)."""
        n = len(self.paths)
        heads = self._heads
        if heads is None or len(heads) < n:
            more = np.full(n - (0 if heads is None else len(heads)), -1, dtype=np.int16)
            heads = more if heads is None else np.concatenate([heads, more])
            self._heads = heads
        h = heads[a]
        new = np.flatnonzero(h < 0)
        if len(new):
            at = a[new]
            u = at.tolist()
            ps = list(map(self.paths.__getitem__, u))
            bs = list(map(self.base.__getitem__, u))
            alnum = np.fromiter(map(str.isalnum, map(str.__getitem__, ps, bs)), dtype=np.int16,
                                count=len(u))
            dot = np.fromiter(map(str.find, ps, repeat("."), bs), dtype=np.int64, count=len(u))
            dot = np.where(dot < 0, -1, np.minimum(dot - np.array(bs, dtype=np.int64), DOT_CAP))
            h[new] = heads[at] = alnum + 2 * (dot + 1)
        return (h & 1) != 0, (h >> 1) - 1

    def offsets(self, np: Any, upto: int | None = None) -> tuple[Any, Any]:
        """``base`` and ``pstart`` as numpy arrays by id (cached; uint8, int16 or int32, see
        ``narrow``: ``pstart`` is -1 for a path without a folder); ``upto`` as ``lengths``."""
        n = min(len(self.base), len(self.pstart))
        if upto is not None:
            n = min(n, upto)
        have = 0 if self._offsets is None else len(self._offsets[0])
        if have < n:
            b = narrow(np, np.array(self.base[have:n], dtype=np.int32))
            p = narrow(np, np.array(self.pstart[have:n], dtype=np.int32))
            if self._offsets is not None:
                b = np.concatenate([self._offsets[0], b])
                p = np.concatenate([self._offsets[1], p])
            self._offsets = (b, p)
        assert self._offsets is not None
        return self._offsets

    def _bases(self, upto: int) -> Any:
        """``base`` up to ``upto`` at least: the array of ``offsets`` when it covers them (not
        the list converted once more), else the list."""
        off = self._offsets
        return off[0] if off is not None and len(off[0]) >= upto else self.base

    def build_masks(self, np: Any, upto: int, slices: Slices | None = None) -> None:
        """Build the letter masks of the paths up to ``upto`` (``warm``, a slice at a time;
        ``slices`` as ``lengths``).  The one-character folders' masks are kept for the few
        paths that have such a folder (their ids and masks: 37k of a million paths, 0.3 MiB
        instead of 7.6)."""
        from ffind.engine.letters import masks

        upto = min(upto, len(self.folded), len(self.base))
        have = self._masks_n
        if have < upto:
            dirs, name, whole = masks(self.folded, self._bases(upto), np, have, upto, slices,
                                      self.tuning.slice)
            arrays = self._mask_arrays
            if arrays is None or len(arrays[0]) < upto:  # room for every path indexed so far
                room = max(upto, len(self.folded))
                grown = (np.empty(room, dtype=np.uint64), np.empty(room, dtype=np.uint64))
                if arrays is not None:
                    grown[0][:have] = arrays[0][:have]
                    grown[1][:have] = arrays[1][:have]
                arrays = self._mask_arrays = grown
            arrays[0][have:upto] = dirs
            arrays[1][have:upto] = name
            self._masks_n = upto
            some = np.flatnonzero(whole)
            self._mask_parts.append(((some + have).astype(np.int32), whole[some]))

    def letter_masks(self, np: Any) -> tuple[Any, Any]:
        """``ffind.engine.letters.masks``' folders and file name masks of the paths
        ``build_masks`` covered, as two arrays (views: the masks of the paths that follow are
        written past their end)."""
        arrays = self._mask_arrays
        if arrays is None:
            empty = np.zeros(0, dtype=np.uint64)
            return empty, empty
        self._join_masks(np)
        n = self._masks_n
        return arrays[0][:n], arrays[1][:n]

    def one_char_folders(self, bit: int, np: Any) -> Any:
        """The ids (ascending, int32) among those ``build_masks`` covered that have a folder
        of one character whose bit (``ffind.engine.letters.bit_of``) is ``bit``."""
        if not self._mask_parts:
            return np.zeros(0, dtype=np.int32)
        self._join_masks(np)
        ids, whole = self._mask_parts[0]
        return ids[(whole & (np.uint64(1) << np.uint64(bit))) != 0]

    def _join_masks(self, np: Any) -> None:
        parts = self._mask_parts
        if len(parts) > 1:
            parts[:] = [(np.concatenate([p[0] for p in parts]),
                         np.concatenate([p[1] for p in parts]))]

    def masks_len(self) -> int:
        """How many paths the letter masks cover so far."""
        return self._masks_n

    def lengths_len(self, whole: bool) -> int:
        """How many paths ``lengths(whole)`` covers so far."""
        return len(self._lens.get(whole, ()))

    def path_lengths_len(self) -> int:
        """How many paths ``path_lengths`` covers so far."""
        return 0 if self._plen is None else len(self._plen)

    def built(self) -> dict[str, int]:
        """How many paths each table built on first use covers (``warm`` reports, tests)."""
        return {
            "penalties": self.penalties_len(),
            "initials": len(self._iends) + len(self._iloose),
            "lengths": min((len(a) for a in self._lens.values()), default=0)
            if len(self._lens) == 2 else 0,
        }


def _initials_of(paths: list[str]) -> list[str]:
    """``[initials(p) for p in paths]``, folded where beyond ASCII: the ASCII paths through
    ``initials_many`` at once, with the rare other one left empty there (an empty path gives
    nothing and changes nothing around it: NUL separates them) and done alone (a block holding
    one would otherwise go through ``initials_many``'s per-path lists)."""
    if all(map(str.isascii, paths)):
        return initials_many(paths, loaded_numpy())
    wide = list(compress(range(len(paths)), map(not_, map(str.isascii, paths))))
    some = paths.copy()
    for j in wide:
        some[j] = ""
    vals = initials_many(some, loaded_numpy())
    for j in wide:
        v = initials(paths[j])
        vals[j] = v if v.isascii() else fold(v)
    return vals


def narrow_for(term: str | None) -> bool:
    """Whether the word starts with ``NARROW`` in place of each character beyond ASCII serve
    ``term`` as the exact ones would (``PathStore.initials``): an ASCII term without ``NARROW``
    matches neither that character nor ``NARROW``."""
    return term is not None and term.isascii() and NARROW not in term


def narrow(np: Any, arr: Any) -> Any:
    """The int32 array ``arr`` in the narrowest of uint8, int16 and int32 that holds every
    value (offsets and lengths: one byte a path per table while no path is longer than 255
    characters, as at the 1M tree's, else two while shorter than 32,768; issue 17).
    Growing a table joins its parts with ``np.concatenate``, which widens to the type that
    holds both; readers widen (``astype(np.int64)``) before any arithmetic."""
    if not len(arr):
        return arr.astype(np.uint8)
    lo, hi = int(arr.min()), int(arr.max())
    if lo >= 0 and hi <= 255:
        return arr.astype(np.uint8)
    if lo >= -32768 and hi <= 32767:
        return arr.astype(np.int16)
    return arr


def _stem_len(f: str, b: int) -> int:
    """The length of ``PathStore.stem`` of folded path ``f`` (file name at ``b``)."""
    dot = f.rfind(".", b)
    return dot - b if dot > b else max(len(f) - b, 0)

