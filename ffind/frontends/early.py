"""The walk of a cold search, forked by the console script as soon as the command line is parsed
(it walks on the other CPU while this process imports the command); ``search(_started=...)``
takes it over when it fits, and ``close`` ends a child nobody took."""

from __future__ import annotations

import contextlib
import os
import sys

from ffind.fs.load import signals

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    from ffind.frontends.cli import Invocation
    from ffind.options import SearchOptions


class Started:
    """A walk's child forked by :func:`start`: its pid, its pipe's read end, what it walks."""

    __slots__ = ("_done", "fd", "invocation", "options", "pid", "root")

    def __init__(self, pid: int, fd: int, invocation: Invocation) -> None:
        self.pid = pid
        self.fd = fd
        self.invocation = invocation
        """The command line, parsed (``cli.invocation``: the command's own parse)."""
        self.root = invocation.root
        self.options = invocation.options
        self._done = False

    def take(self, root: str, options: SearchOptions) -> tuple[int, int] | None:
        """(pid, fd) to read and reap if the child walks ``root`` as ``options`` list it;
        else None (the child is ended)."""
        if self._done:
            return None
        if root == self.root and listing(options) == listing(self.options):
            self._done = True
            return self.pid, self.fd
        self.close()
        return None

    def close(self) -> None:
        """End and reap the child, unless it was taken (then its taker does)."""
        if self._done:
            return
        self._done = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signals().SIGKILL)
        os.close(self.fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def listing(options: SearchOptions) -> tuple[object, ...]:
    """What of ``options`` the walk depends on (the rest: the ranking's and the output's)."""
    return (options.hidden, options.respect_ignore, options.exclude, options.follow_links,
            options.threads, options.types, options.max_depth, options.require_git)


def start(args: list[str]) -> Started | None:
    """Fork the walk of the cold search ``args`` asks for, if it is one (the module
    docstring); None otherwise, or when the fork fails."""
    if "--no-cache" not in args or os.environ.get("_FFIND_COMPLETE"):
        return None
    from ffind.frontends.cli import plain_search

    inv = plain_search(args)
    return None if inv is None or inv.cache else start_for(inv)


def start_for(inv: Invocation) -> Started | None:
    """Fork the walk of the plain search ``inv`` (a cold search), if the walk would fork it."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return None
    from ffind.fs.load import cpu_idle, max_workers

    options = inv.options
    if (options.follow_links or not 2 <= options.threads <= max_workers()
            or (options.max_depth is not None and options.max_depth < 1) or not cpu_idle()):
        return None
    return _fork(inv)


def first_call(args: list[str]) -> Invocation | None:
    """``args`` parsed when it is a folder's first call (no snapshot yet): searched cold, then
    the root's server started with its listing.  None otherwise."""
    if os.environ.get("_FFIND_COMPLETE") or args[:1] == ["mcp"]:
        return None
    from ffind.frontends.cli import plain_search

    inv = plain_search(args)
    if inv is None or not (inv.cache and inv.server):
        return None
    from ffind.resident.client import where

    if where(inv.root, create=True) is None:  # (FFIND_NO_SERVER, no safe socket folder)
        return None
    from ffind.state.snapkey import snapshot_path

    try:
        if os.path.lexists(snapshot_path(inv.root, inv.options)):
            return None
    except (OSError, ValueError):
        return None
    return inv


def _fork(inv: Invocation) -> Started | None:
    """Fork the child with every signal blocked (the parent handles Ctrl-C and ends it)."""
    signal = signals()
    try:
        read, write = os.pipe()
    except OSError:
        return None
    import fcntl

    with contextlib.suppress(OSError):  # F_SETPIPE_SZ: the child runs ahead of the imports
        fcntl.fcntl(write, 1031, 1 << 20)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        pid = os.fork()
        if pid == 0:
            _child(inv.root, inv.options, read, write)  # never returns
    except OSError:  # fork: EAGAIN, ENOMEM
        os.close(read)
        os.close(write)
        return None
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    os.close(write)
    return Started(pid, read, inv)


def _child(root: str, options: SearchOptions, read: int, write: int) -> None:
    """The forked child: ``walk.early_child`` streamed to the pipe; never returns."""
    try:
        from ffind.fs import pool, walk

        pool.stream_main(lambda send: walk.early_child(root, options, send),
                         pool.Pipe(read), pool.Pipe(write))
    finally:
        os._exit(1)  # (an import failed: the parent reads end of file and says so)
