"""The ``ffind`` console script: ``--version`` (with the output module alone), and
``--remember`` and ``--forget`` (run by editors and shell hooks on every file opened, with the
memory module alone) are answered here; everything else goes to the command
(``ffind.frontends.cli``), after a connection to the folder's resident server, if one runs, is
opened (``ffind.resident.client.early``)."""

from __future__ import annotations

import os
import sys

VISITS = ("--remember", "--forget")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in VISITS:
        from ffind.frontends.exits import answered
        from ffind.frontends.visits import visits

        return answered(lambda: visits(args[0], args[1:]))
    if args == ["--version"]:
        from ffind.frontends.exits import answered

        return answered(_version)
    opened = None
    if argv is None and os.environ.get("FFIND_NO_SERVER", "") in ("", "0"):
        # The folder's resident server (docs/cache.md) validates its listing while the
        # command below imports and parses; the search is then sent on this connection.
        from ffind.resident.client import early

        opened = early(args)
    from ffind.frontends.cli import main as command

    return command(argv, opened)


def _version() -> int:
    """``ffind --version``, as the command answers it, without importing it."""
    from ffind import __version__
    from ffind.errors import ExitCode
    from ffind.frontends import output

    output.check_streams()
    output.write_stdout(f"ffind {__version__}\n".encode())
    return ExitCode.FOUND
