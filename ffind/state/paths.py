"""Where ffind's state lives: the XDG base directories, created owner-only."""

from __future__ import annotations

import os
from collections.abc import Mapping


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
