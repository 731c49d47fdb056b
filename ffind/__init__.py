"""ffind: a fuzzy file finder for the terminal, for Python programs and for AI coding agents.

The data flow, one module a stage::

    roots --walk--> paths --index--> candidates --query/match--> scored ids --rank--> top N --output
            ^ ignore rules                       ^ session: narrow on append, rescore otherwise
                                                 '-- picker (terminal UI) and tool (agents)

- ``options``  SearchOptions, the one frozen settings object passed down from the CLI.
- ``errors``   FfindError and ExitCode (0 found, 1 none, 2 error, 130 interrupted).
- ``ignore``   ignore rules per folder: .gitignore, .ignore, info/exclude, global excludes.
- ``walk``     the parallel walk (forked worker processes) that honours ``ignore``; yields
               batches (``search`` has its workers drop what the query cannot match).
- ``index``    the candidate store: paths plus what matching needs precomputed.
- ``query``    query syntax: terms, ^prefix, suffix$, 'exact, !negation; smart case.
- ``match``    scoring (rapidfuzz, re); FileMatch.
- ``rank``     ordering after the score: tie-breaks, hidden files, top-k.
- ``oneshot``  ``search()``: walk + index + match in one call (what the command runs).
- ``session``  FileSearcher: background walk, incremental narrowing, snapshots, cancel.
- ``output``   text / NUL / JSON writers; terminal-safe printing; colour.
- ``cli``      the click command: flags -> SearchOptions -> oneshot / picker; errors -> exit code.
- ``picker``   the interactive picker, on top of ``session``.
- ``tool``     the agent tool ``find_files`` and the MCP server.

Heavy modules are imported on first use, so ``import ffind`` (and ``ffind --version``) stays
cheap.  Import submodules with ``from ffind.walk import ...``: the package attributes ``walk``
and ``match`` are the functions, not the modules.
"""

from __future__ import annotations

import sys
import types
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ffind.errors import ExitCode, FfindError
from ffind.options import SearchOptions

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "walk": "ffind.walk",
    "walk_batches": "ffind.walk",
    "DEFAULT_EXCLUDES": "ffind.walk",
    "Index": "ffind.index",
    "match": "ffind.index",
    "FileMatch": "ffind.match",
    "search": "ffind.oneshot",
    "FileSearchResults": "ffind.oneshot",
    "FileSearcher": "ffind.session",
    "Snapshot": "ffind.session",
}

__all__ = [
    "DEFAULT_EXCLUDES",
    "ExitCode",
    "FfindError",
    "FileMatch",
    "FileSearchResults",
    "FileSearcher",
    "Index",
    "SearchOptions",
    "Snapshot",
    "__version__",
    "match",
    "search",
    "walk",
    "walk_batches",
]

if TYPE_CHECKING:  # the lazy attributes, for type checkers
    from ffind.index import Index, match
    from ffind.match import FileMatch
    from ffind.oneshot import FileSearchResults, search
    from ffind.session import FileSearcher, Snapshot
    from ffind.walk import DEFAULT_EXCLUDES, walk, walk_batches


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ffind' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """Importing a submodule binds it to the package attribute of its name.  For ``walk`` and
    ``match`` that name is a public function: keep the function, not the module (the module
    stays reachable as ``sys.modules["ffind.walk"]`` and through ``from ffind.walk import``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
