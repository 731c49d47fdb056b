"""``ffind --remember PATH...`` and ``ffind --forget PATH...``: the memory's two commands for
editors and shell hooks.  No walk, no search, no click: a hook runs on every file opened, so
this path imports the memory and nothing else (``ffind.frontends.entry``)."""

from __future__ import annotations

import os

from ffind.errors import ExitCode, FfindError


def visits(action: str, paths: list[str]) -> int:
    """Record (``--remember``) or forget (``--forget``) each path; FfindError for no path, a bad
    one, a relative one in a deleted working folder, or a memory that is off or unusable."""
    from ffind.state.memory import open_memory

    if paths and paths[0] == "--":
        paths = paths[1:]
    if not paths:
        raise FfindError(f"{action} needs at least one PATH")
    for p in paths:
        if not p or "\0" in p:
            raise FfindError(f"{action}: not a path: {p!r}")
    if not all(os.path.isabs(p) for p in paths):
        try:
            os.getcwd()
        except FileNotFoundError:
            raise FfindError(f"{action}: the current folder no longer exists; "
                             "give absolute paths") from None
    memory = open_memory()
    if memory is None:
        raise FfindError(f"{action}: the memory is off (FFIND_NO_MEMORY is set)")
    with memory:
        if not memory.available:
            raise FfindError(f"{action}: {memory.warning}")
        repaired, memory.warning = memory.warning, None
        for p in paths:
            if action == "--remember":
                memory.record(p)
            else:
                memory.forget(p)
            if memory.warning:  # a write failed (locked, read-only): the rest would too
                raise FfindError(f"{action}: {memory.warning}")
    if repaired:
        from ffind.frontends.output import warn

        warn(repaired)
    return ExitCode.FOUND
