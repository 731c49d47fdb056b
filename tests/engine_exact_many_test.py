"""``exact_many.scorer`` (the batch scorer, numpy) gives ``ExactScorer.score``'s exact score of
every path at or above the floor it is given (below it, some value below it), for one fuzzy
term and for several, on random paths with non-ASCII letters, capitals, separators and smart
case."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ffind.engine.exact_many import batchable, disjoint, scorer
from ffind.engine.index import Index
from ffind.engine.rank import TopK
from ffind.query import Query, parse

PARTS = st.one_of(
    st.sampled_from(["src", "main", "java", "Test", "util", "s_p", "FooBar", "mod.rs", "é",
                     "ÉtÉ", "straße", "a-b", "x y", ".hidden", "Ab9"]),
    st.text("abcdmnstuéÉßAB9_-. ", min_size=1, max_size=6))
PATHS = st.lists(st.lists(PARTS, min_size=1, max_size=4).map("/".join), min_size=1,
                 max_size=30)
TERM = st.one_of(st.sampled_from(["s", "src", "ma", "j", "Te", "ut", "é", "E", "fb", "s/p",
                                  "9", "_", ".", "mod.rs", "st"]),
                 st.text("abcdmnstuéÉAB9_-./", min_size=1, max_size=4))


def check(ix: Index, q: str, hidden: bool, floor: float) -> None:
    query = parse(q)
    ids = list(range(len(ix.paths)))
    want = [ix.exact.score(query, i, hidden) for i in ids]
    got = scorer(ix.store, query, hidden, lambda i: ix.exact.score(query, i, hidden))(ids, floor)
    for g, w in zip(got, want, strict=True):
        if w is None or w >= floor:
            assert g == w, (q, ix.paths, floor)
        else:
            assert g is not None and g < floor, (q, ix.paths, floor)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, st.lists(TERM, min_size=1, max_size=3), st.booleans(),
       st.one_of(st.just(float("-inf")), st.integers(0, 300)))
def test_batch_scores_are_the_scalar_ones(
    paths: list[str], terms: list[str], hidden: bool, floor: float
) -> None:
    pytest.importorskip("numpy")
    q = " ".join(terms)
    if batchable(parse(q)):
        check(Index(paths, numpy=False), q, hidden, floor)


def test_batchable() -> None:
    assert batchable(parse("test u")) and batchable(parse("test ut"))
    assert batchable(parse("prom")) and batchable(parse("s/p/t"))
    assert not batchable(parse("'exact u"))  # not fuzzy
    assert disjoint(parse("test u")) and disjoint(parse("src main j"))
    assert disjoint(parse("src !main"))  # a negation is not scored
    assert not disjoint(parse("test ut"))  # t in both: the overlap needs positions
    assert not disjoint(parse("É e"))  # the same letter once folded


@pytest.mark.parametrize("q", ["src main j", "main j", "src ma", "test u", "web s", "u",
                               "test ut", "workspace workspace.rs", "s s"])
@pytest.mark.parametrize("floor", [float("-inf"), 100, 250])
def test_the_folders_then_the_file(q: str, floor: float) -> None:
    """Paths where reading the first terms against the folders wins (``src/main/j...``), and
    where terms overlap (``workspace workspace.rs`` on ``util/workspace.rs``)."""
    pytest.importorskip("numpy")
    paths = ["src/main/java/App.java", "main/j.rs", "x/src/main.c", "test/util.py",
             "tests/unit/u.rs", "web/servlet/s.java", "web.s", "a/.web/s/x",
             "src/workspace/workspace.rs", "src/util/workspace.rs", "s"]
    ix = Index(paths, numpy=False)
    for hidden in (False, True):
        check(ix, q, hidden, floor)
        # with an infinite floor every path gets its upper bound: each as the floor
        query = parse(q)
        his = scorer(ix.store, query, hidden, lambda i: None)(list(range(len(paths))),
                                                              float("inf"))
        for hi in {h for h in his if h is not None}:
            check(ix, q, hidden, hi)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATHS, st.lists(TERM, min_size=2, max_size=3), st.booleans(), st.data())
def test_the_earlier_terms_kept_between_rankings_give_the_same_scores(
    paths: list[str], terms: list[str], hidden: bool, data: st.DataObject
) -> None:
    """With the earlier terms' scores kept between calls (``early``, as the ranker passes
    ``ExactScorer.early_many``), each call over any ids, some scored by an earlier call, some
    not, some twice in one call, and the last term changing (``test u``, ``test ut``), gives
    what a call that keeps nothing gives."""
    pytest.importorskip("numpy")
    ix = Index(paths, numpy=False)
    early: dict[object, dict[int, tuple[int | None, int | None]]] = {}
    n = len(paths)
    for last in [terms[-1], terms[-1] + "s", "a"]:
        query = parse(" ".join([*terms[:-1], last]))
        if not batchable(query) or len(query.positive) < 2:
            continue
        ids = data.draw(st.lists(st.integers(0, n - 1), max_size=2 * n))
        floor = data.draw(st.one_of(st.just(float("-inf")), st.integers(0, 300)))
        def exact(i: int, query: Query = query) -> int | None:
            return ix.exact.score(query, i, hidden)

        want = scorer(ix.store, query, hidden, exact)(ids, floor)
        assert scorer(ix.store, query, hidden, exact, early)(ids, floor) == want, query.raw


OVERLAPPING = st.lists(st.sampled_from(["ab", "ba", "b", "a", "aba", "ab.", "bb", "a/b"]),
                       min_size=2, max_size=3)
OVERLAP_PATHS = st.lists(st.lists(st.text("ab./x", min_size=1, max_size=5), min_size=1,
                                  max_size=4).map("/".join), min_size=1, max_size=25)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OVERLAP_PATHS, OVERLAPPING, st.booleans())
def test_terms_that_share_letters_at_every_floor(
    paths: list[str], terms: list[str], hidden: bool
) -> None:
    """Terms that share letters (the overlap needs the placements' positions): at each upper
    bound the batch gives taken as the floor, every path at or above it gets its exact score,
    whether the reading against the folders wins (no position needed) or not."""
    pytest.importorskip("numpy")
    ix = Index(paths, numpy=False)
    query = parse(" ".join(terms))
    his = scorer(ix.store, query, hidden, lambda i: None)(list(range(len(paths))),
                                                          float("inf"))
    for hi in sorted({h for h in his if h is not None}):
        check(ix, query.raw, hidden, hi)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OVERLAP_PATHS, OVERLAPPING, st.booleans(), st.integers(1, 6),
       st.lists(st.integers(0, 300), max_size=8), st.one_of(st.none(), st.integers(0, 300)))
@example(["ab/ab", "ab/b/ab", "b/aab", "ab/ba/b", "a/b/a/b", "bab/ab"], ["ab", "b"], False, 1,
         [], None)
def test_the_floor_rises_with_the_exact_scores_of_the_batch(
    paths: list[str], terms: list[str], hidden: bool, k: int, prior: list[int],
    least: int | None,
) -> None:
    """Given the ranking's ``TopK`` (``k`` best so far, ``least``), the batch rescores its
    upper bounds highest first, and one that ``k`` exact scores (earlier ones, or of the batch)
    are strictly above by then stands: every value is the exact score, or one at least that
    with ``k`` exact scores strictly above it (or below ``least``), so it cannot enter."""
    pytest.importorskip("numpy")
    ix = Index(paths, numpy=False)
    query = parse(" ".join(terms))
    topk = TopK(k, least)
    topk.add_many(prior)
    ids = list(range(len(paths)))
    want = [ix.exact.score(query, i, hidden) for i in ids]
    floor = topk.floor()
    got = scorer(ix.store, query, hidden, lambda i: ix.exact.score(query, i, hidden))(
        ids, floor, topk)
    assert topk.floor() == floor  # (the caller's is not changed)
    sure = [*prior, *(g for g, w in zip(got, want, strict=True) if g == w and g is not None)]
    for g, w in zip(got, want, strict=True):
        if g == w:
            continue
        assert g is not None and w is not None and w <= g, (g, w)
        assert (least is not None and g < least) or sum(s > g for s in sure) >= k, (g, sure)


def test_a_bound_equal_to_the_kth_score_is_rescored() -> None:
    """An upper bound equal to the ``k``-th score so far is rescored: a path scoring that much
    would tie, and the tie-breaks could put it first."""
    pytest.importorskip("numpy")
    paths = ["src/util/workspace.rs", "src/workspace/workspace.rs", "x/workspace.rs"]
    ix = Index(paths, numpy=False)
    query = parse("workspace workspace.rs")
    many = scorer(ix.store, query, False, lambda i: ix.exact.score(query, i, False))
    ids = list(range(len(paths)))
    his = many(ids, float("inf"), None)
    want = [ix.exact.score(query, i, False) for i in ids]
    lower = [j for j in ids if his[j] != want[j]]
    assert lower  # (the overlap: ``workspace.rs`` holds ``workspace``)
    for j in lower:
        topk = TopK(1)
        topk.add(his[j])  # type: ignore[arg-type]
        assert many([j], topk.floor(), topk) == [want[j]]
