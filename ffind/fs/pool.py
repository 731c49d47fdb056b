"""The walk's worker processes: ``run(walker, items, n, cancel, warn, keep)`` walks from the
folders ``items`` with ``n`` workers and yields batches of paths.

Each worker walks depth first from its own stack and gives the older half (the biggest subtrees)
to the parent when another is idle; with ``walker.follow`` it gives every folder it finds, so the
parent enters each real folder once.  Worker messages start with a tag byte: P paths
(NUL-joined), W folders given away (pickled), I idle, E a warning, X a failure (one line).

Workers are forked with a bare ``os.fork()`` (the session walks from a thread, and a lock held
by another thread would stay locked in the child), so a forked child (``_child``,
``fork_stream``) follows these rules: every signal blocked around the fork, SIGTERM alone
unblocked; nothing imported after the fork (the parent imports it first); only its pipes kept
(stdin, stdout and stderr on ``/dev/null``); it never raises (a failure is one ``X`` message)
and ends with ``os._exit``, the cyclic GC off; it dies with its parent (``PR_SET_PDEATHSIG``
and a ``getppid()`` check); a ``keep`` filter it runs imports nothing and takes no lock.
Without ``os.fork`` (Windows) a walk reads in its own process.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator

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


def walk_stack(walker: Walker, stack: list[Item], seen: set[tuple[int, int]],
               cancel: Cancel | None, warn: Warn | None, keep: Keep | None = None,
               budget: float | None = None, hand_over: Callable[[], bool] | None = None,
               clock: Callable[[], float] = time.monotonic, wanted: Any = None,
               first: int = FIRST_BATCH, after: Callable[[list[Item], int], None] | None = None,
               ) -> Generator[list[str], None, list[Item]]:
    """Read from the folders ``stack`` (the last first) in batches (the first of ``first``
    paths, then doubling); stop once ``budget`` (by ``clock``) is spent unless ``hand_over``
    says no (then it is asked again after each further ``budget``), or on ``wanted[0]``;
    ``after(stack, n)`` runs after each folder read (``n``: the folders before it).  The
    folders left."""
    out: list[str] = []
    limit = first
    last = time.monotonic()
    start = clock()
    scan = walker.scan
    read = 0
    while stack:
        if cancel is not None and cancel.is_set():
            return []
        # (the clock is asked every 16th folder: before each, it was ~5% of a walk's CPU)
        if budget is not None and not read & 15 and clock() - start >= budget:
            if hand_over is None or hand_over():
                break
            start = clock()  # (asked again after another ``budget``)
        read += 1
        if wanted is not None and wanted[0] and len(stack) > 1:
            break
        item = stack.pop()
        mine = len(stack)
        scan(item, out, stack, warn, seen)
        if after is not None:
            after(stack, mine)
        if len(out) >= limit or (out and time.monotonic() - last > FLUSH_AFTER):
            kept = out if keep is None else keep(out)
            if kept:
                yield kept
            out = []
            limit = min(limit * 2, MAX_BATCH)
            last = time.monotonic()
    if out and keep is not None:
        out = keep(out)
    if out:
        yield out
    return stack


class _Orphaned:
    """``is_set()`` once the parent ``pid`` is gone (a worker then stops)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def is_set(self) -> bool:
        return os.getppid() != self.pid


def _worker_loop(walker: Walker, tasks: Pipe, results: Pipe, want: Any,
                 keep: Keep | None, parent: int) -> None:
    """A worker's walk of each stack of folders the parent sends (an empty message: done)."""
    import signal  # (imported by the parent before the fork)

    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    send = results.send_bytes

    def warn(message: str) -> None:
        send(b"E" + message.encode("utf-8", "surrogateescape"))

    import pickle  # (a forked child: imported by the parent before the fork)

    def give(stack: list[Item], mine: int) -> None:
        if walker.follow:  # the new folders go to the parent, which chooses the real folders
            if len(stack) > mine:  # to enter (the others it chose already)
                send(b"W" + pickle.dumps(stack[mine:], pickle.HIGHEST_PROTOCOL))
                del stack[mine:]
        elif want[0] and len(stack) > 1:
            k = len(stack) // 2  # the bottom half: the shallowest, biggest subtrees
            send(b"W" + pickle.dumps(stack[:k], pickle.HIGHEST_PROTOCOL))
            del stack[:k]

    orphaned = _Orphaned(parent)
    seen: set[tuple[int, int]] = set()
    first = FIRST_BATCH  # small first batches, so the first paths arrive at once
    try:
        while msg := tasks.recv_bytes():
            for batch in walk_stack(walker, pickle.loads(msg), seen, orphaned, warn, keep,
                                    first=first, after=give):
                send(b"P" + "\0".join(batch).encode("utf-8", "surrogateescape"))
            if orphaned.is_set():
                return
            send(b"I")
            first = MAX_BATCH
    except (EOFError, OSError):
        return  # the parent went away


def _report_failure(results: Any, exc: BaseException) -> None:
    """``X`` and the failure in one line, as a message."""
    text = b"X" + " ".join(f"{type(exc).__name__}: {exc}".split()).encode("utf-8", "replace")
    with contextlib.suppress(BaseException):
        results.send_bytes(text)


def _isolate(pipes: list[Pipe]) -> None:
    """Keep only ``pipes`` (moved above 2); the standard descriptors on /dev/null."""
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


