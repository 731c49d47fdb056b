"""The ranking's numpy bookkeeping (large candidate sets: ``ranker.NUMPY_FROM`` and more) gives
exactly what the plain Python bookkeeping gives: the same index with numpy and without."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ffind.engine.index import Index
from ffind.engine.rank import by_bound
from ffind.engine.ranker import NUMPY_FROM, grouped

CORPUS = Path(__file__).parent / "data" / "corpus_paths.txt"
QUERIES = [
    "s",
    "sr",
    "src",
    "e",
    "h/s",
    "s/p/",
    "s/p/t",
    "he/s/c",
    "test u",
    "src main r",
    "mod.rs",
    "readme",
    "c",
    "cmd",
    "tsx",
    "he co",
    "aider coders",
    "hx",
]


@cache
def indexes() -> tuple[Index, Index]:
    base = CORPUS.read_text(encoding="utf-8").splitlines()
    paths = [f"copy{n}/{p}" if n else p for n in range(16) for p in base]
    assert len(paths) > 2 * NUMPY_FROM
    with_np, plain = Index(paths, numpy=True), Index(paths, numpy=False)
    assert with_np.numpy_ready(30)
    return with_np, plain


@pytest.mark.parametrize("q", QUERIES)
def test_numpy_bookkeeping_ranks_as_the_plain_one(q: str) -> None:
    with_np, plain = indexes()
    for k in (1, 7, 20, None):
        assert with_np.match(q, limit=k) == plain.match(q, limit=k), (q, k)


@given(
    st.lists(
        st.tuples(st.integers(0, 50), st.integers(-3, 3)), max_size=60, unique_by=lambda x: x[0]
    )
)
def test_grouped_is_by_bound(pairs: list[tuple[int, int]]) -> None:
    np = pytest.importorskip("numpy")
    ids = [i for i, _ in pairs]
    bounds = [b for _, b in pairs]
    assert grouped(np.array(ids, dtype=np.int64), np.array(bounds, dtype=np.int64)) == by_bound(
        ids, bounds
    )
