"""Per-path letter masks: which characters occur in a path's folders, in its file name, and as
a folder of one character (``/c/`` or a path starting ``c/``), one bit per character of
``ALPHABET`` in three uint64 arrays (24 bytes a path).  A one-character term is then bounded
for a whole candidate set with array arithmetic (``Bounder.bounds``) instead of three string
searches per path.  Built from the folded paths in slices, so the temporaries stay small."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_-. +@#$~,=()[]{}!&'%;^`"
"""The characters with a bit of their own (folded paths are lowercase); any other character
(non-ASCII included) shares the last bit, so a term made of one never uses the masks."""
OTHER = 63
SLICE = 16384
"""Paths per slice of the build: the temporaries are a few bytes per character of a slice."""


def bit_of(c: str) -> int | None:
    """The bit of character ``c``, or None when it has none of its own."""
    j = ALPHABET.find(c)
    return None if j < 0 or len(c) != 1 else j


def _table(np: Any) -> Any:
    """The mask of every code point below 128 (``\\n``, the separator, has none)."""
    t = np.full(128, np.uint64(1) << np.uint64(OTHER), dtype=np.uint64)
    t[ord("\n")] = 0
    t[ord("/")] = 0
    for j, c in enumerate(ALPHABET):
        t[ord(c)] = np.uint64(1) << np.uint64(j)
    return t


def masks(folded: list[str], base: Sequence[int], np: Any) -> tuple[Any, Any, Any]:
    """The three masks (folders, file name, one-character folders) of each path of
    ``folded`` (file names at ``base``)."""
    parts = [_slice(folded[s:s + SLICE], base[s:s + SLICE], np)
             for s in range(0, len(folded), SLICE)]
    if not parts:
        empty = np.zeros(0, dtype=np.uint64)
        return empty, empty, empty
    dirs, name, whole = (np.concatenate([p[k] for p in parts]) for k in range(3))
    return dirs, name, whole


def _slice(texts: list[str], bases: Sequence[int], np: Any) -> tuple[Any, Any, Any]:
    k = len(texts)
    joined = "\n".join(texts) + "\n"
    if joined.isascii():
        codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).astype(np.int64)
    else:
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"),  # undecodable names
                              dtype=np.uint32).astype(np.int64)
    table = _table(np)
    other = np.uint64(1) << np.uint64(OTHER)
    bits = np.where(codes < 128, table[np.minimum(codes, 127)], other)
    lens = np.fromiter(map(len, texts), dtype=np.int64, count=k)
    starts = np.zeros(k, dtype=np.int64)
    np.cumsum(lens[:-1] + 1, out=starts[1:])
    b = np.array(bases, dtype=np.int64)
    # OR over [start, start + b) (the folders) and [start + b, next start) (the name and the
    # separator, which has no bit); an empty folder part gives reduceat one element: zeroed
    idx = np.empty(2 * k, dtype=np.int64)
    idx[0::2] = starts
    idx[1::2] = starts + b
    ors = np.bitwise_or.reduceat(bits, idx)
    dirs = np.where(b > 0, ors[0::2], np.uint64(0)).astype(np.uint64)
    name = ors[1::2].astype(np.uint64)
    # one-character folders: a character between a slash (or the path's start) and a slash
    slash = codes == ord("/")
    start = np.zeros(len(codes), dtype=bool)
    start[starts] = True
    before = np.concatenate(([False], slash[:-1])) | start
    after = np.concatenate((slash[1:], [False]))
    one = np.flatnonzero(before & after & ~slash & (codes != ord("\n")))
    whole = np.zeros(k, dtype=np.uint64)
    if len(one):
        owner = np.searchsorted(starts, one, side="right") - 1
        np.bitwise_or.at(whole, owner, bits[one])
    return dirs, name, whole
