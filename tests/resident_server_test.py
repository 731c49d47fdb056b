"""The resident index server (ffind.resident): its answers equal a search without it, byte for
byte, after any change; every failure falls back to a local search; it starts once, and stops
when told, when idle, when its socket goes, and for another version."""

from __future__ import annotations

import contextlib
import marshal
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from warm_test import OPTIONS, _restore, apply, git_repo, settle, steps

import ffind
from ffind.frozen import replace
from ffind.fs import refresh
from ffind.options import SearchOptions
from ffind.resident import client, protocol, server
from ffind.state.cache import SnapshotStore


@pytest.fixture()
def resident(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The server turned on, with a socket folder of its own (short: ``AF_UNIX``), a short
    idle time and no size threshold; every server still running at the end is stopped (and
    must exit)."""
    runtime = Path(tempfile.mkdtemp(prefix="ffr-", dir="/tmp"))
    monkeypatch.delenv("FFIND_NO_SERVER", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("FFIND_SERVER_IDLE", "30")
    monkeypatch.setenv("FFIND_SERVER_FROM", "0")  # (the trees here are small)
    # The commands these tests start run the ffind the tests import (a checkout, where CI
    # runs them, beside the installed one): servers and clients must share one key.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (os.path.dirname(protocol.PACKAGE), os.environ.get("PYTHONPATH")) if p))
    try:
        yield runtime
    finally:
        pids = _server_pids(runtime)
        client.stop_all()
        for pid in pids:
            assert _exited(pid), f"server {pid} still running"
        shutil.rmtree(runtime, ignore_errors=True)


def _server_pids(runtime: Path) -> list[int]:
    pids = []
    folder = runtime / "ffind"
    for sock in folder.glob("*.sock") if folder.is_dir() else ():
        reply = client.request(str(sock), {"op": "stats"})
        if reply is not None and isinstance(reply.get("pid"), int):
            pids.append(int(reply["pid"]))  # type: ignore[call-overload]
    return pids


def _exited(pid: int, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            got, _ = os.waitpid(pid, os.WNOHANG)
            if got == pid:
                return True
        except ChildProcessError:  # (not our child: the command started it)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            if _zombie(pid):
                return True
        time.sleep(0.05)
    return False


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _stats(root: Path) -> dict[str, object] | None:
    found = client.where(str(root), create=True)
    assert found is not None
    return client.request(found[0], {"op": "stats"})


def _wait_for_server(root: Path, timeout: float = 60.0) -> dict[str, object]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        stats = _stats(root)
        if stats is not None:
            return stats
        time.sleep(0.05)
    raise AssertionError("no server came up")


def _tree(base: Path) -> Path:
    """A small tree, not a repository (``git status`` ranks uncommitted files higher when it
    answers in time: a race in a search with or without the server)."""
    root = base / "tree"
    for rel in ["src/main.py", "src/util/io.py", "docs/main.md", "README", "build/out.o",
                "deep/a/b/c/main.c", ".hidden/main.py"]:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    (root / ".ignore").write_text("build/\n")
    return root


def _ffind(*args: str, cwd: Path, env: dict[str, str] | None = None,
           ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ffind", *args], cwd=cwd, capture_output=True,
                          env=env, check=False, timeout=60)


# ---- the command ----------------------------------------------------------------------------

def test_the_second_search_is_answered_by_the_server(resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with open(os.path.join(os.fsencode(root), b"src", b"\xffmain.txt"), "w"):
        pass  # (a name that is not UTF-8, and one with a newline)
    (root / "src" / "main\nx.py").write_text("x")
    first = _ffind("-l", "20", "main", cwd=root)
    assert first.returncode == 0
    stats = _wait_for_server(root)
    assert stats["answered"] == 0
    second = _ffind("-l", "20", "main", cwd=root)
    cold = _ffind("--no-cache", "-l", "20", "main", cwd=root)
    assert second.stdout == first.stdout == cold.stdout
    assert (second.stderr, second.returncode) == (cold.stderr, cold.returncode)
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 1
    for args in (["--json", "main"], ["-l", "0", ""], ["--json", "-l", "0"], ["-0", "mian"],
                 ["--color", "always", "main"], ["--json", "--compute-indices", "mn"],
                 ["!main"], ["-H", "main"], ["-t", "d", ""], ["zzzzqqq"]):
        by_server = _ffind(*args, cwd=root)
        local = _ffind("--no-cache", *args, cwd=root)
        assert (by_server.stdout, by_server.stderr, by_server.returncode) == (
            local.stdout, local.stderr, local.returncode), args
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 11


def test_the_server_ranks_with_the_memory(resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert _ffind("--remember", str(root / "docs" / "main.md"), cwd=root).returncode == 0
    _ffind("main", cwd=root)
    _wait_for_server(root)
    by_server = _ffind("main", cwd=root)
    local = _ffind("--no-server", "main", cwd=root)
    assert by_server.stdout == local.stdout
    assert by_server.stdout.splitlines()[0] == b"docs/main.md"
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 1


def test_the_server_learns_of_an_edit_without_git_add(
        resident: Path, git_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An uncommitted edit counts as a visit. The server answers before its ``git status``
    nearly always (here a ``git`` that takes 0.3 s): that ``git status`` must still finish
    and be remembered (it was stopped, and the server never ranked the edit up until the
    index changed)."""
    from state_gitstatus_test import slow_git

    root = _tree(tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "x"]):
        subprocess.run([*git, *args], cwd=root, check=True)
    slow_git(tmp_path, monkeypatch, f'sleep 0.3; exec {shutil.which("git")} "$@"')
    _ffind("main", cwd=root)
    _wait_for_server(root)
    first = _ffind("main", cwd=root).stdout.splitlines()[0]
    edited = b"docs/main.md" if first != b"docs/main.md" else b"src/main.py"
    with open(root / edited.decode(), "a") as f:
        f.write("edited")
    firsts = []
    for _ in range(50):  # (each answer starts a ``git status``; a later answer has it)
        firsts.append(_ffind("main", cwd=root).stdout.splitlines()[0])
        if firsts[-1] == edited:
            break
        time.sleep(0.1)
    assert firsts[-1] == edited, firsts
    assert set(firsts) <= {first, edited}
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 1 + len(firsts)


