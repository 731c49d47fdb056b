"""The one user-error class and the exit codes, in one place (every layer may import it)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit status of the ``ffind`` command (fd's convention)."""

    FOUND = 0
    NOT_FOUND = 1
    ERROR = 2
    INTERRUPTED = 130


EXIT_MEANING: dict[ExitCode, tuple[str, str]] = {
    ExitCode.FOUND: ("found", "something was found"),
    ExitCode.NOT_FOUND: ("nothing found", "nothing was found"),
    ExitCode.ERROR: ("error", "an error (bad flag, missing --cwd, invalid glob, unusable output)"),
    ExitCode.INTERRUPTED: ("interrupted", "interrupted (Ctrl-C)"),
}
"""Each exit status: a short label (``-h``) and a sentence (the man page)."""


class FfindError(Exception):
    """A problem the user can fix (bad flag value, missing folder, invalid glob): the CLI
    prints ``ffind: <message>`` and exits with ``ExitCode.ERROR``."""


class Terminated(BaseException):
    """SIGTERM reached the command (``ffind.frontends.entry``): raised where it was, so that
    what runs on the way out stops the command's children (``git status``, the walk), then
    the signal is raised again with its default action (the caller sees a process ended
    by SIGTERM, as without ffind's handler)."""
