"""The per-path numpy tables of a ``PathStore`` (``Tables``): lengths, offsets, name heads and
letter masks, each built on first use or ahead by ``warm``, extended as paths arrive, in the
narrowest integer type that holds it (``narrow``)."""

from __future__ import annotations

from itertools import repeat
from typing import Any

from ffind.engine.letters import Slices
from ffind.engine.tuning import Tuning

DOT_CAP = 16000
"""``PathStore.name_heads`` keeps where a file name's first ``.`` is up to this offset (two
bytes a path); past it, ``DOT_CAP``."""


class Tables:
    """The numpy tables of the paths of a store (see the module docstring)."""

    paths: list[str]
    folded: list[str]
    base: list[int]
    pstart: list[int]
    tuning: Tuning

    def __init__(self) -> None:
        self._lens: dict[bool, Any] = {}
        self._plen: Any = None
        self._offsets: tuple[Any, Any] | None = None
        # the letter masks: folders' and names' in two arrays with room for every path (one
        # allocation each, filled a slice at a time), how many they cover, and per slice the
        # ids with a one-character folder and their masks
        self._mask_arrays: tuple[Any, Any] | None = None
        self._masks_n = 0
        self._mask_parts: list[tuple[Any, Any]] = []
        self._heads: Any = None  # (``name_heads``: int16 by id, -1 not read yet)

    def lengths(self, whole: bool, np: Any, upto: int | None = None,
                slices: Slices | None = None) -> Any:
        """The length of every file name (``whole``) or stem (cached, ``narrow``); ``upto``: built
        up to that id; ``slices``: the folded buffer, read where it covers the paths."""
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
        """``name_lengths(whole, range(lo, hi))`` as an int32 array in whole-array arithmetic, from
        the buffer's bytes where ``slices`` cover them, else ``str.rfind`` mapped in C."""
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
        """The length of every path by id (cached, ``narrow``); ``upto`` as ``lengths``."""
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
        """Per id of ``a``: whether the file name starts with a letter or digit, and where its first
        ``.`` is (-1 for none, ``DOT_CAP`` that far or farther); read once an id and kept."""
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
        """Build the letter masks of the paths up to ``upto``; the one-character folders' masks only
        for the few paths that have one."""
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
        """The folders and file-name masks of the paths built, as two array views."""
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


def narrow(np: Any, arr: Any) -> Any:
    """The int32 array ``arr`` in the narrowest of uint8, int16 and int32 that holds it (readers
    widen before arithmetic)."""
    if not len(arr):
        return arr.astype(np.uint8)
    lo, hi = int(arr.min()), int(arr.max())
    if lo >= 0 and hi <= 255:
        return arr.astype(np.uint8)
    if lo >= -32768 and hi <= 32767:
        return arr.astype(np.int16)
    return arr
