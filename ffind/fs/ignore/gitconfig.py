"""Repositories and git configuration: where a work tree's git folder, info/exclude,
``core.excludesFile`` and the ``.gitignore`` files above a search root are."""

from __future__ import annotations

import os

GITIGNORE_FILE = ".gitignore"  # (``patterns.GITIGNORE_FILE``: not imported, so that ``git
# status``'s search for the repository, ``state.gitstatus``, costs no pattern machinery)


def find_git_dir(folder: str) -> str | None:
    """The git directory of a work tree whose top level is ``folder`` (``folder/.git`` or the
    directory a ``.git`` file points to), or None."""
    dot_git = os.path.join(folder, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    if os.path.isfile(dot_git):  # worktree or submodule: "gitdir: <path>"
        try:
            with open(dot_git, encoding="utf-8", errors="surrogateescape") as f:
                first = f.readline().strip()
        except OSError:
            return None
        if first.startswith("gitdir:"):
            return os.path.normpath(os.path.join(folder, first[len("gitdir:") :].strip()))
    return None


def common_dir(git_dir: str) -> str:
    """Where info/exclude and config live (a linked worktree points to the main .git)."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as f:
            return os.path.normpath(os.path.join(git_dir, f.read().strip()))
    except OSError:
        return git_dir


def find_repo_top(folder: str) -> str | None:
    """The top level of the git work tree containing ``folder`` (``folder`` itself or an
    ancestor holding ``.git``), or None outside any repository."""
    path = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(path, ".git")) and find_git_dir(path) is not None:
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def default_excludes_file() -> str | None:
    """git's default core.excludesFile: ``$XDG_CONFIG_HOME/git/ignore`` or
    ``~/.config/git/ignore``."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        return os.path.join(xdg, "git", "ignore")
    home = os.environ.get("HOME") or os.path.expanduser("~")
    if not home or home == "~":
        return None
    return os.path.join(home, ".config", "git", "ignore")


def _config_files(git_common_dir: str | None) -> list[str]:
    files = [] if os.environ.get("GIT_CONFIG_NOSYSTEM") else ["/etc/gitconfig"]
    xdg = os.environ.get("XDG_CONFIG_HOME")
    home = os.environ.get("HOME") or os.path.expanduser("~")
    if xdg:
        files.append(os.path.join(xdg, "git", "config"))
    elif home and home != "~":
        files.append(os.path.join(home, ".config", "git", "config"))
    if home and home != "~":
        files.append(os.path.join(home, ".gitconfig"))
    if git_common_dir is not None:
        files.append(os.path.join(git_common_dir, "config"))
    return files


def _config_may_set_excludes(git_common_dir: str | None) -> bool:
    """Whether git's configuration might set core.excludesFile (then ask git itself).

    Reading a few small files is much cheaper than starting ``git config`` (a few ms) on every
    search, and exact: a file that neither names the key nor includes another file cannot set it.
    """
    if any(k.startswith("GIT_CONFIG") and k != "GIT_CONFIG_NOSYSTEM" for k in os.environ):
        return True
    for path in _config_files(git_common_dir):
        try:
            with open(path, "rb") as f:
                data = f.read().lower()
        except OSError:
            continue
        if b"excludesfile" in data or b"include" in data:
            return True
    return False


def excludes_file(cwd: str, git_common_dir: str | None) -> str | None:
    """The path of core.excludesFile as git would read it for a work tree at ``cwd``."""
    default = default_excludes_file()
    if not _config_may_set_excludes(git_common_dir):
        return default
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "config", "--path", "--get", "core.excludesFile"],
            cwd=cwd, capture_output=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return default
    value = os.fsdecode(proc.stdout.rstrip(b"\n"))
    if proc.returncode != 0 or not value:
        return default
    return os.path.join(cwd, value)


def above_root_gitignores(top: str, root: str) -> list[tuple[str, str]]:
    """The ``.gitignore`` files from the repository top level down to the search root's parent,
    each with the path of the search root relative to the file's folder (ending in ``/``)."""
    out: list[tuple[str, str]] = []
    rel = os.path.relpath(root, top)
    if rel == ".":
        return out
    parts = rel.split(os.sep)
    for i in range(len(parts)):
        folder = os.path.join(top, *parts[:i])
        lead = "/".join(parts[i:]) + "/"
        out.append((os.path.join(folder, GITIGNORE_FILE), lead))
    return out
