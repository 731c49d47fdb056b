"""Where ffind's state lives: the XDG base directories, created owner-only; the checks that a
folder or file there is the user's own (another user must not plant or edit state); and the
one way a state file is written (``write_private``)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # (not typing's: the served call imports this module, and no typing)
if TYPE_CHECKING:
    from array import array

TMP = ".tmp"  # the suffix of a file being written (a dead writer's is removed: ``cache``)


def xdg_dir(kind: str, environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME/ffind`` (``kind="state"``) or ``$XDG_CACHE_HOME/ffind`` (``"cache"``),
    falling back to ``~/.local/state/ffind`` and ``~/.cache/ffind`` when the variable is unset,
    empty or relative (the XDG spec says to ignore a relative one)."""
    env = os.environ if environ is None else environ
    var, fallback = {"state": ("XDG_STATE_HOME", (".local", "state")),
                     "cache": ("XDG_CACHE_HOME", (".cache",))}[kind]
    base = env.get(var, "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), *fallback)
    return os.path.join(base, "ffind")


def private_dir(path: str, create: bool = True, others: int = 0o022) -> bool:
    """Whether ``path`` is a folder (not a link) of this user in which no one else has the
    permission bits ``others`` (by default: may not write), created (mode 0700) if missing
    and ``create``; another user's folder, an open one or a link is refused."""
    try:
        if create:
            os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & others


def own_file(st: os.stat_result) -> bool:
    """Whether a file's ``fstat``/``lstat`` is a regular file of this user that no one else
    may write (so that ffind may read it as its state, or remove it)."""
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def open_own(path: str) -> int:
    """A read-only descriptor of ``path`` when it is this user's own file (``own_file``),
    not followed through a link; OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if not own_file(os.fstat(fd)):
            raise PermissionError(f"{path}: not this user's own file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_private(path: str, parts: Iterable[bytes | bytearray | array[int]],
                  sync: bool = True) -> None:
    """Write ``parts`` to ``path`` atomically and owner-only: in a folder that is the user's
    own (``private_dir``, made if missing), a temporary file (0600, not through a link),
    synced (``sync``), then renamed over ``path``.  Raises OSError (or what ``parts``
    raises), the temporary file removed."""
    import contextlib
    import time

    folder = os.path.dirname(path)
    if not private_dir(folder):
        raise PermissionError(f"{folder}: not this user's own folder")
    tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}{TMP}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        with open(fd, "wb") as f:
            for part in parts:
                f.write(part)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
