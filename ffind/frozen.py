"""``@dataclass(frozen=True, slots=True)`` without importing :mod:`dataclasses` (whose import
and class making cost the command's start-up several ms): the same methods, and
``dataclasses.replace``/``fields`` still work.  Type checkers see the real decorator (imported
under ``TYPE_CHECKING``); ``tests/frozen_test.py`` compares the two."""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False  # (not typing's: this module is on every command's path)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

__all__ = ["dataclass", "replace"]

_FIELDS = "__dataclass_fields__"
_PARAMS = "__dataclass_params__"


def dataclass(cls: type[T] | None = None, /, *, frozen: bool = True, slots: bool = True,
              ) -> Any:
    """The class as ``@dataclasses.dataclass(frozen=True, slots=True)`` makes it (only that
    form: base classes, ``ClassVar`` or ``InitVar`` fields raise ``TypeError``)."""
    if not (frozen and slots):
        raise TypeError("ffind.frozen.dataclass makes frozen classes with slots only")
    return _make if cls is None else _make(cls)


def replace(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)`` for a class of this module (checked again by
    its ``__init__``), without importing ``dataclasses``."""
    names: tuple[str, ...] = type(obj).__match_args__  # type: ignore[attr-defined]
    for name in changes:
        if name not in names:
            raise TypeError(f"{type(obj).__name__}.__init__() got an unexpected keyword "
                            f"argument {name!r}")
    values = {n: changes[n] if n in changes else getattr(obj, n) for n in names}
    return type(obj)(**values)


def _make(cls: type[T]) -> type[T]:
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__}: a frozen record has no base class")
    body = dict(cls.__dict__)
    if "__slots__" in body:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    annotations: dict[str, Any] = body.get("__annotations__", {})
    names = tuple(annotations)
    defaults: dict[str, object] = {}
    for name in names:
        kind = str(annotations[name])
        if kind.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar")):
            raise TypeError(f"{cls.__name__}.{name}: ClassVar and InitVar are not handled")
        if name in body:
            defaults[name] = body.pop(name)
        elif defaults:
            raise TypeError(f"non-default argument {name!r} follows default argument")
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body["__slots__"] = names
    meta: Any = type(cls)
    new: Any = meta(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    init = _init(names, defaults, "__post_init__" in body)
    init.__annotations__ = {**annotations, "return": None}
    for attr, fn in {"__init__": init, **_methods(new, names)}.items():
        if attr in body:
            raise TypeError(f"{cls.__name__}: a frozen record makes its own {attr}")
        fn.__qualname__ = f"{cls.__qualname__}.{attr}"
        setattr(new, attr, fn)
    setattr(new, "__match_args__", names)  # noqa: B010 (mypy: a class attribute)
    if not body.get("__doc__"):  # (as dataclasses writes it: the signature)
        sig = ", ".join(f"{n}: {annotations[n]!r}"
                        + (f" = {defaults[n]!r}" if n in defaults else "") for n in names)
        new.__doc__ = f"{cls.__name__}({sig})"
    setattr(new, _FIELDS, _LazyFields(_FIELDS, annotations, defaults))
    setattr(new, _PARAMS, _LazyFields(_PARAMS, annotations, defaults))
    result: type[T] = new
    return result


def _methods(new: Any, names: tuple[str, ...]) -> dict[str, Callable[..., Any]]:
    """The methods of the class ``new`` with the fields ``names``, but ``__init__``."""
    get: Callable[[Any], tuple[Any, ...]]
    if len(names) > 1:
        get = attrgetter(*names)
    else:  # (a tuple all the same, as dataclasses compares and hashes)
        get = lambda self: tuple(getattr(self, n) for n in names)  # noqa: E731
    names_set = frozenset(names)

    def __repr__(self: Any) -> str:
        inner = ", ".join([f"{n}={getattr(self, n)!r}" for n in names])
        return f"{self.__class__.__qualname__}({inner})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(get(self) == get(other))
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(get(self))

    def __setattr__(self: Any, name: str, value: object) -> None:
        if type(self) is new or name in names_set:
            raise _frozen(f"cannot assign to field {name!r}")
        super(new, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is new or name in names_set:
            raise _frozen(f"cannot delete field {name!r}")
        super(new, self).__delattr__(name)

    def __getstate__(self: Any) -> list[object]:
        return [getattr(self, n) for n in names]

    def __setstate__(self: Any, state: list[object]) -> None:
        for n, v in zip(names, state, strict=False):
            object.__setattr__(self, n, v)

    return {"__repr__": __repr__, "__eq__": __eq__, "__hash__": __hash__,
            "__setattr__": __setattr__, "__delattr__": __delattr__,
            "__getstate__": __getstate__, "__setstate__": __setstate__}


def _init(names: tuple[str, ...], defaults: dict[str, object], post_init: bool,
          ) -> Callable[..., None]:
    """The ``__init__``, generated from source as dataclasses does (``inspect.signature`` and
    ``help`` show the fields)."""
    params = ", ".join(f"{n}=__ffind_default_{n}" if n in defaults else n for n in names)
    lines = [f"  __ffind_set(self, {n!r}, {n})" for n in names]
    if post_init:
        lines.append("  self.__post_init__()")
    source = f"def __init__(self, {params}):\n" + ("\n".join(lines) or "  pass") + "\n"
    space: dict[str, Any] = {"__ffind_set": object.__setattr__}
    space.update({f"__ffind_default_{n}": v for n, v in defaults.items()})
    exec(source, space)  # (the source is made of the class's own field names)
    init: Callable[..., None] = space["__init__"]
    return init


def _frozen(message: str) -> AttributeError:
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


class _LazyFields:
    """``__dataclass_fields__`` or ``__dataclass_params__`` (``attr``) of a class made here,
    made by ``dataclasses`` the first time one is read."""

    def __init__(self, attr: str, annotations: dict[str, Any],
                 defaults: dict[str, object]) -> None:
        self.attr = attr
        self.annotations = annotations
        self.defaults = defaults

    def __get__(self, obj: object, owner: type) -> Any:
        import dataclasses

        spec = [(n, kind) if n not in self.defaults
                else (n, kind, dataclasses.field(default=self.defaults[n]))
                for n, kind in self.annotations.items()]
        twin = dataclasses.make_dataclass(owner.__name__, spec, frozen=True, slots=True)
        for attr in (_FIELDS, _PARAMS):
            type.__setattr__(owner, attr, getattr(twin, attr))
        return getattr(owner, self.attr)
