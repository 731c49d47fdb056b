"""ffind: a fuzzy file finder for the terminal, for Python programs and for AI coding agents.

The data flow, one package a concern (``docs/architecture.md``)::

    roots --fs.walk--> paths --engine.Index--> candidates --scoring--> scored ids --engine.rank-->
    top N --frontends.output--> text / NUL / JSON
            ^ fs.ignore rules      ^ searching.session: narrow on append, rescore otherwise
                                   '-- frontends.picker (terminal UI) and agent (tools, MCP)

- ``options``     SearchOptions, the one frozen settings object passed down from the CLI.
- ``errors``      FfindError and ExitCode (0 found, 1 none, 2 error, 130 interrupted).
- ``frozen``      ``@dataclass(frozen=True, slots=True)`` for the records of a search, without
                  importing ``dataclasses`` (~8-10 ms of every call).
- ``query``       query syntax: terms, ^prefix, suffix$, 'exact, !negation; smart case.
- ``scoring``     the weights, the scorer (FileMatch), bounds, the memory's boost (``recency``).
- ``engine``      ``Index``: the path store, prefilter, match sets, ranking (top-k by branch
                  and bound, exact shortcuts), typos, ranking with the memory (``recall``).
- ``fs``          the parallel walk (``walk``, worker ``pool``, ``roots``) and the ignore rules
                  (``fs.ignore``: wildmatch, patterns, scope).
- ``searching``   ``search()`` (``oneshot``: walk + index + match in one call, what the command
                  runs), FileSearcher (``session``), the multi-root ``merge``.
- ``frontends``   the console script (``entry``), the click command (``cli``, ``flags``),
                  ``output`` writers, the ``picker``, the ``shell`` integration scripts.
- ``agent``       the agent tools ``find_files`` and ``glob`` and the MCP server.
- ``state``       what is kept between runs: the memory of opened files (``Memory``), the warm
                  snapshots; git's status and configuration (``state.git``).

Heavy modules are imported on first use, so ``import ffind`` (and ``ffind --version``) stays
cheap.  Import submodules with ``from ffind.fs.walk import ...``: the package attributes ``walk``
and ``match`` are the functions, not the modules.
"""

from __future__ import annotations

import sys

from ffind.errors import ExitCode, FfindError, __version__

TYPE_CHECKING = False  # (not typing's: ``import ffind`` does not import typing)

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
    from typing import Any

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
    __import__(module)  # (not importlib's ``import_module``: ``importlib`` imports ``warnings``)
    value = getattr(sys.modules[module], name)
    globals()[name] = value
    return value
