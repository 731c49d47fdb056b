"""How many CPUs a walk may use and whether one is idle now: what the walk asks before it
forks (``ffind.fs.pool``, ``ffind.fs.walk``), and the console script before it starts the
walk of a cold search (``ffind.frontends.early``), before its other imports: this module
imports nothing but ``os``.  Also the signals that fork uses (``signals``)."""

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
    """Whether a CPU this process may use is idle now: fewer tasks are running on the machine
    (this one included; the fourth field of Linux's ``/proc/loadavg``) than it has CPUs.
    True where that cannot be read.  One sample, at the moment a walk would start its
    workers: on a machine whose CPUs are all busy they would only share this process's, for
    the cost of forking them and of the pipes (measured on a 2-core machine at load ~4, a
    cold ``ffind -l 20 main`` in a 13k-file checkout: 151 ms with this check against 175 ms
    without, CPU 139 ms against 149 ms)."""
    try:
        with open(loadavg, "rb") as f:
            running = int(f.read(256).split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return True
    return running < cpus()


def signals() -> ModuleType:
    """The signal functions and numbers for the console script's fork of a cold search's walk
    (``pthread_sigmask``, ``SIGKILL``, ``SIGUSR1``): ``_signal``, the built-in module under
    ``signal``, whose import (~0.4 ms: its enums) a search outside a repository otherwise
    never needs; ``signal`` where there is no ``_signal``."""
    import sys

    try:
        import _signal  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # (not CPython)
        import signal as _signal
    return sys.modules[_signal.__name__]
