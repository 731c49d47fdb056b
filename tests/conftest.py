"""Every test runs with its own state and cache folders: ffind's memory, warm snapshots and
resident servers' sockets (``$XDG_STATE_HOME``, ``$XDG_CACHE_HOME``, ``FFIND_MEMORY``) never
reach the user's, also in the subprocesses a test starts (they inherit the environment).  The
resident server is on, as users get it, for folders of any size (``FFIND_SERVER_FROM=0``: the
test trees are small); every server a test started is stopped at its teardown, and one that
does not exit fails the test (``stop_servers_since``).  A session-wide setting covers the
fixtures of wider scope (a module's MCP server); each test then gets folders of its own.
``both_ways`` (``tests/both_ways.py``) runs a command both without and with a warm server.

A test that drives a program the machine may lack (fzf, tmux, a shell, an editor, man, git)
asks for it with :func:`need`."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

VARIABLES = ("XDG_STATE_HOME", "XDG_CACHE_HOME")
UNSET = ("FFIND_MEMORY", "FFIND_NO_MEMORY", "XDG_RUNTIME_DIR", "FFIND_SERVER_IDLE",
         "FFIND_NO_SERVER", "FFIND_DEFAULT_OPTS")


def _point(mp: pytest.MonkeyPatch, base: Path) -> None:
    for name in VARIABLES:
        mp.setenv(name, str(base / name.lower()))
    for name in UNSET:
        mp.delenv(name, raising=False)
    mp.setenv("FFIND_SERVER_FROM", "0")  # (sockets in $XDG_CACHE_HOME/ffind/run: the test's)


@pytest.fixture(scope="session", autouse=True)
def _private_state_for_the_session(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("xdg-session")
    with pytest.MonkeyPatch.context() as mp:
        _point(mp, base)
        yield base
    left = stop_servers_since(None, tmp_path_factory.getbasetemp())
    assert not left, f"resident servers still running after the suite: {left}"


@pytest.fixture(autouse=True)
def _private_state(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("xdg")
    _point(monkeypatch, base)
    since = last_pid()
    yield base
    left = stop_servers_since(since, tmp_path_factory.getbasetemp())
    assert not left, f"resident servers still running after the test: {left}"


SERVER = b"ffind.frontends.served"


def last_pid() -> int | None:
    """The last process id the system gave out (None where it does not say)."""
    try:
        with open("/proc/sys/kernel/ns_last_pid") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def servers() -> Iterator[tuple[int, list[bytes]]]:
    """Every resident server process on the machine: its pid and command line."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if SERVER in args:
            yield int(name), args


def _servers_since(since: int | None, under: Path) -> dict[int, list[bytes]]:
    """The resident servers (pid: command line) whose socket is in the folder ``under`` (this
    run's: the machine may run other suites) started after the pid ``since`` was given out
    (the ids wrap around at ``pid_max``), but those tied to another process (``--tied``: they
    exit with the MCP server that started them); every one when ``since`` is None."""
    folder = os.path.join(os.fsencode(under), b"")
    now, me = last_pid(), os.getpid()
    found = {}
    for pid, args in servers():
        if since is not None and now is not None and not (
                since < pid <= now if since <= now else pid > since or pid <= now):
            continue
        if ((since is None or b"--tied" not in args or _parent(pid) == me)
                and b"--socket" in args[:-1]
                and args[args.index(b"--socket") + 1].startswith(folder)):
            found[pid] = args
    return found


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except OSError:
        return True


def stop_servers_since(since: int | None, under: Path, grace: float = 10.0) -> list[int]:
    """Stop the resident servers ``_servers_since(since, under)``: each is asked to stop on
    its socket (``client.stop``, as ``ffind --stop-servers`` does), one not listening yet gets
    SIGTERM; one still running after ``grace`` seconds is killed.  The pids of those (empty:
    every one stopped when asked)."""
    found = _servers_since(since, under)
    if not found:
        return []
    from ffind.resident.client import stop

    for pid, args in found.items():
        sock = args[args.index(b"--socket") + 1]
        if os.path.exists(sock):
            stop(os.fsdecode(sock))
        else:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + grace
    while time.monotonic() < end and not all(_gone(pid) for pid in found):
        time.sleep(0.02)
    left = [pid for pid in found if not _gone(pid)]
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


RACY_TEST_NS = 50_000_000  # far above the file system clock's tick (a few ms)


@pytest.fixture()
def short_racy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short racy window for the warm index (``ffind.fs.refresh.RACY_NS``), so that folders
    written by the test are trusted again soon (exactness must hold with any window above
    the clock's tick)."""
    from ffind.fs import refresh

    monkeypatch.setattr(refresh, "RACY_NS", RACY_TEST_NS)


@pytest.fixture()
def git_home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A HOME and XDG_CONFIG_HOME of the test's own, and no system git config: git's global
    ignore rules (``core.excludesFile``, ``~/.config/git/ignore``) are what the test writes."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return home


def need(program: str) -> str:
    """The path of ``program``, which the calling test drives; see :func:`missing`."""
    found = shutil.which(program)
    if found is None:
        missing(program)
    return found


def missing(what: str) -> NoReturn:
    """Skip the calling test for lack of ``what`` (a program), named in the reason, except
    under CI (``CI=true``), where it fails: nothing is skipped unseen there, and ``.ci/run``
    installs every program the tests drive."""
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"{what} is required in CI (.ci/run installs it)")
    pytest.skip(f"{what} is not installed")
