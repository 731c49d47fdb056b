"""Where a term occurs in every path at once: the folded paths as NUL-separated byte buffers
(``FoldedBuffer``, built ahead and extended as the index grows), searched with a few numpy
passes, so a whole candidate set's bounds are array arithmetic instead of string searches per
candidate.  One byte a character (latin-1, ``?`` beyond it), so a buffer position is a folded
path position; only ``findable`` terms are looked for."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ffind.engine.tuning import DEFAULT

SEP = "\0"
SUB = 4096
"""``has`` runs over this many paths of a slice at a time, so its temporaries stay in cache."""
WINDOW = 32
"""``advance`` reads the bytes after each greedy end ``WINDOW`` at a time (each slice ends with as
many NULs)."""
SPARSE = 4
"""``_present`` finds an occurrence's path by binary search when there are fewer occurrences than
paths over this, else ors each path's bytes."""


def findable(term: str) -> bool:
    """Whether ``FoldedBuffer.find`` can look for ``term``: ASCII, without NUL or ``?``."""
    return bool(term) and term.isascii() and SEP not in term and "?" not in term


class FoldedBuffer:
    """The folded paths ``0 .. covered - 1`` as NUL-separated byte buffers, one per slice of
    ``Tuning.slice`` paths: searched slice by slice, so growing copies nothing and a search's
    temporaries are one slice's."""

    __slots__ = ("_parts", "broken", "np", "size")

    def __init__(self, np: Any, size: int = DEFAULT.slice) -> None:
        self.np = np
        self.size = size
        self._parts: list[tuple[int, Any, Any]] = []
        """(the first path's id, the bytes, where each path starts and the end) per slice"""
        self.broken = False
        """No buffer (a path holds a NUL, or ``drop``): the callers use their per-path code."""

    @property
    def covered(self) -> int:
        if not self._parts:
            return 0
        first, _, starts = self._parts[-1]
        return first + len(starts) - 1

    @property
    def slices(self) -> list[tuple[int, Any, Any]]:
        """The slices built, in id order: first id, bytes, path starts and the end (read by
        ``letters.texts``; not to be changed)."""
        return self._parts

    def drop(self) -> None:
        """Give the buffer up for good: ``broken``, its bytes freed."""
        self.broken = True
        self._parts = []

    def sync(self, folded: Sequence[str], upto: int | None = None) -> bool:
        """Extend the buffer to the paths of ``folded`` up to ``upto``; False when a path holds a
        NUL."""
        np = self.np
        n0 = self.covered
        n = len(folded) if upto is None else min(upto, len(folded))
        if self.broken:
            return False
        for s in range(n0, n, self.size):
            part = folded[s:min(n, s + self.size)]
            raw = np.frombuffer((SEP.join(part) + SEP * (1 + WINDOW)).encode(
                "latin-1", "replace"), dtype=np.uint8)
            ends = np.flatnonzero(raw == 0)[:-WINDOW]
            if len(ends) != len(part):
                self.drop()
                return False
            starts = np.empty(len(part) + 1, dtype=np.int32)  # (a slice is a few MB)
            starts[0] = 0
            starts[1:] = ends + 1
            self._parts.append((s, raw, starts))
        return True

    def find(self, term: str) -> tuple[Any, Any, Any, Any]:
        """Every occurrence of ``term`` in the paths covered: id (ascending), position, and the
        bytes just before and after it (0 at a path's ends), as four arrays."""
        np = self.np
        got = list(self.find_parts(term))
        if not got:
            e = np.zeros(0, dtype=np.int64)
            return e, e, e.astype(np.uint8), e.astype(np.uint8)
        ids, pos, before, after = (np.concatenate([g[k] for g in got]) for k in range(4))
        return ids, pos, before, after

    def find_parts(self, term: str) -> Iterator[tuple[Any, Any, Any, Any]]:
        """``find``, a slice at a time."""
        np = self.np
        m = len(term)
        for first, buf, starts in self._parts:
            at = _occurrences(buf, term, np)
            local = np.searchsorted(starts, at, side="right") - 1
            pos = at - starts[local]
            before = np.where(pos > 0, buf[np.maximum(at - 1, 0)], 0)
            after = buf[np.minimum(at + m, len(buf) - 1)]  # (a path ends with NUL)
            yield local + first, pos, before, after

    def starts_with(self, ids: Any, at: Any, term: str) -> Any:
        """Per id of ``ids`` (int64, ascending), whether its folded path holds ``term`` from ``at``
        on (a read past the path's end fails at its NUL)."""
        np = self.np
        out = np.zeros(len(ids), dtype=bool)
        firsts = [first for first, _, _ in self._parts]
        cut = np.searchsorted(ids, [*firsts, self.covered]).tolist()
        for k, (first, buf, starts) in enumerate(self._parts):
            lo, hi = cut[k], cut[k + 1]
            if lo == hi:
                continue
            p = starts[ids[lo:hi] - first].astype(np.int64) + at[lo:hi]
            ok = buf[p] == ord(term[0])
            last = len(buf) - 1  # (a slice ends with NULs)
            for j in range(1, len(term)):
                ok &= buf[np.minimum(p + j, last)] == ord(term[j])
            out[lo:hi] = ok
        return out

    def has(self, term: str) -> Any:
        """Per path covered, whether ``term`` (``findable``) occurs in it (a bool array)."""
        np = self.np
        out = []
        for _, buf, starts in self._parts:
            k = len(starts) - 1
            for lo in range(0, k, SUB):  # (a part ends after a path's NUL: no term spans two)
                hi = min(lo + SUB, k)
                a, b = int(starts[lo]), int(starts[hi])
                out.append(_present(buf[a:b], starts[lo:hi + 1] - a, term, np))
        return np.concatenate(out) if out else np.zeros(0, dtype=bool)

    def advance(self, char: str, ids: Any, ends: Any) -> tuple[Any, Any]:
        """One character more of a fuzzy term, fzf's way: of ``ids`` whose greedy match of the term
        ends before ``ends``, the paths where ``char`` occurs from there, and the new greedy ends
        (two int32 arrays)."""
        np = self.np
        oc = ord(char)
        firsts = [first for first, _, _ in self._parts]
        cut = np.searchsorted(ids, [*firsts, self.covered]).tolist()
        out_ids, out_ends = [], []
        for k, (first, buf, starts) in enumerate(self._parts):
            lo, hi = cut[k], cut[k + 1]
            if lo == hi:
                continue
            sid, end = ids[lo:hi], ends[lo:hi]
            at = starts[sid - first] + end  # (where each path's search starts in ``buf``)
            found = _next_in_rows(buf, at, oc, np)
            ok = found >= 0
            out_ids.append(sid[ok])
            out_ends.append(end[ok] + (found[ok] - at[ok] + 1))
        if not out_ids:
            e = np.zeros(0, dtype=np.int32)
            return e, e
        return (np.concatenate(out_ids).astype(np.int32, copy=False),
                np.concatenate(out_ends).astype(np.int32, copy=False))

    def nbytes(self) -> int:
        return sum(int(b.nbytes + st.nbytes) for _, b, st in self._parts)


