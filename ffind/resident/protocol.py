"""What the client and the resident server share: where the socket is, its name, the framing.

- The folder: ``$XDG_RUNTIME_DIR/ffind/`` when that variable is an absolute path, else
  ``$XDG_CACHE_HOME/ffind/run/`` (``~/.cache/ffind/run/``).  Created 0700; used only when it is
  a real folder (not a link) owned by this user that no one else may enter (``private_dir``).
- The name: a short hash (``socket_key``) of ffind's version and install folder, the user
  id, the mount namespace, the real path of the root and the environment the answer depends
  on (``answer_env``: ``HOME``, the XDG base folders, ``GIT_*`` and the ``FFIND_*`` that
  change an answer): a client with another environment or version talks to another server.
  ``<hash>.sock`` (the socket) and ``<hash>.lock`` (``fcntl`` lock: one server per socket;
  it holds the server's pid and the inotify watches it reserved, ``read_lock``).  A path
  longer than ``AF_UNIX`` accepts means no server.
- The framing: a 4-byte big-endian length, then a ``marshal`` payload (builtin: no import
  cost).  ``marshal`` is not safe against a hostile peer; it is only ever exchanged over a
  socket in an owner-only folder, and each side checks the other's user id (``SO_PEERCRED``).

This module imports only ``os``, ``sys``, ``marshal`` and ``zlib`` (and ``_socket`` where a
socket is used): the client path of ``ffind QUERY`` pays for every import.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from collections.abc import Mapping

from ffind.text import __version__

TYPE_CHECKING = False  # (not typing's: the client imports as little as it can)
if TYPE_CHECKING:
    from _socket import socket

MAX_MESSAGE = 1 << 30
"""The largest reply a client accepts (bytes: a listing of every path may be large)."""
MAX_REQUEST = 1 << 20
"""The largest request a server accepts (bytes): a request is a command line and a few
fields; a larger one is refused before it is read."""
MAX_SUN_PATH = 107
"""``AF_UNIX`` socket paths longer than this are refused by the system (108 with the NUL)."""
_PATH_VARS = ("_DIR", "_TREE", "_FILE", "_GLOBAL", "_SYSTEM", "_DIRECTORY", "_DIRECTORIES",
              "GIT_CONFIG", "GIT_CEILING_DIRECTORIES")
KEYED_FFIND = ("FFIND_MEMORY", "FFIND_NO_MEMORY")
"""The ``FFIND_*`` variables that change an answer (the others, such as the shell bindings'
``FFIND_SERVER_IDLE`` or ``FFIND_DEFAULT_OPTS``, expanded before a request is sent, do
not: they do not start a server of their own)."""
KEYED_XDG = ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME")
SERVER_MODULE = "ffind.frontends.served"
"""The server's program (``python -m``): the server with the command's parse and writers."""
PROVISIONAL = "provisional"
"""The request kind of a search answered over the listing the server holds, without
validating it first (a picker's first frame only: ``client.ask(provisional=True)``)."""


def disabled(environ: Mapping[str, str] | None = None) -> bool:
    """``FFIND_NO_SERVER`` set to anything but empty or ``0`` turns the server off."""
    env = os.environ if environ is None else environ
    return env.get("FFIND_NO_SERVER", "") not in ("", "0")


def answer_env(environ: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The variables an answer depends on (sorted by name); None when one of them is a
    relative path (``GIT_DIR=.git``, a relative ``FFIND_MEMORY``): resolved against the
    caller's folder, which a server does not share, so such a caller searches itself."""
    env = os.environ if environ is None else environ
    found = {}
    for name in sorted(env):
        if name in ("HOME", *KEYED_XDG, *KEYED_FFIND) or name.startswith("GIT_"):
            value = env[name]
            pathlike = name == "FFIND_MEMORY" or (
                name.startswith("GIT_") and name.endswith(_PATH_VARS))
            if pathlike and value and not os.path.isabs(os.path.expanduser(value)):
                return None
            found[name] = value
    return found


def private_dir(path: str) -> bool:
    """Create ``path`` (mode 0700) if missing; True when it is a folder (not a link) owned
    by this user that group and others cannot enter."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170000 == 0o040000 and st.st_uid == os.getuid()
            and st.st_mode & 0o077 == 0)


def socket_dir(environ: Mapping[str, str] | None = None, create: bool = True) -> str | None:
    """The folder of this user's sockets (see the module docstring), or None when it is not
    safe to use (or, with ``create=False``, missing)."""
    env = os.environ if environ is None else environ
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        folder = os.path.join(runtime, "ffind")
    else:
        from ffind.state.paths import xdg_dir

        folder = os.path.join(xdg_dir("cache", env), "run")
    if not create and not os.path.isdir(folder):
        return None
    return folder if private_dir(folder) else None


PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""Where this ffind is installed: two installs of one version (a checkout, a virtual
environment) may differ, so each talks to its own servers."""


def mount_namespace() -> str:
    """This process's mount namespace (``/proc/self/ns/mnt``; '' where there is none): a client
    in another one sees other files under the same paths."""
    try:
        return os.readlink("/proc/self/ns/mnt")
    except OSError:
        return ""


def socket_key(root: str, env: Mapping[str, str], version: str = __version__,
               package: str = PACKAGE) -> str:
    """The text that names a server: version and install, user, mount namespace, real root,
    environment (one per line).  OSError when ``root`` cannot be resolved (a deleted working
    folder)."""
    lines = [f"ffind {version} {package}", f"uid {os.getuid()}", f"mnt {mount_namespace()}",
             f"root {os.path.realpath(root)}"]
    lines += [f"{k}={v}" for k, v in sorted(env.items())]
    return "\n".join(lines)


def socket_name(key: str) -> str:
    """The socket file's name for ``key`` (16 hex digits, then ``.sock``)."""
    data = key.encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}.sock"


def socket_path(folder: str, key: str) -> str | None:
    """The socket of ``key`` in ``folder``; None when the path is too long for ``AF_UNIX``."""
    path = os.path.join(folder, socket_name(key))
    return path if len(os.fsencode(path)) <= MAX_SUN_PATH else None


def lock_path(sock: str) -> str:
    """The lock file next to the socket ``sock``."""
    return sock[:-len(".sock")] + ".lock"


def same_file(fd: int, path: str) -> bool:
    """True when ``path`` still names the file open as ``fd`` (a lock file is removed, while
    held, by the server that stops with it and by ``stop_all``: one opened before that is
    not the lock any more)."""
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def encode(obj: object) -> bytes:
    """One framed message."""
    data = marshal.dumps(obj)  # type: ignore[arg-type]  # (checked by marshal: ValueError)
    return len(data).to_bytes(4, "big") + data


def _recv_exact(sock: socket, n: int) -> bytes:
    parts = []
    while n:
        part = sock.recv(min(n, 1 << 20))
        if not part:
            raise EOFError("the connection closed mid-message")
        parts.append(part)
        n -= len(part)
    return b"".join(parts)


def receive(sock: socket, limit: int = MAX_MESSAGE) -> object:
    """One framed message from ``sock``; raises ``EOFError``/``ValueError``/``OSError`` on a
    closed connection, a message over ``limit`` bytes (not read) or one that is not marshal
    data."""
    size = int.from_bytes(_recv_exact(sock, 4), "big")
    if size > limit:
        raise ValueError("a message too big")
    try:
        return marshal.loads(_recv_exact(sock, size))
    except (EOFError, TypeError) as e:
        raise ValueError(f"a message that is not marshal data: {e}") from None


def encode_prime(root: str, options: dict[str, object], index: bool = True) -> str:
    """A server's prime (``--prime``: the root as the client named it, absolute, the fields
    of the ``SearchOptions`` whose listing to hold first, and whether to index it: the
    first call had a query) as one argument: hex of ``marshal``."""
    return marshal.dumps({"root": root, "options": options, "index": index}).hex()


def decode_prime(text: str) -> tuple[str, dict[str, object], bool]:
    """(root, options' fields, index) of ``encode_prime``'s text; ValueError when
    malformed."""
    try:
        prime = marshal.loads(bytes.fromhex(text))
    except (EOFError, TypeError) as e:
        raise ValueError(f"a malformed prime: {e}") from None
    if not (isinstance(prime, dict) and isinstance(prime.get("root"), str)
            and os.path.isabs(prime["root"]) and isinstance(prime.get("options"), dict)
            and isinstance(prime.get("index"), bool)):
        raise ValueError("a malformed prime")
    return prime["root"], prime["options"], prime["index"]


def read_lock(path: str) -> tuple[int, int] | None:
    """(pid, inotify watches reserved) that the server holding the lock file ``path`` wrote in
    it, or None (missing, empty, or not a server's)."""
    try:
        with open(path, "rb") as f:
            pid, reserved = f.read(64).split()
        return int(pid), int(reserved)
    except (OSError, ValueError):
        return None


SERVE_FROM = 5000
"""The fewest files a listing needs for its server to stay: below, a cold search already beats
``fd | fzf`` (docs/cache.md, "When a server runs").  A server primed with a smaller listing
writes its snapshot, leaves a ``<hash>.small`` mark and exits."""


def serve_from(environ: Mapping[str, str] | None = None) -> int:
    """``FFIND_SERVER_FROM`` (a whole number >= 0; 0: every folder but home and ``/``), else
    ``SERVE_FROM``."""
    env = os.environ if environ is None else environ
    try:
        value = int(env.get("FFIND_SERVER_FROM", ""))
    except ValueError:
        return SERVE_FROM
    return value if value >= 0 else SERVE_FROM


SMALL_FOR = 3600.0
"""Seconds a ``.small`` mark keeps a server from being started for its key (then the next
call starts one, which counts the listing again)."""


def small_path(sock: str) -> str:
    """The mark next to the socket ``sock`` that says its listing is too small to serve."""
    return sock[:-len(".sock")] + ".small"


def mark_small(sock: str) -> None:
    """Leave the mark that ``sock``'s listing is too small to serve (``SERVE_FROM``)."""
    try:
        os.close(os.open(small_path(sock), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
        os.utime(small_path(sock))
    except OSError:
        pass


def marked_small(sock: str, now: float) -> bool:
    """Whether ``sock``'s listing was found too small to serve less than ``SMALL_FOR`` ago."""
    try:
        return now - os.stat(small_path(sock)).st_mtime < SMALL_FOR
    except OSError:
        return False


def peer_uid(sock: socket) -> int | None:
    """The user id of the process at the other end (``SO_PEERCRED``, Linux), or None."""
    import _socket

    opt = getattr(_socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    try:
        creds = sock.getsockopt(_socket.SOL_SOCKET, opt, 12)
    except OSError:
        return None
    return int.from_bytes(creds[4:8], sys.byteorder)
