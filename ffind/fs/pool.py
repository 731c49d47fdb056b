"""The walk's worker processes: start them, share the folders out, collect the paths, end them.

``run(walker, items, n, cancel, warn, keep)`` walks from the folders ``items`` with ``n``
workers and yields batches of paths.  Each worker walks depth first from its own stack; when
another is idle (a shared flag) a busy worker gives away the older half of its stack (the
biggest subtrees left) through the parent.  With ``walker.follow`` a worker gives away every
folder it finds, so the parent enters each real folder (device, inode) once.

Messages from a worker start with a tag byte: P paths (NUL-joined UTF-8), W folders given away
(pickled), I idle, E a warning, X a failure (its last message: one line).  The parent sends
pickled lists of folders, and an empty message to finish.

Workers are forked with a bare ``os.fork()`` (the session and the MCP server walk from a
thread: a lock another thread held stays locked for ever in the child), so the child runs
only ``_child_main`` under these rules:

- no I/O but reading folders and ignore files and its two pipes; it never raises: a failure
  goes to the parent as one ``X`` message;
- nothing imported after the fork: what it needs is imported at the top of this module and
  ``ffind.fs.walk``, or by the parent just before the fork (``_fork_blocked``);
- it ends with ``os._exit`` (no exit handlers, no flush of inherited buffers), the cyclic GC
  off;
- it keeps only its two pipe ends (stdin, stdout and stderr on ``/dev/null``), so it holds no
  other walk's pipe and never the parent's output;
- every signal is blocked around ``fork()``, so no inherited Python handler runs in it; it
  unblocks SIGTERM only, and dies with its parent (``PR_SET_PDEATHSIG`` on Linux, and a
  ``getppid()`` check before each batch);
- a ``keep`` filter runs in the child: it must import nothing and take no lock.

Where there is no fork, workers are spawned through multiprocessing.  A walk's workers belong
to its ``Workers`` object; a generator left open is closed (its workers reaped) when collected.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator

from ffind.errors import FfindError

_P, _W, _I, _E, _X = 80, 87, 73, 69, 88
POLL = 0.05  # seconds: how often the parent looks at ``cancel`` while waiting for workers
FIRST_BATCH = 64  # the first batches are small so the first paths arrive at once
MAX_BATCH = 4096
FLUSH_AFTER = 0.02  # seconds: send what a worker has after this long, however few
_PR_SET_PDEATHSIG = 1


TYPE_CHECKING = False  # (not typing's: the walk's child of a cold search imports this module)
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Cancel(Protocol):
        def is_set(self) -> bool: ...

    class Walker(Protocol):
        follow: bool

        def scan(self, item: Any, out: list[str], stack: list[Any], warn: Warn | None,
                 seen: set[tuple[int, int]]) -> None: ...
else:  # (only annotations use them)
    Any = object

    class Cancel:
        """Anything with ``is_set()`` (a ``typing.Protocol`` for type checkers)."""

    class Walker:
        """What reads a folder (``walk._Walker``; a ``typing.Protocol`` for type checkers)."""


Warn = Callable[[str], None]
Keep = Callable[[list[str]], list[str]]
Item = tuple[Any, ...]
"""A folder to read; ``item[4]`` is its (device, inode) when the walk follows links."""


def _encode(paths: list[str]) -> bytes:
    return b"P" + "\0".join(paths).encode("utf-8", "surrogateescape")


def _worker_loop(walker: Walker, tasks: Any, results: Any, want: Any,
                 keep: Keep | None, parent: int | None = None) -> None:
    send = results.send_bytes

    def flush(out: list[str]) -> None:
        kept = out if keep is None else keep(out)
        if kept:
            send(_encode(kept))

    def warn(message: str) -> None:
        send(b"E" + message.encode("utf-8", "surrogateescape"))

    import pickle  # (a forked child: imported by the parent before the fork)

    scan = walker.scan
    follow = walker.follow
    seen: set[tuple[int, int]] = set()
    limit = FIRST_BATCH  # small first batches, so the first paths arrive at once
    try:
        while True:
            msg = tasks.recv_bytes()
            if not msg:
                return
            stack: list[Item] = pickle.loads(msg)
            out: list[str] = []
            last = time.monotonic()
            while stack:
                item = stack.pop()
                mine = len(stack)
                scan(item, out, stack, warn, seen)
                if follow:  # the new folders go to the parent, which chooses the real
                    if len(stack) > mine:  # folders to enter (the others it chose already)
                        send(b"W" + pickle.dumps(stack[mine:], pickle.HIGHEST_PROTOCOL))
                        del stack[mine:]
                elif want[0] and len(stack) > 1:
                    k = len(stack) // 2  # the bottom half: the shallowest, biggest subtrees
                    send(b"W" + pickle.dumps(stack[:k], pickle.HIGHEST_PROTOCOL))
                    del stack[:k]
                if len(out) >= limit or (out and time.monotonic() - last > FLUSH_AFTER):
                    if parent is not None and os.getppid() != parent:
                        return  # the parent is gone
                    flush(out)
                    out = []
                    limit = min(limit * 2, MAX_BATCH)
                    last = time.monotonic()
            if out:
                flush(out)
            send(b"I")
    except (EOFError, OSError):
        return  # the parent went away


def _report_failure(results: Any, exc: BaseException, *, framed: bool = True) -> None:
    """``X`` and the failure in one line, as a message (``framed``) or as raw bytes."""
    text = b"X" + " ".join(f"{type(exc).__name__}: {exc}".split()).encode("utf-8", "replace")
    with contextlib.suppress(BaseException):
        (results.send_bytes if framed else results.write)(text)


def _isolate(pipes: list[Pipe]) -> None:
    """Keep only ``pipes`` (moved above 2): the standard descriptors to /dev/null, every other
    one closed."""
    if sys.platform == "win32":
        return  # (never: there is no fork)
    import fcntl  # (a forked child: imported by the parent before the fork)

    for pipe in pipes:
        if pipe.fileno() <= 2:  # the parent ran with a standard descriptor closed
            pipe.replace(fcntl.fcntl(pipe.fileno(), fcntl.F_DUPFD, 3))
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd, inheritable=False)
    low = 3
    for fd in sorted(pipe.fileno() for pipe in pipes):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, max(low, os.sysconf("SC_OPEN_MAX")))


def _child_main(walker: Walker, tasks: Pipe, results: Pipe, want: Any, keep: Keep | None,
                parent: int, arm: Callable[[], None] | None) -> None:
    """A forked worker: see the module docstring on what it may touch.  Never returns."""
    import signal  # (imported by the parent before the fork)

    code = 0
    try:
        gc.disable()
        if arm is not None:
            arm()  # die with the parent...
        if os.getppid() != parent:
            return  # ...which may have died before that
        _isolate([tasks, results])
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        _worker_loop(walker, tasks, results, want, keep, parent)
    except BaseException as exc:  # reported to the parent, never printed here
        code = 1
        _report_failure(results, exc)
    finally:
        os._exit(code)


def _spawn_main(walker: Walker, tasks: Any, results: Any, want: Any,
                keep: Keep | None) -> None:
    """A spawned worker (a fresh interpreter, no fork hazards)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills us
    try:
        _worker_loop(walker, tasks, results, want, keep, os.getppid())
    except BaseException as exc:
        _report_failure(results, exc)
        raise SystemExit(1) from None


