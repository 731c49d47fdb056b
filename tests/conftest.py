"""Every test runs with its own state and cache folders: ffind's memory and warm snapshots
(``$XDG_STATE_HOME``, ``$XDG_CACHE_HOME``, ``FFIND_MEMORY``) never reach the user's, also in the
subprocesses a test starts (they inherit the environment); the resident index server is off
(``FFIND_NO_SERVER=1``) but in its own tests.  A session-wide setting covers the
fixtures of wider scope (a module's MCP server); each test then gets folders of its own.

A test that drives a program the machine may lack (fzf, tmux, a shell, an editor, man, git)
asks for it with :func:`need`."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

VARIABLES = ("XDG_STATE_HOME", "XDG_CACHE_HOME")
UNSET = ("FFIND_MEMORY", "FFIND_NO_MEMORY", "XDG_RUNTIME_DIR", "FFIND_SERVER_IDLE",
         "FFIND_SERVER_FROM", "FFIND_DEFAULT_OPTS")


def _point(mp: pytest.MonkeyPatch, base: Path) -> None:
    for name in VARIABLES:
        mp.setenv(name, str(base / name.lower()))
    for name in UNSET:
        mp.delenv(name, raising=False)
    # No test leaves a resident server behind: the server's own tests turn it back on
    # (tests/resident_*_test.py), with private folders, and stop it.
    mp.setenv("FFIND_NO_SERVER", "1")


@pytest.fixture(scope="session", autouse=True)
def _private_state_for_the_session(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("xdg-session")
    with pytest.MonkeyPatch.context() as mp:
        _point(mp, base)
        yield base


@pytest.fixture(autouse=True)
def _private_state(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("xdg")
    _point(monkeypatch, base)
    yield base


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
