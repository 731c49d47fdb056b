"""SearchOptions: every setting of a search, built once (by the CLI or a caller) and passed down;
each field is checked when it is made (``TypeError``/``ValueError`` naming the field)."""

from __future__ import annotations

import os
from collections.abc import Iterable

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass

DEFAULT_LIMIT = 64
"""Most matches a search returns by default (``SearchOptions.limit``; the command's ``-l``
with a pattern; without a pattern the command lists every file)."""
DEFAULT_THREADS = 2
TYPES = ("f", "d")
"""What ``types`` may hold: ``"f"`` files, ``"d"`` directories."""

_BOOLS = ("hidden", "respect_ignore", "follow_links", "require_git", "compute_indices")


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """What to walk and how to rank.  Frozen: derive variants with ``dataclasses.replace``."""

    hidden: bool = False
    """Include files and folders whose name starts with ``.``."""
    respect_ignore: bool = True
    """Honour .gitignore, .git/info/exclude, core.excludesFile, .ignore and DEFAULT_EXCLUDES."""
    exclude: tuple[str, ...] = ()
    """Extra gitignore-style globs to exclude (Codex's ``--exclude``); applied even with
    ``respect_ignore=False``.  Any iterable of strings (kept as a tuple); a single string is a
    TypeError: write ``exclude=("*.txt",)``."""
    follow_links: bool = False
    """Enter symlinked folders (loops are detected)."""
    threads: int = DEFAULT_THREADS
    """Walk worker processes, at least 1; 1 walks in-process."""
    types: tuple[str, ...] = ("f",)
    """What to list, at least one of ``"f"`` files, ``"d"`` directories."""
    max_depth: int | None = None
    """Descend at most this many levels below the root (1 = the root's own entries); >= 0."""
    require_git: bool = True
    """Apply .gitignore files only inside a git work tree (fd's and ripgrep's default)."""
    limit: int | None = DEFAULT_LIMIT
    """Most matches to return; None or 0 for all (as the command's ``-l 0``; 0 is kept as
    None)."""
    compute_indices: bool = False
    """Return the positions of the matched characters of each path."""

    def __post_init__(self) -> None:
        for name in _BOOLS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise TypeError(f"SearchOptions.{name} must be a bool, not {_kind(value)}")
        object.__setattr__(self, "exclude", _strings("exclude", self.exclude))
        types = _strings("types", self.types)
        bad = [t for t in types if t not in TYPES]
        if bad or not types:
            raise ValueError(f"SearchOptions.types must hold 'f' (files) and/or 'd' "
                             f"(directories), not {self.types!r}")
        object.__setattr__(self, "types", types)
        _count("threads", self.threads, minimum=1, optional=False)
        _count("max_depth", self.max_depth, minimum=0, optional=True)
        _count("limit", self.limit, minimum=0, optional=True)
        if self.limit == 0:
            object.__setattr__(self, "limit", None)


def _kind(value: object) -> str:
    return type(value).__name__


def _strings(name: str, value: object) -> tuple[str, ...]:
    if isinstance(value, (str, bytes, os.PathLike)) or not isinstance(value, Iterable):
        raise TypeError(f"SearchOptions.{name} must be a tuple of strings, not {_kind(value)}"
                        + (f" (write {name}=({value!r},))" if isinstance(value, str) else ""))
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"SearchOptions.{name} must hold strings, not {_kind(item)}")
    return items


def _count(name: str, value: object, *, minimum: int, optional: bool) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        allowed = "None or an int" if optional else "an int"
        raise TypeError(f"SearchOptions.{name} must be {allowed}, not {_kind(value)}")
    if value < minimum:
        every = " (0 or None: every match)" if name == "limit" else ""
        raise ValueError(f"SearchOptions.{name} must be at least {minimum}, not {value}{every}")


def check_options(options: object) -> SearchOptions:
    """``options`` if it is a SearchOptions, the defaults if None; else TypeError."""
    if options is None:
        return SearchOptions()
    if not isinstance(options, SearchOptions):
        raise TypeError(f"options must be a SearchOptions, not {_kind(options)}")
    return options


def check_query(query: object, name: str = "query") -> str:
    """``query`` if it is a str; else TypeError naming the argument."""
    if not isinstance(query, str):
        raise TypeError(f"{name} must be a str, not {_kind(query)}")
    return query


__all__ = ["DEFAULT_LIMIT", "DEFAULT_THREADS", "TYPES", "SearchOptions", "check_options",
           "check_query"]
