"""``typos.find_typos``: the names one edit away, found in parts of ``Tuning.chunk`` names
(issue 17), as in one part and as without numpy; with the letter masks built (which leave out the
names that cannot be one edit away) as without them; with the paths near the term (or a term it
extends) that the superset's pass found (``accel.NearPaths``) as without them."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.engine import typos
from ffind.engine.accel import NearPaths, NumpyUse, subsequence_near
from ffind.engine.bounding import Bounder
from ffind.engine.store import PathStore
from ffind.engine.tuning import Tuning
from ffind.query import parse
from ffind.scoring.weights import DEFAULT

names = st.text(alphabet="abcd._", min_size=1, max_size=7)
paths = st.lists(st.builds(lambda d, n: f"{d}/{n}", st.sampled_from(["x", "ab/cd", "a.b"]),
                           names), max_size=40)


@settings(max_examples=150, deadline=None)
@given(paths, st.text(alphabet="abcd.", min_size=4, max_size=6), st.integers(1, 5),
       st.integers(0, 40))
def test_typos_in_parts_are_the_typos_in_one(
    cands: list[str], key: str, at_once: int, cut: int,
) -> None:
    store = PathStore(DEFAULT)
    store.extend(cands)
    q = parse(key)
    n = len(cands)
    ranges = [(0, min(cut, n)), (min(cut, n), n)]
    ranges = [r for r in ranges if r[0] < r[1]]
    with_np = NumpyUse(True)
    assert with_np.ready(30)
    whole = typos.find_typos(store, with_np, q, ranges)
    sliced = PathStore(DEFAULT, Tuning(chunk=at_once))
    sliced.extend(cands)
    parts = typos.find_typos(sliced, with_np, q, ranges)
    plain = typos.find_typos(store, NumpyUse(False), q, ranges)
    assert list(parts) == list(whole) == list(plain)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.builds(lambda d, n: f"{d}/{n}", st.sampled_from(["x", "ab/cd", "a.b", "é"]),
                          st.text(alphabet="abcdeé_.-", min_size=1, max_size=8)), max_size=40),
       st.text(alphabet="abcdeé_.-", min_size=4, max_size=7))
def test_the_letter_masks_leave_out_no_typo(cands: list[str], key: str) -> None:
    np = NumpyUse(True)
    assert np.ready(30)
    q = parse(key)
    ranges = [(0, len(cands))] if cands else []
    plain = PathStore(DEFAULT)
    plain.extend(cands)
    masked = PathStore(DEFAULT)
    masked.extend(cands)
    masked.build_masks(np.module(), len(cands))
    assert masked.masks_len() == len(cands)
    upper = Bounder(masked, np).name_lcs_upper
    assert list(typos.find_typos(masked, np, q, ranges, upper)) == \
        list(typos.find_typos(plain, np, q, ranges)) == \
        list(typos.find_typos(plain, NumpyUse(False), q, ranges))


def test_the_letter_masks_leave_out_the_names_without_the_letters() -> None:
    import numpy

    store = PathStore(DEFAULT)
    store.extend(["a/base_cod.py", "a/bsae_cod.py", "a/base_co.py", "a/qqqq_qqq.py",
                  "a/base_xyz.py", "b/basecod.py"])
    store.build_masks(numpy, 6)
    upper = Bounder(store, NumpyUse(True)).name_lcs_upper
    most = upper("base_cod", numpy.arange(6, dtype=numpy.int64), numpy)
    assert (most >= len("base_cod") - 1).tolist() == [True, True, True, False, False, True]
    with_np = NumpyUse(True)
    assert with_np.ready(30)
    found = typos.find_typos(store, with_np, parse("base_cod"), [(0, 6)], upper)
    assert list(found) == [1, 2, 5]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.builds(lambda d, n: f"{d}/{n}", st.sampled_from(["x", "ab/cd", "a.b", "é"]),
                          st.text(alphabet="abcdeé_.-", min_size=1, max_size=8)), max_size=40),
       st.text(alphabet="abcdeé_.-", min_size=4, max_size=7), st.integers(0, 6),
       st.integers(0, 40), st.integers(0, 40), st.booleans())
def test_the_near_paths_leave_out_no_typo(
    cands: list[str], key: str, drop: int, cut: int, upto: int, masks: bool,
) -> None:
    """The bits of the paths near the term, or near a term it extends (``key`` less one
    character), over all or part of the ranges, the letter masks built or not: the typos
    found without them, with numpy and without."""
    np = NumpyUse(True)
    assert np.ready(30)
    q = parse(key)
    n = len(cands)
    ranges = [r for r in [(0, min(cut, n)), (min(cut, n), n)] if r[0] < r[1]]
    store = PathStore(DEFAULT)
    store.extend(cands)
    upper = None
    if masks:
        store.build_masks(np.module(), n)
        upper = Bounder(store, np).name_lcs_upper
    term = q.positive[0].folded
    shorter = term[:drop] + term[drop + 1:] if drop < len(term) and len(term) > 4 else term
    # the bits over ``[0, upto)`` and ``[upto, n)``, the second part left out when it is empty
    parts = [(s, e, subsequence_near(shorter, store.folded, np.module(), s, e)[1])
             for s, e in [(0, min(upto, n)), (min(upto, n), n)] if s < e]
    near = NearPaths(shorter, parts[:1] if upto % 2 else parts)
    assert near.covers(term)
    want = list(typos.find_typos(store, NumpyUse(False), q, ranges))
    assert store.lengths_len(True) == store.lengths_len(False) == 0
    assert list(typos.find_typos(store, np, q, ranges, upper, near)) == want  # (no lengths)
    assert list(typos.find_typos(store, np, q, ranges, upper)) == want
    assert list(typos.find_typos(store, np, q, ranges, upper, near)) == want  # (built)


def test_the_near_paths_leave_out_the_names_far_from_the_term() -> None:
    """Only the names of paths whose LCS with the term is its length less one or more are
    made and compared: a name of near length in a path far from the term is never sliced."""
    import numpy

    paths = ["a/base_cod.py", "a/bsae_cod.py", "a/base_co.py", "a/qqqq_qqq.py",
             "a/base_xyz.py", "b/basecod.py", "c/base_cod_and_more.py"]
    paths += [f"x/{c * 8}.py" for c in "efghijklmnpqrtuvwxyz"]  # (near length, far from it)
    n = len(paths)
    store = PathStore(DEFAULT)
    store.extend(paths)
    with_np = NumpyUse(True)
    assert with_np.ready(30)
    _, bits = subsequence_near("base_cod", store.folded, numpy, 0, n)
    near = NearPaths("base_cod", [(0, n, bits)])
    assert near.ids(0, n, numpy).tolist() == [0, 1, 2, 5, 6]
    made: list[list[int]] = []
    stems_of = store.stems_of

    def spy(ids: list[int]) -> list[str]:
        made.append(list(ids))
        return stems_of(ids)

    with patch.object(store, "stems_of", spy):
        found = typos.find_typos(store, with_np, parse("base_cod"), [(0, n)], None, near)
        # (the near paths' names measured one by one: the lengths' table left unbuilt)
        assert store.lengths_len(False) == 0
        again = typos.find_typos(store, with_np, parse("base_cod"), [(2, n)], None)
        assert store.lengths_len(False) == n
        last = typos.find_typos(store, with_np, parse("base_cod"), [(0, n)], None, near)
    assert list(found) == list(last) == [1, 2, 5]
    assert list(again) == [2, 5]
    assert made == [[0, 1, 2, 5], [2, 3, 4, 5, *range(7, n)], [0, 1, 2, 5]]
