"""A repository as git finds it: the work tree's top level and git folder, the configuration
files, ``core.excludesFile`` and ``core.ignoreCase``.  Used by the ignore rules
(``ffind.fs.ignore.scope``), the recording walk and ``git status`` (``gitstatus``).

The configuration is read from its files directly, in git's order (system, global,
repository; the last value wins): a few small reads instead of starting ``git config``
(a few ms) on every search.  git itself is asked only when an ``include`` or a
``GIT_CONFIG*`` variable could change the answer.
"""

from __future__ import annotations

import os

_TRUE = frozenset({"true", "yes", "on"})
_FALSE = frozenset({"false", "no", "off", ""})
_MAX_CONFIG = 1024 * 1024


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


def _home() -> str | None:
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return home if home and home != "~" else None


def default_excludes_file() -> str | None:
    """git's default core.excludesFile: ``$XDG_CONFIG_HOME/git/ignore`` or
    ``~/.config/git/ignore``."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        return os.path.join(xdg, "git", "ignore")
    home = _home()
    return None if home is None else os.path.join(home, ".config", "git", "ignore")


def config_files(git_common_dir: str | None) -> list[str]:
    """git's configuration files, lowest precedence first."""
    files = [] if os.environ.get("GIT_CONFIG_NOSYSTEM") else ["/etc/gitconfig"]
    xdg = os.environ.get("XDG_CONFIG_HOME")
    home = _home()
    if xdg:
        files.append(os.path.join(xdg, "git", "config"))
    elif home is not None:
        files.append(os.path.join(home, ".config", "git", "config"))
    if home is not None:
        files.append(os.path.join(home, ".gitconfig"))
    if git_common_dir is not None:
        files.append(os.path.join(git_common_dir, "config"))
    return files


def _config_env() -> bool:
    """A ``GIT_CONFIG*`` variable (but ``GIT_CONFIG_NOSYSTEM``) may change the answer."""
    return any(k.startswith("GIT_CONFIG") and k != "GIT_CONFIG_NOSYSTEM" for k in os.environ)


def _config_may_set_excludes(git_common_dir: str | None) -> bool:
    """Whether git's configuration might set core.excludesFile (then git is asked): exact,
    since a file that neither names the key nor includes another file cannot set it."""
    if _config_env():
        return True
    for path in config_files(git_common_dir):
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


def parse_bool(value: str) -> bool | None:
    """A git boolean (``true``/``yes``/``on``/a non-zero number; the opposites), or None."""
    value = value.strip().strip('"').lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    try:
        return int(value) != 0
    except ValueError:
        return None


def core_ignore_case(text: str) -> bool | None:
    """The last ``core.ignoreCase`` set in one configuration file's text, or None."""
    found: bool | None = None
    in_core = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            end = line.find("]")
            if end < 0:
                continue
            in_core = line[1:end].strip().lower() == "core"
            line = line[end + 1 :].strip()
        if not in_core or not line or line[0] in "#;":
            continue
        key, eq, value = line.partition("=")
        if key.strip().lower() != "ignorecase":
            continue
        for mark in ("#", ";"):
            value = value.split(mark, 1)[0]
        parsed = parse_bool(value) if eq else True  # a key alone means true
        if parsed is not None:
            found = parsed
    return found


def _ask_ignore_case(git_common_dir: str | None) -> bool:
    import subprocess

    cmd = ["git"]
    if git_common_dir is not None:
        cmd += ["--git-dir", git_common_dir]
    try:
        proc = subprocess.run([*cmd, "config", "--bool", "--get", "core.ignoreCase"],
                              capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and proc.stdout.strip() == b"true"


def ignore_case(git_common_dir: str | None) -> bool:
    """git's ``core.ignoreCase`` (set by git on a case-insensitive file system) for the
    repository whose common git folder is given; None: the global settings only.  The git
    ignore sources of such a repository match without regard to ASCII case."""
    if _config_env():
        return _ask_ignore_case(git_common_dir)
    value = False
    for path in config_files(git_common_dir):
        try:
            with open(path, "rb") as f:
                data = f.read(_MAX_CONFIG)
        except OSError:
            continue
        text = data.decode("utf-8", "surrogateescape")
        if "include" in text.lower():
            return _ask_ignore_case(git_common_dir)
        found = core_ignore_case(text)
        if found is not None:
            value = found
    return value
