"""How many CPUs a walk may use and whether one is idle now, and the signals a fork uses:
asked before a walk forks, also by the console script before its other imports, so this
module imports nothing but ``os``."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    from types import ModuleType

LOADAVG = "/proc/loadavg"


def max_workers() -> int:
    """The most workers a walk starts: 4 per CPU, at most 64."""
    return min(64, (os.cpu_count() or 1) * 4)


def cpus() -> int:
    """The CPUs this process may run on."""
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return n or 1


def cpu_idle(loadavg: str = LOADAVG) -> bool:
    """Whether a CPU this process may use is idle now: fewer tasks running (this one included;
    Linux's ``/proc/loadavg``) than it has CPUs; True where that cannot be read.  Workers
    started when every CPU is busy only share this process's CPU, for the cost of the fork."""
    try:
        with open(loadavg, "rb") as f:
            running = int(f.read(256).split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return True
    return running < cpus()


def signals() -> ModuleType:
    """The signal functions and numbers a fork uses: ``_signal``, the built-in module under
    ``signal``, without the cost of ``signal``'s enums (``signal`` where there is none)."""
    import sys

    try:
        import _signal  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # (not CPython)
        import signal as _signal
    return sys.modules[_signal.__name__]
