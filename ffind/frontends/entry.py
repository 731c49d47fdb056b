"""The ``ffind`` console script: ``--version``, and ``--remember`` and ``--forget`` (run by
editors and shell hooks on every file opened), are answered here with the memory module alone;
everything else goes to the command (``ffind.frontends.cli``)."""

from __future__ import annotations

import sys

VISITS = ("--remember", "--forget")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in VISITS:
        from ffind.errors import ExitCode, FfindError
        from ffind.frontends.visits import visits

        try:
            return visits(args[0], args[1:])
        except FfindError as e:
            from ffind.frontends.output import warn

            warn(str(e))  # one line, escaped, never a traceback
            return ExitCode.ERROR
        except KeyboardInterrupt:
            return ExitCode.INTERRUPTED
    from ffind.frontends.cli import main as command

    return command(argv)