def _death_signal() -> Callable[[], None] | None:
    """What a forked child calls to die with its parent (Linux ``prctl``), made in the parent."""
    if not sys.platform.startswith("linux"):
        return None
    import signal

    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    return functools.partial(prctl, _PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


class Pipe:
    """One end of a pipe carrying messages (a 4-byte length, then the bytes), as
    multiprocessing's ``Connection`` (without its import); ``recv_bytes`` raises EOFError
    when the other end closed."""

    __slots__ = ("_fd",)

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @staticmethod
    def pair() -> tuple[Pipe, Pipe]:
        """(reading end, writing end)."""
        r, w = os.pipe()
        return Pipe(r), Pipe(w)

    def fileno(self) -> int:
        return self._fd

    def replace(self, fd: int) -> None:
        """Use ``fd`` (a duplicate) from now on, closing the old descriptor."""
        os.close(self._fd)
        self._fd = fd

    def write(self, data: bytes) -> None:
        """Write ``data`` whole, unframed."""
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def send_bytes(self, data: bytes) -> None:
        self.write(len(data).to_bytes(4, "big") + data)

    def _read(self, n: int) -> bytes:
        data = os.read(self._fd, n)
        if len(data) == n:
            return data
        parts = [data]
        while n > len(data):
            if not data:
                raise EOFError
            n -= len(data)
            data = os.read(self._fd, n)
            parts.append(data)
        return b"".join(parts)

    def recv_bytes(self) -> bytes:
        return self._read(int.from_bytes(self._read(4), "big"))

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


def _set_pipe_size(conn: Any) -> None:
    """A bigger pipe (Linux) lets a worker run ahead of a busy consumer for longer."""
    if sys.platform == "linux":
        import fcntl

        with contextlib.suppress(OSError):
            fcntl.fcntl(conn.fileno(), 1031, 1 << 20)  # F_SETPIPE_SZ


class _Forked:
    """A worker started with ``os.fork``: kill and reap it by pid."""

    def __init__(self, pid: int) -> None:
        import signal  # (imported by the fork already)

        self.pid = pid
        self.exitcode: int | None = None  # as multiprocessing: -N when killed by signal N
        self.reaped = False
        self._sigkill = signal.SIGKILL  # (kept: nothing can be imported at the exit)

    def kill(self) -> None:
        if not self.reaped:  # never signal a pid that may have been reused
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, self._sigkill)

    def join(self, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.reaped:
            try:
                pid, status = os.waitpid(self.pid, 0 if deadline is None else os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): code unknown
                self.reaped = True
                return
            if pid:
                self.reaped = True
                self.exitcode = os.waitstatus_to_exitcode(status)
                return
            if deadline is not None and time.monotonic() >= deadline:
                return
            time.sleep(0.002)

    def is_alive(self) -> bool:
        self.join(0)
        return not self.reaped


def _fork_available() -> bool:
    """Workers are forked where there is ``os.fork``; else spawned through multiprocessing."""
    return hasattr(os, "fork")


class Workers:
    """One parallel walk's worker processes and the parent's ends of their pipes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.procs: list[Any] = []  # _Forked, or multiprocessing.Process (spawn; never closed)
        self.tasks: list[Any] = []
        self.results: list[Any] = []
        self.stopped = False
        self.owner = os.getpid()

    def end(self, *, graceful: bool) -> None:
        """Stop the workers (idempotent, from any thread): ask them to finish when
        ``graceful``, kill the rest, and reap them all.  The pipes stay open (the walking
        thread may be waiting on them); ``close`` closes them."""
        with self.lock:
            if self.stopped:
                return
            self.stopped = True
            if os.getpid() != self.owner:
                return  # a copy inherited by a child process: not ours to stop
            if graceful:
                for conn in self.tasks:
                    with contextlib.suppress(OSError):
                        conn.send_bytes(b"")
                for proc in self.procs:
                    proc.join(1.0)
            for proc in self.procs:
                if proc.is_alive():
                    proc.kill()
            for proc in self.procs:
                proc.join()

    def close(self, *, graceful: bool) -> None:
        """``end``, then close the pipes (the walking thread only)."""
        self.end(graceful=graceful)
        if os.getpid() != self.owner:
            return
        for conn in (*self.tasks, *self.results):
            conn.close()

    def died(self, i: int) -> str:
        """Why worker ``i``'s pipe ended: one line."""
        proc = self.procs[i]
        proc.join(2.0)  # the pipe closes a moment before the process can be reaped
        code = proc.exitcode
        return ended(code, "still running" if code is None and proc.is_alive()
                     else "exit status unknown")

    def start(self, walker: Walker, n: int, want: Any, keep: Keep | None,
              mp: Any = None) -> None:
        """Start ``n`` workers: forked, or spawned through the multiprocessing context ``mp``."""
        arm = _death_signal() if mp is None else None
        for _ in range(n):
            try:
                pipe = Pipe.pair if mp is None else functools.partial(mp.Pipe, duplex=False)
                task_r, task_w = pipe()
                try:
                    res_r, res_w = pipe()
                except OSError:
                    task_r.close()
                    task_w.close()
                    raise
            except OSError as exc:  # EMFILE
                raise FfindError(f"cannot start the walk's workers: {exc}") from None
            _set_pipe_size(res_w)
            self.tasks.append(task_w)
            self.results.append(res_r)
            try:
                if mp is None:
                    self.procs.append(_Forked(_fork(walker, task_r, res_w, want, keep, arm)))
                else:
                    proc = mp.Process(target=_spawn_main, name="ffind-walk",
                                      args=(walker, task_r, res_w, want, keep), daemon=True)
                    proc.start()
                    self.procs.append(proc)
            except OSError as exc:  # fork: EAGAIN, ENOMEM
                raise FfindError(f"cannot start the walk's workers: {exc}") from None
            finally:
                task_r.close()
                res_w.close()


def _fork(walker: Walker, task_r: Pipe, res_w: Pipe, want: Any, keep: Keep | None,
          arm: Callable[[], None] | None) -> int:
    """Fork one worker with every signal blocked (see the module docstring); its pid."""
    parent = os.getpid()
    return _fork_blocked(lambda: _child_main(walker, task_r, res_w, want, keep, parent, arm))


def _fork_blocked(child: Callable[[], None], *, preload_pickle: bool = True) -> int:
    """``os.fork()`` with every signal blocked; the child runs ``child`` (never returns), the
    parent gets the pid.  What a child uses is imported first (``preload_pickle=False``:
    the child imports ``pickle`` if it needs it; only from a process with one thread).
    Raises OSError as ``os.fork``."""
    if preload_pickle:
        import pickle  # noqa: F401
    import signal
    import warnings

    if sys.platform != "win32":
        import fcntl  # noqa: F401

    blocked = hasattr(signal, "pthread_sigmask")
    if blocked:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        with warnings.catch_warnings():
            # (Python >= 3.12 warns about fork() with threads: the module docstring)
            warnings.filterwarnings("ignore", ".* is multi-threaded", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            child()  # never returns
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return pid


def _channel(fork: bool) -> tuple[Any, Any, Callable[..., list[Any]]]:
    """(the multiprocessing context or None, the shared "a worker is idle" byte, wait)."""
    if fork:
        import mmap
        import select

        def wait(conns: list[Any], timeout: float) -> list[Any]:
            # (poll, not select: a long-lived server may hold descriptors above FD_SETSIZE)
            poller = select.poll()
            for conn in conns:
                poller.register(conn.fileno(), select.POLLIN)
            ready = {fd for fd, _ in poller.poll(timeout * 1000)}
            return [conn for conn in conns if conn.fileno() in ready]

        return None, mmap.mmap(-1, 1), wait
    import multiprocessing
    import multiprocessing.connection

    mp = multiprocessing.get_context("spawn")
    return mp, mp.RawArray("b", 1), multiprocessing.connection.wait


def _unseen(items: list[Item], seen: set[Any]) -> list[Item]:
    """The folders whose real folder (``item[4]``) no worker has entered yet; now seen."""
    new = []
    for item in items:
        if item[4] not in seen:
            seen.add(item[4])
            new.append(item)
    return new


def _exiting() -> bool:
    """The main thread has finished: the interpreter is exiting (its exit handlers run)."""
    return not threading.main_thread().is_alive()


def run(walker: Walker, items: list[Item], n: int, cancel: Cancel | None, warn: Warn | None,
        keep: Keep | None = None) -> Iterator[list[str]]:
    """The walk from the folders ``items`` with ``n`` workers, in batches; see the module
    docstring."""
    import pickle

    mp, want, wait = _channel(_fork_available())
    workers = Workers()
    finished = False
    seen = {item[4] for item in items} if walker.follow else None
    try:
        workers.start(walker, n, want, keep, mp)
        task_conns = workers.tasks
        which = {conn: i for i, conn in enumerate(workers.results)}
        queue: list[Item] = list(items)
        idle = set(range(n))
        while True:
            handout = []
            while idle and queue:  # hand out folders: an equal share to each idle worker
                share = max(1, len(queue) // len(idle))
                handout.append((idle.pop(), queue[-share:]))
                del queue[-share:]
            want[0] = 1 if idle else 0  # before the hand-out, so a busy worker sees it at once
            for i, give in handout:
                task_conns[i].send_bytes(pickle.dumps(give, pickle.HIGHEST_PROTOCOL))
            if len(idle) == n:
                finished = True
                return
            if cancel is not None and cancel.is_set():
                return
            for conn in wait(list(which), timeout=POLL):
                i = which[conn]
                try:
                    msg = conn.recv_bytes()
                except (EOFError, OSError):
                    if workers.stopped or (cancel is not None and cancel.is_set()) or _exiting():
                        return  # stopped on purpose (cancel, or the interpreter is exiting)
                    raise FfindError(workers.died(i)) from None
                tag = msg[0]
                if tag == _P:
                    yield msg[1:].decode("utf-8", "surrogateescape").split("\0")
                elif tag == _W:
                    given: list[Item] = pickle.loads(msg[1:])
                    queue.extend(given if seen is None else _unseen(given, seen))
                elif tag == _I:
                    idle.add(i)
                elif tag == _E and warn is not None:
                    warn(msg[1:].decode("utf-8", "surrogateescape"))
                elif tag == _X:
                    text = msg[1:].decode("utf-8", "replace")
                    raise FfindError(f"a walk worker process failed: {text}")
                if cancel is not None and cancel.is_set():
                    return
    finally:
        workers.close(graceful=finished)


def fork_call(fn: Callable[[], bytes]) -> tuple[int, int] | None:
    """Run ``fn`` in a forked child, as a worker is run (the module docstring): ``(pid, fd)``,
    where the child writes ``b"K"``, the length of ``fn()``'s bytes (8 bytes, big-endian: an
    answer cut short shows) and the bytes, or ``b"X"`` and one line when it raised.  The
    caller reads ``fd`` to its end, closes it and reaps ``pid``.  ``fn`` is bounded work that
    imports nothing.  None where there is no fork, or when it fails."""
    forked = _fork_piped(lambda read, write: _call_main(fn, read, write), preload_pickle=True)
    return None if forked is None else (forked[0], forked[1].fileno())


def _fork_piped(child: Callable[[Pipe, Pipe], None], *, big: bool = False,
                preload_pickle: bool = False) -> tuple[int, Pipe] | None:
    """Fork ``child(read, write)`` with a new pipe (``big``: enlarged) as ``_fork_blocked``
    does; the child's pid and the pipe's read end, or None (no fork, or it failed)."""
    if not _fork_available():
        return None
    try:
        read, write = Pipe.pair()
    except OSError:
        return None
    if big:
        _set_pipe_size(write)
    try:
        pid = _fork_blocked(lambda: child(read, write), preload_pickle=preload_pickle)
    except OSError:  # fork: EAGAIN, ENOMEM
        read.close()
        write.close()
        return None
    write.close()
    return pid, read


def ended(code: int | None, unknown: str = "exit status unknown") -> str:
    """Why a walk's worker process ended before its work was done, in one line, from its exit
    code (None: ``unknown``)."""
    if code is None:
        how = unknown
    elif code < 0:
        import signal  # (imported by the parent before any fork)

        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit code {code}"
    return f"a walk worker process ended unexpectedly ({how})"


def fork_stream(fn: Callable[[Callable[[bytes], None]], None]) -> tuple[int, Pipe] | None:
    """Run ``fn(send)`` in a forked child, as a worker is run (the module docstring):
    ``(pid, pipe)``, where each ``send(message)`` arrives as one ``pipe.recv_bytes()`` (a
    bigger pipe: the child runs ahead of a parent busy with its imports), then ``b"D"`` when
    ``fn`` returned, or ``b"X"`` and one line when it raised.  The caller reads the pipe,
    closes it and reaps ``pid`` (killing it first if it stops early).  ``fn`` is bounded work
    that imports nothing but ``pickle`` (imported first when this process has other threads,
    which might hold the import lock).  None where there is no fork, or when it fails."""
    return _fork_piped(lambda read, write: stream_main(fn, read, write), big=True,
                       preload_pickle=threading.active_count() > 1)


def stream_main(fn: Callable[[Callable[[bytes], None]], None], read: Pipe,
                write: Pipe) -> None:
    """The child of ``fork_stream``.  Never returns."""
    def body() -> None:
        fn(write.send_bytes)
        write.send_bytes(b"D")

    _forked_main(body, read, write, framed=True)


def _call_main(fn: Callable[[], bytes], read: Pipe, write: Pipe) -> None:
    """The child of ``fork_call``.  Never returns."""
    def body() -> None:
        answer = fn()
        write.write(b"K" + len(answer).to_bytes(8, "big") + answer)

    _forked_main(body, read, write, framed=False)


def _forked_main(body: Callable[[], None], read: Pipe, write: Pipe, *, framed: bool) -> None:
    """A forked child with one pipe (the module docstring): ``body``, then ``os._exit``; a
    failure goes to the parent as ``X`` and one line (``framed``: as a message)."""
    code = 0
    try:
        gc.disable()
        read.close()
        _isolate([write])
        body()
    except BaseException as exc:  # reported to the parent, never printed here
        code = 1
        _report_failure(write, exc, framed=framed)
    finally:
        os._exit(code)
