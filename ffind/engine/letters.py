"""Per-path letter masks: which characters of ``ALPHABET`` occur in a path's folders, in its file
name, and as a one-character folder, a bit each in three uint64 arrays, so a one-character term
is bounded for a whole candidate set by array arithmetic.  Built a slice at a time, from the
folded buffer's slices when built (``texts``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ffind.engine.tuning import DEFAULT

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_-. +@#$~,=()[]{}!&'%;^`"
"""The characters with a bit of their own (folded paths are lowercase); any other character
(non-ASCII included) shares the last bit, so a term made of one never uses the masks."""
OTHER = 63


def bit_of(c: str) -> int | None:
    """The bit of character ``c``, or None when it has none of its own."""
    j = ALPHABET.find(c)
    return None if j < 0 or len(c) != 1 else j


def _table(np: Any, sep: int) -> Any:
    """The mask of every byte: none for ``/``, ``\\n`` and ``sep``; ``OTHER`` for a byte
    beyond ASCII and ``?``."""
    t = np.full(256, np.uint64(1) << np.uint64(OTHER), dtype=np.uint64)
    t[ord("\n")] = 0
    t[ord("/")] = 0
    t[sep] = 0
    for j, c in enumerate(ALPHABET):
        t[ord(c)] = np.uint64(1) << np.uint64(j)
    return t


Slices = Sequence[tuple[int, Any, Any]]
"""The slices of the folded paths' buffer (``FoldedBuffer.slices``): the first path's id, the
bytes (NUL-separated), where each path starts in them and where the last one ends plus one."""


def texts(folded: Sequence[str], lo: int, hi: int, np: Any, slices: Slices | None = None,
          size: int = DEFAULT.slice) -> Iterator[tuple[int, int, Any, Any, int]]:
    """The folded paths ``lo .. hi - 1`` as bytes, a piece at a time: ``(a, z, raw, starts, sep)``,
    from ``slices`` as far as they go, the rest joined here (``?`` beyond ASCII, one for one)."""
    at = lo
    for first, raw, starts in slices or ():
        end = first + len(starts) - 1
        if at >= hi:
            return
        if end <= at or first > at:
            continue
        z = min(hi, end)
        s = starts[at - first:z - first + 1]
        yield at, z, raw[s[0]:s[-1]], s - s[0], 0
        at = z
    for a in range(at, hi, size):
        z = min(hi, a + size)
        part = folded[a:z]
        raw = ascii_bytes(part, np)
        starts = np.zeros(z - a + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, part), dtype=np.int64, count=z - a) + 1,
                  out=starts[1:])
        yield a, z, raw, starts, ord("\n")


def masks(folded: Sequence[str], base: Any, np: Any, lo: int = 0, hi: int | None = None,
          slices: Slices | None = None, size: int = DEFAULT.slice) -> tuple[Any, Any, Any]:
    """The three masks (folders, file name, one-character folders) of the paths ``lo`` to ``hi``."""
    hi = len(folded) if hi is None else hi
    parts = [_masks_of(raw, starts, base[a:z], _table(np, sep), np)
             for a, z, raw, starts, sep in texts(folded, lo, hi, np, slices, size)]
    if not parts:
        empty = np.zeros(0, dtype=np.uint64)
        return empty, empty, empty
    if len(parts) == 1:
        return parts[0]
    dirs, name, whole = (np.concatenate([p[k] for p in parts]) for k in range(3))
    return dirs, name, whole


def ascii_bytes(texts: Sequence[str], np: Any) -> Any:
    """``texts`` joined, each ended by a newline, as a uint8 array, ``?`` beyond ASCII (offsets are
    the characters')."""
    if not all(map(str.isascii, texts)):
        texts = [t if t.isascii() else t.encode("ascii", "replace").decode("ascii")
                 for t in texts]
    return np.frombuffer(("\n".join(texts) + "\n").encode("ascii"), dtype=np.uint8)


def _masks_of(raw: Any, bounds: Any, bases: Any, table: Any,
              np: Any) -> tuple[Any, Any, Any]:
    """The masks of the paths in ``raw`` at ``bounds`` (``texts``), file names at ``bases``."""
    k = len(bounds) - 1
    starts = bounds[:-1]
    bits = table[raw]
    b = np.asarray(bases, dtype=np.int64)
    # OR over [start, start + b) (the folders) and [start + b, next start) (the name and the
    # separator, which has no bit); an empty folder part gives reduceat one element: zeroed
    idx = np.empty(2 * k, dtype=np.int64)
    idx[0::2] = starts
    idx[1::2] = starts + b
    ors = np.bitwise_or.reduceat(bits, idx)
    dirs = np.where(b > 0, ors[0::2], np.uint64(0)).astype(np.uint64)
    name = ors[1::2].astype(np.uint64)
    # one-character folders: a character between a slash (or the path's start) and a slash
    slash = raw == ord("/")
    before = np.empty(len(raw), dtype=bool)
    before[0] = False
    before[1:] = slash[:-1]
    before[starts] = True
    after = np.empty(len(raw), dtype=bool)
    after[-1] = False
    after[:-1] = slash[1:]
    before &= after  # (a slash or a separator there has no bit: it adds nothing)
    one = np.flatnonzero(before)
    whole = np.zeros(k, dtype=np.uint64)
    if len(one):
        owner = np.searchsorted(starts, one, side="right") - 1
        np.bitwise_or.at(whole, owner, bits[one])
    return dirs, name, whole
