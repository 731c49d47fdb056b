"""git's ``core.ignoreCase``: whether a repository's ignore patterns match without regard to
ASCII case (git sets it in ``.git/config`` when the clone is on a case-insensitive file system,
the default on macOS and Windows).

API: ``ignore_case(git_common_dir) -> bool``.  The walk compiles the git sources (``.gitignore``,
``info/exclude``, ``core.excludesFile``) of such a repository with
``patterns.load_file(path, ignore_case=True)``; ``.ignore`` files stay case-sensitive (ripgrep's
and fd's rule).

The configuration files are read directly, in git's order (system, global, repository; the
last value wins), which costs a few small reads instead of starting ``git config`` on every
search; git itself is asked only when an ``include`` or a ``GIT_CONFIG*`` variable could change
the answer.
"""

from __future__ import annotations

import os

_TRUE = frozenset({"true", "yes", "on"})
_FALSE = frozenset({"false", "no", "off", ""})
_MAX_CONFIG = 1024 * 1024


def config_files(git_common_dir: str | None) -> list[str]:
    """git's configuration files, lowest precedence first."""
    files = [] if os.environ.get("GIT_CONFIG_NOSYSTEM") else ["/etc/gitconfig"]
    xdg = os.environ.get("XDG_CONFIG_HOME")
    home = os.environ.get("HOME") or os.path.expanduser("~")
    has_home = bool(home) and home != "~"
    if xdg:
        files.append(os.path.join(xdg, "git", "config"))
    elif has_home:
        files.append(os.path.join(home, ".config", "git", "config"))
    if has_home:
        files.append(os.path.join(home, ".gitconfig"))
    if git_common_dir is not None:
        files.append(os.path.join(git_common_dir, "config"))
    return files


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


def _ask_git(git_common_dir: str | None) -> bool:
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
    """git's ``core.ignoreCase`` for the repository whose common git folder (where ``config``
    is) is given; None: outside a repository (the global settings only)."""
    if any(k.startswith("GIT_CONFIG") and k != "GIT_CONFIG_NOSYSTEM" for k in os.environ):
        return _ask_git(git_common_dir)
    value = False
    for path in config_files(git_common_dir):
        try:
            with open(path, "rb") as f:
                data = f.read(_MAX_CONFIG)
        except OSError:
            continue
        text = data.decode("utf-8", "surrogateescape")
        if "include" in text.lower():
            return _ask_git(git_common_dir)
        found = core_ignore_case(text)
        if found is not None:
            value = found
    return value
