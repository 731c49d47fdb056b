"""The walk (PLACEHOLDER: naive single-process walk without ignore rules, replaced by issue 2).

API contract:
- ``walk(root, options=None, *, cancel=None, on_warning=None) -> Iterator[str]``
- ``walk_batches(root, options=None, *, cancel=None, on_warning=None) -> Iterator[list[str]]``:
  the same paths in batches, the first within ~50 ms (what the session consumes).
``cancel`` has ``is_set()``; ``on_warning(message: str)`` receives one-line warnings.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Protocol

from ffind.options import SearchOptions

DEFAULT_EXCLUDES: tuple[str, ...] = ("node_modules", "target", "__pycache__")
VCS_DIRS: frozenset[str] = frozenset({".git", ".hg", ".svn", ".jj"})


class Cancel(Protocol):
    def is_set(self) -> bool: ...


def walk_batches(
    root: str | os.PathLike[str], options: SearchOptions | None = None, *,
    cancel: Cancel | None = None, on_warning: Callable[[str], None] | None = None,
) -> Iterator[list[str]]:
    options = options or SearchOptions()
    root = os.fspath(root)
    batch: list[str] = []
    for d, dirs, files in os.walk(root):
        if cancel is not None and cancel.is_set():
            return
        dirs[:] = sorted(x for x in dirs if x not in VCS_DIRS and x not in DEFAULT_EXCLUDES
                         and (options.hidden or not x.startswith(".")))
        rel = os.path.relpath(d, root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        batch.extend(prefix + f for f in files if options.hidden or not f.startswith("."))
        if len(batch) > 1000:
            yield batch
            batch = []
    if batch:
        yield batch


def walk(
    root: str | os.PathLike[str], options: SearchOptions | None = None, *,
    cancel: Cancel | None = None, on_warning: Callable[[str], None] | None = None,
) -> Iterator[str]:
    for batch in walk_batches(root, options, cancel=cancel, on_warning=on_warning):
        yield from batch
