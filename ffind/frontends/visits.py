"""``ffind --remember PATH...`` and ``ffind --forget PATH...``: the memory's two commands for
editors and shell hooks.  No walk, no search, no click: a hook runs on every file opened, so
this path imports the memory and nothing else (``ffind.frontends.entry``)."""

from __future__ import annotations

from ffind.errors import ExitCode, FfindError


def visits(action: str, paths: list[str]) -> int:
    """Record (``--remember``) or forget (``--forget``) each path; raise FfindError (one line)
    for no path, an empty or NUL-holding one, or a memory that is off or cannot be written."""
    from ffind.state.memory import Memory, memory_disabled

    if paths and paths[0] == "--":
        paths = paths[1:]
    if not paths:
        raise FfindError(f"{action} needs at least one PATH")
    for p in paths:
        if not p or "\0" in p:
            raise FfindError(f"{action}: not a path: {p!r}")
    if memory_disabled():
        raise FfindError(f"{action}: the memory is off (FFIND_NO_MEMORY is set)")
    with Memory() as memory:
        for p in paths:
            ok = memory.record(p) if action == "--remember" else memory.forget(p) >= 0
            if not ok or memory.warning:
                raise FfindError(f"{action}: {memory.warning}")
    return ExitCode.FOUND
