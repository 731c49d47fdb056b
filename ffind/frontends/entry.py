"""The ``ffind`` console script: ``--version`` (with the output module alone), and
``--remember`` and ``--forget`` (run by editors and shell hooks on every file opened, with the
memory module alone) are answered here; everything else goes to the command
(``ffind.frontends.cli``)."""

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
    if args == ["--version"]:
        return _version()
    from ffind.frontends.cli import main as command

    return command(argv)


def _version() -> int:
    """``ffind --version``, as the command answers it (errors, a closed pipe), without
    importing it."""
    from ffind import __version__
    from ffind.errors import ExitCode, FfindError
    from ffind.frontends import output

    try:
        output.check_streams()
        output.write_stdout(f"ffind {__version__}\n".encode())
    except FfindError as e:
        output.warn(str(e))
        return ExitCode.ERROR
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        output.quiet_stdout()
    return ExitCode.FOUND
