"""``FoldedBuffer``: every occurrence of a term in the folded paths, found over one byte buffer,
is where ``str.find`` finds it, however the buffer was built (in slices, then joined)."""

from __future__ import annotations

import pytest
from hypothesis import given
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


@given(TEXTS, st.text("ab/._?é", min_size=1, max_size=4), st.integers(1, 5))
def test_find_is_str_find(texts: list[str], term: str, step: int) -> None:
    np = pytest.importorskip("numpy")
    buf = FoldedBuffer(np)
    for upto in range(0, len(texts) + step, step):  # built a few paths at a time
        assert buf.sync(texts, upto)
    assert buf.covered == len(texts)
    if not findable(term):
        assert "?" in term or not term.isascii()
        return
    ids, pos = buf.find(term)
    assert sorted(zip(ids.tolist(), pos.tolist(), strict=True)) == occurrences(texts, term)
    assert buf.has(term).tolist() == [term in t for t in texts]


@given(TEXTS, st.data())
def test_byte_at_is_the_character_or_the_separator(texts: list[str], data: st.DataObject) -> None:
    np = pytest.importorskip("numpy")
    buf = FoldedBuffer(np)
    assert buf.sync(texts)
    if not texts:
        return
    i = data.draw(st.integers(0, len(texts) - 1))
    p = data.draw(st.integers(-2, len(texts[i]) + 2))
    got = int(buf.byte_at(np.array([i]), np.array([p]))[0])
    if 0 <= p < len(texts[i]):
        c = texts[i][p]
        assert got == (ord(c) if ord(c) < 256 else ord("?"))
    else:
        assert got == 0


def test_a_path_with_a_nul_gives_no_buffer() -> None:
    np = pytest.importorskip("numpy")
    buf = FoldedBuffer(np)
    assert not buf.sync(["a/b", "a\0b", "c"])
    assert not buf.sync(["a/b", "a\0b", "c", "d"])


def test_findable() -> None:
    assert findable("src") and findable("s/p/t")
    assert not findable("") and not findable("a?") and not findable("é") and not findable("a\0")
