"""The interactive picker (PLACEHOLDER: replaced by issue 5)."""

from __future__ import annotations

from ffind.errors import FfindError
from ffind.options import SearchOptions


def run_picker(query: str, roots: list[str], options: SearchOptions, *, print0: bool = False) -> int:
    """Run the full-screen picker; print the selection to stdout; return the exit code."""
    raise FfindError("the interactive picker is not built yet")
