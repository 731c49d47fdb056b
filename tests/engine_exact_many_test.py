"""``exact_many.scorer`` (the batch scorer, numpy) gives ``ExactScorer.score``'s exact score of
every path, for one fuzzy term and for several whose keys share no character, on random
paths with non-ASCII letters, capitals, separators and smart case."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffind.engine.exact_many import batchable, scorer
from ffind.engine.index import Index
from ffind.query import parse

PARTS = st.one_of(
    st.sampled_from(["src", "main", "java", "Test", "util", "s_p", "FooBar", "mod.rs", "é",
                     "ÉtÉ", "straße", "a-b", "x y", ".hidden", "Ab9"]),
    st.text("abcdmnstuéÉßAB9_-. ", min_size=1, max_size=6))
PATHS = st.lists(st.lists(PARTS, min_size=1, max_size=4).map("/".join), min_size=1,
                 max_size=30)
TERM = st.one_of(st.sampled_from(["s", "src", "ma", "j", "Te", "ut", "é", "E", "fb", "s/p",
                                  "9", "_", ".", "mod.rs", "st"]),
                 st.text("abcdmnstuéÉAB9_-./", min_size=1, max_size=4))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, st.lists(TERM, min_size=1, max_size=3), st.booleans())
def test_batch_scores_are_the_scalar_ones(paths: list[str], terms: list[str], hidden: bool
                                          ) -> None:
    pytest.importorskip("numpy")
    q = parse(" ".join(terms))
    if not batchable(q):
        return
    ix = Index(paths, numpy=False)
    ids = list(range(len(paths)))
    want = [ix.exact.score(q, i, hidden) for i in ids]
    assert scorer(ix.store, q, hidden)(ids) == want, (q.raw, paths)


def test_batchable() -> None:
    assert batchable(parse("test u")) and batchable(parse("src main j"))
    assert batchable(parse("prom")) and batchable(parse("s/p/t"))
    assert not batchable(parse("test ut"))  # t in both: the overlap needs positions
    assert not batchable(parse("É e"))  # the same letter once folded
    assert not batchable(parse("'exact u"))  # not fuzzy
    assert batchable(parse("src !main"))  # a negation is not scored


@pytest.mark.parametrize("q", ["src main j", "main j", "src ma", "test u", "web s", "u"])
def test_the_folders_then_the_file(q: str) -> None:
    """Paths where reading the first terms against the folders wins (``src/main/j...``)."""
    pytest.importorskip("numpy")
    paths = ["src/main/java/App.java", "main/j.rs", "x/src/main.c", "test/util.py",
             "tests/unit/u.rs", "web/servlet/s.java", "web.s", "a/.web/s/x"]
    ix = Index(paths, numpy=False)
    query = parse(q)
    ids = list(range(len(paths)))
    for hidden in (False, True):
        assert scorer(ix.store, query, hidden)(ids) == [
            ix.exact.score(query, i, hidden) for i in ids]
