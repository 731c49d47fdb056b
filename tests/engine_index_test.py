"""Index, MatchSet and the properties the session relies on (hypothesis)."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from hypo_paths import SETTINGS, paths
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ffind
from ffind.engine.bounding import UNKNOWN
from ffind.engine.index import Index, MatchSet
from ffind.engine.tuning import Tuning
from ffind.query import Kind, fold, parse, variant
from ffind.scoring.scorer import FileMatch

query_text = st.text(alphabet="abcAB_./é", min_size=0, max_size=6)


def is_subsequence(needle: str, hay: str) -> bool:
    it = iter(hay)
    return all(c in it for c in needle)


def key(m: FileMatch) -> tuple[int, int, str]:
    return (-m.score, len(m.path), m.path)


def test_index_api() -> None:
    ix = Index(["src/a.rs"])
    ix.extend(["src/b.rs", "lib/c.py"])
    ix.extend([])
    assert len(ix) == 3
    assert ix.paths == ["src/a.rs", "src/b.rs", "lib/c.py"]
    assert [m.path for m in ix.match("rs")] == ["src/a.rs", "src/b.rs"]
    ms = ix.run("rs")
    assert isinstance(ms, MatchSet) and len(ms) == 2
    assert [m.path for m in ix.top(ms, 1)] == ["src/a.rs"]
    assert ix.match("zzz") == []
    assert len(ix.run("zzz")) == 0


def test_public_api_is_lazy_and_one_call_match_works() -> None:
    assert ffind.match("ab", ["x/ab.rs"]) == [FileMatch(ffind.match("ab", ["x/ab.rs"])[0].score,
                                                        "x/ab.rs")]
    assert ffind.Index is Index


def test_extend_after_a_query_is_seen_by_the_next_one() -> None:
    ix = Index(["a/prompt.ts"])
    assert [m.path for m in ix.match("prompt", limit=5)] == ["a/prompt.ts"]
    ix.extend(["prompt.ts"])
    assert [m.path for m in ix.match("prompt", limit=5)] == ["prompt.ts", "a/prompt.ts"]
    assert [m.path for m in ix.match("promtp", limit=5)] == ["prompt.ts", "a/prompt.ts"]


def test_len_counts_typo_matches() -> None:
    ix = Index(["src/prompt.ts", "x/y.rs"])
    assert len(ix.run("promtp")) == 1
    assert len(ix.run("promtp", start=1)) == 0


def test_can_narrow() -> None:
    ms = Index(["a"]).run("pro")
    assert ms.can_narrow("prom")
    assert ms.can_narrow("pro x")
    assert ms.can_narrow("x pro")
    assert ms.can_narrow("Prom")
    assert ms.can_narrow("pro !x")
    assert not ms.can_narrow("pr")
    assert not ms.can_narrow("'pr")
    assert Index(["a"]).run("").can_narrow("anything")
    assert not Index(["a"]).run("ab$").can_narrow("ab$c")
    assert not Index(["a"]).run("!ab").can_narrow("!abc") or True  # negations never narrow
    assert Index(["a"]).run("!ab").can_narrow("!abc x")


def test_run_with_end_for_the_session() -> None:
    ix = Index(["a/x", "b/x", "c/x"])
    left, right = ix.run("x", end=2), ix.run("x", start=2)
    assert [m.path for m in ix.top(left.merge(right))] == ["a/x", "b/x", "c/x"]


@SETTINGS
@given(paths, query_text, st.integers(1, 8))
def test_results_are_matches_sorted_with_valid_indices(
    cands: list[str], q: str, k: int
) -> None:
    ix = Index(cands)
    full = ix.match(q, compute_indices=True)
    assert ix.match(q, limit=k, compute_indices=True) == full[:k]
    terms = parse(q).positive
    if not terms:  # everything, in index order
        assert [m.path for m in full] == cands
        return
    assert [key(m) for m in full] == sorted(key(m) for m in full)
    fallback = terms[0].case_sensitive and not any(
        is_subsequence(terms[0].key, variant(p, False, not terms[0].accent_sensitive))
        for p in cands)
    for m in full:
        assert m.indices is not None
        assert m.indices == sorted(set(m.indices))
        assert all(0 <= j < len(m.path) for j in m.indices)
        if m.typo:
            continue
        for t in terms:
            assert t.kind is Kind.FUZZY
            lower = not t.case_sensitive or fallback
            assert is_subsequence(variant(t.text, lower, not t.accent_sensitive),
                                  variant(m.path, lower, not t.accent_sensitive))
        if len(terms) == 1:
            spelled = "".join(m.path[j] for j in m.indices)
            assert fold(spelled) == fold(terms[0].text)
            if terms[0].case_sensitive and not fallback:
                assert variant(spelled, False, True) == variant(terms[0].text, False, True)


@SETTINGS
@given(paths, paths, query_text, query_text, st.integers(1, 6))
def test_run_merge_and_narrow_equal_a_fresh_match(
    first: list[str], second: list[str], q1: str, extra: str, k: int
) -> None:
    ix = Index(first)
    ix.extend(second)
    n, total = len(first), len(first) + len(second)
    fresh = ix.match(q1, limit=k)
    merged = ix.run(q1, end=n).merge(ix.run(q1, start=n))
    assert ix.top(merged, k) == fresh
    assert len(merged) == len(ix.run(q1))
    assert ix.top(ix.run(q1), None) == ix.match(q1)
    q2 = q1 + extra
    ms1 = ix.run(q1)
    if ms1.can_narrow(q2):
        narrowed = ix.run(q2, within=ms1)
        assert ix.top(narrowed, k) == ix.match(q2, limit=k)
        assert len(narrowed) == len(ix.run(q2))
        # narrowing the merged halves too
        parts = ix.run(q2, within=ms1, end=n).merge(ix.run(q2, within=ms1, start=n))
        assert ix.top(parts, k) == ix.match(q2, limit=k)
    assert total == len(ix)


@SETTINGS
@given(paths, st.text(alphabet="abAB_.é !'^$\\", max_size=8), st.integers(1, 5))
def test_any_query_syntax_is_consistent(cands: list[str], q: str, k: int) -> None:
    ix = Index(cands)
    full = ix.match(q)
    assert ix.match(q, limit=k) == full[:k]
    assert ix.top(ix.run(q), k) == full[:k]
    if parse(q).positive:
        assert [key(m) for m in full] == sorted(key(m) for m in full)
    for t in parse(q).negative:
        for m in full:
            text = variant(m.path, not t.case_sensitive, not t.accent_sensitive)
            if t.kind is Kind.EXACT:
                assert t.key not in text


@SETTINGS
@given(paths, paths, query_text, query_text, query_text, st.integers(1, 6))
def test_lazy_chains_of_narrowing_equal_a_fresh_match(
    first: list[str], second: list[str], q1: str, e2: str, e3: str, k: int
) -> None:
    """``run`` is lazy: a set narrowed from a set that was never computed (typing fast, the
    fast path answering every key) still equals a fresh run, merged halves too."""
    ix = Index(first)
    ix.extend(second)
    n = len(first)
    q2, q3 = q1 + e2, q1 + e2 + e3
    ms1 = ix.run(q1)
    if not (ms1.can_narrow(q2) and ix.run(q2).can_narrow(q3)):
        return
    if k % 2:
        ix.top(ms1, k)  # computed or not, depending on the fast path
    ms2 = ix.run(q2, within=ms1)
    ms3 = ix.run(q3, within=ms2)
    assert ix.top(ms3, k) == ix.match(q3, limit=k)
    assert len(ms3) == len(ix.run(q3))
    halves = ix.run(q3, within=ms2, end=n).merge(ix.run(q3, within=ms2, start=n))
    assert ix.top(halves, None) == ix.match(q3)
    assert ms2.superset == ix.run(q2).superset


def test_bounds_of_accented_paths_hold() -> None:
    """The word starts that bound a scattered match are folded like the term: ``./é`` holds
    ``.e`` on two word starts, so its bound is not cut below its score (60 > 57 of ``.Aé``)."""
    ix = Index([".Aé", "A", "./é"])
    full = ix.match(".é")
    assert [m.path for m in full] == ["./é", ".Aé"]
    assert ix.match(".é", limit=1) == full[:1]


dense_path = st.lists(st.text(alphabet="abc_.", min_size=1, max_size=5), min_size=1,
                      max_size=4).map("/".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(dense_path, min_size=5, max_size=60), st.text(alphabet="abc/", min_size=1,
       max_size=4), st.integers(1, 6), st.integers(1, 4), st.integers(0, 3))
def test_a_spent_exact_budget_keeps_limit_k_a_prefix(
    cands: list[str], q: str, k: int, budget: int, seed: int
) -> None:
    """Past ``Tuning.budget`` candidates share their group's cheap score and only each group's
    ``limit`` best by the tie-breaks are kept; ``Tuning.seed`` candidates are scored before the
    bounds are refined; terms with ``/`` try their aligned paths first: still the first k of
    the unlimited ranking."""
    def index(paths: list[str]) -> Index:
        return Index(paths, tuning=Tuning(budget=budget, seed=seed))

    ix = index(cands)
    full = ix.match(q)
    assert ix.match(q, limit=k) == full[:k]
    assert ix.top(ix.run(q), k) == full[:k]
    # nor does the order the paths came in change anything (a parallel walk's batches
    # interleave differently at every run)
    unique = list(dict.fromkeys(cands))
    assert index(unique[::-1]).match(q, limit=k) == index(unique).match(q, limit=k)
    assert index(sorted(unique)).match(q) == index(unique).match(q)


@pytest.mark.parametrize("query", ["p", "prom", "promtp", "s/p/t", "mod.rs", "co ctl", "xyzzy"])
def test_numpy_and_plain_paths_agree(query: str) -> None:
    """The cdist-through-numpy reading and the process.extract one give the same answer."""
    paths = [
        "src/session/prompt.ts", "src/session/prompt_test.ts", "packages/tools/main.rs",
        "src/pkg/tools.rs", "lib/mod.rs", "src/controller.py", "app/controllers/user.rb",
        "docs/promtp.md", "a/b/c.txt", "prompts/x.py",
    ] * 3 + [f"gen/file{i}/mod{i}.rs" for i in range(40)]
    plain = Index(paths, numpy=False).match(query, compute_indices=True)
    plain_n = len(Index(paths, numpy=False).run(query))
    with_np = Index(paths, numpy=True)
    assert with_np.numpy_ready(60)  # imported in the background: wait for it
    fast = with_np.match(query, compute_indices=True)
    fast_n = len(with_np.run(query))
    assert fast == plain
    assert fast_n == plain_n


def test_numpy_is_imported_only_once_an_index_ranks_a_second_time() -> None:
    # A one-shot search ranks once and must not pay numpy's import; a long-lived index does
    # (in a thread of its own: no ranking waits for it).
    code = (
        "import sys\n"
        "from ffind.engine.index import Index\n"
        "index = Index(['src/prompt.ts', 'lib/mod.rs', 'a/b/c.txt'])\n"
        "assert index.match('prom', limit=2)[0].path == 'src/prompt.ts'\n"
        "assert 'numpy' not in sys.modules\n"
        "assert index.match('mod', limit=2)[0].path == 'lib/mod.rs'\n"
        "print(index.numpy_ready(60) and 'numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True"


def test_warm_builds_every_table_in_steps_and_changes_no_result() -> None:
    paths = ["src/session/prompt.ts", "src/pkg/tools.rs", ".github/ci.yml", "lib/mod.rs",
             "FooBar/Baz9.py", "a/b/c.txt", "docs/promtp.md"]
    warmed, cold = Index(paths), Index(paths)
    # when numpy is used: the name and path lengths and offsets in one step, then the folded
    # paths' buffer (four slices a step), then the letter masks a slice at a time, each step
    # with the same slice's word starts
    arrays = 1 if warmed.numpy_ready(60) else 0
    steps = sum(1 for _ in warmed.warm(step=3))
    # numpy, three slices of the penalties, then three slices of the word starts (without
    # numpy) or the arrays, the buffer and three slices of the masks and word starts
    assert steps == 7 + 2 * arrays
    assert sum(1 for _ in warmed.warm(step=3)) == 1  # all done: only the numpy step
    warmed.extend(["new/file.py"])
    cold.extend(["new/file.py"])
    # picks up the new path alone (numpy, penalties, then its word starts, or the arrays, the
    # buffer, its masks and word starts)
    assert sum(1 for _ in warmed.warm(step=3)) == 3 + 2 * arrays
    n = len(paths) + 1
    built = warmed.store.built()
    assert len(warmed.store.pstart) == built["penalties"] == n
    assert built["initials"] == n
    if arrays:
        assert built["lengths"] == n
        assert warmed.store.masks_len() == n
        assert warmed.bounder.buffer_len() == n
    for q in ["prom", "s/p/t", "mod", "promtp", "fb9", ".g"]:
        assert warmed.match(q, limit=3, compute_indices=True) == cold.match(
            q, limit=3, compute_indices=True)


typo_paths = st.lists(
    st.lists(st.text(alphabet="abcrpomtAB_-.é", min_size=1, max_size=7), min_size=1,
             max_size=3).map("/".join), max_size=30)


@SETTINGS
@given(typo_paths, st.text(alphabet="abcrpomtB_./é !'^$", max_size=7), st.integers(1, 5),
       st.integers(1, 7))
def test_prefilter_keeps_every_match_and_changes_no_ranking(
    cands: list[str], q: str, k: int, batch: int
) -> None:
    """``search`` ranks only what its walk's workers kept: every path a query matches (typo
    matches included) is kept, in order, and an index of the kept paths ranks exactly as an
    index of them all, whatever the batches."""
    from ffind.engine.index import Prefilter

    cands = list(dict.fromkeys(cands))  # a walk yields each path once
    keep = Prefilter(q)
    kept = [p for s in range(0, len(cands), batch) for p in keep(cands[s:s + batch])]
    assert kept == [p for p in cands if p in set(kept)]  # a subsequence: order kept
    full, part = Index(cands), Index(kept)
    ms = full.run(q)
    assert {cands[i] for i in ms.ids} | {cands[i] for i in ms.typos()} <= set(kept)
    assert part.match(q, limit=k) == full.match(q, limit=k)
    assert part.match(q) == full.match(q)
    assert len(part.run(q)) == len(ms)
    assert keep.active == bool(parse(q).positive)


def test_prefilter_keeps_names_one_edit_away_and_pickles() -> None:
    import pickle

    from ffind.engine.index import Prefilter

    paths = ["src/session/prompt.ts", "docs/promtp.md", "a/b/c.txt", "x/promt.rs", "q/prom"]
    keep = pickle.loads(pickle.dumps(Prefilter("promtp")))
    assert keep(paths) == ["src/session/prompt.ts", "docs/promtp.md", "x/promt.rs"]
    assert Prefilter("!test")(paths) == paths  # no positive term: everything can match
    assert Prefilter("c b")(paths) == ["a/b/c.txt"]


def test_prepare_changes_no_result() -> None:
    """``prepare`` (``search`` calls it per batch of its walk) only computes ahead."""
    paths = ["aider/coders/base_coder.py", "aider/coders/base_prompts.py", "src/ui/pipe.rs",
             "bevy/crates/bevy_ui_render/src/ui_texture.rs", "src/cui.rs", "lib/mod.rs"]
    for q in ["srcui", "base_cod", "mod", "s", "a b"]:
        prepared = Index(paths[:3])
        prepared.prepare(q, 0, 2)
        prepared.extend(paths[3:])
        prepared.prepare(q, 3, 2)
        assert prepared.match(q, limit=2) == Index(paths).match(q, limit=2)
    prepared = Index(paths)
    prepared.prepare("srcui", 0, 20)  # no name holds the term: the word starts are ready
    assert prepared.store.built()["initials"] == len(prepared)


@SETTINGS
@given(st.lists(st.lists(st.text(alphabet="abcsABé_-.", min_size=1, max_size=6), min_size=1,
                         max_size=4).map("/".join), max_size=40, unique=True),
       st.lists(st.text(alphabet="abcsA_./", min_size=1, max_size=4), min_size=2, max_size=3),
       st.integers(1, 6))
def test_several_terms_rank_exactly_by_score(cands: list[str], terms: list[str], k: int) -> None:
    """Below the exact budget the top k are the k best exact scores: the bounds of every
    term (the earlier ones bounded in both readings, anywhere and against the folders) never
    fall below a score."""
    q = " ".join(terms)
    ix = Index(cands)
    assert [(-m.score, len(m.path), m.path) for m in ix.match(q, limit=k)] == exact(ix, q)[:k]


def exact(ix: Index, q: str) -> list[tuple[int, int, str]]:
    """Every match of ``q`` in ``ix`` by its exact score (no bound, no budget), best first."""
    parsed = parse(q)
    ms = ix.run(q)
    scoring = parsed.insensitive() if ms.fallback else parsed
    paths = ix.paths
    return sorted(
        (-s, len(paths[i]), paths[i]) for i in ms.ids
        if (s := ix.exact.score(scoring, i, parsed.targets_hidden)) is not None)


@SETTINGS
@given(st.lists(st.lists(st.text(alphabet="abcsA_.", min_size=1, max_size=5), min_size=1,
                         max_size=4).map("/".join), max_size=40, unique=True),
       st.lists(st.lists(st.text(alphabet="abcs_/", min_size=1, max_size=3), min_size=1,
                         max_size=2).map(" ".join), min_size=1, max_size=3),
       st.text(alphabet="abcs", min_size=1, max_size=3), st.integers(0, 40),
       st.integers(1, 6))
def test_earlier_terms_kept_between_rankings_change_nothing(
    cands: list[str], heads: list[str], last: str, cut: int, k: int
) -> None:
    """The bounds of the terms before the last are kept per index between rankings (typing
    ``test u``, ``test ut``, ...; then other first terms), over paths added in between: every
    ranking is the exact one, and equals a fresh index's."""
    ix = Index(cands[:cut])
    for h, head in enumerate(heads):
        for n in range(1, len(last) + 1):
            q = f"{head} {last[:n]}"
            if h == 0 and n == 2:
                ix.extend(cands[cut:])
            got = ix.match(q, limit=k)
            assert got == Index(ix.paths).match(q, limit=k)
            assert [(-m.score, len(m.path), m.path) for m in got] == exact(ix, q)[:k]
    if cut < len(cands) and len(last) < 2:
        ix.extend(cands[cut:])
    for head in reversed(heads):
        q = f"{head} {last}"
        assert ix.match(q) == Index(ix.paths).match(q)
    fresh = Index(ix.paths)
    # what was kept is what a fresh index computes
    for fq, bounds in ix.bounder.early_bounds.items():
        ids = [i for i, v in enumerate(bounds) if v != UNKNOWN]
        fresh.bounder.bounds(parse(f"{fq} {last}"), ids, False)
        assert [fresh.bounder.early_bounds[fq][i] for i in ids] == [bounds[i] for i in ids]
    for t, scores in ix.exact.early_scores.items():
        for i, (r, dirs) in scores.items():
            d = fresh.exact.term_score(t, i, False, dirs_only=True)
            assert r == fresh.exact.term_score(t, i, True)
            assert dirs == (None if r is None or d is None else d[0])


