"""The one place a front end's work becomes an exit status (``ffind.errors.ExitCode``): a user
error is one line ``ffind: ...`` on stderr and 2, Ctrl-C is 130, a reader that went away
(a closed pipe) ends quietly with 0.  Light on purpose: the console script's fast paths
(``--remember``, ``--version``) use it before anything else is imported."""

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
    """Flush and end the process without the interpreter's teardown (the command after a
    search or the picker, and the console script after the resident server answered).

    Used after the picker (its ``on_done``: its session is closed, the walk's workers have been
    waited for, the selection is written and the terminal restored) and after a one-shot search
    has written its results (its walk is over and reaped); what is left is freeing the index
    and the rest of the heap: ~0.1-0.7 s for a million paths in the picker, 10-20 ms after a
    search of 100k files.
    """
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            # (not ``contextlib.suppress``: the client path imports nothing it can avoid)
            try:  # noqa: SIM105
                stream.flush()
            except (OSError, ValueError):
                pass
    os._exit(code)
