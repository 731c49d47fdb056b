"""The weights: derived from each other as ``ffind.scoring.weights`` says, their assumptions
checked, and the consecutive/boundary rule."""

from __future__ import annotations

import dataclasses

import pytest

from ffind.scoring import weights as wt
from ffind.scoring.weights import DEFAULT, Weights


def test_the_default_weights_are_the_ones_ffind_was_fitted_with() -> None:
    assert dataclasses.astuple(DEFAULT) == (
        16, 3, 1, 9, 8, 7, 4, 6, 24, 16, 8, 28, 20, 16, 20, 10, 0, 40, 32, 56, 1, 120)


def test_the_derived_weights_are_derived() -> None:
    assert wt.BONUS_DELIM == wt.MATCH // 2
    assert wt.BONUS_SEP == wt.BONUS_DELIM + wt.GAP_EXT
    assert wt.BONUS_CAMEL == wt.BONUS_DELIM - wt.GAP_EXT
    assert wt.BONUS_CONSEC == wt.GAP_START + wt.GAP_EXT
    assert wt.WHOLE_PARENT == wt.WHOLE_NAME
    assert wt.CONTIG_PATH == wt.CONTIG_NAME // 2


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"bonus_delim": 10}, "bonus_sep"),
        ({"bonus_camel": 10}, "bonus_sep"),
        ({"bonus_consec": 10}, "bonus_sep"),
        ({"contig_path": 21}, "contig_name"),
        ({"gap_start": -1}, "gap_start"),
        ({"hidden": 1.5}, "hidden"),
        ({"len_name_cap": 0}, "len_name_cap"),
    ],
)
def test_weights_the_bounds_cannot_rely_on_are_refused(
    change: dict[str, object], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        Weights(**change)  # type: ignore[arg-type]


def test_weights_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.match = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("b", "fb", "expected"),
    [
        (0, 9, (9, 9)),   # inside a word after a separator start: inherits 9
        (0, 0, (4, 0)),   # inside a word after an inner start: at least BONUS_CONSEC
        (8, 0, (8, 8)),   # reaches a delimiter: the rest of the chunk inherits it
        (7, 0, (7, 0)),   # a camel hump is not a boundary the chunk inherits
        (8, 9, (9, 9)),   # a delimiter below the chunk's bonus changes nothing
    ],
)
def test_the_consecutive_rule(b: int, fb: int, expected: tuple[int, int]) -> None:
    assert DEFAULT.consecutive(b, fb) == expected


def test_parent_prefix_grows_by_steps_up_to_its_cap() -> None:
    assert [DEFAULT.parent_prefix_for(m) for m in (1, 2, 3)] == [20, 28, 28]
