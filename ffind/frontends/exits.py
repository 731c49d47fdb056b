"""The one place a front end's work becomes an exit status (``ffind.errors.ExitCode``): a user
error is one line ``ffind: ...`` on stderr and 2, Ctrl-C is 130, a reader that went away
(a closed pipe) ends quietly with 0.  Light on purpose: the console script's fast paths
(``--remember``, ``--version``) use it before anything else is imported."""

from __future__ import annotations

from collections.abc import Callable

from ffind.errors import ExitCode, FfindError


def answered(work: Callable[[], int]) -> int:
    """``work()``'s exit status, or the one its error means."""
    try:
        return work()
    except FfindError as e:
        from ffind.frontends.output import warn

        warn(str(e))  # one line, escaped, never a traceback
        return ExitCode.ERROR
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        from ffind.frontends.output import quiet_stdout

        quiet_stdout()
        return ExitCode.FOUND
