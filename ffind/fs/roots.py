"""The one check of a search root, with one message whoever asks (the walk, ``search``,
``FileSearcher``)."""

from __future__ import annotations

import os
import stat

from ffind.errors import FfindError


def check_root(root: str | os.PathLike[str]) -> str:
    """``root`` as a string, if it is a folder this process can list; else ``FfindError``
    with one line: ``cannot search 'ROOT': no such folder`` (or ``not a folder``,
    ``permission denied``, or the system's reason)."""
    path = os.fspath(root)
    reason = None
    try:
        st = os.stat(path)
    except FileNotFoundError:
        reason = "no such folder"
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
    else:
        if not stat.S_ISDIR(st.st_mode):
            reason = "not a folder"
        elif not os.access(path, os.R_OK | os.X_OK):
            reason = "permission denied"
    if reason is not None:
        raise FfindError(f"cannot search {path!r}: {reason}")
    return path
