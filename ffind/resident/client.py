"""The thin side of the resident server: ask it, start it, stop it (transport only: the caller
writes what it answers).  Imports builtins and ``protocol`` only (a served ``ffind QUERY`` pays
for them); every failure gives None, and the caller searches itself."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

from ffind.resident import protocol
from ffind.text import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket

    from ffind.options import SearchOptions

CONNECT_TIMEOUT = 0.1  # seconds to connect
REPLY_TIMEOUT = 30.0  # seconds to wait for an answer (a first walk may take a while)
LIVENESS = 0.2
"""Seconds after which a server not answering yet is looked at: one stopped, traced or dead is
given up at once (``stopped``)."""


class Found:
    """One match as the server sent it (``score``, ``path``, ``indices``, ``typo``, ``root``)."""

    __slots__ = ("indices", "path", "root", "score", "typo")

    def __init__(self, score: int, path: str, indices: list[int] | None, typo: bool) -> None:
        self.score, self.path, self.indices, self.typo = score, path, indices, typo
        self.root: str | None = None


class Answer:
    """A server's answer (checked): ``matches`` (``Found``), ``total`` (-1: not counted),
    ``complete``, ``warnings``, ``memory_warning``, ``scanned``, ``provisional``."""

    __slots__ = ("complete", "matches", "memory_warning", "provisional", "scanned", "total",
                 "warnings")

    def __init__(self, reply: dict[str, object]) -> None:
        matches = reply["matches"]
        total, complete, warnings = reply["total"], reply["complete"], reply["warnings"]
        memory_warning = reply.get("memory_warning")
        scanned, provisional = reply.get("scanned", -1), reply.get("provisional", False)
        if not (isinstance(matches, list) and isinstance(total, int)
                and isinstance(complete, bool) and isinstance(warnings, list)
                and all(isinstance(w, str) for w in warnings)
                and (memory_warning is None or isinstance(memory_warning, str))
                and isinstance(scanned, int) and isinstance(provisional, bool)):
            raise ValueError("a malformed reply")
        self.matches = [_found(m) for m in matches]
        self.total, self.complete, self.warnings = total, complete, warnings
        self.memory_warning = memory_warning
        self.scanned, self.provisional = scanned, provisional


def _found(m: object) -> Found:
    if not (isinstance(m, tuple) and len(m) == 4):
        raise ValueError("a malformed match")
    score, path, indices, typo = m
    if not (isinstance(score, int) and isinstance(path, str) and isinstance(typo, bool)
            and (indices is None or (isinstance(indices, list)
                                     and all(isinstance(i, int) for i in indices)))):
        raise ValueError("a malformed match")
    return Found(score, path, indices, typo)


def where(root: str, environ: Mapping[str, str] | None = None,
          create: bool = False) -> tuple[str, str] | None:
    """(socket path, key) of ``root``'s server in this environment, or None when none may be
    used."""
    if protocol.disabled(environ):
        return None
    env = protocol.answer_env(environ)
    if env is None:
        return None
    folder = protocol.socket_dir(environ, create=create)
    if folder is None:
        return None
    try:
        key = protocol.socket_key(root, env)
    except OSError:  # (a working folder deleted: the command says so)
        return None
    path = protocol.socket_path(folder, key)
    return None if path is None else (path, key)


def _connect(path: str) -> socket | None:
    import _socket  # (``socket`` would import ``selectors`` and ``enum``: ~5 ms)

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(path)
        if protocol.peer_uid(sock) not in (None, os.getuid()):
            raise OSError("the server runs as another user")
    except OSError:
        sock.close()
        return None
    return sock


_NOT_PLAIN = ("--no-server", "--no-cache", "--stdin", "--interactive", "--clear-cache",
              "--cwd", "--help", "--version", "--remember", "--forget", "--bash", "--zsh",
              "--fish", "--servers", "--stop-servers")


def plain_search(args: list[str]) -> bool:
    """Whether ``args`` may be a plain search of the current folder (a conservative look,
    before any parse)."""
    if args[:1] == ["mcp"]:
        return False
    for arg in args:
        if arg.startswith(_NOT_PLAIN) or (arg[:1] == "-" and arg[1:2] != "-"
                                          and ("C" in arg or "i" in arg or "h" in arg)):
            return False
    return True


def _streams_open() -> bool:
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            return False
    return sys.stdout is not None and sys.stderr is not None


def command(args: list[str]) -> tuple[list[str], bytes, list[str], int] | None:
    """The command line ``args`` answered by the folder's server, before this process imports
    the command: (warnings before the output, its bytes, notes after it, exit status), or
    None.  Raises :class:`Stuck` when the server took the request and did not answer."""
    if not plain_search(args) or not _streams_open() or os.environ.get("_FFIND_COMPLETE"):
        return None  # (the last: click answers the shell's completion requests)
    try:
        cwd = os.getcwd()
        ttys = [sys.stdout.isatty(), sys.stderr.isatty()]
    except (OSError, ValueError):
        return None
    env = {name: os.environ[name] for name in ("NO_COLOR", "TERM") if name in os.environ}
    reply = _ask(cwd, {"op": "command", "argv": args, "cwd": cwd, "tty": ttys, "env": env},
                 stuck=True)
    if reply is None:
        return None
    before, data, after, code = (reply.get("before"), reply.get("stdout"),
                                 reply.get("after"), reply.get("code"))
    if not (isinstance(before, list) and isinstance(after, list) and isinstance(data, bytes)
            and isinstance(code, int) and all(isinstance(w, str) for w in before + after)):
        return None
    return before, data, after, code


class Stuck(Exception):
    """The server took the request but did not answer in time: search without asking again."""


def request(path: str, message: dict[str, object], timeout: float = REPLY_TIMEOUT,
            then: Callable[[dict[str, object]], object] | None = None, stuck: bool = False,
            *, give_up: bool = True) -> dict[str, object] | None:
    """Send ``message`` to the server at ``path``; its reply within ``timeout``, or None.  With
    ``follows``, ``then(first)`` gets the first message and the second updates it; ``stuck``:
    raise :class:`Stuck` on a timeout; ``give_up``: remove a stopped server's socket."""
    sock = _connect(path)
    if sock is None:
        return None
    try:
        sock.settimeout(timeout)
        sock.sendall(protocol.encode({**message, "v": __version__}))
        if not _answering(sock, path, timeout):
            if give_up:
                _give_up(path)
            return None
        reply = protocol.receive(sock)
        if isinstance(reply, dict) and reply.get("follows") is True:
            if then is not None:
                then(reply)
            rest = protocol.receive(sock)
            reply = {**reply, **rest, "follows": False} if isinstance(rest, dict) else None
    except TimeoutError:
        if stuck:
            raise Stuck from None
        return None
    except (OSError, ValueError, EOFError):
        return None
    finally:
        sock.close()
    return reply if isinstance(reply, dict) else None


