"""A command-line case run both ways, as users get it: without the resident server
(``FFIND_NO_SERVER=1``) and with the folder's server warm.  ``both`` runs the case as the
folder's first call (a cold search, which starts the server), again once the server answers,
and without the server; the three must give the same bytes on stdout and stderr and the same
exit status, and a case the server should answer must have been answered by it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from conftest import servers

from ffind.resident import client


def _ffind_executable() -> str:
    # The console script next to this interpreter (not a pyenv shim, which costs 60 ms a call).
    here = Path(sys.executable).parent / "ffind"
    if here.exists():
        return str(here)
    found = shutil.which("ffind")
    assert found is not None, "the ffind command is not installed"
    return found


FFIND = _ffind_executable()
UNSERVED = {"FFIND_NO_SERVER": "1"}


def environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's environment (without ``NO_COLOR``), with ``env`` over it."""
    full = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full.update(env or {})
    return full


def ffind(*args: str, cwd: Path | None = None, input: bytes | None = None,
          env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The ``ffind`` command run once."""
    return subprocess.run([FFIND, *args], cwd=cwd, input=input, capture_output=True,
                          env=environment(env), timeout=60)


def _server_pids(root: str) -> list[int]:
    """The resident servers of ``root`` that run (or start: their command line names it)."""
    want = os.fsencode(root)
    return [pid for pid, args in servers()
            if b"--root" in args[:-1] and args[args.index(b"--root") + 1] == want]


def served_count(root: str, env: Mapping[str, str], timeout: float = 30.0) -> int | None:
    """How many requests the servers of ``root`` (one per environment) have answered, once
    each answers (a server starting answers when its first listing is held); None when none
    runs nor starts."""
    end = time.monotonic() + timeout
    while True:
        pids = _server_pids(root)
        if not pids:
            return None
        counts = {stats["pid"]: stats["answered"] for stats in client.servers(env)
                  if stats.get("root") == root and isinstance(stats.get("answered"), int)}
        if set(pids) <= set(counts):
            return sum(counts.values())  # type: ignore[arg-type]
        assert time.monotonic() < end, f"the server of {root} did not answer in {timeout} s"
        time.sleep(0.02)


T = TypeVar("T")


def _key(result: object) -> object:
    if isinstance(result, subprocess.CompletedProcess):
        return result.returncode, result.stdout, result.stderr
    return result


def both(run: Callable[[dict[str, str]], T], cwd: Path,
         env: Mapping[str, str] | None = None) -> tuple[T, bool]:
    """``run(extra)`` (the case, with ``extra`` over its environment ``env``) in ``cwd``: as
    the folder's first call, then with the folder's server warm (started by a plain
    ``ffind -l 1`` when the case does not start one), then with ``FFIND_NO_SERVER=1``; the
    three results must be equal (a ``CompletedProcess``: its exit status, stdout and stderr).
    (the second result, whether the server answered it)."""
    root = os.path.realpath(cwd)
    full = environment(env)
    first = run({})
    before = served_count(root, full)
    if before is None:
        started = ffind("-l", "1", cwd=cwd, env=env)
        assert started.returncode in (0, 1), started.stderr
        before = served_count(root, full)
        assert before is not None, f"no server started for {root}"
    warm = run({})
    after = served_count(root, full)
    unserved = run(UNSERVED)
    assert _key(first) == _key(unserved), "a first call differs from a search without a server"
    assert _key(warm) == _key(unserved), "a served call differs from a search without a server"
    return warm, after is not None and after > before


def plain(args: list[str], code: int) -> bool:
    """Whether ``ffind args``, exited with ``code``, must have been answered by the server: a
    plain search (``client.plain_search``) that did not fail (exit 2).  (Others may be too: a
    search with ``-C``, or a pattern that looks like an option, asks it from the command.)"""
    return client.plain_search(args) and code != 2


def ffind_both(*args: str, cwd: Path, input: bytes | None = None,
               env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """``ffind args`` run ``both`` ways in ``cwd``; answered by the server when ``plain``."""
    def run(extra: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
        return ffind(*args, cwd=cwd, input=input, env={**(env or {}), **extra})

    result, answered = both(run, cwd, env)
    assert answered or not plain(list(args), result.returncode), f"ffind {args}: not served"
    return result
