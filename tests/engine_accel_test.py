"""``accel.subsequence_hits``: rapidfuzz over slices of the texts (issue 17) finds what a plain
scan finds, with numpy and without."""

from __future__ import annotations

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
