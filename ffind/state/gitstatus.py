"""Files with uncommitted changes count as visits: ``git status`` run beside the walk at the
lowest CPU priority, asked once the walk is done (``changed(wait=0)``) and stopped if it has not
answered.  A complete answer is remembered with the signature of HEAD and the index, and used
while both are unchanged by a search whose own ``git status`` has not answered.
"""

from __future__ import annotations

import contextlib
import os
import threading

from ffind.state.git import common_dir, find_git_dir, find_repo_top

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from ffind.engine.index import VisitSource

REMEMBERED_FORMAT = b"ffind-gitstatus 1\n"


class GitChanges:
    """``git status`` of the work tree holding ``root``, its answer read in a thread of its
    own.  ``remember``: the folder of remembered answers (default ``xdg_dir("cache")``;
    ``""``: none).  Started with ``os.posix_spawnp``, not ``subprocess`` (whose import and
    start from a thread cost the search more than the search waits)."""

    def __init__(self, root: str, *, remember: str | None = None) -> None:
        self.root = os.path.abspath(root)
        self._paths: frozenset[str] | None = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._pid: int | None = None  # until reaped (so never another process's)
        self._stopped = False
        self._file: str | None = None
        self._key = ""
        self._fallback: frozenset[str] | None = None
        top = find_repo_top(self.root)
        if top is None:
            self._finish(frozenset())
            return
        self._top = top
        if remember != "":
            self._file, self._key = _remembered_file(top, remember)
        import signal  # (kept for ``stop``: nothing can be imported at the exit)

        self._sigkill = signal.SIGKILL
        # SIGTERM, SIGINT and SIGHUP wait until the pid is kept (their handler raises where
        # the code is: between the spawn's return and the store, the pid would be lost)
        mask = signal.pthread_sigmask(signal.SIG_BLOCK,
                                      {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
        try:
            pid, stdout = _spawn(
                ["git", "-C", top, "-c", "core.quotePath=false", "status", "--porcelain=v1",
                 "-z", "--untracked-files=all", "--no-renames"],
                {**os.environ, "GIT_OPTIONAL_LOCKS": "0"},  # never the index lock
            )
        except BaseException as e:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            if not isinstance(e, OSError):
                raise
            self._finish(frozenset())
            return
        self._pid = pid
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # (a signal that came lands here)
            with contextlib.suppress(OSError, AttributeError):  # (git's threads inherit both)
                os.setpriority(os.PRIO_PROCESS, pid, 19)
            with contextlib.suppress(OSError, AttributeError):  # only a CPU nothing else wants
                os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
            threading.Thread(target=self._run, args=(pid, stdout), name="ffind-git-status",
                             daemon=True).start()
        except BaseException:  # (SIGTERM or Ctrl-C here: no one else could stop it)
            self.stop()
            raise

    def _finish(self, paths: frozenset[str]) -> None:
        self._paths = paths
        self._done.set()

    def _run(self, pid: int, stdout: int) -> None:
        """(In its thread) read the answer of ``git status`` (``pid``) from ``stdout``."""
        out = _read_all(stdout)
        # ended, but not reaped yet (its pid stays its own while ``stop`` may kill it)
        with contextlib.suppress(ChildProcessError):
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        with self._lock:
            try:
                code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            except ChildProcessError:  # (reaped by someone else: no answer)
                code = -1
            self._pid = None
        if code == 0 and self._file is not None and not self._stopped:
            _save(self._file, self._key, out)
        self._finish(_parse(out, self._top, self.root) if code == 0 else frozenset())

    def changed(self, wait: float = 0.0, *, give_up: bool = True) -> frozenset[str]:
        """The changed paths under the root (relative to it), if ``git status`` has answered
        within ``wait`` seconds; else the remembered answer if still valid, or nothing (and
        with ``give_up`` it is stopped; a session asks again on a later keystroke)."""
        if not self._done.wait(wait):
            if give_up:
                self.stop()
            return self._remembered()
        return self._paths or frozenset()

    def answered(self) -> bool:
        """Whether ``git status`` has ended (answered, failed or been stopped)."""
        return self._done.is_set()

    def _remembered(self) -> frozenset[str]:
        """The remembered answer (read once), if the repository's HEAD and index are as they
        were when it was taken; else nothing."""
        if self._fallback is None:
            out = None if self._file is None else _load(self._file, self._key)
            self._fallback = frozenset() if out is None else _parse(out, self._top, self.root)
        return self._fallback

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self._pid, self._sigkill)


def _spawn(argv: list[str], env: dict[str, str]) -> tuple[int, int]:
    """Start ``argv`` (found on ``PATH``) with its output on a pipe, stdin and stderr on
    ``/dev/null`` and ``SIGPIPE``/``SIGXFSZ`` reset as ``subprocess`` does: (its pid, the
    pipe's read end).  Raises OSError when it cannot be started."""
    import signal

    read, write = os.pipe()
    try:
        pid = os.posix_spawnp(argv[0], argv, env, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, write, 1),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ], setsigdef=(signal.SIGPIPE, signal.SIGXFSZ), setsigmask=())
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return pid, read


