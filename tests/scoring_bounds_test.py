"""The bounds, computed from the weights, bound the scorer's scores (``ffind.scoring.bounds``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.scoring.bounds import Bounds
from ffind.scoring.scorer import fuzzy, name_prefix_score
from ffind.scoring.weights import DEFAULT, Weights

B = Bounds(DEFAULT)


def test_default_bounds() -> None:
    # (16 + 6 + 9) per character, 9 for the first one's double bonus, 24 + 16 + 20 extras
    assert B.term_max(4) == 31 * 4 + 9 + 60
    assert B.typo_score(4) == B.term_max(4) - 16 - 56
    assert B.dir_extras_max(1) == 8 + 20 + 16
    t = B.tiers(4)
    assert (t.top - t.in_name, t.in_name - t.rest, t.in_path - t.rest) == (40, 20 + 24, 10)
    assert B.shells(4, None).in_name == t.in_name - DEFAULT.len_name


def test_the_closed_form_of_a_name_prefix_is_the_scorer_s() -> None:
    for path in ["src/prompt.ts", "prompt", "a/b/promptly.rs"]:
        base = path.rfind("/") + 1
        whole = 16 if path[base:].startswith("prompt.") or path[base:] == "prompt" else 0
        got = name_prefix_score("prompt", path, path, base)
        assert got == B.name_prefix_score(6) + whole


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab_/.Z9", min_size=1, max_size=14),
       st.text(alphabet="ab_.z9", min_size=1, max_size=4),
       st.integers(0, 20), st.integers(0, 20), st.integers(0, 20))
def test_term_max_bounds_every_score(path: str, key: str, sep: int, name: int, d: int) -> None:
    w = Weights(bonus_sep=max(sep, d, 7, 4), bonus_delim=d, bonus_name=name)
    text = path.lower()
    base = text.rfind("/") + 1
    r = fuzzy(key, text, path, base, False, w)
    if r is not None:
        b = Bounds(w)
        assert r[0] <= b.term_max(len(key)) + b.dir_extras_max(len(key))