def _answering(sock: socket, path: str, timeout: float) -> bool:
    """Wait for the reply's first byte; False when the server is found stopped or gone."""
    import _socket

    sock.settimeout(min(LIVENESS, timeout))
    try:
        sock.recv(1, _socket.MSG_PEEK)
    except TimeoutError:
        if stopped(path):
            return False
        sock.settimeout(max(timeout - LIVENESS, 0.001))
        sock.recv(1, _socket.MSG_PEEK)  # (TimeoutError: the caller's)
    sock.settimeout(timeout)
    return True


def stopped(path: str) -> bool:
    """Whether the server of ``path`` is stopped, traced, a zombie or gone (from ``/proc``);
    False when it cannot tell."""
    held = protocol.read_lock(protocol.lock_path(path))
    if held is None:
        return False
    try:
        with open(f"/proc/{held[0]}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return os.path.isdir("/proc/self")  # (no such process, where /proc tells)
    return state in (b"T", b"t", b"Z", b"X")


def _give_up(path: str) -> None:
    """Remove the socket and lock of a server that does not answer (a replacement starts)."""
    for name in (path, protocol.lock_path(path)):
        try:  # noqa: SIM105 (no ``contextlib`` import on the client's path)
            os.unlink(name)
        except OSError:
            pass


def options_dict(options: SearchOptions) -> dict[str, object]:
    """``options`` as the fields ``SearchOptions(**fields)`` takes."""
    names: tuple[str, ...] = type(options).__match_args__
    return {name: getattr(options, name) for name in names}


def ask(query: str, root: str, options: SearchOptions, *, memory: bool,
        count: bool, timeout: float = REPLY_TIMEOUT, provisional: bool = False,
        on_rows: Callable[[Answer], object] | None = None) -> Answer | None:
    """``root``'s server's answer to ``query`` (``count``: with the total, else -1), or None.
    ``provisional``: over the listing held, not validated; its count comes after the rows,
    which ``on_rows(answer)`` gets first."""
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    op = protocol.PROVISIONAL if provisional else "search"
    reply = _ask(root, {"op": op, "root": root, "cwd": cwd, "query": query,
                        "options": options_dict(options), "memory": memory, "count": count},
                 timeout, None if on_rows is None else lambda first: _rows(first, on_rows))
    return None if reply is None else _answer(reply)


def _ask(root: str, message: dict[str, object], timeout: float = REPLY_TIMEOUT,
         then: Callable[[dict[str, object]], object] | None = None,
         stuck: bool = False) -> dict[str, object] | None:
    """``root``'s server's reply to ``message`` (``request``) when it says ``ok``, or None."""
    found = where(root)
    if found is None:
        return None
    path, key = found
    reply = request(path, {**message, "key": key}, timeout, then, stuck)
    return reply if reply is not None and reply.get("ok") is True else None


def _answer(reply: dict[str, object]) -> Answer | None:
    try:
        return Answer(reply)
    except (KeyError, ValueError, TypeError):
        return None


def _rows(first: dict[str, object], on_rows: Callable[[Answer], object]) -> None:
    answer = _answer(first) if first.get("ok") is True else None
    if answer is not None:
        on_rows(answer)


def ask_tool(tool: str, directory: str, query: str, limit: int, *,
             memory: bool) -> str | None:
    """``directory``'s server's answer to the agent tool ``tool`` (``find_files`` or
    ``glob``), or None."""
    reply = _ask(directory, {"op": "tool", "root": directory, "tool": tool, "query": query,
                             "limit": limit, "memory": memory})
    text = None if reply is None else reply.get("text")
    return text if isinstance(text, str) else None


def worth_serving(root: str) -> bool:
    """Whether ``root`` may have a server: not the home folder nor ``/``."""
    try:
        real = os.path.realpath(root)
        home = os.path.realpath(os.path.expanduser("~"))
    except OSError:
        return False
    return real not in ("/", home)


def start(root: str, environ: Mapping[str, str] | None = None,
          prime: SearchOptions | None = None, index: bool = True,
          tied: bool = False) -> int | None:
    """Start ``root``'s server in the background (own session, no inherited descriptor); the
    child's pid, or None.  ``prime``: the listing options to hold first (indexed when
    ``index``); ``tied``: the server exits with this process."""
    if not worth_serving(root):
        return None
    found = where(root, environ, create=True)
    if found is None:
        return None
    path = found[0]
    import time

    if protocol.marked_small(path, time.time()):
        return None
    env = dict(os.environ if environ is None else environ)
    # The server must run this ffind (its key names the install): -P and PYTHONPATH.
    first = os.path.dirname(protocol.PACKAGE)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (first, env.get("PYTHONPATH")) if p)
    args = [sys.executable, "-P", "-m", protocol.SERVER_MODULE, "--root",
            os.path.realpath(root), "--socket", path]
    if prime is not None:
        try:
            args += ["--prime", protocol.encode_prime(os.path.abspath(root),
                                                       options_dict(prime), index)]
        except (OSError, ValueError):
            return None
    if tied:
        args.append("--tied")
    null = os.devnull
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
        (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_DUP2, 1, 2)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
    try:
        return os.posix_spawn(sys.executable, args, env, file_actions=actions, setsid=True)
    except (OSError, ValueError):
        return None


