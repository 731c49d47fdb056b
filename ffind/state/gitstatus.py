"""Files with uncommitted changes count as visits: ``git status``, run beside the walk.

:class:`GitChanges` starts ``git status`` in the background when a search starts; the search
asks for the answer once its walk is done and does not wait for it (``changed(wait=0)``): a
slow ``git status`` is skipped (and stopped), never waited for.  No git, no repository, an
error: no changes.  The paths are those of modified, added, renamed and untracked (not ignored)
files, relative to the search root.
"""

from __future__ import annotations

import os
import subprocess
import threading
from typing import TYPE_CHECKING

from ffind.fs.ignore.gitconfig import find_repo_top

if TYPE_CHECKING:
    from ffind.engine.recall import VisitSource

DEFAULT_WAIT = 0.0


class GitChanges:
    """``git status`` of the work tree holding ``root``, started at once in a thread of its
    own (starting a process costs ~10 ms of the caller's time otherwise)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        self._paths: frozenset[str] | None = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopped = False
        top = find_repo_top(self.root)
        if top is None:
            self._finish(frozenset())
            return
        self._top = top
        threading.Thread(target=self._run, name="ffind-git-status", daemon=True).start()

    def _finish(self, paths: frozenset[str]) -> None:
        self._paths = paths
        self._done.set()

    def _run(self) -> None:
        with self._lock:
            if self._stopped:
                return self._finish(frozenset())
            try:
                self._proc = proc = subprocess.Popen(
                    ["git", "-C", self._top, "-c", "core.quotePath=false", "status",
                     "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"],
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},  # never the index lock
                )
            except OSError:
                return self._finish(frozenset())
        assert proc.stdout is not None
        out = proc.stdout.read()
        code = proc.wait()
        self._finish(_parse(out, self._top, self.root) if code == 0 else frozenset())

    def changed(self, wait: float = DEFAULT_WAIT, *, give_up: bool = True) -> frozenset[str]:
        """The changed paths under the root (relative to it), if ``git status`` has answered
        within ``wait`` seconds; else nothing (and, with ``give_up``, it is stopped: a
        one-shot search answers without it; a session asks again on a later keystroke)."""
        if not self._done.wait(wait):
            if give_up:
                self.stop()
            return frozenset()
        return self._paths or frozenset()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()


def _parse(out: bytes, top: str, root: str) -> frozenset[str]:
    """Porcelain v1 ``-z`` records (``XY path``), paths relative to the top, -> paths under
    ``root``, relative to it."""
    rel_root = os.path.relpath(root, top)
    prefix = "" if rel_root == "." else rel_root.replace(os.sep, "/") + "/"
    found = set()
    for record in out.split(b"\0"):
        if len(record) < 4 or record[2:3] != b" ":
            continue
        status, path = record[:2], os.fsdecode(record[3:])
        if b"D" in status or path.endswith("/"):
            continue
        if path.startswith(prefix):
            found.add(path[len(prefix):])
    return frozenset(found)


class Visits:
    """What ranking reads (a ``VisitSource``): the memory's visits plus, when ``git`` is
    given, one visit now for each file with uncommitted changes (never written to the
    memory)."""

    def __init__(self, memory: VisitSource | None, git: GitChanges | None = None, *,
                 wait_for_git: bool = False) -> None:
        self.memory = memory
        self.git = git
        self._give_up = not wait_for_git

    def _changes(self) -> frozenset[str]:
        return frozenset() if self.git is None else self.git.changed(0, give_up=self._give_up)

    def weights(self, root: str, now: float | None = None) -> dict[str, tuple[float, float]]:
        out = {} if self.memory is None else dict(self.memory.weights(root, now))
        changes = self._changes()
        if changes and self.git is not None and os.path.abspath(root) == self.git.root:
            for p in changes:
                w, r = out.get(p, (0.0, 0.0))
                out[p] = (w + 1.0, r + 1.0)
        return out

    def stamp(self) -> object:
        return (None if self.memory is None else self.memory.stamp(), len(self._changes()))
