"""ffind.frozen.dataclass makes what ``dataclasses.dataclass(frozen=True, slots=True)`` makes."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any

import pytest

from ffind.frontends.cli import Invocation
from ffind.frontends.flags import FLAGS, Flag
from ffind.frozen import dataclass, replace
from ffind.options import SearchOptions
from ffind.query import Kind, Query, Term
from ffind.scoring.bounds import Shells, Tiers
from ffind.scoring.scorer import FileMatch
from ffind.scoring.weights import DEFAULT, Weights


def _define(decorator: Any) -> Any:
    """The same definition, made by either decorator."""

    @decorator(frozen=True, slots=True)
    class Point:
        """A point."""

        x: int
        y: int = 0
        label: str | None = None
        tags: tuple[str, ...] = ()

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("x must be >= 0")
            object.__setattr__(self, "tags", tuple(self.tags))

        @property
        def norm(self) -> int:
            return abs(self.x) + abs(self.y)

    return Point


OursPoint = _define(dataclass)
OursPoint.__qualname__ = "OursPoint"  # (found by pickle)
TheirsPoint = _define(dataclasses.dataclass)
TheirsPoint.__qualname__ = "TheirsPoint"


def _pair() -> tuple[Any, Any]:
    return OursPoint, TheirsPoint


def test_the_generated_methods_behave_as_dataclasses_ones() -> None:
    ours, theirs = _pair()
    for args, kwargs in [((1,), {}), ((1, 2), {"label": "a"}), ((3,), {"tags": ["t", "u"]})]:
        a, b = ours(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(a).replace("Ours", "Theirs") == repr(b)
        assert hash(a) == hash(b)
        assert a == ours(*args, **kwargs) and a != ours(9) and a != b  # (another class)
        assert a.norm == b.norm and a.tags == b.tags
        assert pickle.loads(pickle.dumps(a)) == a
        assert copy.copy(a) == a and copy.deepcopy(a) == a
    with pytest.raises(ValueError, match="x must be"):
        ours(-1)
    with pytest.raises(TypeError):
        ours()
    assert ours.__match_args__ == theirs.__match_args__ == ("x", "y", "label", "tags")
    assert ours.__slots__ == theirs.__slots__
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert ours.__doc__ == theirs.__doc__ == "A point."
    assert not hasattr(ours(1), "__dict__")


def test_frozen_as_dataclasses() -> None:
    ours, theirs = _pair()
    for cls in (ours, theirs):
        p = cls(1)
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
            p.x = 2
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'y'"):
            del p.y
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'z'"):
        ours(1).z = 1  # (dataclasses' own fails with a TypeError here, Python 3.11)


def test_the_dataclasses_functions_work_on_them() -> None:
    ours, theirs = _pair()
    a, b = ours(1, 2, "a"), theirs(1, 2, "a")
    assert dataclasses.is_dataclass(a) and dataclasses.is_dataclass(ours)
    assert ([(f.name, f.type, f.default) for f in dataclasses.fields(ours)]
            == [(f.name, f.type, f.default) for f in dataclasses.fields(theirs)])
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    assert dataclasses.astuple(a) == dataclasses.astuple(b)
    assert dataclasses.replace(a, y=5) == ours(1, 5, "a")
    assert replace(a, y=5) == ours(1, 5, "a")
    with pytest.raises(ValueError, match="x must be"):
        replace(a, x=-1)  # checked again
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        replace(a, z=1)
    assert ours.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_what_it_does_not_make_is_an_error() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b'"):
        @dataclass(frozen=True, slots=True)
        class Bad:
            a: int = 0
            b: int

    with pytest.raises(TypeError, match="frozen classes with slots only"):
        dataclass(frozen=False)

    with pytest.raises(TypeError, match="makes its own __eq__"):
        @dataclass(frozen=True, slots=True)
        class Own:
            a: int

            def __eq__(self, other: object) -> bool:
                return True

            __hash__ = None  # type: ignore[assignment]


def test_a_class_without_a_docstring_gets_its_signature() -> None:
    @dataclass(frozen=True, slots=True)
    class Pair:
        raw: str
        terms: tuple[Term, ...]

    theirs = dataclasses.dataclass(frozen=True, slots=True)(
        type("Pair", (), {"__annotations__": {"raw": "str", "terms": "tuple[Term, ...]"}}))
    assert Pair.__doc__ == theirs.__doc__ == "Pair(raw: 'str', terms: 'tuple[Term, ...]')"


@pytest.mark.parametrize("obj", [
    SearchOptions(), SearchOptions(hidden=True, exclude=("*.txt",), limit=None),
    FLAGS[0], FLAGS[-1],
    Invocation(pattern="p", root=".", options=SearchOptions()),
    Term(Kind.FUZZY, "abc"), Query("a !b", (Term(Kind.FUZZY, "a"), Term(Kind.FUZZY, "b", True))),
    FileMatch(3, "a/b", [0, 2]), FileMatch(3, "a/b", root="r"),
    DEFAULT, Weights(match=20), Tiers(1, 2, 3, 4), Shells(1, 2, 3),
], ids=repr)
def test_ffind_records_are_frozen_dataclasses(obj: Any) -> None:
    cls = type(obj)
    names = [f.name for f in dataclasses.fields(obj)]
    assert names == list(cls.__annotations__) == list(cls.__match_args__)
    twin = dataclasses.make_dataclass(
        cls.__name__, [(n, t) for n, t in cls.__annotations__.items()], frozen=True, slots=True)
    values = [getattr(obj, n) for n in names]
    assert repr(obj) == repr(twin(*values))
    assert dataclasses.replace(obj) == obj
    if not any(isinstance(v, list) for v in values):
        assert hash(dataclasses.replace(obj)) == hash(obj) == hash(twin(*values))
    assert pickle.loads(pickle.dumps(obj)) == obj
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, names[0], getattr(obj, names[0]))
    assert isinstance(obj, Flag) or obj.__doc__


def test_weights_still_checked_field_by_field() -> None:
    with pytest.raises(ValueError, match="weight gap_ext must be a non-negative int"):
        Weights(gap_ext=-1)


def test_no_field_and_one_field_compare_and_hash_as_dataclasses() -> None:
    for n in (0, 1):
        annotations = {"a": "int"} if n else {}
        ours = dataclass(type("R", (), {"__annotations__": dict(annotations),
                                        "__doc__": "r"}))
        theirs = dataclasses.dataclass(frozen=True, slots=True)(
            type("R", (), {"__annotations__": dict(annotations), "__doc__": "r"}))
        args = (5,) if n else ()
        assert hash(ours(*args)) == hash(theirs(*args))
        assert ours(*args) == ours(*args) and repr(ours(*args)) == repr(theirs(*args))
