"""ffind.options: SearchOptions checks every field, naming it."""

from __future__ import annotations

import dataclasses

import pytest

from ffind.options import DEFAULT_LIMIT, SearchOptions, check_options, check_query


def test_defaults() -> None:
    o = SearchOptions()
    assert (o.limit, o.types, o.exclude, o.threads) == (DEFAULT_LIMIT, ("f",), (), 2)


def test_iterables_become_tuples() -> None:
    o = SearchOptions(exclude=["*.txt", "build/"], types=["f", "d"])  # type: ignore[arg-type]
    assert o.exclude == ("*.txt", "build/") and o.types == ("f", "d")
    assert hash(o) == hash(SearchOptions(exclude=("*.txt", "build/"), types=("f", "d")))


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"exclude": "*.txt"}, "exclude"),  # iterating it would exclude '*': everything
    ({"exclude": ("*.txt", 3)}, "exclude"),
    ({"types": "f"}, "types"),
    ({"hidden": "yes"}, "hidden"),
    ({"respect_ignore": None}, "respect_ignore"),
    ({"limit": 2.5}, "limit"),
    ({"limit": True}, "limit"),
    ({"threads": "4"}, "threads"),
    ({"max_depth": "1"}, "max_depth"),
])
def test_wrong_types_raise_type_error_naming_the_field(
    kwargs: dict[str, object], name: str,
) -> None:
    with pytest.raises(TypeError, match=name):
        SearchOptions(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"limit": -5}, "limit"),
    ({"max_depth": -1}, "max_depth"),
    ({"types": ("x",)}, "types"),
    ({"types": ()}, "types"),
    ({"threads": 0}, "threads"),
])
def test_out_of_range_raises_value_error_naming_the_field(
    kwargs: dict[str, object], name: str,
) -> None:
    with pytest.raises(ValueError, match=name):
        SearchOptions(**kwargs)  # type: ignore[arg-type]


def test_replace_is_checked_too() -> None:
    with pytest.raises(ValueError, match="limit"):
        dataclasses.replace(SearchOptions(), limit=-1)
    assert dataclasses.replace(SearchOptions(), limit=None).limit is None


def test_check_helpers() -> None:
    assert check_options(None) == SearchOptions()
    with pytest.raises(TypeError, match="options"):
        check_options({"limit": 3})
    assert check_query("a") == "a"
    with pytest.raises(TypeError, match="text"):
        check_query(None, "text")
