"""The picker's first frame from the root's resident server (issue 14), in a real terminal.

The server is turned on for these tests only (conftest.py turns it off everywhere else), with
a socket folder of their own; every server started here is stopped and must have exited.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import picker_test
import resident_server_test
from picker_test import FFIND, Pane, settled
from resident_server_test import _exited, _server_pids, _stats, _wait_for_server

from ffind.frontends.picker import Waker
from ffind.options import SearchOptions
from ffind.resident import client
from ffind.searching.session import Snapshot

start = picker_test.start
"""The picker tests' fixture: ``start(command=...)`` runs it in tmux in a tree of its own."""
runtime = resident_server_test.resident
"""The server tests' fixture: the server on, with sockets of its own; stopped at the end."""


def _serve(tree: Path) -> int:
    """Start ``tree``'s server, let it answer once (its first walk); its pid."""
    assert client.start(str(tree)) is not None
    stats = _wait_for_server(tree)
    first = client.ask("prom", str(tree), SearchOptions(), memory=True, count=True)
    assert first is not None and [m.path for m in first.matches][:1] == [
        "src/session/prompt.ts"]
    pid = stats["pid"]
    assert isinstance(pid, int)
    return pid


def _answered(tree: Path) -> object:
    stats = _stats(tree)
    assert stats is not None
    return stats["answered"]


def test_the_server_answers_the_pickers_first_frame(start: Callable[..., Pane],
                                                    runtime: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"  # (written by the ``start`` fixture)
    pid = _serve(tree)
    assert _answered(tree) == 1
    pane = start(command=f"{FFIND} -i prom")
    lines = pane.wait_for(settled("prom"))
    assert lines[1].strip().startswith("2/")
    assert lines[2] == "> src/session/prompt.ts"
    assert lines[3] == "  src/session/prompt_test.ts"
    assert _answered(tree) == 2, "the picker asked the server once"
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == "src/session/prompt.ts\n"
    assert _answered(tree) == 2, "typing and Enter never go through the server"
    client.stop_all()
    assert _exited(pid), "the server exited"


def test_no_server_flag_and_no_cache_do_not_ask_it(start: Callable[..., Pane],
                                                    runtime: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    _serve(tree)
    for flag in ("--no-server", "--no-cache"):
        pane = start(command=f"{FFIND} -i {flag} prom")
        lines = pane.wait_for(settled("prom"))
        assert lines[2] == "> src/session/prompt.ts"
        pane.send("Enter")
        assert pane.exit_code() == 0
        assert pane.out.read_text() == "src/session/prompt.ts\n"
        pane.rc.unlink()
        subprocess.run([*pane.tmux, "kill-session", "-t", "picker"], check=True)
        assert _answered(tree) == 1, flag


def test_without_a_server_the_picker_starts_none(start: Callable[..., Pane],
                                                 runtime: Path, tmp_path: Path) -> None:
    pane = start(command=f"{FFIND} -i prom")
    lines = pane.wait_for(settled("prom"))
    assert lines[1].strip().startswith("2/")
    assert lines[2] == "> src/session/prompt.ts"
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == "src/session/prompt.ts\n"
    assert _stats(tmp_path / "tree") is None, "the picker never starts a server"
    assert _server_pids(runtime) == []


def _snap(query: str, paths: list[str]) -> Snapshot:
    from ffind.scoring.scorer import FileMatch

    matches = [FileMatch(1, p) for p in paths]
    return Snapshot(query, matches, len(paths), len(paths), False)


def test_the_servers_answer_is_shown_only_before_the_sessions_first_state() -> None:
    waker = Waker(-1, 20)
    assert waker.provisional(_snap("a", ["x"]))
    shown = waker.newest("a")
    assert shown is not None and [m.path for m in shown.matches] == ["x"]
    assert not waker.complete and not waker.answered("a")
    waker.on_update(_snap("a", ["y"]))
    shown = waker.newest("a")
    assert shown is not None and [m.path for m in shown.matches] == ["y"]
    assert not waker.provisional(_snap("a", ["z"])), "the session's state stays"
    shown = waker.newest("a")
    assert shown is not None and [m.path for m in shown.matches] == ["y"]


def test_the_servers_answer_is_refused_once_the_session_ranked() -> None:
    waker = Waker(-1, 20)
    waker.on_ranked("a", [])
    assert not waker.provisional(_snap("a", ["z"]))
    assert waker.latest is None