term_text = st.text(alphabet="abcAB_./", min_size=1, max_size=4)
prefix_mark = st.sampled_from(["", "", "'", "^", "!"])


@SETTINGS
@given(paths, st.lists(st.tuples(prefix_mark, term_text), min_size=1, max_size=3),
       st.lists(st.tuples(prefix_mark, term_text), max_size=2), term_text, st.randoms(),
       st.integers(1, 6))
def test_narrowing_skips_the_terms_the_hint_implies(
    cands: list[str], old: list[tuple[str, str]], added: list[tuple[str, str]], more: str,
    rnd: random.Random, k: int,
) -> None:
    """A narrowed set does not look again for the terms its hint's terms imply (the same
    term, or one the hint's narrows): its sets are still a fresh run's, for queries of several
    terms, in any order, some typed further, some added."""
    ix = Index(cands)
    q1 = " ".join(m + t for m, t in old)
    grown = [(m, t + more) if rnd.random() < 0.5 else (m, t) for m, t in old] + added
    rnd.shuffle(grown)
    q2 = " ".join(m + t for m, t in grown)
    ms1 = ix.run(q1)
    if not ms1.can_narrow(q2):
        return
    ms1.superset  # noqa: B018 (computed: the hint)
    narrowed = ix.run(q2, within=ms1)
    fresh = ix.run(q2)
    assert narrowed.superset == fresh.superset
    assert (narrowed.strict, narrowed.loose) == (fresh.strict, fresh.loose)
    assert ix.top(narrowed, k) == ix.match(q2, limit=k)


