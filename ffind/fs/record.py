"""The markers a recording walk puts among its paths (a path never starts with ``/``), so a
later search can tell with one ``stat`` per folder which folders may have changed:
``/D<sig>\x1f<specials>\x1f<prefix>`` before a folder's paths (``sig`` empty: read it every
time; ``specials``: its ignore files' and ``.git``'s signatures), and ``/T<sig>\x1f<path>``
for a ``target`` folder left out as a tagged build folder.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from ffind.state.git import common_dir, find_git_dir

SEP = "\x1f"
SPECIALS = (".git", ".gitignore", ".ignore")
_TAG = "CACHEDIR.TAG"

Stat = tuple[str, int]
"""A signature string and the newest time (mtime or ctime, ns) it holds, 0 when none."""


def _sig(st: os.stat_result) -> str:
    return f"{st.st_dev} {st.st_ino} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_size} {st.st_mode}"


def folder_stat(path: str) -> Stat | None:
    """The signature of a folder (following a symbolic link, as its listing does), or None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return _sig(st), max(st.st_mtime_ns, st.st_ctime_ns)


def file_stat(path: str) -> Stat:
    """The signature of a file that may be missing; a symbolic link's and its target's (a
    global excludes file or an ``.ignore`` linked from a dotfiles repository)."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return "-", 0
    sig, newest = _sig(st), max(st.st_mtime_ns, st.st_ctime_ns)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.stat(path)
        except (OSError, ValueError):
            return sig + " broken", newest
        sig += " -> " + _sig(target)
        newest = max(newest, target.st_mtime_ns, target.st_ctime_ns)
    return sig, newest


def _git_stat(path: str) -> Stat:
    """A ``.git`` folder's identity (git changes its times all the time), or a ``.git``
    file's (``gitdir:``) signature."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return "-", 0
    if stat.S_ISDIR(st.st_mode):
        return f"dir {st.st_dev} {st.st_ino}", 0
    return _sig(st), max(st.st_mtime_ns, st.st_ctime_ns)


def specials_sig(folder: str, names: Iterable[str]) -> Stat:
    """The signatures of the special entries ``names`` of ``folder`` (ignore files, ``.git``;
    for ``.git`` also the nested repository's ``info/exclude``)."""
    parts = []
    newest = 0
    for name in sorted(names):
        path = f"{folder}/{name}"
        if name == ".git":  # a folder: what git writes in it does not matter, only what it is
            sig, t = _git_stat(path)
        else:
            sig, t = file_stat(path)
        parts.append(f"{name}={sig}")
        newest = max(newest, t)
        if name == ".git":  # a nested repository's info/exclude (a submodule's is elsewhere)
            git_dir = find_git_dir(folder)
            extras = [] if git_dir is None else [f"{common_dir(git_dir)}/info/exclude",
                                                 f"{git_dir}/commondir"]
            parts.append("-" if git_dir is None else os.path.relpath(git_dir, folder))
            for extra in extras:
                sig, t = file_stat(extra)
                parts.append(sig)
                newest = max(newest, t)
    return ";".join(parts), newest


def folder_marker(prefix: str, stat: Stat | None, found: Iterable[str] | None,
                  where: str) -> str:
    """The marker of the folder ``prefix`` (``stat`` None: read it again every time), whose
    special entries ``found`` are in the folder ``where``."""
    specials = specials_sig(where, found)[0] if found else ""
    return f"/D{'' if stat is None else stat[0]}{SEP}{specials}{SEP}{prefix}"


def probe_marker(rel: str, path: str | None) -> str:
    """The marker of a ``target`` folder left out as tagged (``path`` None: read its parent
    again every time)."""
    return f"/T{'' if path is None else probe_sig(path)[0]}{SEP}{rel}"


def probe_sig(path: str) -> Stat:
    """The signature of a tagged folder: its own and its ``CACHEDIR.TAG``'s."""
    own = folder_stat(path)
    if own is None:
        return "-", 0
    tag, t = file_stat(f"{path}/{_TAG}")
    return f"{own[0]} {tag}", max(own[1], t)