def test_no_server_never_starts_nor_uses_one(resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    for args, env in ((["--no-server"], None), (["--no-cache"], None),
                      ([], {**os.environ, "FFIND_NO_SERVER": "1"})):
        assert _ffind(*args, "main", cwd=root, env=env).returncode == 0
        time.sleep(0.3)
        assert _stats(root) is None, args
    assert not list((resident / "ffind").glob("*.sock"))
    _ffind("main", cwd=root)
    _wait_for_server(root)
    for args, env in ((["--no-server"], None), (["--no-cache"], None),
                      ([], {**os.environ, "FFIND_NO_SERVER": "1"})):
        assert _ffind(*args, "main", cwd=root, env=env).returncode == 0
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 0


def test_clear_cache_stops_the_servers(resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _ffind("main", cwd=root)
    pid = int(_wait_for_server(root)["pid"])  # type: ignore[call-overload]
    assert _ffind("--clear-cache", cwd=root).returncode == 0
    assert _exited(pid)
    assert not list((resident / "ffind").glob("*.sock"))
    assert not list((resident / "ffind").glob("*.lock"))  # (the server removes its own)


def test_clear_cache_removes_the_lock_files_no_server_holds(resident: Path) -> None:
    import fcntl

    folder = resident / "ffind"
    folder.mkdir(mode=0o700, exist_ok=True)
    stale, held = folder / "0123456789abcdef.lock", folder / "fedcba9876543210.lock"
    stale.touch()
    held.touch()
    fd = os.open(held, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # (as a running server holds its own)
        client.stop_all()
        assert not stale.exists()
        assert held.exists()
    finally:
        os.close(fd)


def test_a_lock_file_removed_after_it_was_opened_is_not_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        assert protocol.same_file(fd, str(path))
        path.unlink()
        assert not protocol.same_file(fd, str(path))
        path.touch()  # (a new lock file by that name: another file)
        assert not protocol.same_file(fd, str(path))
    finally:
        os.close(fd)


def test_a_server_started_from_a_folder_holding_another_ffind_runs_this_one(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m`` puts the caller's folder first on the module path: started from a
    source checkout (or any folder with an ``ffind`` package), the server must still run the
    client's ffind (another one has another key, and its answers would be refused)."""
    root = _tree(tmp_path)
    _ffind("--no-server", "main", cwd=root)  # (the snapshot)
    other = tmp_path / "checkout"
    (other / "ffind").mkdir(parents=True)
    (other / "ffind" / "__init__.py").write_text("raise SystemExit('another ffind')\n")
    monkeypatch.chdir(other)
    assert client.start(str(root)) is not None
    _wait_for_server(root)
    by_server = ffind.search("main", root, SearchOptions(), cache=True)
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 1
    assert by_server == ffind.search("main", root, SearchOptions())


def test_two_clients_racing_start_one_server(resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _ffind("--no-server", "main", cwd=root)  # (the snapshot)
    pids = [client.start(str(root)) for _ in range(4)]
    stats = _wait_for_server(root)
    ended = [p for p in pids if p is not None and p != stats["pid"]]
    assert len(ended) == 3
    for pid in ended:
        assert _exited(pid)
    again = _stats(root)
    assert again is not None and again["pid"] == stats["pid"]


def test_the_server_exits_when_its_socket_folder_is_deleted(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _ffind("main", cwd=root)
    pid = int(_wait_for_server(root)["pid"])  # type: ignore[call-overload]
    shutil.rmtree(resident / "ffind")
    assert _exited(pid)
    assert _ffind("main", cwd=root).stdout == _ffind("--no-cache", "main", cwd=root).stdout


def test_the_server_exits_when_idle_and_on_sigterm(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    _ffind("--no-server", "main", cwd=root)
    monkeypatch.setenv("FFIND_SERVER_IDLE", "1")
    pid = client.start(str(root))
    assert pid is not None
    _wait_for_server(root)
    assert _exited(pid, timeout=8)
    monkeypatch.setenv("FFIND_SERVER_IDLE", "30")
    pid = client.start(str(root))
    assert pid is not None
    _wait_for_server(root)
    os.kill(pid, signal.SIGTERM)
    assert _exited(pid)
    assert _stats(root) is None and not list((resident / "ffind").glob("*.sock"))


def test_a_stale_socket_file_means_a_local_search(resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    found = client.where(str(root), create=True)
    assert found is not None
    with open(found[0], "w"):
        pass  # (a file where the socket should be: nothing listens)
    got = _ffind("main", cwd=root)
    assert got.returncode == 0 and got.stderr == b""
    assert got.stdout == _ffind("--no-cache", "main", cwd=root).stdout
    _wait_for_server(root)  # (the search started one, in the stale file's place)


# ---- failures fall back to a local search (a fake server in a thread) ------------------------

@contextlib.contextmanager
def _fake_server(path: str, reply: bytes) -> Iterator[list[object]]:
    import socket

    seen: list[object] = []
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(4)
    sock.settimeout(0.2)
    done = threading.Event()

    def loop() -> None:
        while not done.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            with conn, contextlib.suppress(OSError, ValueError, EOFError):
                seen.append(protocol.receive(conn))
                conn.sendall(reply)

    thread = threading.Thread(target=loop)
    thread.start()
    try:
        yield seen
    finally:
        done.set()
        thread.join()
        sock.close()
        os.unlink(path)


@pytest.mark.parametrize("reply", [
    b"garbage", protocol.encode({"ok": True, "matches": "no"}), protocol.encode([1, 2]),
    protocol.encode({"ok": True, "matches": [(1, 2, 3, 4)], "total": 1, "complete": True,
                     "warnings": []}),
    protocol.encode({"ok": False, "why": "ffind 0.0"}), b"\xff\xff\xff\xff",
])
def test_a_bad_reply_means_a_local_search(resident: Path, tmp_path: Path, reply: bytes) -> None:
    root = _tree(tmp_path)
    found = client.where(str(root), create=True)
    assert found is not None
    options = SearchOptions(limit=5)
    with _fake_server(found[0], reply) as seen:
        assert client.ask("main", str(root), options, memory=False, count=True) is None
        got = ffind.search("main", root, options, cache=True)
        assert seen  # (it was asked)
    assert got == ffind.search("main", root, options)


def test_a_server_of_another_version_is_not_used_and_exits(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _ffind("--no-server", "main", cwd=root)
    pid = client.start(str(root))
    assert pid is not None
    found = client.where(str(root))
    assert found is not None
    _wait_for_server(root)
    import _socket
    import marshal
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.connect(found[0])
    payload = marshal.dumps({"op": "search", "v": "0.0.0", "key": found[1]})
    sock.sendall(len(payload).to_bytes(4, "big") + payload)
    reply = protocol.receive(sock)
    sock.close()
    assert isinstance(reply, dict) and reply["ok"] is False
    assert _exited(pid)


def test_another_environment_talks_to_another_server(resident: Path, tmp_path: Path) -> None:
    root = str(tmp_path)
    env = protocol.answer_env()
    assert env is not None
    one = protocol.socket_name(protocol.socket_key(root, env))
    assert one != protocol.socket_name(protocol.socket_key(root, {**env, "GIT_DIR": "/x"}))
    assert one != protocol.socket_name(protocol.socket_key(root, env, version="0.0.0"))
    assert one != protocol.socket_name(protocol.socket_key(root, env, package="/elsewhere"))
    assert one != protocol.socket_name(protocol.socket_key(root + "/..", env))
    assert protocol.answer_env({"GIT_DIR": ".git"}) is None
    assert protocol.answer_env({"FFIND_MEMORY": "m.sqlite3"}) is None
    assert protocol.answer_env({"GIT_DIR": "/r/.git", "PATH": "/bin"}) == {"GIT_DIR": "/r/.git"}


def test_an_unsafe_socket_folder_is_not_used(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    (shared / "ffind").mkdir(mode=0o755)
    os.chmod(shared / "ffind", 0o755)
    assert protocol.socket_dir({"XDG_RUNTIME_DIR": str(shared)}) is None
    link = tmp_path / "link"
    link.mkdir()
    (link / "ffind").symlink_to(shared / "ffind")
    assert protocol.socket_dir({"XDG_RUNTIME_DIR": str(link)}) is None
    fresh = protocol.socket_dir({"XDG_RUNTIME_DIR": str(tmp_path / "new")})
    assert fresh == str(tmp_path / "new" / "ffind")
    assert os.stat(fresh).st_mode & 0o777 == 0o700
    cache = protocol.socket_dir({"XDG_CACHE_HOME": str(tmp_path / "c"), "HOME": "/nowhere"})
    assert cache == str(tmp_path / "c" / "ffind" / "run")
    for made in (cache, tmp_path / "c" / "ffind"):  # (the cache folder too: owner-only)
        assert os.stat(made).st_mode & 0o777 == 0o700
    os.chmod(tmp_path / "c" / "ffind", 0o777)  # (others may plant a run folder in it)
    assert protocol.socket_dir({"XDG_CACHE_HOME": str(tmp_path / "c"), "HOME": "/x"}) is None
    assert protocol.socket_path("/" + "x" * 120, "key") is None


# ---- exactness: a server in a thread answers after any change as a cold search ---------------

@pytest.fixture()
def short_racy(short_racy: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest's, and the server's checks of its socket more often."""
    monkeypatch.setattr(server, "CHECK_SECONDS", 0.02)




@contextlib.contextmanager
def _threaded_server(root: Path, budget: int | None = None,
                     marks: int | None = None) -> Iterator[server.Server]:
    found = client.where(str(root), create=True)
    assert found is not None
    srv = server.Server(os.path.realpath(root), found[0], found[1], idle=60,
                        watch_budget=budget, mark_budget=marks)
    srv.bind()
    thread = threading.Thread(target=srv.serve)
    thread.start()
    try:
        yield srv
    finally:
        srv.stopping = True
        thread.join()
        assert not os.path.exists(found[0])


QUERIES = ["", "x", "a/py", "!y", "tx"]


def _same(root: Path, options: SearchOptions, srv: server.Server) -> None:
    for query in QUERIES:
        for opts in (options, SearchOptions(**{**client.options_dict(options), "limit": None,
                                                "compute_indices": True})):
            before = srv.answered
            warnings: list[str] = []
            got = ffind.search(query, root, opts, cache=True, on_warning=warnings.append)
            assert srv.answered == before + 1  # (answered by the server)
            cold_warnings: list[str] = []
            assert got == ffind.search(query, root, opts, on_warning=cold_warnings.append), query
            assert warnings == cold_warnings


def _armed(srv: server.Server, timeout: float = 10.0) -> None:
    """Wait until the server has no idle work left (its hints started, their watches
    added)."""
    end = time.monotonic() + timeout
    # (``unarmed`` first: while ``arm`` runs, its listing looks done before its check ahead)
    while srv.unarmed() is not None or srv.arming:
        assert time.monotonic() < end, "the server's watches were not added"
        time.sleep(0.01)


@settings(max_examples=int(os.environ.get("WARM_EXAMPLES", "15")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(changes=steps, which=st.integers(0, len(OPTIONS) - 1),
       budget=st.sampled_from([None, None, 0, 1]), marks=st.sampled_from([None, 0, 2]),
       split=st.booleans())
def test_the_servers_answers_equal_a_cold_search_after_any_changes(
    tmp_path_factory: pytest.TempPathFactory, resident: Path, git_home: Path, short_racy: None,
    changes: list[tuple[str, int, int, int, bool]], which: int, budget: int | None,
    marks: int | None, split: bool,
) -> None:
    """With the inotify hint narrowing the server's validation (``budget``: the watches it
    may hold; ``marks``: the fanotify marks beyond them, 0: none; 0 and 1 watches with 0
    marks leave (nearly) every folder to the ``stat`` pass); ``split``: every ``stat`` pass
    split with a forked child (``refresh.SPLIT_MIN``), as at 1M files."""
    with pytest.MonkeyPatch.context() as mp:
        if split:
            mp.setattr(refresh, "SPLIT_MIN", 1)
            mp.setattr(refresh, "cpus", lambda: 2)
        _replay_server(tmp_path_factory, git_home, changes, which, budget, marks)


def _replay_server(tmp_path_factory: pytest.TempPathFactory, git_home: Path,
                   changes: list[tuple[str, int, int, int, bool]], which: int,
                   budget: int | None, marks: int | None) -> None:
    base = tmp_path_factory.mktemp("prop")
    root = git_repo(base / "repo")
    options = OPTIONS[which]
    for step in [("file", 1, 3, 0, False), ("file", 3, 4, 0, False), ("file", 2, 3, 0, False),
                 ("file", 6, 3, 0, False), ("file", 7, 4, 0, False), ("file", 8, 3, 0, False)]:
        apply(root, git_home, step)
    try:
        with _threaded_server(root, budget, marks) as srv:
            _same(root, options, srv)
            settle()  # (the inputs above the root past the racy window: no more cold walks)
            _armed(srv)
            for _ in range(2):  # (every folder checked once, then the hint's folders only)
                ffind.search("x", root, options, cache=True)
                _armed(srv)
            assert srv.narrowed > 0
            for step in changes:
                apply(root, git_home, step)
                _same(root, options, srv)
                _armed(srv)
    finally:
        _restore(root)


def test_the_hint_narrows_the_validation_and_is_closed(
        resident: Path, git_home: Path, short_racy: None, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its watches are added (while idle), a request checks only the folders that
    changed (and those with ignore files), and finds the change; a listing let go, and the
    server's exit, close its watcher."""
    root = _tree(tmp_path)
    settle()  # (its ignore file past the racy window: the snapshots are used)
    options = SearchOptions()
    monkeypatch.setattr(server, "MAX_KEYS", 1)
    with _threaded_server(root) as srv:
        ffind.search("main", root, options, cache=True)
        _armed(srv)
        (held,) = srv.held.values()
        assert held.hint is not None and held.hint.armed
        watcher = held.hint.watcher
        assert watcher.fd >= 0 and watcher.wd_of
        assert not held.hint.pending  # (checked while idle, once the watches were added)
        ffind.search("main", root, options, cache=True)
        assert srv.checked == 1  # (the root: its .ignore)
        (root / "deep" / "a" / "new_main.py").write_text("x")
        got = ffind.search("main", root, options, cache=True)
        assert "deep/a/new_main.py" in [m.path for m in got.matches]
        assert srv.checked == 2 and srv.narrowed == 2
        assert got == ffind.search("main", root, options)
        other = SearchOptions(hidden=True)
        ffind.search("main", root, other, cache=True)  # (another key: the first let go)
        assert watcher.fd == -1
        _armed(srv)
        (held,) = srv.held.values()
        assert held.hint is not None
        watcher = held.hint.watcher
    assert watcher.fd == -1  # (the server exited)


def test_an_index_built_a_slice_at_a_time_answers_as_a_cold_search(
        resident: Path, git_home: Path, short_racy: None, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``Server.indexed``'s index takes the listing a ``Tuning.chunk`` of paths at a time
    (``Index.extend``; memory at 1M files): the index holds the listing in its order, and
    every answer is a cold search's."""
    from ffind.engine import tuning

    monkeypatch.setattr(tuning, "DEFAULT", tuning.Tuning(chunk=2))
    root = _tree(tmp_path)
    with _threaded_server(root) as srv:
        _same(root, SearchOptions(), srv)
        (held,) = srv.held.values()
        assert held.index is not None and held.listing is not None
        assert held.index.paths == held.listing and len(held.listing) > 2
        (root / "src" / "new_main.py").write_text("x")
        _same(root, SearchOptions(), srv)


def test_no_watch_means_no_hint(
        resident: Path, git_home: Path, short_racy: None, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``FFIND_NO_WATCH=1``: neither inotify nor fanotify; every folder checked each time."""
    monkeypatch.setenv("FFIND_NO_WATCH", "1")
    root = _tree(tmp_path)
    options = SearchOptions()
    with _threaded_server(root) as srv:
        ffind.search("main", root, options, cache=True)
        _armed(srv)
        (held,) = srv.held.values()
        assert held.hinted and held.hint is None
        (root / "src" / "new_main.py").write_text("x")
        got = ffind.search("main", root, options, cache=True)
        assert srv.answered == 2 and srv.checked == -1 and srv.narrowed == 0
        assert got == ffind.search("main", root, options)


def test_a_hint_that_fails_while_idle_is_let_go(
        resident: Path, git_home: Path, short_racy: None, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The server keeps answering, every folder checked, if adding the watches fails."""
    from ffind.fs.watch import Hint

    def broken(self: Hint, snap: object, stop: object = None) -> bool:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Hint, "arm", broken)
    root = _tree(tmp_path)
    options = SearchOptions()
    with _threaded_server(root) as srv:
        ffind.search("main", root, options, cache=True)
        _armed(srv)
        (held,) = srv.held.values()
        assert held.hinted and held.hint is None
        (root / "src" / "new_main.py").write_text("x")
        got = ffind.search("main", root, options, cache=True)
        assert srv.answered == 2 and srv.checked == -1
        assert got == ffind.search("main", root, options)


def test_a_snapshot_is_written_for_a_cold_process(
        resident: Path, git_home: Path, short_racy: None, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    options = SearchOptions()
    with _threaded_server(root) as srv:
        ffind.search("main", root, options, cache=True)
        assert srv.answered == 1
        (root / "src" / "new_main.py").write_text("x")
        got = ffind.search("main", root, options, cache=True)
        assert "src/new_main.py" in [m.path for m in got.matches]
        assert srv.rebuilt == 2  # (the listing changed: a new index)
        ffind.search("main", root, options, cache=True)
        assert srv.rebuilt == 2  # (unchanged: the same index)
    from ffind.fs.warm import listing_key

    snap = SnapshotStore().load(listing_key(str(root), options))
    assert snap is not None and "src/new_main.py" in snap.paths()


# ---- the MCP server's first calls ------------------------------------------------------------

def test_the_mcp_servers_first_calls_are_answered_by_the_server(
        resident: Path, git_home: Path, short_racy: None, tmp_path: Path) -> None:
    from ffind.agent.server import ToolServer
    from ffind.agent.tool import find_files, glob_files

    root = _tree(tmp_path)
    (root / ".env").write_text("SECRET=1")
    directory = os.path.realpath(root)
    with _threaded_server(root) as srv:
        for _ in range(2):
            state = ToolServer(root)  # (later calls: from the server or its own walk)
            try:
                before = srv.answered
                assert state.find_files("main", None, 3) == find_files("main", root=root, limit=3)
                assert srv.answered == before + 1  # (the first call: its walk was not ready)
                assert state.find_files("mian.c") == find_files("mian.c", root=root)
                assert state.find_files("env") == find_files("env", root=root)
                assert state.glob("**/*.py") == glob_files("**/*.py", root=root)
            finally:
                state.close()
            (root / "src" / "main_new.py").write_text("x")
        found = client.ask_tool("find_files", directory, "main_new", 5, memory=False)
        assert found is not None and "src/main_new.py" in found
        assert client.ask_tool("find_files", directory, "main", 0, memory=False) is None
        assert client.ask_tool("find_files", "relative", "main", 5, memory=False) is None


def test_the_mcp_server_answers_itself_once_its_walk_is_indexed(
        resident: Path, git_home: Path, short_racy: None, tmp_path: Path) -> None:
    """With a resident server running, the walk at start-up waits for the first call (that
    call is answered by the server, then the walk starts); once it is indexed, the MCP
    server answers itself."""
    from ffind.agent.server import ToolServer

    root = _tree(tmp_path)
    with _threaded_server(root) as srv:
        state = ToolServer(root)
        try:
            state.warm().join()
            tree = state.tree(None)
            assert not tree.ready()
            first = state.find_files("main")
            assert srv.answered == 1
            end = time.monotonic() + 30
            while not tree.ready() and time.monotonic() < end:
                time.sleep(0.02)
            assert tree.ready()
            assert state.find_files("main") == first
            assert srv.answered == 1
        finally:
            state.close()


# ---- the command line answered before the command is imported (``client.command``) ----------

def test_a_change_is_seen_by_the_command_line_answer(resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _ffind("main", cwd=root)
    _wait_for_server(root)
    (root / "src" / "later_main.py").write_text("x")
    (root / "docs" / "main.md").unlink()
    for args in (["-l", "0", ""], ["main"], ["--json", "-H", "main"]):
        by_server = _ffind(*args, cwd=root)
        assert by_server.stdout == _ffind("--no-cache", *args, cwd=root).stdout, args
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 3


def test_the_command_line_answer_is_the_commands_on_terminals(
        resident: Path, tmp_path: Path) -> None:
    """Colour, escaping and the note of a limit that cut follow the client's terminals and
    its NO_COLOR/TERM, not the server's (a pseudo-terminal as stdout and stderr)."""
    import select

    root = _tree(tmp_path)
    for i in range(3):
        (root / f"main\x1b{i}.txt").write_text("x")
    _ffind("main", cwd=root)
    _wait_for_server(root)

    def on_tty(*args: str, env: dict[str, str]) -> bytes:
        """What the command writes on a terminal (stdout and stderr: one pseudo-terminal).
        The terminal is held open here too, so that the reader never sees it hang up before
        the last bytes written reach it (Linux can report the end of a closed terminal
        early): it reads until the command has ended and nothing more comes."""
        master, slave = os.openpty()
        pid = os.fork()
        if pid == 0:  # (the child: the command on the terminal)
            os.setsid()
            for n in (0, 1, 2):
                os.dup2(slave, n)
            os.close(master)
            os.close(slave)
            os.chdir(root)
            os.execve(sys.executable, [sys.executable, "-m", "ffind", *args], env)
        chunks = []
        ended = False
        while True:
            ready, _, _ = select.select([master], [], [], 0.2 if ended else 0.02)
            if ready:
                chunks.append(os.read(master, 65536))
            elif ended:
                break
            else:
                ended = os.waitpid(pid, os.WNOHANG)[0] != 0
        os.close(master)
        os.close(slave)
        return b"".join(chunks)

    for extra in ({}, {"NO_COLOR": "1"}, {"TERM": "dumb"}):
        env = {**os.environ, "TERM": "xterm", **extra}
        for args in (["-l", "2", "main"], ["--compute-indices", "main"], ["-0", "main"]):
            before = _stats(root)
            by_server = on_tty(*args, env=env)
            after = _stats(root)
            assert before is not None and after is not None
            assert after["answered"] == before["answered"] + 1  # type: ignore[operator]
            local = on_tty("--no-server", *args, env=env)
            assert by_server == local, (args, extra)
    assert b"showing 2 of" in on_tty("-l", "2", "main", env={**os.environ, "TERM": "xterm"})


def test_command_lines_the_server_does_not_answer(resident: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    assert client.command(["main"]) is None  # (no server)
    for args in (["--no-server", "main"], ["-C", "src", "main"], ["-i"], ["-Hi", "x"],
                 ["--stdin"], ["mcp"], ["-h"], ["--version"]):
        assert not client.plain_search(args), args
    _ffind("main", cwd=root)
    _wait_for_server(root)
    for args in (["--bogus"], ["-l", "x", "main"], ["--json", "-0", "main"]):
        assert client.command(args) is None, args  # (the command says why, not the server)
        local = _ffind(*args, cwd=root)
        assert local.returncode == 2 and local.stderr.startswith(b"ffind: ")
    monkeypatch.setenv("_FFIND_COMPLETE", "bash_complete")
    assert client.command([]) is None
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 0


def test_the_mcp_server_starts_the_roots_server_after_its_first_walk(
        resident: Path, tmp_path: Path) -> None:
    from ffind.agent.server import ToolServer

    root = _tree(tmp_path)
    state = ToolServer(root)
    try:
        state.warm().join()
        stats = _wait_for_server(root)
        assert state.find_files("main") == ToolServer(root).find_files("main")
    finally:
        state.close()
    assert stats["root"] == os.path.realpath(root)


def test_warnings_name_paths_as_the_clients_walk_does() -> None:
    root = "/home/u/proj/."
    assert server._as_given(f"cannot read folder {root}/a/b: Permission denied", root, ".") == (
        "cannot read folder ./a/b: Permission denied")
    assert server._as_given(f"cannot read folder {root}: Permission denied", root, ".") == (
        "cannot read folder .: Permission denied")
    # (the root's ignore file named from the absolute root stays absolute)
    assert server._as_given("cannot read /home/u/proj/.gitignore: x", root, ".") == (
        "cannot read /home/u/proj/.gitignore: x")


def test_a_warning_through_the_server_is_a_warm_searchs(resident: Path, tmp_path: Path) -> None:
    """The same change in twin trees: one searched through its server, the other by the
    command itself from its snapshot (``--no-server``): the same output and warnings."""
    served, local = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    _ffind("main", cwd=served)
    _wait_for_server(served)
    _ffind("--no-server", "main", cwd=local)
    time.sleep(2.1)  # (past the racy window: only the changed folders are read again)
    for root in (served, local):
        (root / "src" / ".ignore").mkdir()  # (an ignore "file" that is a folder)
        (root / "docs" / ".gitignore").write_text("*.md\n")
    for _ in range(2):
        by_server = _ffind("main", cwd=served)
        by_itself = _ffind("--no-server", "main", cwd=local)
        assert (by_server.stdout, by_server.stderr) == (by_itself.stdout, by_itself.stderr)
    stats = _stats(served)
    assert stats is not None and stats["answered"] == 2



# ---- a folder's first call: answered cold, the server started primed writes the snapshot ------

def _snapshot(cache: Path, root: Path, options: SearchOptions) -> tuple[object, ...]:
    """The snapshot of ``root`` in the cache folder ``cache``, decoded (all but its start)."""
    from ffind.fs.warm import listing_key

    snap = SnapshotStore(str(cache / "ffind")).load(listing_key(str(root), options))
    assert snap is not None
    return (snap.glob, snap.prefixes, list(snap.sigs), list(snap.counts), snap.extra,
            snap.paths())


def _snapshot_files(cache: Path) -> list[Path]:
    folder = cache / "ffind"
    return sorted(folder.glob("*.snapshot")) if folder.is_dir() else []


def test_a_first_call_is_answered_cold_and_its_primed_server_writes_the_snapshot(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    time.sleep(2.1)  # (past the racy window: every folder's signature is kept, both ways)
    cache = Path(os.environ["XDG_CACHE_HOME"])
    today = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "today")}
    args = ["-H", "-l", "20", "main"]
    cold = _ffind("--no-cache", *args, cwd=root)
    before = _ffind("--no-server", *args, cwd=root, env=today)  # (today's: the command writes)
    assert not list((resident / "ffind").glob("*.sock"))
    first = _ffind(*args, cwd=root)
    assert (first.stdout, first.stderr, first.returncode) == (
        cold.stdout, cold.stderr, cold.returncode) == (
        before.stdout, before.stderr, before.returncode)
    stats = _wait_for_server(root)  # (primed before it serves: the snapshot is written)
    assert stats["answered"] == 0 and stats["keys"] == 1
    assert stats["rebuilt"] == 1  # (indexed by the prime: the first call had a query)
    options = SearchOptions(hidden=True)
    assert len(_snapshot_files(cache)) == 1
    assert _snapshot(cache, root, options) == _snapshot(tmp_path / "today", root, options)
    second = _ffind(*args, cwd=root)
    assert (second.stdout, second.stderr, second.returncode) == (
        cold.stdout, cold.stderr, cold.returncode)
    stats = _stats(root)
    assert stats is not None and stats["answered"] == 1 and stats["keys"] == 1
    assert stats["rebuilt"] == 1  # (the prime's index, unchanged)


def test_a_first_call_without_the_server_writes_the_snapshot_itself(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    cache = Path(os.environ["XDG_CACHE_HOME"])
    cold = _ffind("--no-cache", "main", cwd=root)
    for args, env in ((["--no-server"], None), ([], {**os.environ, "FFIND_NO_SERVER": "1"})):
        shutil.rmtree(cache, ignore_errors=True)
        got = _ffind(*args, "main", cwd=root, env=env)
        assert (got.stdout, got.returncode) == (cold.stdout, cold.returncode)
        assert len(_snapshot_files(cache)) == 1, args  # (written by the command, at once)
        assert _stats(root) is None
    assert not list((resident / "ffind").glob("*.sock"))


def test_a_first_call_with_no_usable_socket_folder_goes_as_before(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    shared = tmp_path / "shared"
    (shared / "ffind").mkdir(parents=True)
    os.chmod(shared / "ffind", 0o755)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(shared)}
    cache = Path(os.environ["XDG_CACHE_HOME"])
    cold = _ffind("--no-cache", "main", cwd=root)
    got = _ffind("main", cwd=root, env=env)
    assert (got.stdout, got.returncode) == (cold.stdout, cold.returncode)
    assert len(_snapshot_files(cache)) == 1  # (written by the command itself)
    assert not list((shared / "ffind").iterdir())


def test_the_prime_holds_the_key_a_request_with_that_command_line_derives(
        resident: Path, tmp_path: Path) -> None:
    from ffind.frontends.cli import Invocation, invocation
    from ffind.frontends.fastparse import parse

    root = _tree(tmp_path)
    cache = Path(os.environ["XDG_CACHE_HOME"])
    for args in (["-l", "20", "main"], ["-H", "-I", "-e", "*.c", "-t", "d", "-d", "3", ""],
                 ["--no-require-git", "--compute-indices", "mn"]):
        quick = parse(args)
        assert quick is not None
        inv = invocation(*quick)
        assert isinstance(inv, Invocation)
        text = protocol.encode_prime(str(root), client.options_dict(inv.options))
        prime_root, fields, index = protocol.decode_prime(text)
        options = SearchOptions(**fields)  # type: ignore[arg-type]
        assert options == inv.options
        found = client.where(str(root), create=True)
        assert found is not None
        srv = server.Server(os.path.realpath(root), found[0], found[1], idle=60)
        held = srv.prime(prime_root, options, index)
        assert held is not None and held.listing is not None
        assert index and held.index is not None and srv.rebuilt == 1
        assert held.store.pending is None  # (flushed: the snapshot is written)
        assert srv._held(str(root), inv.options) is held  # (a request's key: the same)
        assert srv._held(str(root) + "/.", inv.options) is held
        assert len(srv.held) == 1 and srv.answered == 0
        every = ffind.search("", root, replace(inv.options, limit=None))
        assert sorted(held.listing) == [m.path for m in every.matches]
    assert len(_snapshot_files(cache)) == 3


def test_a_server_primed_for_other_options_answers_a_request_correctly(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    found = client.where(str(root), create=True)
    assert found is not None
    text = protocol.encode_prime(str(root), client.options_dict(SearchOptions(hidden=True)))
    proc = subprocess.Popen([sys.executable, "-m", protocol.SERVER_MODULE, "--root",
                             str(root), "--socket", found[0], "--prime", text])
    try:
        stats = _wait_for_server(root)
        assert stats["keys"] == 1 and stats["answered"] == 0
        for args in (["-l", "20", "main"], ["-H", "main"], ["-t", "d", ""]):
            by_server = _ffind(*args, cwd=root)
            local = _ffind("--no-cache", *args, cwd=root)
            assert (by_server.stdout, by_server.stderr, by_server.returncode) == (
                local.stdout, local.stderr, local.returncode), args
        stats = _stats(root)
        # (three keys: the prime's, which ``-H`` used, the default's and ``-t d``'s)
        assert stats is not None and stats["answered"] == 3 and stats["keys"] == 3
    finally:
        client.stop_all()
        proc.wait(timeout=10)


def test_a_server_without_a_command_handler_refuses_command_lines(
        resident: Path, tmp_path: Path) -> None:
    """The server answers a whole command line only with the command's parse and writers
    (``ffind.frontends.served``); without them the client is told no, and runs the command."""
    from ffind.frontends import served
    from ffind.text import __version__

    root = _tree(tmp_path)
    found = client.where(str(root), create=True)
    assert found is not None
    request = {"v": __version__, "op": "command", "key": found[1], "argv": ["main"],
               "cwd": str(root), "tty": [False, False], "env": {}}
    bare = server.Server(os.path.realpath(root), found[0], found[1], idle=60)
    reply, _ = bare.answer(request)
    assert reply["ok"] is False and bare.answered == 0
    full = server.Server(os.path.realpath(root), found[0], found[1], idle=60,
                         on_command=served.command)
    reply, after = full.answer(request)
    assert reply["ok"] is True and full.answered == 1 and after is not None
    local = _ffind("--no-cache", "main", cwd=root)
    assert (reply["stdout"], reply["code"]) == (local.stdout, local.returncode)


def test_a_malformed_prime_is_a_usage_error(tmp_path: Path) -> None:
    for text in ("zz", "00", protocol.encode_prime("x", {}), "e9" + "00" * 4,
                 marshal.dumps({"root": "/x", "options": {}, "index": 1}).hex()):
        with pytest.raises(ValueError):
            protocol.decode_prime(text)
    assert server.main(["--root", str(tmp_path), "--socket", str(tmp_path / "s"),
                        "--prime", "zz"]) == 2


def test_an_empty_root_is_refused_as_the_local_search_refuses_it(
        resident: Path, tmp_path: Path) -> None:
    # (found by benchmarks/exactness_sweep.py) ``-C ''`` names no folder: ``--no-cache`` and
    # ``--no-server`` say so (exit 2); the server joined it to the client's folder and answered.
    root = _tree(tmp_path)
    _ffind("main", cwd=root)
    _wait_for_server(root)
    by_server = _ffind("-C", "", "main", cwd=root)
    local = _ffind("--no-cache", "-C", "", "main", cwd=root)
    assert local.returncode == 2 and local.stderr == b"ffind: cannot search '': no such folder\n"
    assert (by_server.stdout, by_server.stderr, by_server.returncode) == (
        local.stdout, local.stderr, local.returncode)
    found = client.where(str(root))
    assert found is not None
    reply = client.request(found[0], {"op": "search", "key": found[1], "root": "",
                                      "cwd": str(root), "query": "main", "memory": False,
                                      "options": client.options_dict(SearchOptions()),
                                      "count": False})
    assert reply is not None and reply["ok"] is False
    assert "cannot search ''" in str(reply["why"])
