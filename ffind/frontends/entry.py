"""The ``ffind`` console script: ``--version`` (with the output module alone), and
``--remember`` and ``--forget`` (run by editors and shell hooks on every file opened, with the
memory module alone) are answered here; everything else goes to the command
(``ffind.frontends.cli``), unless the folder's resident server answers a plain search first
(``ffind.resident.client.command``)."""

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
        # The console script's call is short (the command turns the collector on again for
        # the picker, ``cli.run``): its imports and its search create no cycle worth a pass
        # of the cyclic collector (~3 ms of a search's imports alone); the process ends with
        # its results (``os._exit``).  The MCP server lives on: not for it.
        import gc

        gc.disable()
    if args and args[0] in VISITS:
        from ffind.frontends.exits import answered
        from ffind.frontends.visits import visits

        return answered(lambda: visits(args[0], args[1:]))
    if args == ["--version"]:
        from ffind.frontends.exits import answered

        return answered(_version)
    first = None
    if argv is None and not _no_server(args):
        # A plain search answered by the folder's resident server (docs/cache.md) costs
        # this process only the socket and the writing: not the command's imports.
        from ffind.resident.client import Stuck
        from ffind.resident.client import command as served

        try:
            reply = served(args)  # (None: no server, ``FFIND_NO_SERVER``, not a plain search)
        except Stuck:  # (taken, not answered in time: not asked again, nor started again)
            from ffind.frontends.cli import main as command

            return command(argv, server=False)
        if reply is not None:
            from ffind.frontends.exits import answered, exit_now
            from ffind.frontends.output import write_answer

            exit_now(answered(lambda: write_answer(*reply)))
        # No server answered: a folder's first call (no snapshot yet) is answered as a cold
        # search, and the server it starts writes the snapshot (``early.first_call``).
        first = _first_call(args)
    # A cold search's walk starts now, in a forked child, before the command's imports
    # (``ffind.frontends.early``); the search takes it over, or it is ended here.
    if first is not None:
        started = _start_first(first)
    elif argv is None and "--no-cache" in args:
        started = _start_walk(args)
    else:
        started = None
    from ffind.frontends.cli import main as command

    if started is None:
        return command(argv) if first is None else command(argv, first=first)
    try:
        return command(argv, started=started, first=first)
    finally:
        started.close()


def _first_call(args: list[str]) -> Invocation | None:
    from ffind.frontends.early import first_call

    return first_call(args)


def _start_first(inv: Invocation) -> Started | None:
    from ffind.frontends.early import start_for

    return start_for(inv)


def _start_walk(args: list[str]) -> Started | None:
    from ffind.frontends.early import start

    return start(args)


def _no_server(args: list[str]) -> bool:
    """Whether no server may answer, seen without importing its client (~0.5 ms of a
    ``--no-cache`` or ``--no-server`` call): ``FFIND_NO_SERVER``, or either flag anywhere
    (``resident.client.plain_search`` looks closer at what is left)."""
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
