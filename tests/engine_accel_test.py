"""``accel.subsequence_hits``: rapidfuzz over slices of the texts (issue 17) finds what a plain
scan finds, with numpy and without."""

from __future__ import annotations

from array import array

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
    saved = accel.CDIST_AT_ONCE
    accel.CDIST_AT_ONCE = at_once
    try:
        got = subsequence_hits(key, texts, numpy if with_numpy else None, lo, hi)
        whole = subsequence_hits(key, texts, numpy if with_numpy else None)
    finally:
        accel.CDIST_AT_ONCE = saved
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
       st.integers(0, 45), st.integers(1, 7), st.integers(0, 5))
def test_the_compact_hits_are_the_hits(
    texts: list[str], key: str, lo: int, hi: int, at_once: int, array_from: int,
) -> None:
    """``subsequence_ids`` (``Ids``: an ``array('i')`` from ``ARRAY_FROM`` hits) holds what
    ``subsequence_hits`` finds, in order (issue 17: no list of ints for a big set)."""
    saved = accel.CDIST_AT_ONCE, accel.ARRAY_FROM
    accel.CDIST_AT_ONCE, accel.ARRAY_FROM = at_once, array_from
    try:
        got = accel.subsequence_ids(key, texts, numpy, lo, hi)
        want = subsequence_hits(key, texts, None, lo, hi)
    finally:
        accel.CDIST_AT_ONCE, accel.ARRAY_FROM = saved
    assert list(got) == want
    assert isinstance(got, array) == (len(want) >= array_from)
    assert not isinstance(got, array) or got.typecode == "i"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**31 - 1)).map(sorted), st.integers(0, 5))
def test_ids_of_and_compact_ids_keep_the_ids(ids: list[int], array_from: int) -> None:
    saved = accel.ARRAY_FROM
    accel.ARRAY_FROM = array_from
    try:
        a = accel.ids_of(numpy.array(ids, dtype=numpy.int64), numpy)
        b = accel.compact_ids(ids, numpy)
        c = accel.compact_ids(ids, None)
    finally:
        accel.ARRAY_FROM = saved
    for got in (a, b):
        assert list(got) == ids
        assert isinstance(got, array) == (len(ids) >= array_from)
    assert c is ids  # (no numpy: as it is)
    assert accel.compact_ids(b, numpy) is b
