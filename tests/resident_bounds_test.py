"""The resident servers as a user expects them: listed and stopped on demand (``--servers``,
``--stop-servers``), started only where they pay and never without bound (size, home and
``/``, ``MAX_SERVERS``, a quarter of the inotify watches, idle time by size), and robust
against what an attacker or a fault injector does (inherited descriptors, a stopped server,
oversized or version-less requests, another mount namespace, unrelated variables, an MCP
server that goes, a deleted working folder)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from resident_server_test import (
    _armed,
    _exited,
    _ffind,
    _server_pids,
    _stats,
    _threaded_server,
    _tree,
    _wait_for_server,
    resident,
)

import ffind
from ffind.options import SearchOptions
from ffind.resident import client, protocol, server

__all__ = ["resident"]  # (the fixture, used by name)


def _trees(base: Path, n: int) -> list[Path]:
    return [_tree(base / f"t{i}") for i in range(n)]


def _serve(root: Path) -> int:
    """Start ``root``'s server through the command (its first call), wait for it; its pid."""
    assert _ffind("main", cwd=root).returncode == 0
    pid = _wait_for_server(root)["pid"]
    assert isinstance(pid, int)
    return pid


# ---- visible and controllable -----------------------------------------------------------------

def test_servers_lists_and_stop_servers_stops_them(resident: Path, tmp_path: Path) -> None:
    none = _ffind("--servers", cwd=tmp_path)
    assert (none.returncode, none.stdout) == (1, b"")
    roots = _trees(tmp_path, 2)
    pids = sorted(_serve(root) for root in roots)
    listed = _ffind("--servers", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    found = [json.loads(line) for line in listed.stdout.splitlines()]
    assert sorted(s["pid"] for s in found) == pids
    assert sorted(s["root"] for s in found) == sorted(os.path.realpath(r) for r in roots)
    for s in found:
        assert s["files"] == 5 and s["rss"] > 0 and s["idle_limit"] == 30
        assert {"watches", "folders", "watching_all", "idle"} <= set(s)
    table = _ffind("--servers", cwd=tmp_path)
    assert table.returncode == 0
    lines = table.stdout.decode().splitlines()
    assert lines[0].split() == ["PID", "FILES", "MEMORY", "WATCHED", "IDLE", "FOLDER"]
    assert all(any(line.endswith(os.path.realpath(r)) for line in lines) for r in roots)
    stopped = _ffind("--stop-servers", cwd=tmp_path)
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (0, b"", b"")
    assert all(_exited(pid) for pid in pids)
    assert _ffind("--stop-servers", cwd=tmp_path).returncode == 1
    assert _ffind("--servers", cwd=tmp_path).returncode == 1
    snapshots = list(Path(os.environ["XDG_CACHE_HOME"]).rglob("*"))
    assert snapshots  # (the cache is kept: only --clear-cache empties it)


def test_a_stopped_server_is_listed_and_stopped(resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    pid = _serve(root)
    os.kill(pid, signal.SIGSTOP)
    try:
        found = client.servers()
        assert [(s["pid"], s.get("state")) for s in found] == [(pid, "not answering")]
        assert client.stop_all() == 1
        assert _exited(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


# ---- only where it pays, never without bound --------------------------------------------------

def test_no_server_stays_for_a_small_tree(resident: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FFIND_SERVER_FROM")  # (the default: 5,000 files)
    root = _tree(tmp_path)
    first = _ffind("main", cwd=root)
    assert first.returncode == 0
    end = time.monotonic() + 20
    while not list(resident.glob("ffind/*.small")) and time.monotonic() < end:
        time.sleep(0.05)
    assert list(resident.glob("ffind/*.small")), "the primed server did not say small"
    assert _ffind("main", cwd=root).stdout == first.stdout  # (warm, from its snapshot)
    time.sleep(0.5)
    assert client.servers() == []


def test_no_server_for_home_or_root(resident: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    monkeypatch.setenv("HOME", str(root))
    assert client.start(str(root)) is None
    assert client.start("/") is None
    monkeypatch.setenv("HOME", str(tmp_path))
    pid = client.start(str(root))
    assert pid is not None
    _wait_for_server(root)


def test_at_most_max_servers_run_the_least_recently_used_goes(
        resident: Path, tmp_path: Path) -> None:
    roots = _trees(tmp_path, server.MAX_SERVERS + 1)
    pids = [_serve(root) for root in roots[:server.MAX_SERVERS]]
    time.sleep(0.05)
    _ffind("main", cwd=roots[0])  # (the first is used again: the second is the oldest now)
    pids.append(_serve(roots[-1]))
    assert _exited(pids[1])
    running = sorted(_server_pids(resident))
    assert running == sorted(p for i, p in enumerate(pids) if i != 1)


def test_the_servers_together_hold_at_most_a_quarter_of_the_watches(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        short_racy: None) -> None:
    limit = tmp_path / "max_user_watches"
    limit.write_text("16\n")  # (a quarter: 4 watches for all servers together)
    monkeypatch.setattr(server, "MAX_WATCHES", str(limit))
    a, b = _trees(tmp_path, 2)
    opts = SearchOptions(hidden=True, respect_ignore=False)
    with _threaded_server(a) as first, _threaded_server(b) as second:
        for root, srv in ((a, first), (b, second)):
            found = client.where(str(root))
            assert found is not None
            srv.lock = os.open(protocol.lock_path(found[0]), os.O_RDWR | os.O_CREAT, 0o600)
            server.write_lock(srv)
            ffind.search("main", root, opts, cache=True)
            _armed(srv)
        stats = [server.stats(srv) for srv in (first, second)]
        assert [s["watches"] for s in stats] == [4, 0]
        assert not all(s["watching_all"] for s in stats)
        # The folders not watched are checked by each validation: the answers stay exact.
        (b / "deep" / "a" / "b" / "c" / "main_new.c").write_text("x")
        got = ffind.search("main_new", b, opts, cache=True)
        assert [m.path for m in got.matches] == ["deep/a/b/c/main_new.c"]
        assert got == ffind.search("main_new", b, opts)
        for srv in (first, second):
            assert srv.lock is not None
            os.close(srv.lock)
            srv.lock = None


def test_a_large_server_waits_less_when_idle() -> None:
    assert server.idle_for(1000) == server.IDLE_SECONDS
    assert server.idle_for(1_000_000) == server.IDLE_LEAST
    assert server.IDLE_LEAST < server.idle_for(200_000) < server.IDLE_SECONDS


# ---- what an attacker and a fault injector found ----------------------------------------------

def test_a_started_server_keeps_none_of_the_callers_descriptors(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    read, write = os.pipe()
    try:
        proc = subprocess.run([sys.executable, "-m", "ffind", "-l1", "main"], cwd=root,
                              capture_output=True, pass_fds=(write,), timeout=60, check=False)
        os.close(write)
        write = -1
        assert proc.returncode == 0
        stats = _wait_for_server(root)  # (started by that call)
        os.set_blocking(read, False)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                assert os.read(read, 1) == b""  # (EOF: no one else holds the pipe)
                break
            except BlockingIOError:
                time.sleep(0.05)
        else:
            raise AssertionError(f"server {stats['pid']} holds the caller's pipe")
        fds = os.listdir(f"/proc/{stats['pid']}/fd")
        targets = [os.readlink(f"/proc/{stats['pid']}/fd/{fd}") for fd in sorted(fds, key=int)[:3]]
        assert targets == ["/dev/null"] * 3
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


def test_a_stopped_server_is_given_up_at_once_and_replaced(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    pid = _serve(root)
    want = _ffind("--no-server", "main", cwd=root).stdout
    os.kill(pid, signal.SIGSTOP)
    try:
        got = _ffind("main", cwd=root)
        assert (got.returncode, got.stdout, got.stderr) == (0, want, b"")
        replaced = _wait_for_server(root)["pid"]
        assert replaced != pid
    finally:
        os.kill(pid, signal.SIGCONT)
    assert _exited(pid)  # (running again, its socket is not its own)
    assert _wait_for_server(root)["pid"] == replaced


def _raw(path: str, data: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        sock.sendall(data)
        try:
            return sock.recv(1 << 16)
        except OSError:
            return b""


def test_an_oversized_or_versionless_request_stops_nothing(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    pid = _serve(root)
    found = client.where(str(root))
    assert found is not None
    assert _raw(found[0], (1 << 31).to_bytes(4, "big") + b"x" * 1000) == b""
    reply = _raw(found[0], protocol.encode({"op": "stats"}))
    assert b"ok" in reply
    stats = _stats(root)
    assert stats is not None and stats["pid"] == pid


def test_the_key_has_the_mount_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    env = protocol.answer_env()
    assert env is not None
    here = protocol.socket_key("/tmp", env)
    assert f"mnt {os.readlink('/proc/self/ns/mnt')}" in here.splitlines()
    monkeypatch.setattr(protocol, "mount_namespace", lambda: "mnt:[1]")
    assert protocol.socket_key("/tmp", env) != here


def test_unrelated_variables_do_not_key_a_server() -> None:
    base = {"HOME": "/h", "XDG_CACHE_HOME": "/c", "GIT_DIR": "/g/.git", "FFIND_MEMORY": "/m"}
    noise = {"FFIND_CTRL_T_OPTS": "-H", "FFIND_SERVER_IDLE": "5", "FFIND_NO_SERVER": "0",
             "FFIND_SERVER_FROM": "0", "FFIND_FOO": "1", "XDG_SESSION_ID": "7",
             "XDG_RUNTIME_DIR": "/r"}
    assert protocol.answer_env({**base, **noise}) == protocol.answer_env(base) == base


def test_every_variable_ffind_reads_is_keyed_or_known_not_to_change_an_answer() -> None:
    import re

    package = Path(ffind.__file__).parent
    names = set()
    for path in package.rglob("*.py"):
        names.update(re.findall(r"\bFFIND_[A-Z_]+\b", path.read_text()))
    not_answer = {"FFIND_NO_SERVER", "FFIND_SERVER_IDLE", "FFIND_SERVER_FROM",
                  "FFIND_NO_WATCH", "FFIND_CTRL_T_KEY", "FFIND_CTRL_T_OPTS",
                  "FFIND_ALT_C_KEY", "FFIND_ALT_C_OPTS", "FFIND_COMPLETION_TRIGGER",
                  "FFIND_COMPLETION_OPTS", "FFIND_HEIGHT", "FFIND_PREVIEW_COLUMNS",
                  "FFIND_PREVIEW_LINES", "FFIND_COMPLETE",
                  "FFIND_DEFAULT_OPTS"}  # (expanded before a request is sent)
    assert names - not_answer <= set(protocol.KEYED_FFIND)


def test_a_tied_server_exits_with_its_parent(resident: Path, tmp_path: Path) -> None:
    """``ffind mcp`` starts its root's server tied: it leaves none behind."""
    root = _tree(tmp_path)
    script = textwrap.dedent(f"""
        import time
        from ffind.resident import client
        print(client.start({str(root)!r}, tied=True), flush=True)
        time.sleep(3)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=True)
    pid = int(proc.stdout)
    assert _exited(pid, timeout=15)


def test_a_deleted_working_folder_is_one_line_and_exit_2(resident: Path,
                                                         tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = ("import os, sys, runpy; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
              "sys.argv = ['ffind', 'x']; from ffind.frontends.entry import main; "
              "raise SystemExit(main())")
    proc = subprocess.run([sys.executable, "-c", script, str(gone)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("ffind: ")
