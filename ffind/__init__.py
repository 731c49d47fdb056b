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
cheap.  Import submodules with ``from ffind.fs.walk import ...``: the package attributes ``walk``
and ``match`` are the functions, not the modules.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ffind.errors import ExitCode, FfindError

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "SearchOptions": "ffind.options",
    "walk": "ffind.fs.walk",
    "walk_batches": "ffind.fs.walk",
    "DEFAULT_EXCLUDES": "ffind.fs.walk",
    "Index": "ffind.engine.index",
    "match": "ffind.engine.index",
    "FileMatch": "ffind.scoring.scorer",
    "search": "ffind.searching.oneshot",
    "FileSearchResults": "ffind.searching.oneshot",
    "FileSearcher": "ffind.searching.session",
    "Memory": "ffind.state.memory",
    "Snapshot": "ffind.searching.session",
}

__all__ = [
    "DEFAULT_EXCLUDES",
    "ExitCode",
    "FfindError",
    "FileMatch",
    "FileSearchResults",
    "FileSearcher",
    "Index",
    "Memory",
    "SearchOptions",
    "Snapshot",
    "__version__",
    "match",
    "search",
    "walk",
    "walk_batches",
]

if TYPE_CHECKING:  # the lazy attributes, for type checkers
    from ffind.engine.index import Index, match
    from ffind.fs.walk import DEFAULT_EXCLUDES, walk, walk_batches
    from ffind.options import SearchOptions
    from ffind.scoring.scorer import FileMatch
    from ffind.searching.oneshot import FileSearchResults, search
    from ffind.searching.session import FileSearcher, Snapshot
    from ffind.state.memory import Memory


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ffind' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