def test_warm_builds_the_length_arrays_a_slice_at_a_time() -> None:
    """The name, stem and path lengths and the offsets are built half a ``Tuning.slice`` of
    paths a step (or more, a sixteenth of the paths), and end equal to the arrays built at
    once."""
    paths = ["src/session/prompt.ts", "src/pkg/tools.rs", ".github/ci.yml", "lib/mod.rs",
             "FooBar/Baz9.py", "a/b/c.txt", "docs/promtp.md"]
    sliced = Index(paths, numpy=True, tuning=Tuning(slice=4))
    whole = Index(paths, numpy=True)
    assert sliced.numpy_ready(60)  # (a dependency)
    st = sliced.store
    seen = []
    for _ in sliced.warm(step=3):
        seen.append((st.path_lengths_len(), st.lengths_len(False), st.lengths_len(True)))
    assert [s for s in seen if 0 < s[0] < len(paths)] == [(2, 2, 2), (4, 4, 4), (6, 6, 6)]
    np = whole.numpy.module()
    for a, b in [(st.lengths(False, np), whole.store.lengths(False, np)),
                 (st.lengths(True, np), whole.store.lengths(True, np)),
                 (st.path_lengths(np), whole.store.path_lengths(np)),
                 *zip(st.offsets(np), whole.store.offsets(np), strict=True)]:
        assert a.tolist() == b.tolist() and a.dtype == b.dtype
    for q in ["prom", "s/p/t", "mod", "fb9"]:
        assert sliced.match(q, limit=3) == whole.match(q, limit=3)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 300), size=st.integers(1, 32))
