"""The engine's shortcuts and bounds are exact for any weights that satisfy the assumptions
``Weights`` checks: ``limit=k`` is the prefix of the full ranking, and every shortcut gives
what the full ranking gives, on real paths (``tests/data/corpus_paths.txt``: 200 paths each of
aider and helix) and random queries drawn from them."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ffind.engine.either import split_top
from ffind.engine.index import Index
from ffind.engine.ranker import rank, rank_each
from ffind.engine.shortcuts import shortcut
from ffind.engine.tuning import Tuning
from ffind.query import Kind, Term, in_order, parse, split_group
from ffind.scoring.weights import DEFAULT, Weights

CORPUS = Path(__file__).parent / "data" / "corpus_paths.txt"


@cache
def corpus() -> list[str]:
    return CORPUS.read_text(encoding="utf-8").splitlines()


@st.composite
def weights(draw: st.DrawFn) -> Weights:
    """Random weights that satisfy ``Weights``'s assumptions."""
    small = st.integers(0, 40)
    sep = draw(st.integers(0, 30))
    below_sep = st.integers(0, sep)
    contig_name = draw(small)
    return Weights(
        match=draw(st.integers(1, 40)), gap_start=draw(st.integers(0, 10)),
        gap_ext=draw(st.integers(0, 5)), bonus_sep=sep, bonus_delim=draw(below_sep),
        bonus_camel=draw(below_sep), bonus_consec=draw(below_sep),
        bonus_name=draw(st.integers(0, 20)), name_prefix=draw(small),
        whole_name=draw(small), whole_dir=draw(small), parent_prefix=draw(small),
        parent_step=draw(small), whole_parent=draw(small), contig_name=contig_name,
        contig_path=draw(st.integers(0, contig_name)), len_name=draw(st.integers(0, 3)),
        len_name_cap=draw(st.integers(1, 50)), hidden=draw(small),
        typo_cost=draw(st.integers(0, 100)), typo_stem=draw(st.integers(0, 3)),
        overlap=draw(st.integers(0, 150)),
    )


@st.composite
def term(draw: st.DrawFn) -> str:
    """A term drawn from a corpus path: a subsequence of it (a few characters, a run, or a
    part of its folders with ``/``), sometimes with one letter changed (a typo)."""
    path = draw(st.sampled_from(corpus())).lower()
    how = draw(st.sampled_from(["run", "scattered", "slash", "typo"]))
    if how == "slash":
        comps = path.split("/")
        n = draw(st.integers(2, min(3, len(comps))))
        tail = comps[-n:]
        return "/".join(c[: draw(st.integers(0, min(3, len(c))))] for c in tail) or "/"
    start = draw(st.integers(0, len(path) - 1))
    size = draw(st.integers(1, 8))
    if how == "scattered":
        picks = sorted(draw(st.lists(st.integers(start, len(path) - 1), min_size=1,
                                     max_size=size, unique=True)))
        text = "".join(path[j] for j in picks)
    else:
        text = path[start:start + size]
    if how == "typo" and len(text) >= 4:
        j = draw(st.integers(0, len(text) - 1))
        text = text[:j] + draw(st.sampled_from("aeiorst")) + text[j + 1:]
    return text.replace(" ", "") or "a"


@st.composite
def boundary(draw: st.DrawFn) -> str:
    """``'word'``: a word of a corpus path (between delimiters, so it holds at word
    boundaries), sometimes cut or shifted (so it may hold nowhere)."""
    path = draw(st.sampled_from(corpus())).lower()
    words = [w for w in re.split(r"[^a-z0-9]+", path) if w] or ["a"]
    word = draw(st.sampled_from(words))
    if draw(st.integers(0, 3)) == 0:
        word = word[draw(st.integers(0, len(word) - 1)):]
    return f"'{word}'"


@st.composite
def alternative(draw: st.DrawFn) -> str:
    """One alternative of an OR group: a term, negated, anchored, exact or at boundaries."""
    how = draw(st.sampled_from(["plain", "plain", "not", "not'", "^", "$", "'", "boundary"]))
    if how == "boundary":
        return draw(boundary())
    t = draw(term()).lstrip("!'^").rstrip("$") or "a"
    return {"plain": t, "not": "!" + t, "not'": "!'" + t, "^": "^" + t, "$": t + "$",
            "'": "'" + t}[how]


