"""Where ffind's state lives: the XDG base directories, created owner-only, and the one way a
state file is written (``write_private``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

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


def make_private_dir(path: str) -> None:
    """Create ``path`` (and its parents) with mode 0700; an existing folder is left as it is."""
    os.makedirs(path, mode=0o700, exist_ok=True)


def write_private(path: str, parts: Iterable[bytes | bytearray | array[int]],
                  sync: bool = True) -> None:
    """Write ``parts`` to ``path`` atomically and owner-only: its folder made private, a
    temporary file (0600), synced (``sync``), then renamed over ``path``.  Raises OSError (or
    what ``parts`` raises), the temporary file removed."""
    import time

    make_private_dir(os.path.dirname(path))
    tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}{TMP}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
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