def test_warm_builds_the_lengths_a_sixteenth_of_the_paths_a_step(n: int, size: int) -> None:
    """A step of the lengths covers a sixteenth of the paths, between half a ``Tuning.slice``
    and two, and the arrays end equal to those built at once."""
    paths = [f"src/d{i % 7}/Mod{i}.rs" if i % 3 else f".hidden/ä{i}/x.py" for i in range(n)]
    sliced = Index(paths, numpy=True, tuning=Tuning(slice=size))
    whole = Index(paths, numpy=True)
    assert sliced.numpy_ready(60)
    store = sliced.store
    covered = [store.path_lengths_len()]
    for _ in sliced.warm(step=5):
        if store.path_lengths_len() != covered[-1]:
            covered.append(store.path_lengths_len())
    step = max(size // 2 or 1, min(2 * size, n // 16))
    assert covered == [*range(0, n, step), n]
    np = whole.numpy.module()
    for a, b in [(store.lengths(False, np), whole.store.lengths(False, np)),
                 (store.lengths(True, np), whole.store.lengths(True, np)),
                 (store.path_lengths(np), whole.store.path_lengths(np)),
                 *zip(store.offsets(np), whole.store.offsets(np), strict=True)]:
        assert a.tolist() == b.tolist() and a.dtype == b.dtype


greedy_paths = st.lists(
    st.lists(st.text(alphabet="abctAB_-.é?€ /", min_size=1, max_size=12), min_size=1,
             max_size=5).map("/".join), min_size=0, max_size=30)


def _sets(ms: MatchSet) -> tuple[list[int], list[int], list[int]]:
    return list(ms.superset), list(ms.strict), list(ms.loose)


@SETTINGS
@given(greedy_paths, st.text(alphabet="abctAB_./é !?'", min_size=1, max_size=8),
       st.lists(st.integers(0, 5), min_size=8, max_size=8), st.integers(1, 7))
@example(["ab/tc", "a/t", "tt/x", "b" * 40 + "t/c"], "tt", [0] * 8, 1)
@example(["ab/tc", "abc/b", "cab", "b" * 40 + "t/c"], "b bc", [1] * 8, 2)
@example(["ab/tc", "abc/b", "cab", "b" * 40 + "t/c", "t/b/c"], "a tc", [4] * 8, 2)
@example(["ab/tc", "abc/b", "cab", "b" * 40 + "t/c", "t/b/c"], "a b bc", [5, 4] * 4, 1)
@example(["ab/tc", "b/a", "ab", "bab"], "a bb", [4] * 8, 3)
def test_keys_narrowed_a_character_at_a_time_equal_a_fresh_match(
    cands: list[str], typed: str, how: list[int], slice_: int,
) -> None:
    """Typing a query key by key as the session does (each key's set narrows the last one's:
    one character more of a plain fuzzy last term follows its greedy ends, ``Greedy``;
    sets computed at once, in ``Filler`` slices, or compacted between keys; a new
    one-character term's greedy ends found apart, ``Ender``, in full or interrupted) gives
    every key the sets and ranking of a fresh match, with and without numpy."""
    from ffind.engine.matchset import Ender, Filler

    ix = Index(cands, numpy=True)
    assert ix.numpy_ready(60)  # (numpy is a dependency)
    for _ in ix.warm(step=7):
        pass
    plain = Index(cands, numpy=False)
    prev: MatchSet | None = None
    for k in range(1, len(typed) + 1):
        q = typed[:k]
        ms = ix.run(q, within=prev) if prev is not None and prev.can_narrow(q) else ix.run(q)
        mode = how[k - 1]
        if mode == 1:
            filler = Filler(ix.run, ms, slice_)
            while not filler.step():
                pass
        elif mode == 2 and prev is not None:
            prev.compact()
        if mode >= 4:
            ms.superset  # noqa: B018  (computed: then its ends may be wanted)
        if mode >= 4 and ix.wants_ends(ms):
            ender = Ender(ix.find_ends, ms, slice_)
            if mode == 5:
                ender.step()  # (interrupted by the next key: no ends kept unless all found)
            else:
                while not ender.step():
                    pass
                assert ms.greedy is not None
        assert _sets(ms) == _sets(plain.run(q)), q
        if mode == 3:
            assert ix.top(ms, 3) == plain.match(q, limit=3)
        prev = ms


def test_a_term_typed_a_character_at_a_time_keeps_its_greedy_ends() -> None:
    paths = ["src/test/a.py", "lib/Tes.rs", "docs/setup.md", "tests/unit.py", "x/y"]
    ix = Index(paths, numpy=True)
    assert ix.numpy_ready(60)
    for _ in ix.warm():
        pass
    prev = None
    for q in ["t", "te", "tes", "test", "test ", "test u", "test un", "test uni"]:
        ms = ix.run(q) if prev is None else ix.run(q, within=prev)
        assert _sets(ms) == _sets(Index(paths).run(q))
        greedy = ms.greedy
        if q.startswith("test "):  # (no character more; then a new one-character term
            assert greedy is None  # found with ``in``: its ends unknown, the keys as before)
            prev = ms
            continue
        assert greedy is not None, q
        last = q.split()[-1]
        ends = []
        for i in ms.superset:
            at = 0
            for c in last:
                at = ix.store.folded[i].index(c, at) + 1
            ends.append(at)
        assert greedy[0].tolist() == ms.superset and greedy[1].tolist() == ends
        prev = ms
    prev.compact()
    assert prev.greedy is None  # (let go with the lists: the set is cold)


def test_a_new_one_character_term_has_its_greedy_ends_found_apart() -> None:
    """``Index.find_ends`` over slices of a computed ``test u``'s superset (``Ender``) gives
    the greedy ends of ``u`` in each; the keys after it follow them."""
    from ffind.engine.matchset import Ender

    paths = ["src/test/a.py", "lib/Tes.rs", "docs/setup.md", "tests/unit.py", "x/y",
             "test/UTIL/u.py", "qa/tests/hub.txt"]
    ix = Index(paths, numpy=True)
    assert ix.numpy_ready(60)
    for _ in ix.warm():
        pass
    prev = ix.run("test")
    for q in ["test ", "test u"]:
        prev = ix.run(q, within=prev)
    ms = prev
    assert not ix.wants_ends(ms)  # (not computed yet)
    assert ms.superset == Index(paths).run("test u").superset
    assert ix.wants_ends(ms)
    ender = Ender(ix.find_ends, ms, 2)
    steps = 1
    while not ender.step():
        steps += 1
    assert steps == 2 and ms.greedy is not None and not ix.wants_ends(ms)
    folded = [p.lower() for p in paths]
    assert ms.greedy[0].tolist() == ms.superset
    assert ms.greedy[1].tolist() == [folded[i].index("u") + 1 for i in ms.superset]
    for q in ["test ut", "test uti"]:
        nxt = ix.run(q, within=prev)
        assert _sets(nxt) == _sets(Index(paths).run(q))
        assert nxt.greedy is not None  # (followed from the ends)
        prev = nxt
    lone = ix.run("test")
    assert lone.superset and not ix.wants_ends(lone)  # (a lone term: found with its set)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="aBc/._-é? x", min_size=1, max_size=8), max_size=40),
       st.sampled_from(list("abc/._-é? xB")), st.sampled_from(["fuzzy", "exact"]),
       st.booleans())
