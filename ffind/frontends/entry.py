"""The ``ffind`` console script.  ``--version``, ``--remember`` and ``--forget`` (run by
editors and shell hooks on every file opened) are answered here with the few modules they
need; a plain search goes to the folder's resident server when one answers
(``ffind.resident.client.command``); everything else goes to the command
(``ffind.frontends.cli``), a cold search with its walk already forked
(``ffind.frontends.early``)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    from ffind.frontends.cli import Invocation
    from ffind.frontends.early import Started

VISITS = ("--remember", "--forget")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if argv is None and args[:1] != ["mcp"]:
        # A short-lived call makes no cycle worth a pass of the cyclic collector (the command
        # turns it on again for the picker); the long-lived MCP server keeps it.
        import gc

        gc.disable()
    if args and args[0] in VISITS:
        from ffind.frontends.exits import answered
        from ffind.frontends.visits import visits

        return answered(lambda: visits(args[0], args[1:]))
    if args == ["--version"]:
        from ffind.frontends.exits import answered

        return answered(_version)
    first: Invocation | None = None
    if argv is None and not _no_server(args):
        from ffind.resident.client import Stuck
        from ffind.resident.client import command as served

        try:
            reply = served(args)  # (None: no server, or not a plain search)
        except Stuck:  # (taken, not answered in time: not asked again, nor started again)
            from ffind.frontends.cli import main as command

            return command(argv, server=False)
        if reply is not None:
            from ffind.frontends.exits import answered, exit_now
            from ffind.frontends.output import write_answer

            exit_now(answered(lambda: write_answer(*reply)))
        # No server answered: a folder's first call is answered as a cold search, and the
        # server it starts writes the snapshot.
        from ffind.frontends.early import first_call

        first = first_call(args)
    # A cold search's walk starts now, in a forked child, before the command's imports.
    started: Started | None = None
    if first is not None:
        from ffind.frontends.early import start_for

        started = start_for(first)
    elif argv is None and "--no-cache" in args:
        from ffind.frontends.early import start

        started = start(args)
    from ffind.frontends.cli import main as command

    try:
        return command(argv, started=started, first=first)
    finally:
        if started is not None:
            started.close()


def _no_server(args: list[str]) -> bool:
    """Whether no server may answer (``FFIND_NO_SERVER``, ``--no-server`` or ``--no-cache``),
    seen without importing its client."""
    if os.environ.get("FFIND_NO_SERVER", "") not in ("", "0"):
        return True
    return any(arg.startswith(("--no-server", "--no-cache")) for arg in args)


def _version() -> int:
    """``ffind --version``, as the command answers it, without importing it."""
    from ffind import __version__
    from ffind.errors import ExitCode
    from ffind.frontends import output

    output.check_streams()
    output.write_stdout(f"ffind {__version__}\n".encode())
    return ExitCode.FOUND