def _read_all(fd: int) -> bytes:
    """Everything until the end of the pipe ``fd``, which is closed."""
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _signature(top: str) -> str | None:
    """What a remembered answer of the work tree ``top`` depends on besides the files: its
    HEAD, the branch's file, the packed refs and the index; None when they cannot be read."""
    git_dir = find_git_dir(top)
    if git_dir is None:
        return None
    parts = [top]
    try:
        with open(os.path.join(git_dir, "HEAD"), "rb") as f:
            head = f.read(4096)
        parts.append(head.decode("utf-8", "surrogateescape").strip())
        names = ["index"]
        if head.startswith(b"ref: "):
            names.append(head[5:].strip().decode("utf-8", "surrogateescape"))
        for name in names:
            try:
                st = os.stat(os.path.join(git_dir, name))
            except FileNotFoundError:
                parts.append(f"{name} -")
                continue
            parts.append(f"{name} {st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} "
                         f"{st.st_ctime_ns}")
        try:
            st = os.stat(os.path.join(common_dir(git_dir), "packed-refs"))
            parts.append(f"packed-refs {st.st_ino} {st.st_size} {st.st_mtime_ns}")
        except FileNotFoundError:
            parts.append("packed-refs -")
    except OSError:
        return None
    return "\n".join(parts)


def _remembered_file(top: str, folder: str | None) -> tuple[str | None, str]:
    """Where the remembered answer of the work tree ``top`` lives, and the signature it must
    carry to be used; (None, "") when there is none to read or write."""
    key = _signature(top)
    if key is None:
        return None, ""
    import zlib

    from ffind.state.paths import xdg_dir

    data = top.encode("utf-8", "surrogateescape")
    name = f"git-{zlib.crc32(data):08x}{zlib.adler32(data):08x}.snapshot"
    return os.path.join(folder or xdg_dir("cache"), name), key


def _load(path: str, key: str) -> bytes | None:
    """The remembered ``git status`` output in ``path`` if it carries ``key``; else None."""
    from ffind.state.paths import open_own, private_dir

    if not private_dir(os.path.dirname(path), create=False):
        return None
    try:
        with open(open_own(path), "rb") as f:
            data = f.read(64 << 20)
    except OSError:
        return None
    head, sep, rest = data.partition(b"\n\0\n")
    want = REMEMBERED_FORMAT + key.encode("utf-8", "surrogateescape")
    return rest if sep and head == want else None


def _save(path: str, key: str, out: bytes) -> None:
    """Remember ``out`` under ``key``; a folder that cannot be written means nothing
    remembered."""
    from ffind.state.paths import write_private

    with contextlib.suppress(OSError):
        write_private(path, [REMEMBERED_FORMAT, key.encode("utf-8", "surrogateescape"),
                             b"\n\0\n", out], sync=False)


def _parse(out: bytes, top: str, root: str) -> frozenset[str]:
    """Porcelain v1 ``-z`` records (``XY path``), paths relative to the top, -> paths under
    ``root``, relative to it."""
    rel_root = os.path.relpath(root, top)
    prefix = "" if rel_root == "." else rel_root.replace(os.sep, "/") + "/"
    found = set()
    for record in out.split(b"\0"):
        if len(record) < 4 or record[2:3] != b" ":
            continue
        status, path = record[:2], os.fsdecode(record[3:])
        if b"D" in status or path.endswith("/"):
            continue
        if path.startswith(prefix):
            found.add(path[len(prefix):])
    return frozenset(found)


class Visits:
    """What ranking reads (a ``VisitSource``): the memory's visits plus, when ``git`` is
    given, one visit now for each file with uncommitted changes (never written to the
    memory)."""

    def __init__(self, memory: VisitSource | None, git: GitChanges | None = None, *,
                 wait_for_git: bool = False) -> None:
        self.memory = memory
        self.git = git
        self._give_up = not wait_for_git

    def _changes(self) -> frozenset[str]:
        return frozenset() if self.git is None else self.git.changed(0, give_up=self._give_up)

    def weights(self, root: str, now: float | None = None) -> dict[str, tuple[float, float]]:
        out = {} if self.memory is None else dict(self.memory.weights(root, now))
        changes = self._changes()
        if changes and self.git is not None and os.path.abspath(root) == self.git.root:
            for p in changes:
                w, r = out.get(p, (0.0, 0.0))
                out[p] = (w + 1.0, r + 1.0)
        return out

    def together(self, root: str, now: float | None = None) -> dict[str, float]:
        return {} if self.memory is None else self.memory.together(root, now)

    def stamp(self) -> object:
        # (the changes themselves: the same object until ``git status`` answers)
        return (None if self.memory is None else self.memory.stamp(), self._changes())
