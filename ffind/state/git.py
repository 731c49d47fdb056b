"""A repository as git finds it: top level, git folder, configuration files,
``core.excludesFile`` and ``core.ignoreCase``.  The configuration is read from its files in git's
order (a few small reads instead of starting ``git config``); git itself is asked only when an
``include`` or a ``GIT_CONFIG*`` variable could change the answer.
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


def _config_texts(git_common_dir: str | None) -> list[bytes] | None:
    """The configuration files' contents, or None when git must be asked (a ``GIT_CONFIG*``
    variable, an ``include``, a file too big to read whole)."""
    if _config_env():
        return None
    texts = []
    for path in config_files(git_common_dir):
        try:
            with open(path, "rb") as f:
                data = f.read(_MAX_CONFIG + 1)
        except OSError:
            continue
        if len(data) > _MAX_CONFIG or b"include" in data.lower():
            return None
        texts.append(data)
    return texts


def _ask_git(args: list[str], cwd: str | None = None) -> bytes | None:
    """What ``git ARGS`` prints, or None when it fails."""
    import subprocess

    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def excludes_file(cwd: str, git_common_dir: str | None) -> str | None:
    """The path of core.excludesFile as git would read it for a work tree at ``cwd`` (git is
    asked only when a configuration file may set it)."""
    default = default_excludes_file()
    texts = _config_texts(git_common_dir)
    if texts is not None and not any(b"excludesfile" in t.lower() for t in texts):
        return default
    out = _ask_git(["config", "--path", "--get", "core.excludesFile"], cwd)
    value = os.fsdecode(out.rstrip(b"\n")) if out else ""
    return os.path.join(cwd, value) if value else default


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


def ignore_case(git_common_dir: str | None) -> bool:
    """git's ``core.ignoreCase`` (set on a case-insensitive file system) for the repository
    whose common git folder is given (None: the global settings); its git ignore sources then
    match without regard to ASCII case."""
    texts = _config_texts(git_common_dir)
    if texts is None:
        args = [] if git_common_dir is None else ["--git-dir", git_common_dir]
        out = _ask_git([*args, "config", "--bool", "--get", "core.ignoreCase"])
        return out is not None and out.strip() == b"true"
    value = False
    for data in texts:
        found = core_ignore_case(data.decode("utf-8", "surrogateescape"))
        if found is not None:
            value = found
    return value
