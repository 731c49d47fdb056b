"""The total count of a query over a large index, computed in two processes (issue 14: the
picker's first complete frame is its rows AND their count).

The count is every match of the query (``len(index.run(query))``: the prefilter's ``cdist``
over every path and the typo pass; ~180 ms at 1M paths for ``prompt``), bound by a cost per
path that threads do not share (rapidfuzz holds the GIL while it reads the paths).  So the
server keeps, beside an index of ``SPLIT_MIN`` paths or more (on two CPUs or more) over
which a count was asked, a ``Counter``: a helper process forked from it after a reply,
holding the index as the fork left it (copy-on-write), which computes the match set of a
query over the ids ``[lo, hi)`` when asked and sends its lists back.  A count then splits
the ids once the rows are ranked (asked before them, the helper took the CPU the rows
needed: measured at load 3 on 2 CPUs, rows 66 ms against 29): the helper gets ``[mid, n)``,
the server counts ``[0, mid)`` (half each); the two sets are joined by ``MatchSet.merge``
(exactly the set of one ``run`` over every id), whose ``len`` is the count.

Why a helper kept alive, not a fork per count (as the ``stat`` pass does): both processes
touch every path's string (reference counts), so after a fork each page of them is copied
once, on first touch; at 1M paths that was ~30,000 page faults a side per count and made
each half as slow as the whole (measured: 155 ms a half against 180 ms in one process).
The helper pays that once, while the server is idle (``warm``, and the server's own part:
``touch``); later counts fault nothing.  Its cost is memory: every page either process
writes after the fork is copied, and the server writes all over its heap, so the helper
soon holds a copy of most of it (~360 MiB ``Pss`` at 1M paths, ``docs/cache.md``).

Exactness: the helper's lists are the engine's own ``MatchSet`` of its ids (its index is the
server's, unchanged: a helper is only ever used with the index object it was forked with,
and the server replaces indexes whole); the server never counts from it otherwise.  Any
failure (no fork, a helper that died, was killed, answered late or garbled): the server
counts that part itself (``Split.total``), with the same result.  While the helper has not
answered, the server goes on with the helper's part itself, ``CHUNK`` ids at a time, and
keeps whichever comes first: a helper starved of CPU (a loaded machine) never makes a count
slower than counting alone, by more than one chunk.
"""

from __future__ import annotations

import contextlib
import gc
import os
import select
import signal
import socket
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

from ffind.fs.pool import cpus
from ffind.resident import protocol

if TYPE_CHECKING:
    from ffind.engine.index import Index
    from ffind.engine.matchset import MatchSet

SPLIT_MIN = 500_000
"""Indexes of at least this many paths get a helper (below, a count costs less than ~90 ms
on this machine, and the memory the helper takes, ~360 MiB at 1M paths, is not paid back)."""
CHUNK = 65_536
"""Ids the server counts at a time of the helper's part while waiting for its answer."""
NICE = 3
"""The helper's niceness above the server's: on a busy machine it yields the CPU to the
server and to the client that asked (the server takes back what it has not counted)."""
WARM_QUERY = "ffind"
"""The query the helper counts once started (``warm``): it touches every path it will read
(copy-on-write faults) while the server is idle, not during a request."""


def wanted(index: Index) -> bool:
    """Whether ``index`` gets a helper: ``SPLIT_MIN`` paths or more, two CPUs or more."""
    return len(index) >= SPLIT_MIN and cpus() >= 2


