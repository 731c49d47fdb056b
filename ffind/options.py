"""SearchOptions: every setting of a search, built once (by the CLI or a caller) and passed down."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_LIMIT = 64
DEFAULT_THREADS = 2


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """What to walk and how to rank.  Frozen: derive variants with ``dataclasses.replace``."""

    hidden: bool = False
    """Include files and folders whose name starts with ``.``."""
    respect_ignore: bool = True
    """Honour .gitignore, .git/info/exclude, core.excludesFile, .ignore and DEFAULT_EXCLUDES."""
    exclude: tuple[str, ...] = ()
    """Extra gitignore-style globs to exclude (Codex's ``--exclude``); applied even with
    ``respect_ignore=False``."""
    follow_links: bool = False
    """Enter symlinked folders (loops are detected)."""
    threads: int = DEFAULT_THREADS
    """Walk worker processes; 1 walks in-process."""
    types: tuple[str, ...] = ("f",)
    """What to list: ``"f"`` files, ``"d"`` directories."""
    max_depth: int | None = None
    """Descend at most this many levels below the root (1 = the root's own entries)."""
    require_git: bool = True
    """Apply .gitignore files only inside a git work tree (fd's and ripgrep's default)."""
    limit: int | None = DEFAULT_LIMIT
    """Most matches to return; None for all."""
    compute_indices: bool = False
    """Return the positions of the matched characters of each path."""
