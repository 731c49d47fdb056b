"""What the client and the resident server share: the socket's folder (owner-only), its name
(a hash of the version, install, user, mount namespace, root and the environment an answer
depends on: ``socket_key``), the lock file, and the framing (a 4-byte length, then ``marshal``:
exchanged only in an owner-only folder, each side checking the other's uid).  Imports only
builtins: the client path of ``ffind QUERY`` pays for every import."""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from collections.abc import Mapping

from ffind.state.paths import private_dir, xdg_dir
from ffind.text import __version__

TYPE_CHECKING = False  # (not typing's: the client imports as little as it can)
if TYPE_CHECKING:
    from _socket import socket

MAX_MESSAGE = 1 << 30  # the largest reply a client accepts (a whole listing may be large)
MAX_REQUEST = 1 << 20  # the largest request a server reads
MAX_SUN_PATH = 107  # ``AF_UNIX``'s longest socket path
_PATH_VARS = ("_DIR", "_TREE", "_FILE", "_GLOBAL", "_SYSTEM", "_DIRECTORY", "_DIRECTORIES",
              "GIT_CONFIG", "GIT_CEILING_DIRECTORIES")
KEYED_FFIND = ("FFIND_MEMORY", "FFIND_NO_MEMORY")  # the ``FFIND_*`` that change an answer
KEYED_XDG = ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME")
SERVER_MODULE = "ffind.frontends.served"  # the server's program (``python -m``)
PROVISIONAL = "provisional"
"""A search over the listing held, not validated first (a picker's first frame)."""


def disabled(environ: Mapping[str, str] | None = None) -> bool:
    """``FFIND_NO_SERVER`` set to anything but empty or ``0`` turns the server off."""
    env = os.environ if environ is None else environ
    return env.get("FFIND_NO_SERVER", "") not in ("", "0")


def answer_env(environ: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The variables an answer depends on; None when one is a relative path (resolved
    against the caller's folder, which a server does not share)."""
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


def socket_dir(environ: Mapping[str, str] | None = None, create: bool = True) -> str | None:
    """``$XDG_RUNTIME_DIR/ffind`` (else ``$XDG_CACHE_HOME/ffind/run``), or None when not
    safe to use (or, with ``create=False``, missing)."""
    env = os.environ if environ is None else environ
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        folder = os.path.join(runtime, "ffind")
    else:
        cache = xdg_dir("cache", env)
        folder = os.path.join(cache, "run")
        if not private_dir(cache, create):
            return None
    if not create and not os.path.isdir(folder):
        return None
    return folder if private_dir(folder, others=0o077) else None


PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # each install its servers


def mount_namespace() -> str:
    """This process's mount namespace ('' where there is none)."""
    try:
        return os.readlink("/proc/self/ns/mnt")
    except OSError:
        return ""


def socket_key(root: str, env: Mapping[str, str], version: str = __version__,
               package: str = PACKAGE) -> str:
    """The text that names a server (one fact per line); OSError when ``root`` cannot be
    resolved."""
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
    """True when ``path`` still names the file open as ``fd`` (a lock file removed while held
    is not the lock any more)."""
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
    """One framed message from ``sock``; ``EOFError``/``ValueError``/``OSError`` when it
    closed, exceeds ``limit`` bytes or is not marshal data."""
    size = int.from_bytes(_recv_exact(sock, 4), "big")
    if size > limit:
        raise ValueError("a message too big")
    try:
        return marshal.loads(_recv_exact(sock, size))
    except (EOFError, TypeError) as e:
        raise ValueError(f"a message that is not marshal data: {e}") from None


def encode_prime(root: str, options: dict[str, object], index: bool = True) -> str:
    """A server's ``--prime`` argument (the absolute root, the options' fields of the listing
    to hold first, whether to index it) as hex of ``marshal``."""
    return marshal.dumps({"root": root, "options": options, "index": index}).hex()


def decode_prime(text: str) -> tuple[str, dict[str, object], bool]:
    """(root, options' fields, index) of ``encode_prime``'s text; ValueError if malformed."""
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
    """(pid, inotify watches reserved) written in the lock file ``path``, or None."""
    try:
        with open(path, "rb") as f:
            pid, reserved = f.read(64).split()
        return int(pid), int(reserved)
    except (OSError, ValueError):
        return None


SERVE_FROM = 5000
"""The fewest files for a server to stay (below, a cold search is fast enough): a server
primed with fewer writes its snapshot, leaves a ``.small`` mark and exits."""


def serve_from(environ: Mapping[str, str] | None = None) -> int:
    """``FFIND_SERVER_FROM`` (a whole number >= 0), else ``SERVE_FROM``."""
    env = os.environ if environ is None else environ
    try:
        value = int(env.get("FFIND_SERVER_FROM", ""))
    except ValueError:
        return SERVE_FROM
    return value if value >= 0 else SERVE_FROM


SMALL_FOR = 3600.0  # seconds a ``.small`` mark keeps a server from being started


def small_path(sock: str) -> str:
    """The mark next to ``sock`` that says its listing is too small to serve."""
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