class Counter:
    """A helper process holding ``index`` as it was when forked (``start``), which computes
    the match set of a query over an id range when asked (``Split``)."""

    def __init__(self, index: Index, pid: int, sock: socket.socket) -> None:
        self.index, self.pid, self.sock = index, pid, sock
        self.size = len(index)
        self.busy = False
        """A question was sent whose answer has not been read yet."""
        self.dead = False
        self.used = 0
        """Counts that used the helper's answer (for benchmarks)."""

    @classmethod
    def start(cls, index: Index) -> Counter | None:
        """Fork the helper of ``index`` (numpy made ready first, so that it reads ``cdist``
        as the server does) and have it warm up; None where there is no fork, or when it
        fails."""
        if not hasattr(os, "fork"):
            return None
        index.numpy_ready()  # (its import is done: the helper has no thread to finish it)
        # What a count imports is imported here, not in the helper: another thread of the
        # server may hold the import lock when it forks.
        len(index.run(WARM_QUERY, end=min(len(index), 64)))
        try:
            ours, theirs = socket.socketpair()
        except OSError:
            return None
        try:
            pid = _fork(lambda: _helper_main(index, theirs))
        except OSError:
            ours.close()
            theirs.close()
            return None
        theirs.close()
        counter = cls(index, pid, ours)
        counter.warm()
        return counter

    def touch(self, stop: Callable[[], bool]) -> None:
        """In the server, after the fork: count ``WARM_QUERY`` over the index ``CHUNK`` ids at a
        time, until ``stop()`` (a client waits), so that the pages a count writes (reference
        counts) are made the server's own now, not during the next request (measured at 1M:
        the first count after the fork 240 ms, the next ones 77-91)."""
        mid = self.size // 2
        for lo in range(0, mid, CHUNK):
            if stop():
                return
            len(self.index.run(WARM_QUERY, start=lo, end=min(lo + CHUNK, mid)))
        if not stop():
            self.index.top(self.index.run(WARM_QUERY), 20)  # (what the rows read)

    def fits(self, index: Index | None) -> bool:
        """Whether this helper may count for ``index`` (the one it was forked with, unchanged
        since) and is alive."""
        return not self.dead and index is self.index and len(index) == self.size

    def warm(self) -> None:
        """Have the helper count ``WARM_QUERY`` over its half of the ids (answer dropped)."""
        self.ask(WARM_QUERY, self.size // 2, self.size)

    def ask(self, query: str, lo: int, hi: int) -> bool:
        """Send the question ``(query, lo, hi)``; False when the helper is gone (or busy)."""
        if self.dead or self.busy:
            return False
        try:
            self.sock.sendall(protocol.encode((query, lo, hi)))
        except (OSError, ValueError):
            self.close()
            return False
        self.busy = True
        return True

    def answered(self) -> bool:
        """Whether the answer to the last question can be read without waiting."""
        if self.dead or not self.busy:
            return True
        try:
            return bool(select.select([self.sock], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def free(self) -> bool:
        """Whether a question may be sent now: an answer not read yet (the warm-up's, or one
        a count did without) is read and dropped when it has come."""
        if self.busy and self.answered():
            self.answer(None, 0, 0)
        return not self.dead and not self.busy

    def answer(self, query: str | None, lo: int, hi: int) -> MatchSet | None:
        """The answer to the last question (waiting for it), as the match set of ``query``
        over ``[lo, hi)``; None when it failed (the helper is then closed) or ``query`` is
        None (the answer read and dropped)."""
        if self.dead or not self.busy:
            return None
        self.busy = False
        try:
            self.sock.settimeout(None)
            reply = protocol.receive(self.sock)
        except (OSError, ValueError, EOFError):
            self.close()
            return None
        if query is None:
            return None
        return _match_set(self.index, query, lo, hi, reply)

    def close(self) -> None:
        """End the helper (idempotent)."""
        if self.dead:
            return
        self.dead = True
        self.sock.close()
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):  # (SIGCHLD ignored: reaped)
            os.waitpid(self.pid, 0)


def _match_set(index: Index, query: str, lo: int, hi: int, reply: object) -> MatchSet | None:
    """The helper's reply as a computed ``MatchSet`` (the lists it sent, one list object
    where the helper's were one); None when it is not a whole answer."""
    from ffind.engine.matchset import MatchSet

    if not (isinstance(reply, tuple) and len(reply) == 5 and reply[0] == "K"):
        return None
    _, sup, strict, loose, typos = reply
    if not all(isinstance(x, list | None) for x in (strict, loose)) or not isinstance(
            sup, list) or not isinstance(typos, list):
        return None
    strict = sup if strict is None else strict
    loose = strict if loose is None else loose
    return MatchSet(index, query, [(lo, hi)] if lo < hi else [], sup, strict, loose, typos)


class Split:
    """One count split with the helper: its half asked (``Split.begin``), then the total
    (``total``: the server's half, joined with the helper's)."""

    def __init__(self, counter: Counter, index: Index, query: str, mid: int) -> None:
        self.counter, self.index, self.query, self.mid = counter, index, query, mid
        self.helped = False
        """Whether the total used the helper's answer (for tests and benchmarks)."""

    @classmethod
    def begin(cls, counter: Counter | None, index: Index, query: str) -> Split | None:
        """Ask ``counter`` for its half of ``query``'s count over ``index`` (the last ids);
        None when it may not (another index, gone, still busy: the count is then the
        server's alone)."""
        if counter is None or not counter.fits(index) or not counter.free():
            return None
        n = len(index)
        mid = n // 2
        if not counter.ask(query, mid, n):
            return None
        return cls(counter, index, query, mid)

    def total(self, whole: MatchSet, steal: bool = True) -> int:
        """The count of ``whole`` (``index.run(query)``), exact: from ``whole`` itself when
        its ranking computed it (the helper's answer is then dropped), else the server's part
        joined with the helper's (or with the server's own count of it: see the module
        docstring; ``steal=False``: the helper's answer waited for instead)."""
        counter, index, query, mid = self.counter, self.index, self.query, self.mid
        if whole.computed:
            return len(whole)
        n = len(index)
        mine = index.run(query, end=mid)
        len(mine)  # (computes it, typos included, while the helper counts its part)
        done, stolen = mid, None  # (the helper's ids counted here: [mid, done))
        while done < n:
            if not steal or counter.answered():
                theirs = counter.answer(query, mid, n)
                if theirs is not None:
                    self.helped = True
                    counter.used += 1
                    return len(mine.merge(theirs))
                break  # (failed: the rest counted here, below)
            end = min(done + CHUNK, n)
            part = index.run(query, start=done, end=end)
            len(part)
            stolen = part if stolen is None else stolen.merge(part)
            done = end
        if done < n:
            rest = index.run(query, start=done)
            len(rest)
            stolen = rest if stolen is None else stolen.merge(rest)
        assert stolen is not None
        return len(mine.merge(stolen))  # (the helper's answer, if any, is dropped: ``free``)


def _fork(child: Callable[[], None]) -> int:
    """``os.fork()`` with every signal blocked across it; the child runs ``child()``, which
    never returns."""
    blocked = hasattr(signal, "pthread_sigmask")
    if blocked:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        with warnings.catch_warnings():  # (Python >= 3.12 warns of fork with threads)
            warnings.filterwarnings("ignore", ".* is multi-threaded", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            try:
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                    signal.signal(sig, signal.SIG_DFL)
                if blocked:
                    signal.pthread_sigmask(signal.SIG_SETMASK, old)
                child()
            finally:
                os._exit(1)
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return pid


def _helper_main(index: Index, sock: socket.socket) -> None:
    """The helper: keep only ``sock`` (the standard descriptors on /dev/null), then answer
    each question ``(query, lo, hi)`` with ``("K", superset, strict, loose, typos)`` (None
    for a list that is the one before it), or ``("X", why)``, until the socket closes (the
    server ended or let it go).  The cyclic GC is off (it would touch, and copy, every
    object's page)."""
    gc.disable()
    with contextlib.suppress(OSError):
        os.nice(NICE)
    keep = sock.fileno()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd not in (null, keep):
            os.dup2(null, fd, inheritable=False)
    os.closerange(3, keep)
    os.closerange(keep + 1, max(keep + 1, os.sysconf("SC_OPEN_MAX")))
    while True:
        try:
            question = protocol.receive(sock)
        except (OSError, ValueError, EOFError):
            os._exit(0)
        try:
            if not (isinstance(question, tuple) and len(question) == 3):
                raise ValueError("not a question")
            query, lo, hi = (str(question[0]), int(question[1]), int(question[2]))
            ms = index.run(query, start=lo, end=hi)
            sup, strict, loose, typos = ms.superset, ms.strict, ms.loose, ms.typos()
            reply: object = ("K", sup, None if strict is sup else strict,
                             None if loose is strict else loose, typos)
        except Exception as e:  # (answered, never raised: the server counts itself)
            reply = ("X", f"{type(e).__name__}: {e}")
        try:
            sock.sendall(protocol.encode(reply))
        except (OSError, ValueError):
            os._exit(0)