groups = st.one_of(boundary(), st.lists(alternative(), min_size=2, max_size=3).map(" | ".join))
"""The extended syntax: an OR group (``a | !b | c$``) or a boundary term (``'word'``)."""

plain_queries = st.one_of(term(), st.lists(term(), min_size=2, max_size=3).map(" ".join))
extended = st.lists(st.one_of(term(), groups), min_size=1, max_size=3).filter(
    lambda ws: any(" | " in w or w.endswith("'") for w in ws)).map(" ".join)
queries = st.one_of(plain_queries, extended)
"""Queries of plain terms, and queries with OR groups and boundary terms among them."""
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check_exact(w: Weights, q: str, ks: list[int]) -> None:
    ix = Index(corpus(), weights=w)
    full = ix.match(q)
    for k in ks:
        assert ix.match(q, limit=k) == full[:k], (q, k)
        ms = ix.run(q)
        fast = shortcut(ix, ms, k, False)
        if fast is not None:
            assert fast == rank(ix, ms, k, False), (q, k)


@SETTINGS
@given(weights(), queries, st.lists(st.integers(1, 25), min_size=1, max_size=3))
def test_limit_k_is_a_prefix_and_shortcuts_are_exact_for_any_valid_weights(
    w: Weights, q: str, ks: list[int]
) -> None:
    check_exact(w, q, ks)


@SETTINGS
@given(queries, st.lists(st.integers(1, 25), min_size=1, max_size=3))
def test_limit_k_is_a_prefix_with_the_default_weights(q: str, ks: list[int]) -> None:
    check_exact(DEFAULT, q, ks)


@SETTINGS
@given(queries, st.integers(1, 25))
def test_a_higher_delimiter_bonus_keeps_the_prefix(q: str, k: int) -> None:
    """Raising ``BONUS_DELIM`` from 8 to 12 once broke ``limit=k`` for 104 of 1,500 queries
    (the bounds assumed ``BONUS_SEP`` was the largest bonus); with the separator bonus derived
    from it (``BONUS_DELIM + GAP_EXT``) the bounds follow."""
    w = Weights(bonus_delim=12, bonus_sep=12 + DEFAULT.gap_ext, bonus_camel=12 - DEFAULT.gap_ext)
    check_exact(w, q, [k])


def test_weights_that_break_the_bounds_assumptions_are_refused() -> None:
    with pytest.raises(ValueError, match="bonus_sep"):
        Weights(bonus_delim=12)  # above the separator's bonus: the bounds would be wrong


@SETTINGS
@given(queries, st.integers(1, 25), st.data(), st.sampled_from([500, 40, 5]), st.booleans())
def test_a_floor_cuts_the_full_ranking_and_nothing_else(
    q: str, k: int, data: st.DataObject, budget: int, whole: bool
) -> None:
    """``Index.top(ms, k, least=L)`` (what ranking with memory asks the remembered paths'
    index) is the full ranking cut to the scores of at least ``L``, then to ``k``; also with a
    small exact budget, where groups past it get cheap scores (the budget is spent in bound
    order, so a floor that stops the visit early scores every visited group the same).  The
    floor is drawn at, just above and just below the scores found (where a bound can equal
    it), and anywhere."""
    ix = Index(corpus(), tuning=Tuning(budget=budget))
    full = ix.top(ix.run(q), None)
    scores = sorted({m.score for m in full}) or [0]
    # (integers only: the index may be importing numpy in its thread meanwhile, which
    # ``sampled_from`` trips on)
    if data.draw(st.booleans()):
        least = scores[data.draw(st.integers(0, len(scores) - 1))] + data.draw(
            st.integers(-1, 1))
    else:
        least = data.draw(st.integers(-40, 400))
    limit = None if whole else k
    want = [m for m in full if m.score >= least]
    assert ix.top(ix.run(q), limit, least=least) == (want if limit is None else want[:limit])


@pytest.mark.parametrize(
    "q", ["a", "mod", "s/c", "hel/s", "c/", "base cod", "tst", "rs", "reamde", "mian"])