def _inherited() -> list[int]:
    """This process's inheritable descriptors above 2 (closed in the server)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        names = [str(fd) for fd in range(3, 256)]
    fds = []
    for name in names:
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                fds.append(fd)
        except OSError:
            continue  # (the listing's own descriptor, closed since)
    return fds


def _folders(environ: Mapping[str, str] | None) -> list[str]:
    """This user's socket folders that exist (with and without ``XDG_RUNTIME_DIR``)."""
    folders = set()
    for runtime in (True, False):
        env = dict(os.environ if environ is None else environ)
        if not runtime:
            env.pop("XDG_RUNTIME_DIR", None)
        folder = protocol.socket_dir(env, create=False)
        if folder is not None:
            folders.add(folder)
    return sorted(folders)


def sockets(environ: Mapping[str, str] | None = None) -> list[str]:
    """The socket files in this user's socket folders."""
    found = []
    for folder in _folders(environ):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        found += [os.path.join(folder, n) for n in names if n.endswith(".sock")]
    return found


STATS_TIMEOUT = 2.0  # seconds ``--servers`` and ``--stop-servers`` wait for each server


def servers(environ: Mapping[str, str] | None = None) -> list[dict[str, object]]:
    """The running servers' ``stats``; one not answering as its socket, pid and state."""
    found = []
    for path in sockets(environ):
        reply = request(path, {"op": "stats"}, STATS_TIMEOUT, give_up=False)
        if reply is not None and reply.get("ok") is True:
            reply.pop("ok")
            found.append({**reply, "socket": path})
            continue
        held = holder(path)
        if held is not None:
            found.append({"socket": path, "pid": held[0], "state": "not answering"})
    return found


