"""Where a term occurs in every path at once: the folded paths as one byte buffer
(``FoldedBuffer``, built once and extended as the index grows), every occurrence of a term
found with a few numpy passes over it (``find``), so that the bounds of a whole candidate set
(``ffind.engine.bounding``) ask "is the term at the file name's start, inside the name, a whole
folder, is this bigram anywhere..." with array arithmetic over the occurrences instead of a
few string searches per candidate.

Joining the candidates' strings at each keystroke instead costs as much as the searches it
replaces (a list of the strings, the join, the encoding: about 15 ms for 70k paths): the work
that is per path has to happen once, ahead of the keystrokes.

The buffer holds one byte per character (latin-1; a character beyond it becomes ``?``), so a
position in the buffer is a position in the folded path, and a term is looked for only when it
is ASCII without ``?`` (``findable``): a byte that stands for another character never matches
it.  The paths are separated by NUL, which no path holds (a store that holds one gets no
buffer: ``FoldedBuffer.sync`` returns False), and no term looked for holds one, so an
occurrence never runs from one path into the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SEP = "\0"
SLICE = 65536
"""Paths joined at a time while building (the temporaries stay a few MB)."""


def findable(term: str) -> bool:
    """Whether ``FoldedBuffer.find`` can look for ``term``: ASCII, without NUL (the separator)
    or ``?`` (what stands for a character that latin-1 lacks)."""
    return bool(term) and term.isascii() and SEP not in term and "?" not in term


class FoldedBuffer:
    """The folded paths ``0 .. covered - 1`` of a store as one NUL-separated byte buffer
    (``buf``, uint8) and where each starts in it (``starts``, int64, one more entry than
    paths: the end).  Built a slice at a time (``sync``: the parts are joined into one buffer
    on the next use)."""

    __slots__ = ("_parts", "broken", "np")

    def __init__(self, np: Any) -> None:
        self.np = np
        self._parts: list[tuple[Any, Any]] = [
            (np.zeros(0, dtype=np.uint8), np.zeros(1, dtype=np.int64))]
        """(bytes, their starts and end) per slice built; the first holds the others once
        ``_one`` joined them"""
        self.broken = False
        """A path holds a NUL: no buffer (the callers use their per-path code)."""

    @property
    def covered(self) -> int:
        return sum(len(st) - 1 for _, st in self._parts)

    @property
    def buf(self) -> Any:
        return self._one()[0]

    @property
    def starts(self) -> Any:
        return self._one()[1]

    def join(self) -> None:
        """Join the slices built so far into one buffer (done on use otherwise)."""
        self._one()

    def _one(self) -> tuple[Any, Any]:
        parts = self._parts
        if len(parts) > 1:
            np = self.np
            at, starts = 0, []
            for b, st in parts:
                starts.append(st[:-1] + at)
                at += len(b)
            starts.append(np.array([at], dtype=np.int64))
            parts[:] = [(np.concatenate([b for b, _ in parts]), np.concatenate(starts))]
        return parts[0]

    def sync(self, folded: Sequence[str], upto: int | None = None) -> bool:
        """Extend the buffer to the paths of ``folded`` up to ``upto`` (all of them when
        None; the store only appends); False when a path holds a NUL."""
        np = self.np
        n0 = self.covered
        n = len(folded) if upto is None else min(upto, len(folded))
        if self.broken:
            return False
        for s in range(n0, n, SLICE):
            part = folded[s:min(n, s + SLICE)]
            raw = np.frombuffer((SEP.join(part) + SEP).encode("latin-1", "replace"),
                                dtype=np.uint8)
            ends = np.flatnonzero(raw == 0)
            if len(ends) != len(part):
                self.broken = True
                self._parts = []
                return False
            st = np.empty(len(part) + 1, dtype=np.int64)
            st[0] = 0
            st[1:] = ends + 1
            self._parts.append((raw, st))
        return True

    def find(self, term: str) -> tuple[Any, Any]:
        """Every occurrence of ``term`` (``findable``) in the paths covered: the path's id
        (ascending) and the position in its folded path, as two int64 arrays."""
        np, buf = self.np, self.buf
        n = len(buf)
        if len(term) == 1:
            at = np.flatnonzero(buf == ord(term[0]))
        else:
            # the first two characters as one 16-bit word, at even and at odd positions:
            # half as many elements to compare, and only the pairs' positions to keep
            pair = np.array(ord(term[0]) | ord(term[1]) << 8, dtype="<u2")
            even = np.flatnonzero(buf[:n - n % 2].view("<u2") == pair) * 2
            odd = np.flatnonzero(buf[1:n - (n - 1) % 2].view("<u2") == pair) * 2 + 1
            at = np.concatenate([even, odd])
            for k in range(2, len(term)):
                at = at[at + k < n]
                at = at[buf[at + k] == ord(term[k])]
            at.sort()
        ids = np.searchsorted(self.starts, at, side="right") - 1
        return ids, at - self.starts[ids]

    def byte_at(self, ids: Any, pos: Any) -> Any:
        """The byte at position ``pos`` of folded path ``ids`` (arrays of one shape); before
        or past a path, the separator (0)."""
        np = self.np
        at = self.starts[ids] + pos
        ok = (pos >= 0) & (at < self.starts[ids + 1])
        out = np.zeros(len(at), dtype=np.uint8)
        out[ok] = self.buf[at[ok]]
        return out

    def has(self, term: str) -> Any:
        """Per path covered, whether ``term`` (``findable``) occurs in it (a bool array)."""
        np = self.np
        mark = np.zeros(self.covered, dtype=bool)
        mark[self.find(term)[0]] = True
        return mark

    def nbytes(self) -> int:
        return sum(int(b.nbytes + st.nbytes) for b, st in self._parts)
