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


def ascii_bytes(texts: list[str], np: Any) -> Any:
    """``texts`` joined, each ended by a newline, as a uint8 array of one byte a character:
    any character beyond ASCII is a ``?``, one for one, so offsets in it are the characters'.
    The rare path beyond ASCII is narrowed alone (a joined text holding one such character
    would be 2-4 bytes a character, slower to join and to encode)."""
    if not all(map(str.isascii, texts)):
        texts = [t if t.isascii() else t.encode("ascii", "replace").decode("ascii")
                 for t in texts]
    return np.frombuffer(("\n".join(texts) + "\n").encode("ascii"), dtype=np.uint8)


def _slice(texts: list[str], bases: Sequence[int], np: Any) -> tuple[Any, Any, Any]:
    k = len(texts)
    # (``?`` has no bit of its own either: it shares ``OTHER`` with the characters beyond ASCII)
    raw = ascii_bytes(texts, np)
    bits = _table(np)[raw]
    nl = raw == ord("\n")
    ends = np.flatnonzero(nl)
    starts = np.zeros(k, dtype=np.int64)
    if len(ends) == k:  # (no path holds a newline)
        starts[1:] = ends[:-1] + 1
    else:
        lens = np.fromiter(map(len, texts), dtype=np.int64, count=k)
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
    slash = raw == ord("/")
    before = np.empty(len(raw), dtype=bool)
    before[0] = False
    before[1:] = slash[:-1]
    before[starts] = True
    after = np.empty(len(raw), dtype=bool)
    after[-1] = False
    after[:-1] = slash[1:]
    before &= after  # (a slash or a newline there has no bit: it adds nothing)
    one = np.flatnonzero(before)
    whole = np.zeros(k, dtype=np.uint64)
    if len(one):
        owner = np.searchsorted(starts, one, side="right") - 1
        np.bitwise_or.at(whole, owner, bits[one])
    return dirs, name, whole