def test_a_one_character_term_among_array_ids_from_the_letter_masks(
    cands: list[str], c: str, kind: str, warm: bool,
) -> None:
    """``Index._select``: a one-character term among ids kept as ``array('i')`` is read from
    the letter masks once built, and keeps exactly the ids ``select`` keeps (issue 17)."""
    from array import array as arr

    import numpy

    from ffind.engine.prefilter import select as plain_select
    from ffind.query import parse as parse_query

    ix = Index(cands, numpy=True, tuning=Tuning(chunk=1))
    assert ix.numpy_ready(30)
    if warm:
        for _ in ix.warm(7):
            pass
        assert ix.store.masks_len() == len(cands)
    term = parse_query(c if kind == "fuzzy" else f"'{c}").positive
    if not term:
        return  # (a space: no term)
    t = term[0]
    ids = [i for i in range(len(cands)) if i % 3 != 1]
    folded = ix.store.folded
    got = ix._select(t, folded, arr("i", ids), numpy)
    want = plain_select(t.kind, t.folded, folded, ids)
    assert list(got) == list(want)
    assert isinstance(got, arr) or not want


typo_word = st.text(alphabet="abcdé_.", min_size=4, max_size=7)
typo_path = st.lists(st.text(alphabet="abcdeé_.-", min_size=1, max_size=8), min_size=1,
                     max_size=3).map("/".join)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(typo_path, max_size=40), typo_word, st.integers(0, 40), st.integers(1, 6),
       st.booleans())
