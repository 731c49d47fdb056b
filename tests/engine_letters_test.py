"""``ffind.engine.letters``: the letter masks built one byte a character equal, element for
element, those of the former build (a code point a character, kept here as the reference)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ffind.engine import letters
from ffind.engine.letters import ALPHABET, OTHER, masks
from tests.hypo_paths import SETTINGS


def _table(np: Any) -> Any:
    t = np.full(128, np.uint64(1) << np.uint64(OTHER), dtype=np.uint64)
    t[ord("\n")] = 0
    t[ord("/")] = 0
    for j, c in enumerate(ALPHABET):
        t[ord(c)] = np.uint64(1) << np.uint64(j)
    return t


def _old_slice(texts: list[str], bases: Sequence[int], np: Any) -> tuple[Any, Any, Any]:
    """The slice as ``letters`` built it before (the reference)."""
    k = len(texts)
    joined = "\n".join(texts) + "\n"
    if joined.isascii():
        codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).astype(np.int64)
    else:
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"),
                              dtype=np.uint32).astype(np.int64)
    table = _table(np)
    other = np.uint64(1) << np.uint64(OTHER)
    bits = np.where(codes < 128, table[np.minimum(codes, 127)], other)
    lens = np.fromiter(map(len, texts), dtype=np.int64, count=k)
    starts = np.zeros(k, dtype=np.int64)
    np.cumsum(lens[:-1] + 1, out=starts[1:])
    b = np.array(bases, dtype=np.int64)
    idx = np.empty(2 * k, dtype=np.int64)
    idx[0::2] = starts
    idx[1::2] = starts + b
    ors = np.bitwise_or.reduceat(bits, idx)
    dirs = np.where(b > 0, ors[0::2], np.uint64(0)).astype(np.uint64)
    name = ors[1::2].astype(np.uint64)
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


_component = st.text(alphabet="abzAZ09_-.?/ \n\téßé\udcff😀\x00\x7f", min_size=0, max_size=5)
_path = st.lists(_component, min_size=1, max_size=4).map("/".join)


@SETTINGS
@given(st.lists(_path, min_size=0, max_size=25), st.integers(1, 7))
def test_masks_equal_the_former_build(texts: list[str], size: int) -> None:
    """Folded-like paths with every kind of character (beyond ASCII, ``?``, a newline, a NUL,
    empty components, leading and trailing slashes), file names at the last slash, in
    slices of any size: the three masks equal the reference's, element for element."""
    bases = [t.rfind("/") + 1 for t in texts]
    got = masks(texts, bases, np, size=size)
    parts = [_old_slice(texts[s:s + size], bases[s:s + size], np)
             for s in range(0, len(texts), size)]
    for k in range(3):
        want = (np.concatenate([p[k] for p in parts]) if parts
                else np.zeros(0, dtype=np.uint64))
        assert got[k].dtype == want.dtype == np.uint64
        assert got[k].tolist() == want.tolist()


def test_masks_of_known_paths() -> None:
    """A path whose one-character folder, folder and name letters are known."""
    dirs, name, whole = masks(["x/ab/c.d", "é/q"], [5, 2], np)
    bit = letters.bit_of
    assert int(dirs[0]) == (1 << bit("x")) | (1 << bit("a")) | (1 << bit("b"))
    assert int(name[0]) == (1 << bit("c")) | (1 << bit(".")) | (1 << bit("d"))
    assert int(whole[0]) == 1 << bit("x")
    assert int(dirs[1]) == 1 << OTHER and int(whole[1]) == 1 << OTHER
    assert int(name[1]) == 1 << bit("q")


@SETTINGS
@given(st.lists(_path.map(lambda p: p.replace("\x00", "")), min_size=1, max_size=25),
       st.integers(1, 7), st.data())
def test_masks_read_from_the_buffer_equal_the_former_build(
        texts: list[str], size: int, data: st.DataObject) -> None:
    """The masks of ids ``lo .. hi`` read from the folded paths' buffer (slices of any size,
    built up to any id, the rest joined here) equal the reference's, element for element."""
    from ffind.engine.occur import FoldedBuffer

    n = len(texts)
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    upto = data.draw(st.integers(0, n))
    bases = [t.rfind("/") + 1 for t in texts]
    buf = FoldedBuffer(np, size)
    assert buf.sync(texts, upto)
    as_array = data.draw(st.booleans())  # (``base`` as the store's int16 offsets, or a list)
    got = masks(texts, np.array(bases, dtype=np.int16) if as_array else bases, np, lo, hi,
                buf.slices)
    want = _old_slice(texts[lo:hi], bases[lo:hi], np) if hi > lo else None
    for k in range(3):
        assert got[k].dtype == np.uint64
        assert got[k].tolist() == ([] if want is None else want[k].tolist())
