"""``FoldedBuffer``: every occurrence of a term in the folded paths, found over one byte buffer,
is where ``str.find`` finds it, however the buffer was built (in slices, then joined)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ffind.engine.occur import FoldedBuffer, findable

TEXTS = st.lists(st.text("ab/._?é€ßA\udcff", max_size=12), max_size=12)


def occurrences(texts: list[str], term: str) -> list[tuple[int, int]]:
    out = []
    for i, t in enumerate(texts):
        at = t.find(term)
        while at >= 0:
            out.append((i, at))
            at = t.find(term, at + 1)
    return out


@given(TEXTS, st.text("ab/._?é", min_size=1, max_size=4), st.integers(1, 5), st.integers(1, 4))
def test_find_is_str_find(texts: list[str], term: str, step: int, slice_: int) -> None:
    np = pytest.importorskip("numpy")

    buf = FoldedBuffer(np, slice_)
    for upto in range(0, len(texts) + step, step):  # built a few paths at a time
        assert buf.sync(texts, upto)
    assert buf.covered == len(texts)
    if not findable(term):
        assert "?" in term or not term.isascii()
        return
    ids, pos, before, after = buf.find(term)
    got = list(zip(ids.tolist(), pos.tolist(), before.tolist(), after.tolist(), strict=True))

    def byte(t: str, p: int) -> int:
        if not 0 <= p < len(t):
            return 0
        return ord(t[p]) if ord(t[p]) < 256 else ord("?")

    assert sorted(got) == [(i, p, byte(texts[i], p - 1), byte(texts[i], p + len(term)))
                           for i, p in occurrences(texts, term)]
    assert buf.has(term).tolist() == [term in t for t in texts]


def test_a_path_with_a_nul_gives_no_buffer() -> None:
    np = pytest.importorskip("numpy")
    buf = FoldedBuffer(np)
    assert not buf.sync(["a/b", "a\0b", "c"])
    assert not buf.sync(["a/b", "a\0b", "c", "d"])


def test_findable() -> None:
    assert findable("src") and findable("s/p/t")
    assert not findable("") and not findable("a?") and not findable("é") and not findable("a\0")


@given(TEXTS, st.lists(st.text("ab/._", min_size=1, max_size=3), min_size=1, max_size=6),
       st.integers(1, 5), st.integers(1, 4), st.sampled_from([0, 4, 10**9]),
       st.integers(1, 5))
def test_has_either_way_is_in(
    texts: list[str], terms: list[str], step: int, slice_: int, sparse: int, sub: int
) -> None:
    """``has`` finds the paths of a term's occurrences one binary search each when there are
    few, else ors each path's bytes (``SPARSE`` 0: always the former; huge: the latter
    whenever it occurs), a part of ``SUB`` paths of a slice at a time: either way, as the
    buffer grows, it answers what ``in`` does."""
    np = pytest.importorskip("numpy")
    from ffind.engine import occur

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(occur, "SPARSE", sparse)
        mp.setattr(occur, "SUB", sub)
        buf = FoldedBuffer(np, slice_)
        for upto in range(0, len(texts) + step, step):
            assert buf.sync(texts, upto)
            for term in terms:
                got = buf.has(term)
                assert got.dtype == bool
                assert got.tolist() == [term in t for t in texts[:buf.covered]]


def greedy_end(text: str, term: str) -> int | None:
    """Where the leftmost (greedy) match of ``term`` as a subsequence of ``text`` ends."""
    at = 0
    for c in term:
        at = text.find(c, at)
        if at < 0:
            return None
        at += 1
    return at


@given(st.lists(st.text("ab/._?éA", max_size=80), max_size=12),
       st.text("ab/._", min_size=1, max_size=4), st.integers(1, 5), st.booleans())
@example(["." * 32 + "a", "." * 31 + "ab", "." * 64 + "a", "_" * 33, "a" + "." * 31 + "b"],
         "ab", 2, False)  # (at each edge of a window)
def test_advance_follows_the_greedy_match(texts: list[str], term: str, slice_: int,
                                          some: bool) -> None:
    """``advance``, a character at a time from an empty term, keeps the paths holding the term
    as a subsequence, each with where its greedy match ends, over any subset of the paths and
    slices (paths longer than ``WINDOW``: the rows read further)."""
    np = pytest.importorskip("numpy")

    buf = FoldedBuffer(np, slice_)
    assert buf.sync(texts)
    start = [i for i in range(len(texts)) if not some or i % 2 == 0]
    ids = np.array(start, dtype=np.int32)
    ends = np.zeros(len(ids), dtype=np.int32)
    for k in range(1, len(term) + 1):
        ids, ends = buf.advance(term[k - 1], ids, ends)
        want = [(i, greedy_end(texts[i], term[:k])) for i in start]
        assert list(zip(ids.tolist(), ends.tolist(), strict=True)) == [
            (i, e) for i, e in want if e is not None]
        assert ids.dtype == np.int32 and ends.dtype == np.int32


@given(TEXTS, st.text("ab/._?é", min_size=1, max_size=5), st.integers(1, 4), st.data())
def test_starts_with_is_str_startswith(texts: list[str], term: str, slice_: int,
                                       data: st.DataObject) -> None:
    """``FoldedBuffer.starts_with`` at any offset of any ascending ids (a term longer than
    the rest of the path, or than the path, across the slices) is ``str.startswith``."""
    np = pytest.importorskip("numpy")

    buf = FoldedBuffer(np, slice_)
    assert buf.sync(texts)
    if not findable(term) or not texts:
        return
    ids = sorted(data.draw(st.sets(st.integers(0, len(texts) - 1))))
    at = [data.draw(st.integers(0, len(texts[i]))) for i in ids]
    got = buf.starts_with(np.array(ids, dtype=np.int64), np.array(at, dtype=np.int64), term)
    assert got.tolist() == [texts[i].startswith(term, a) for i, a in zip(ids, at, strict=True)]