@pytest.mark.parametrize("budget", [500, 5])
def test_a_floor_at_every_score_found(q: str, budget: int) -> None:
    """The floor at, just above and just below every score of the full ranking (where a
    bound equal to the floor must still be visited), for the full ranking and a limit."""
    ix = Index(corpus(), tuning=Tuning(budget=budget))
    full = ix.top(ix.run(q), None)
    assert full
    for least in sorted({m.score + d for m in full for d in (-1, 0, 1)}):
        want = [m for m in full if m.score >= least]
        for limit in (None, 1, 7):
            got = ix.top(ix.run(q), limit, least=least)
            assert got == (want if limit is None else want[:limit]), (least, limit)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([*"aAeEéÉßsS_.-x1", "ab", "Ab"]), st.integers(1, 25))
def test_the_one_term_shortcut_of_one_character_is_the_ranking(c: str, k: int) -> None:
    """A folded one-character term takes every name of its first-letter bucket as a name
    prefix without testing them; a capital (case-sensitive) or an accent (accent-sensitive)
    still tests each, as a longer term does."""
    ix = Index(corpus())
    ms = ix.run(c)
    fast = shortcut(ix, ms, k, False)
    if fast is not None:
        assert fast == rank(ix, ms, k, False), (c, k)
    assert ix.match(c, limit=k) == ix.match(c)[:k]


PADDED = [" src/lead.rs", "src/trail.rs ", "  both/a.md  ", "a-src-b/c.rs", "[src]/d.rs",
          "x_src_y/e.rs", "srcx/f.rs"]
"""Paths beside the corpus: surrounding whitespace (which anchors skip) and words between
delimiters."""


def holds_by_hand(t: Term, path: str) -> bool:
    """Whether ``path`` matches the term ``t``, written out apart from the engine (lowercase
    queries: every comparison folded)."""
    text, key = path.lower(), t.text.lower()
    if t.kind is Kind.FUZZY:
        found = in_order(key, text)
    elif t.kind is Kind.EXACT:
        found = key in text
    elif t.kind is Kind.BOUNDARY:
        found = re.search(r"(?<![^\W_])" + re.escape(key) + r"(?![^\W_])", text) is not None
    elif t.kind is Kind.PREFIX:
        found = text.lstrip().startswith(key)
    elif t.kind is Kind.SUFFIX:
        found = text.rstrip().endswith(key)
    else:
        found = text.strip() == key
    return found is not t.negate


def ranked_by_hand(paths: list[str], raw: str) -> list[tuple[int, str]]:
    """Every path matching every term and one alternative of each group, scored by the exact
    scorer path by path (no set, bound or shortcut), in rank order."""
    q = parse(raw)
    ix = Index(paths)
    out = []
    for i, p in enumerate(paths):
        if all(holds_by_hand(t, p) for t in q.terms) and all(
                any(holds_by_hand(t, p) for t in g) for g in q.groups):
            s = ix.exact.extended_score(q, i, q.targets_hidden) if q.scored else 0
            assert s is not None, (raw, p)
            out.append((s, p))
    if not q.scored:
        return sorted(out, key=lambda sp: paths.index(sp[1]))
    return sorted(out, key=lambda sp: (-sp[0], len(sp[1]), sp[1]))


@cache
def numpy_index(paths: tuple[str, ...]) -> Index:
    """An index of ``paths`` with numpy in use (groups' fuzzy alternatives scored in bulk)."""
    ix = Index(paths, numpy=True)
    assert ix.numpy_ready(60)
    return ix


@pytest.mark.parametrize("numpy", [False, True], ids=["scalar", "numpy"])
@SETTINGS
@given(extended, st.sampled_from([None, 1, 7]))
def test_or_groups_and_boundary_terms_rank_as_by_hand(
    numpy: bool, q: str, k: int | None
) -> None:
    """A query with OR groups and boundary terms finds exactly the paths that match it term by
    term (through the prefilter, the match set and its narrowing), ranked by their exact
    scores, path by path or in bulk; a group scores as its best alternative."""
    paths = corpus() + PADDED
    want = ranked_by_hand(paths, q)
    ix = numpy_index(tuple(paths)) if numpy else Index(paths, numpy=False)
    got = [(m.score, m.path) for m in ix.match(q, limit=k)]
    assert got == (want if k is None else want[:k]), q


def test_a_group_scores_as_its_best_alternative() -> None:
    paths = ["src/prompt.ts", "lib/foo/bar.rs", "x/prom_y.md"]
    ix = Index(paths)
    for path in paths:
        i = paths.index(path)
        alone = [ix.exact.score(parse(t), i, False) for t in ("prom", "bar")]
        best = max((s for s in alone if s is not None), default=None)
        assert ix.exact.extended_score(parse("prom | bar"), i, False) == best, path