def stop(path: str) -> bool:
    """Stop the server of ``path`` (SIGTERM if it does not answer) and remove the socket; True
    when one ran."""
    reply = request(path, {"op": "stop"}, STATS_TIMEOUT, give_up=False)
    held = holder(path)
    if reply is None and held is not None:
        import signal

        for sig in (signal.SIGTERM, signal.SIGCONT):
            try:
                os.kill(held[0], sig)
            except OSError:
                break
    try:
        os.unlink(path)  # (a server that did not answer sees it gone, and exits)
    except OSError:
        return reply is not None
    return True


def answering(root: str, create: bool = False) -> bool:
    """Whether ``root``'s server runs and answers (a ``stats`` request)."""
    found = where(root, create=create)
    return found is not None and request(found[0], {"op": "stats"}) is not None


def holder(path: str) -> tuple[int, int] | None:
    """(pid, inotify watches reserved) of the server of ``path`` from its lock file, when that
    process runs it (its command line names the socket), else None."""
    held = protocol.read_lock(protocol.lock_path(path))
    if held is None or held[0] == os.getpid():
        return held
    try:
        with open(f"/proc/{held[0]}/cmdline", "rb") as f:
            args = f.read().split(b"\0")
    except OSError:
        return None
    named = os.fsencode(protocol.SERVER_MODULE) in args and os.fsencode(path) in args
    return held if named else None


def stop_all(environ: Mapping[str, str] | None = None) -> int:
    """Stop this user's servers and remove their sockets and stale locks; how many ran."""
    stopped_now = sum(stop(path) for path in sockets(environ))
    for folder in _folders(environ):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.endswith(".lock"):
                _remove_stale_lock(os.path.join(folder, name))
    return stopped_now


def _remove_stale_lock(path: str) -> None:
    """Remove the lock file ``path`` unless a server holds it."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if protocol.same_file(fd, path):
            os.unlink(path)  # (while held: a server opening it meanwhile sees it is not the lock)
    except OSError:
        pass
    finally:
        os.close(fd)
