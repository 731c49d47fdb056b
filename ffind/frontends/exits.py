"""Where a front end's work becomes an exit status (``ffind.errors.ExitCode``): a user error is
one line ``ffind: ...`` on stderr and 2, Ctrl-C is 130, a closed pipe ends quietly with 0.
Light: the console script's fast paths (``--remember``, ``--version``) use it first."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from ffind.errors import ExitCode, FfindError

TYPE_CHECKING = False  # (not typing's: the console script's fast paths do not import it)
if TYPE_CHECKING:
    from typing import NoReturn


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


def exit_now(code: int) -> NoReturn:
    """Flush and end the process without the interpreter's teardown (freeing a large index
    costs a fraction of a second)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            # (not ``contextlib.suppress``: the client path imports nothing it can avoid)
            try:  # noqa: SIM105
                stream.flush()
            except (OSError, ValueError):
                pass
    os._exit(code)