def test_the_typo_pass_reading_the_near_paths_changes_nothing(
    cands: list[str], word: str, cut: int, k: int, memo: bool,
) -> None:
    """Issue 17: a typo term's superset matched from scratch keeps which paths are near the
    term (``Index._near``) and the typo passes of its query and of the keys that add to it
    read only their names; typed key by key (each key narrowing the last, the first typo key
    from scratch, or over two ranges), every ranking, count and typo set is the one without
    the kept paths and the one without numpy."""
    from unittest.mock import patch

    from ffind.engine.accel import NearPaths

    plain = Index(cands, numpy=False)
    ix = Index(cands, numpy=True)
    assert ix.numpy_ready(30)
    n = len(cands)
    cut = min(cut, n)
    covers = NearPaths.covers if memo else lambda self, key: False
    with patch.object(NearPaths, "covers", covers):
        prev = prev_hi = None
        for j in range(1, len(word) + 1):
            q = word[:j]
            ms = ix.run(q, within=prev)
            hi = ix.run(q, within=prev_hi, start=cut)  # (the second range alone)
            want = plain.run(q)
            assert ix.top(ms, k) == plain.top(want, k)
            assert len(ms) == len(want)
            assert list(ms.typos()) == list(want.typos())
            lo = ix.run(q, end=cut)
            assert list(lo.merge(hi).typos()) == list(want.typos())
            fresh = ix.run(q)  # (from scratch: its paths kept for this key's and the next's)
            assert list(fresh.superset) == list(want.superset)
            assert list(fresh.typos()) == list(want.typos())
            prev, prev_hi = ms, hi