def _child(run: Callable[[], None], pipes: list[Pipe], parent: int | None = None,
           arm: Callable[[], None] | None = None) -> None:
    """A forked child (the module docstring's rules): ``run()`` with only ``pipes`` kept, a
    failure reported as ``X`` on the last; ``arm``: die with the process ``parent``.  Never
    returns."""
    code = 0
    try:
        gc.disable()
        if arm is not None:
            arm()  # die with the parent...
        if parent is not None and os.getppid() != parent:
            return  # ...which may have died before that
        _isolate(pipes)
        run()
    except BaseException as exc:  # reported to the parent, never printed here
        code = 1
        _report_failure(pipes[-1], exc)
    finally:
        os._exit(code)


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
    multiprocessing's ``Connection`` without its import; ``recv_bytes`` raises EOFError."""

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

    def send_bytes(self, data: bytes) -> None:
        view = memoryview(len(data).to_bytes(4, "big") + data)
        while view:
            view = view[os.write(self._fd, view):]

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


class Child:
    """A forked child (a worker, or ``fork_stream``'s): kill and reap it by pid."""

    def __init__(self, pid: int) -> None:
        from ffind.fs.load import signals

        self.pid = pid
        self.exitcode: int | None = None  # -N when killed by signal N
        self.reaped = False
        self._sigkill = signals().SIGKILL  # (kept: nothing can be imported at the exit)

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


def can_fork() -> bool:
    """Whether there is ``os.fork`` (else a walk reads in its own process)."""
    return hasattr(os, "fork")


class Workers:
    """One parallel walk's worker processes and the parent's ends of their pipes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.procs: list[Child] = []
        self.tasks: list[Pipe] = []
        self.results: list[Pipe] = []
        self.stopped = False
        self.owner = os.getpid()

    def end(self, *, graceful: bool) -> None:
        """Stop the workers (idempotent, from any thread): ask them to finish when
        ``graceful``, kill the rest, reap them all; the pipes stay open until ``close``."""
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

    def start(self, walker: Walker, n: int, want: Any, keep: Keep | None) -> None:
        """Fork ``n`` workers."""
        arm = _death_signal()
        for _ in range(n):
            try:
                task_r, task_w = Pipe.pair()
                try:
                    res_r, res_w = Pipe.pair()
                except OSError:
                    task_r.close()
                    task_w.close()
                    raise
            except OSError as exc:  # EMFILE
                raise FfindError(f"cannot start the walk's workers: {exc}") from None
            _set_pipe_size(res_w)
            self.tasks.append(task_w)
            self.results.append(res_r)
            parent = os.getpid()
            work = functools.partial(_worker_loop, walker, task_r, res_w, want, keep, parent)
            try:
                pid = _fork_blocked(functools.partial(_child, work, [task_r, res_w], parent, arm))
                self.procs.append(Child(pid))
            except OSError as exc:  # fork: EAGAIN, ENOMEM
                raise FfindError(f"cannot start the walk's workers: {exc}") from None
            finally:
                task_r.close()
                res_w.close()


def _fork_blocked(child: Callable[[], None], *, preload_pickle: bool = True) -> int:
    """``os.fork()`` with every signal blocked, what the child uses imported first; the child
    runs ``child`` (never returns), the parent gets the pid."""
    if preload_pickle:
        import pickle  # noqa: F401
    import fcntl  # noqa: F401
    import signal
    import warnings

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


def _wait(conns: list[Pipe], timeout: float) -> list[Pipe]:
    """The pipes with something to read within ``timeout`` seconds (poll, not select: a
    long-lived server may hold descriptors above FD_SETSIZE)."""
    import select

    poller = select.poll()
    for conn in conns:
        poller.register(conn.fileno(), select.POLLIN)
    ready = {fd for fd, _ in poller.poll(timeout * 1000)}
    return [conn for conn in conns if conn.fileno() in ready]


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
    """The walk from the folders ``items`` with ``n`` workers, in batches."""
    import mmap
    import pickle

    want = mmap.mmap(-1, 1)  # (a worker is idle: the busy ones give folders away)
    workers = Workers()
    finished = False
    seen = {item[4] for item in items} if walker.follow else None
    try:
        workers.start(walker, n, want, keep)
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
            for conn in _wait(list(which), timeout=POLL):
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


def ended(code: int | None, unknown: str = "exit status unknown") -> str:
    """Why a walk's worker process ended early, in one line, from its exit code."""
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
    """Run ``fn(send)`` in a forked child under the rules above: ``(pid, pipe)``, each
    ``send(message)`` one ``pipe.recv_bytes()``, then ``b"D"`` (or ``b"X"`` and one line when
    ``fn`` raised).  The caller reads, closes the pipe and reaps ``pid``; None: no fork."""
    if not can_fork():
        return None
    try:
        read, write = Pipe.pair()
    except OSError:
        return None
    _set_pipe_size(write)  # (the child runs ahead of a parent busy with its imports)
    try:  # (pickle imported first when another thread might hold the import lock)
        pid = _fork_blocked(lambda: stream_main(fn, read, write),
                            preload_pickle=threading.active_count() > 1)
    except OSError:  # fork: EAGAIN, ENOMEM
        read.close()
        write.close()
        return None
    write.close()
    return pid, read


def stream_main(fn: Callable[[Callable[[bytes], None]], None], read: Pipe,
                write: Pipe) -> None:
    """The child of ``fork_stream``: ``fn``, then ``b"D"`` (``read``, the parent's end, closed
    with every descriptor but ``write``).  Never returns."""

    def run() -> None:
        fn(write.send_bytes)
        write.send_bytes(b"D")

    _child(run, [write])