@st.composite
def split_query(draw: st.DrawFn) -> str:
    """A query of one OR group of positive alternatives (fuzzy, anchored, exact, sometimes with
    a capital) and maybe negated terms: what ``split_group`` splits (``ffind.engine.either``)."""
    alts = []
    for _ in range(draw(st.integers(2, 4))):
        t = draw(term()).lstrip("!'^|").rstrip("$'\\") or "a"
        how = draw(st.sampled_from(["plain", "plain", "^", "$", "'", "cap"]))
        alts.append({"plain": t, "^": "^" + t, "$": t + "$", "'": "'" + t,
                     "cap": t[0].upper() + t[1:]}[how])
    words = [" | ".join(alts)]
    for _ in range(draw(st.integers(0, 2))):
        neg = "!" + (draw(term()).lstrip("!'^|").rstrip("$'\\") or "a")
        words.insert(draw(st.integers(0, len(words))), neg)
    return " ".join(words)


@cache
def tight_index(paths: tuple[str, ...]) -> Index:
    """An index whose plain rankings give cheap scores past 2 exact ones (``Tuning.budget``)."""
    return Index(paths, tuning=Tuning(budget=2, seed=0))


@pytest.mark.parametrize("kind", ["scalar", "numpy", "tight"])
@SETTINGS
@given(split_query(), st.lists(st.integers(1, 25), min_size=1, max_size=3), st.data())
def test_an_or_group_ranked_an_alternative_at_a_time_is_scoring_every_match(
    kind: str, q: str, ks: list[int], data: st.DataObject
) -> None:
    """A query of one OR group, ranked from each alternative's fast top ``k``
    (``split_top``), is what scoring every match gives (``rank_each``, checked by hand in
    ``test_or_groups_and_boundary_terms_rank_as_by_hand``), with positions and with a floor;
    ``limit=k`` its prefix; whatever the budget of the plain rankings (``tight``)."""
    assume(split_group(q, Tuning().or_split) is not None)
    paths = tuple(corpus() + PADDED)
    ix = {"scalar": lambda: Index(paths, numpy=False), "numpy": lambda: numpy_index(paths),
          "tight": lambda: tight_index(paths)}[kind]()
    full = ix.match(q, compute_indices=True)
    assert full == rank_each(ix, ix.run(q), None, True), q
    scores = sorted({m.score for m in full}) or [0]
    least = data.draw(st.sampled_from([None, *scores, scores[-1] + 1]))
    for k in ks:
        assert ix.match(q, limit=k, compute_indices=True) == full[:k], (q, k)
        assert ix.top(ix.run(q), k) == rank_each(ix, ix.run(q), k, False), (q, k)
        want = [m for m in full if least is None or m.score >= least][:k]
        assert ix.top(ix.run(q), k, True, least=least) == want, (q, k, least)


OR_PATHS = ["docs/README.md", "LICENSE", "src/license.rs", "src/read.rs", "readme/x.txt",
            "vendor/readme.md", "lib/reader.py", "notes.txt"]


def test_an_or_group_in_rank_order() -> None:
    """``read | lic``: each path scored as its better alternative, ranked as every query is; the
    ranking taken an alternative at a time (``split_top``) is the one of every match."""
    ix = Index(OR_PATHS)
    got = [(m.score, m.path) for m in ix.match("read | lic !vendor", limit=5)]
    assert got == [(193, "src/read.rs"), (177, "lib/reader.py"), (177, "docs/README.md"),
                   (147, "readme/x.txt"), (146, "LICENSE")]
    ms = ix.run("read | lic !vendor")
    assert split_top(ix, ms, 5, False, None) == rank_each(ix, ms, 5, False)
    assert len(ms) == 6


def test_an_alternative_whose_typo_match_outranks_its_exact_one() -> None:
    """``untime`` alone ranks ``runtime.rs`` first as a typo match (182, above its exact 172):
    the OR query, which has no typo matches, still finds it, at its exact score."""
    ix = Index(corpus())
    assert [(m.score, m.path, m.typo) for m in ix.match("untime", limit=1)] == [
        (182, "helix/helix-event/src/runtime.rs", True)]
    got = [(m.score, m.path, m.typo) for m in ix.match("a | untime", limit=2)]
    assert got == [(172, "helix/helix-event/src/runtime.rs", False),
                   (126, "helix/runtime/tutor", False)]
