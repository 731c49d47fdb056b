"""The ``ffind`` console script: ``--version``, ``--remember`` and ``--forget`` answered with few
imports; other command lines get ``FFIND_DEFAULT_OPTS`` first, then go to the folder's resident
server when one answers, else to the command (``cli``), a cold search with its walk forked."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    from ffind.frontends.cli import Invocation
    from ffind.frontends.early import Started
    from ffind.frontends.flags import Flag

VISITS = ("--remember", "--forget")
DEFAULT_OPTS = "FFIND_DEFAULT_OPTS"


def main(argv: list[str] | None = None) -> int:
    if argv is not None:
        return _main(argv)
    from ffind.errors import Terminated
    from ffind.fs.load import signals

    sig = signals()  # (``_signal``: ``signal`` would import its enums on every call)

    def terminated(signum: int, frame: object) -> None:
        raise Terminated

    sig.signal(sig.SIGTERM, terminated)
    try:
        return _main(None)
    except Terminated:  # (the children stopped on the way here)
        sig.signal(sig.SIGTERM, sig.SIG_DFL)
        os.kill(os.getpid(), sig.SIGTERM)
        raise


def _main(argv: list[str] | None) -> int:
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
    if (args[:1] != ["mcp"] and os.environ.get(DEFAULT_OPTS, "").strip()
            and not os.environ.get("_FFIND_COMPLETE")):
        from ffind.errors import ExitCode, FfindError

        try:
            args = with_defaults(args)
        except FfindError as e:
            from ffind.frontends.output import warn

            warn(str(e))
            return ExitCode.ERROR
    first: Invocation | None = None
    if argv is None and not _no_server(args):
        from ffind.resident.client import Stuck
        from ffind.resident.client import command as served

        try:
            reply = served(args)  # (None: no server, or not a plain search)
        except Stuck:  # (taken, not answered in time: not asked again, nor started again)
            from ffind.frontends.cli import main as command

            return command(args, server=False, exit_fast=True)
        except KeyboardInterrupt:  # (Ctrl-C while the server answers: as in the command)
            from ffind.errors import ExitCode

            return ExitCode.INTERRUPTED
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
        return command(args, started=started, first=first, exit_fast=argv is None)
    finally:
        if started is not None:
            started.close()


def with_defaults(args: list[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """``args`` after ``FFIND_DEFAULT_OPTS`` (options only, each as ``--name[=value]``; those
    that do not apply to the command at hand left out); FfindError when it is not options."""
    env = os.environ if environ is None else environ
    text = env.get(DEFAULT_OPTS, "")
    if not text.strip():
        return args
    import shlex

    from ffind.errors import FfindError
    from ffind.frontends.fastparse import occurrences, parse

    try:
        words = shlex.split(text)
    except ValueError as e:  # ("No closing quotation")
        raise FfindError(f"{DEFAULT_OPTS}: {str(e).lower()} in {text!r}") from None
    found = occurrences(words)
    flags = [(flag, value) for flag, value in found or () if flag is not None]
    if found is None or len(flags) < len(found) or parse(words) is None:
        raise FfindError(f"{DEFAULT_OPTS}: {_fault(words, found)}")
    given = parse(args)
    picker = any(flag.long == "interactive" for flag, _ in flags) or (
        bool(given[1]["interactive"]) if given is not None
        else "-i" in args or "--interactive" in args)
    kept = [f"--{flag.long}" if value is None else f"--{flag.long}={value}"
            for flag, value in flags if (flag.picker if picker else not flag.picker_only)]
    return [*kept, *args]


def _fault(words: list[str], found: list[tuple[Flag | None, str | None]] | None) -> str:
    """What is wrong with the default options ``words``: click's message when it has one."""
    for flag, text in found or ():
        if flag is None:
            return f"{text!r} is not an option (a PATTERN goes on the command line)"
    import click

    from ffind.frontends.cli import build_command

    cmd = build_command()
    cmd.params = [p for p in cmd.params if not p.is_eager]  # (--version: not a default)
    try:
        cmd.make_context("ffind", list(words), help_option_names=[])
    except click.ClickException as e:
        return e.format_message()
    return f"cannot read {' '.join(words)!r} as options (spell them as ffind -h shows)"


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
