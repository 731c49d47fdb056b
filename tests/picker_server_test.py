"""The picker's first frame from the root's resident server (issue 14), in a real terminal.

The server is turned on for these tests only (conftest.py turns it off everywhere else), with
a socket folder of their own; every server started here is stopped and must have exited.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import picker_test
import pytest
import resident_server_test
from picker_test import FFIND, Pane, settled
from resident_server_test import (
    _armed,
    _exited,
    _server_pids,
    _stats,
    _threaded_server,
    _wait_for_server,
)

import ffind
from ffind.frontends.picker.view import COUNTING, SPINNER, Picker
from ffind.frontends.picker.waker import Waker
from ffind.options import SearchOptions
from ffind.resident import client, server
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


def _eventually(get: Callable[[], object], want: object, message: str) -> None:
    """``get() == want`` within 10 s: the server answers in a thread (or a process) of its
    own, so a picker whose session drew its frame first may show it, or end, before the
    server has counted its request."""
    deadline = time.monotonic() + 10
    while get() != want:
        assert time.monotonic() < deadline, f"{message}: {get()!r}, not {want!r}"
        time.sleep(0.01)


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
    _eventually(lambda: _answered(tree), 2, "the picker asked the server once")
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


def test_the_servers_rows_then_their_count_are_shown_until_the_session_reports() -> None:
    waker = Waker(-1, 20)
    assert waker.provisional(_snap("a", ["x"])) and waker.seq == 1
    assert waker.provisional(Snapshot("a", [], 7, 9, False)), "its count, after its rows"
    shown = waker.newest("a")
    assert shown is not None and shown.total_match_count == 7 and waker.seq == 2
    waker.on_update(_snap("a", ["y"]))
    assert waker.reported
    assert not waker.provisional(Snapshot("a", [], 8, 9, False))
    shown = waker.newest("a")
    assert shown is not None and [m.path for m in shown.matches] == ["y"]


class _Screen:
    """What ``Picker.draw`` uses of a ``Terminal``, writing to a string."""

    resized = False

    def __init__(self) -> None:
        self.written = ""

    def size(self) -> tuple[int, int]:
        return 80, 10

    def goto(self, row: int, col: int = 1) -> str:
        return f"\x1b[{row + 1};{col}H"

    def clear(self) -> str:
        return "\x1b[2J"

    def write(self, text: str) -> None:
        self.written += text


def _first_picker(waker: Waker) -> tuple[Picker, _Screen]:
    screen = _Screen()
    return Picker(screen, None, waker, "a", color=False), screen  # type: ignore[arg-type]


def test_the_servers_rows_are_drawn_before_the_session_with_their_count_to_come() -> None:
    """``Picker.first``: rows whose count is still to come show ``…`` for it (the cursor may
    move over the rows); once the count is drawn, the session may start."""
    waker = Waker(-1, 20)
    picker, screen = _first_picker(waker)
    arrived: list[Snapshot] = []

    def asking() -> bool:  # (the server's second message comes once the rows are drawn)
        if not arrived and COUNTING in screen.written:
            arrived.append(_snap("a", ["x", "y"]))
            waker.provisional(Snapshot("a", arrived[0].matches, 5, 40, False))
        return True

    waker.provisional(Snapshot("a", _snap("a", ["x", "y"]).matches, -1, 40, False))
    picker.first(60, asking)
    assert f"{COUNTING}/40" in screen.written and "5/40" in screen.written
    assert "x" in screen.written and "y" in screen.written
    picker.move(3)
    assert picker.cur == 3, "the count drawn: the cursor may go past the rows"
    only_rows = Waker(-1, 20)
    picker, screen = _first_picker(only_rows)
    only_rows.provisional(Snapshot("a", _snap("a", ["x", "y"]).matches, -1, 40, False))
    picker.first(0, lambda: False)
    assert f"{COUNTING}/40" in screen.written
    picker.move(5)
    assert picker.cur == 1, "while counted, the cursor moves over the rows"


def test_without_an_answer_the_first_frame_waits_for_nothing() -> None:
    waker = Waker(-1, 20)
    picker, screen = _first_picker(waker)
    picker.first(600, lambda: False)  # (the server's thread has ended: no answer)
    assert screen.written == ""


def test_a_change_after_the_server_indexed_is_in_the_pickers_final_frame(
        start: Callable[..., Pane], runtime: Path, tmp_path: Path) -> None:
    """The server's first frame is provisional (its listing not validated: a change made
    since its last request is not in it); the picker ends on its session's validated
    listing: the change is shown, and picked."""
    tree = tmp_path / "tree"  # (written by the ``start`` fixture)
    with _threaded_server(tree, budget=0) as srv:  # (no watches: no idle validation)
        first = client.ask("prom", str(tree), SearchOptions(), memory=True, count=True)
        assert first is not None and not first.provisional
        _armed(srv)  # (its hint started, no watch: nothing validates the listing until asked)
        (tree / "src/session/prompt_test.ts").unlink()
        (tree / "src/session/prom.ts").write_text("")  # (as many files: the same total)
        stale = client.ask("prom", str(tree), SearchOptions(), memory=True, count=True,
                           provisional=True)
        assert stale is not None and stale.provisional and stale.total == 2
        assert [m.path for m in stale.matches] == ["src/session/prompt.ts",
                                                   "src/session/prompt_test.ts"]
        pane = start(command=f"{FFIND} -i prom")
        lines = pane.wait_for(settled("prom"))
        assert lines[1].strip().startswith("2/")
        assert lines[2:5] == ["> src/session/prom.ts", "  src/session/prompt.ts", ""]
        _eventually(lambda: srv.answered, 3, "the picker asked the server (once)")
        pane.send("Enter")
        assert pane.exit_code() == 0
        assert pane.out.read_text() == "src/session/prom.ts\n"
        again = client.ask("prom", str(tree), SearchOptions(), memory=True, count=True,
                           provisional=True)
        assert again is not None and [m.path for m in again.matches] == [
            m.path for m in stale.matches], "the server's listing: still as it held it"
        exact = client.ask("prom", str(tree), SearchOptions(), memory=True, count=True)
        assert exact is not None and not exact.provisional
        assert [m.path for m in exact.matches] == ["src/session/prom.ts",
                                                   "src/session/prompt.ts"]


def test_the_sessions_counter_does_not_drop_below_the_servers_until_complete() -> None:
    """The session's snapshot comes in two parts (the query's candidates first): its first
    states count fewer paths than the server's listing; the counter keeps the server's until
    the session's listing is validated (then exact)."""
    waker = Waker(-1, 20)
    waker.provisional(Snapshot("a", [], 2, 100, False))
    waker.on_update(Snapshot("a", [], 2, 40, False))
    shown = waker.newest("a")
    assert shown is not None and shown.scanned_file_count == 100 and shown.total_match_count == 2
    waker.on_update(Snapshot("a", [], 2, 120, False))
    shown = waker.newest("a")
    assert shown is not None and shown.scanned_file_count == 120
    waker.on_update(Snapshot("b", [], 1, 90, True))
    shown = waker.newest("b")
    assert shown is not None and shown.scanned_file_count == 90, "the validated listing's"
    waker.on_complete(Snapshot("a", [], 2, 90, True))
    shown = waker.newest("a")
    assert shown is not None and shown.scanned_file_count == 90
    plain = Waker(-1, 20)  # (no server: as the session says)
    plain.on_update(Snapshot("a", [], 2, 40, False))
    shown = plain.newest("a")
    assert shown is not None and shown.scanned_file_count == 40


