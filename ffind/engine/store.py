"""The path store of an ``Index``: the paths (id = position) and the per-path tables matching needs,
kept compact.  Folded forms, offsets, first-letter tables, names and stems are built on
``extend`` (names and stems only up to ``Tuning.names_upto`` paths); penalties, lengths, word
starts and letter masks on first use or ahead of it (``ffind.engine.warmup``)."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate, compress, count, repeat
from operator import add, not_, sub
from typing import Any

from ffind.engine.accel import loaded_numpy
from ffind.engine.prefilter import aligned_rx
from ffind.engine.tables import Tables
from ffind.engine.tuning import DEFAULT, Tuning
from ffind.query import Term, fold, variant
from ffind.scoring.scorer import initials, initials_many
from ffind.scoring.weights import Weights

INIT_SHIFT = 12
"""The word starts are kept ``1 << INIT_SHIFT`` ids to a string (``PathStore.initials``)."""
INIT_BLOCK = 1 << INIT_SHIFT
_INIT_MASK = INIT_BLOCK - 1
NARROW = "\x7f"
"""Stands in the blocks of word starts for a character beyond ASCII: an ASCII term without it has
the same LCS with either (the exact strings are kept beside, ``PathStore.initials``)."""
_BEYOND_ASCII = re.compile("[^\x00-\x7f]")
DENSE = INIT_BLOCK // 16
"""From how many ids in one block ``PathStore.initials`` splits the block instead of slicing."""




class PathStore(Tables):
    """Paths plus what matching needs, one entry per id: ``paths``, ``folded`` (the path's own
    string when folding changes nothing), ``base`` (the file name's start), ``hidden``,
    ``pstart`` (the file's folder name's start, -1 for none); ``first`` and ``parent_first``: ids
    by the first folded letter of the name and of its folder's name."""

    def __init__(self, weights: Weights, tuning: Tuning = DEFAULT) -> None:
        super().__init__()
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
        """The folded file name of path ``i`` up to its last dot, unless the dot starts it
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
        """The ids of ``ids`` (in order) that ``aligned_rx(fq)`` matches: each part of the term a
        prefix of its component, the last part of the last one; a path is reversed only where its
        name (or folder) starts with its part."""
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
        """Keep ``hits`` as ``aligned(fq, table)``'s answer, found by a caller from fewer ids."""
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
        """Per id, the folded characters that can earn a word-start bonus; for a ``term`` that
        ``narrow_for`` accepts, with ``NARROW`` for the characters beyond ASCII (as the blocks
        keep them), else the exact strings."""
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
        """The word starts of block ``k``'s computed ids, in id order (the block's string split
        once)."""
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
        # objects per character of it
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
        """``penalty`` of every id (or of the ids ``at``) as a new int64 array."""
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


    def built(self) -> dict[str, int]:
        """How many paths each table built on first use covers (``warm`` reports, tests)."""
        return {
            "penalties": self.penalties_len(),
            "initials": len(self._iends) + len(self._iloose),
            "lengths": min((len(a) for a in self._lens.values()), default=0)
            if len(self._lens) == 2 else 0,
        }


def _initials_of(paths: list[str]) -> list[str]:
    """``initials`` of each path, folded where beyond ASCII: ASCII paths at once through
    ``initials_many``, the rare other one alone."""
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
    """Whether ``NARROW``'s word starts serve ``term`` as the exact ones would: an ASCII term
    without ``NARROW``."""
    return term is not None and term.isascii() and NARROW not in term


def _stem_len(f: str, b: int) -> int:
    """The length of ``PathStore.stem`` of folded path ``f`` (file name at ``b``)."""
    dot = f.rfind(".", b)
    return dot - b if dot > b else max(len(f) - b, 0)