def _next_in_rows(buf: Any, at: Any, oc: int, np: Any) -> Any:
    """Per position of ``at`` in ``buf``, the first position from it holding ``oc`` before the
    path's NUL, or -1: ``WINDOW`` bytes a row of a strided view at a time."""
    from numpy.lib.stride_tricks import as_strided

    rows_of = as_strided(buf, shape=(len(buf) - WINDOW + 1, WINDOW), strides=(1, 1),
                         writeable=False)
    found = np.full(len(at), -1, dtype=np.int64)
    todo = None  # (which of ``at`` the rows are for: all of them at first)
    at = at.astype(np.int64)
    while len(at):
        rows = rows_of[at]
        hit = rows == oc
        stop = hit | (rows == 0)
        first = stop.argmax(axis=1)
        r = np.arange(len(at))
        done = stop[r, first]
        got = hit[r, first]
        where = at[got] + first[got]
        if todo is None:
            found[got] = where
            todo = np.flatnonzero(~done)
        else:
            found[todo[got]] = where
            todo = todo[~done]
            # (``todo`` indexes ``found``; ``at`` follows it)
        at = at[~done] + WINDOW
    return found


def _present(buf: Any, starts: Any, term: str, np: Any) -> Any:
    """Per path of one slice, whether ``term`` occurs in it: each character's places shifted and
    and-ed, then the paths of those places."""
    n, m, k = len(buf), len(term), len(starts) - 1
    if n < m or k < 1:
        return np.zeros(max(k, 0), dtype=bool)
    whole = np.zeros(n, dtype=bool)
    hit = whole[:n - m + 1]
    np.equal(buf[:n - m + 1], ord(term[0]), out=hit)
    if m > 1:
        same = np.empty(n - m + 1, dtype=bool)  # (one temporary for every character)
        for j in range(1, m):
            np.equal(buf[j:n - m + 1 + j], ord(term[j]), out=same)
            hit &= same
    if np.count_nonzero(hit) * SPARSE < k:  # (counted first: listing them is the costly step)
        out = np.zeros(k, dtype=bool)
        out[np.searchsorted(starts, np.flatnonzero(hit), side="right") - 1] = True
        return out
    return np.logical_or.reduceat(whole, starts[:-1])


def _occurrences(buf: Any, term: str, np: Any) -> Any:
    """Where ``term`` starts in ``buf`` (ascending)."""
    n = len(buf)
    if len(term) == 1:
        return np.flatnonzero(buf == ord(term[0]))
    # the first two characters as one 16-bit word, at even and at odd positions: half as
    # many elements to compare, and only the pairs' positions to keep
    pair = np.array(ord(term[0]) | ord(term[1]) << 8, dtype="<u2")
    even = np.flatnonzero(buf[:n - n % 2].view("<u2") == pair) * 2
    odd = np.flatnonzero(buf[1:n - (n - 1) % 2].view("<u2") == pair) * 2 + 1
    at = np.concatenate([even, odd])
    for k in range(2, len(term)):
        at = at[at + k < n]
        at = at[buf[at + k] == ord(term[k])]
    at.sort()
    return at