def test_the_pickers_count_from_the_server_is_exact_and_remembered(
        start: Callable[..., Pane], runtime: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The count of the server's first frame (its rows first, the count after them) is the
    exact count, and the server remembers it (``Held.counts``): a picker opened again on the
    same query has it from the server's memory, the same.  Each picker ends on its
    session's validated frame."""
    known: list[int] = []

    def remembered(n: int) -> Callable[[], int]:
        known.append(n)
        return lambda: n

    monkeypatch.setattr(server, "_known", remembered)
    tree = tmp_path / "tree"  # (written by the ``start`` fixture)
    many = tree / "many"  # (more matches than a screenful: the rows' ranking leaves the
    many.mkdir()          # count to compute, as at 1M)
    for i in range(300):
        (many / f"session_{i}.txt").write_text("")
    with _threaded_server(tree, budget=0) as srv:
        first = client.ask("prom", str(tree), SearchOptions(), memory=True, count=True)
        assert first is not None and not first.provisional
        _armed(srv)
        exact = ffind.search("sess", tree, SearchOptions(limit=1), cache=False)
        for opened in range(2):
            pane = start(command=f"{FFIND} -i sess")  # (the first: not counted before)
            lines = pane.wait_for(lambda s: len(s) > 1 and s[0] == "> sess"
                                  and "/309" in s[1] and not any(c in s[1] for c in SPINNER))
            assert lines[1].strip() == f"{exact.total_match_count}/309"
            assert lines[2] == f"> {exact.matches[0].path}"
            pane.send("Enter")
            assert pane.exit_code() == 0
            assert pane.out.read_text() == f"{exact.matches[0].path}\n"
            if opened == 0:
                assert known == [], "a query not counted before is counted"
                deadline = time.monotonic() + 10  # (the server counts after the rows)
                while exact.total_match_count not in [h.counts.get("sess")
                                                      for h in srv.held.values()]:
                    assert time.monotonic() < deadline, "and remembered"
                    time.sleep(0.01)
                subprocess.run([*pane.tmux, "kill-session", "-t", "picker"], check=True)
                pane.rc.unlink()
                pane.out.unlink()
        _eventually(lambda: known, [exact.total_match_count], "the second picker's: remembered")
