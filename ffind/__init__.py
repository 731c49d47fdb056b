"""ffind: a fuzzy file finder for the terminal, for Python programs and for AI coding agents
(the packages and the data flow: ``docs/architecture.md``).  Heavy modules are imported on
first use, so ``import ffind`` stays cheap; the attributes ``walk`` and ``match`` are the
functions, not the modules."""

from __future__ import annotations

import sys

from ffind.errors import ExitCode, FfindError
from ffind.text import __version__

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
