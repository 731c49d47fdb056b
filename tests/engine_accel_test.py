"""``accel.subsequence_hits``: rapidfuzz over slices of the texts (issue 17) finds what a plain
scan finds, with numpy and without."""

from __future__ import annotations

from array import array
from itertools import pairwise

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.engine import accel
from ffind.engine.accel import subsequence_hits


def holds(key: str, text: str) -> bool:
    it = iter(text)
    return all(c in it for c in key)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abc/.", max_size=6), max_size=40),
       st.text(alphabet="abc", min_size=2, max_size=3), st.integers(0, 45),
       st.integers(0, 45), st.integers(1, 7), st.booleans())
def test_slices_find_what_a_scan_finds(
    texts: list[str], key: str, lo: int, hi: int, at_once: int, with_numpy: bool,
) -> None:
    got = subsequence_hits(key, texts, numpy if with_numpy else None, lo, hi, at_once)
    whole = subsequence_hits(key, texts, numpy if with_numpy else None, chunk=at_once)
    assert got == [i for i in range(lo, min(hi, len(texts))) if holds(key, texts[i])]
    assert whole == [i for i, t in enumerate(texts) if holds(key, t)]


@pytest.mark.parametrize("np", [numpy, None])
def test_no_texts_or_an_empty_slice(np: object) -> None:
    assert subsequence_hits("ab", [], np) == []
    assert subsequence_hits("ab", ["ab", "ba"], np, 1, 1) == []
    assert subsequence_hits("ab", ["ab", "ba", "xaxb"], np, 1) == [2]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abc/.", max_size=6), max_size=40),
       st.text(alphabet="abc", min_size=2, max_size=3), st.integers(0, 45),
       st.integers(0, 45), st.integers(1, 7))
def test_the_compact_hits_are_the_hits(
    texts: list[str], key: str, lo: int, hi: int, chunk: int,
) -> None:
    """``subsequence_ids`` (``Ids``: an ``array('i')`` from ``chunk`` hits) holds what
    ``subsequence_hits`` finds, in order."""
    got = accel.subsequence_ids(key, texts, numpy, lo, hi, chunk)
    want = subsequence_hits(key, texts, None, lo, hi)
    assert list(got) == want
    assert isinstance(got, array) == (len(want) >= chunk)
    assert not isinstance(got, array) or got.typecode == "i"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**31 - 1)).map(sorted), st.integers(0, 5))
def test_ids_of_and_compact_ids_keep_the_ids(ids: list[int], array_from: int) -> None:
    a = accel.ids_of(numpy.array(ids, dtype=numpy.int64), numpy, array_from)
    b = accel.compact_ids(ids, numpy, array_from)
    c = accel.compact_ids(ids, None, array_from)
    for got in (a, b):
        assert list(got) == ids
        assert isinstance(got, array) == (len(ids) >= array_from)
    assert c is ids  # (no numpy: as it is)
    assert accel.compact_ids(b, numpy) is b


def lcs(a: str, b: str) -> int:
    row = [0] * (len(b) + 1)
    for ca in a:
        prev = 0
        for j, cb in enumerate(b):
            prev, row[j + 1] = row[j + 1], prev + 1 if ca == cb else max(row[j + 1], row[j])
    return row[-1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abc/.", max_size=6), max_size=40),
       st.text(alphabet="abc.", min_size=2, max_size=5), st.integers(0, 45),
       st.integers(0, 45), st.integers(1, 20))
def test_subsequence_near_gives_the_hits_and_the_texts_one_short(
    texts: list[str], key: str, lo: int, hi: int, at_once: int,
) -> None:
    """One ``cdist`` pass with the cutoff one lower: the hits as ``subsequence_hits`` finds
    them, and a bit per text of ``texts[lo:hi]`` set exactly where its LCS with the key is
    the key's length less one or more (in parts of any size, not only of whole bytes)."""
    hits, bits = accel.subsequence_near(key, texts, numpy, lo, hi, at_once)
    assert hits.dtype == numpy.int32 and bits.dtype == numpy.uint8
    assert hits.tolist() == subsequence_hits(key, texts, None, lo, hi)
    span = range(lo, min(hi, len(texts)))
    got = numpy.unpackbits(bits, bitorder="little")[:len(span)].tolist()
    assert got == [int(lcs(key, texts[i]) >= len(key) - 1) for i in span]
    assert len(bits) == (len(span) + 7) // 8


def test_near_paths_cover_longer_terms_and_keep_the_ids_they_do_not_cover() -> None:
    texts = ["abcd", "xbcd", "xxcd", "abxd", "zzzz", "abcz", "abdc"]
    _, bits = accel.subsequence_near("abcd", texts, numpy, 1, 5)  # ids 1-4
    near = accel.NearPaths("abcd", [(1, 5, bits)])
    assert near.covers("abcd") and near.covers("abxcd") and near.covers("abcde")
    assert not near.covers("abc") and not near.covers("bacd")
    ids = numpy.arange(7)
    # 1 (xbcd) and 3 (abxd) are one short of abcd, 2 and 4 two or more; 0, 5, 6 uncovered
    assert near.near(ids, numpy).tolist() == [0, 1, 3, 5, 6]
    _, more = accel.subsequence_near("abcd", texts, numpy, 5, 7)
    assert not near.add([(4, 6, more)])  # (overlaps 1-4: not taken)
    assert near.add([(5, 7, more)])
    assert [p[:2] for p in near.parts] == [(1, 5), (5, 7)]
    assert near.near(ids, numpy).tolist() == [0, 1, 3, 5, 6]  # (abcz, abdc: one short)
    assert near.near(numpy.arange(2, 3), numpy).tolist() == []
    assert near.near(numpy.arange(0), numpy).tolist() == []
    assert near.ids(1, 7, numpy).tolist() == [1, 3, 5, 6]
    assert near.ids(2, 6, numpy).tolist() == [3, 5]
    assert near.ids(2, 2, numpy).tolist() == []
    assert near.ids(0, 7, numpy) is None  # (id 0 not covered)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab/", max_size=5), max_size=60),
       st.lists(st.integers(0, 60), max_size=4), st.integers(0, 60), st.integers(0, 60))
def test_near_paths_ids_are_the_ids_whose_bit_is_set(
    texts: list[str], cuts: list[int], start: int, end: int,
) -> None:
    """``NearPaths.ids`` over parts cut anywhere (not at whole bytes): the ids of the span
    whose bit is set, None where a part is missing."""
    n = len(texts)
    edges = sorted({0, n, *(min(c, n) for c in cuts)})
    parts = [(a, z, accel.subsequence_near("ab", texts, numpy, a, z)[1])
             for a, z in pairwise(edges) if a < z]
    near = accel.NearPaths("ab", parts[1:] if len(cuts) == 4 else parts)
    start, end = min(start, n), min(max(start, end), n)
    got = near.ids(start, end, numpy)
    want = [i for i in range(start, end) if lcs("ab", texts[i]) >= 1]
    covered = set() if not parts or len(cuts) != 4 else set(range(parts[0][0], parts[0][1]))
    if covered & set(range(start, end)):
        assert got is None
    else:
        assert got is not None and got.tolist() == want