def test_the_typo_pass_reads_the_paths_the_superset_found_near() -> None:
    """The superset of a typo term matched from scratch gives its typo pass, and the next
    key's, the paths near the term; a Filler's slices add theirs up; a term they do not
    cover (a backspace) reads every name of near length."""
    from unittest.mock import patch

    from ffind.engine import index as index_mod
    from ffind.engine.matchset import Filler

    paths = ["a/base_cod.py", "a/bsae_cod.py", "a/base_co.py", "a/qqqq_qqq.py",
             "a/base_xyz.py", "b/basecod.py", "c/base_code.rs", "c/baze_code.rs"]
    ix = Index(paths, numpy=True)
    assert ix.numpy_ready(30)
    seen = []
    real = index_mod.find_typos

    def spy(*args: object) -> object:
        if args[0] is ix.store:
            seen.append(args[5])
        return real(*args)  # type: ignore[arg-type]

    plain = Index(paths, numpy=False)

    def typos_of(q: str) -> list[int]:
        return list(plain.run(q).typos())

    with patch.object(index_mod, "find_typos", spy):
        ms = ix.run("base_cod")
        assert list(ms.superset) == [0, 6]
        assert list(ms.typos()) == typos_of("base_cod") == [1, 2, 5, 6]
        near = seen[-1]
        assert near is not None and near.key == "base_cod"
        assert [p[:2] for p in near.parts] == [(0, 8)]
        longer = ix.run("base_code", within=ms)
        assert list(longer.typos()) == typos_of("base_code") == [0, 7]
        assert seen[-1] is near
        again = ix.run("base_co")  # (from scratch: its own paths)
        assert len(again.superset) == 3
        assert list(again.typos()) == typos_of("base_co")
        assert seen[-1].key == "base_co"
        ix._near = near
        assert list(ix.run("base_c").typos()) == typos_of("base_c")  # (not computed first)
        assert seen[-1] is None  # (base_cod's paths do not cover base_c: every name read)
        sliced = ix.run("bsae_cod")
        filler = Filler(ix.run, sliced, 3)
        while not filler.step():
            pass
        assert sliced.computed
        assert [p[:2] for p in ix._near.parts] == [(0, 3), (3, 6), (6, 8)]  # type: ignore
        assert list(sliced.typos()) == typos_of("bsae_cod")
        assert seen[-1].key == "bsae_cod"
