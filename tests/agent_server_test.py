"""The MCP server: driven by the mcp SDK's own client over stdio, as an agent would; its cache
of walks under concurrent calls; the process under signals and closed streams."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

from ffind.agent.schema import FIND_FILES_SCHEMA, GLOB_SCHEMA
from ffind.agent.server import CachedTree, ToolServer
from ffind.agent.tool import find_files, glob_files
from ffind.errors import FfindError

ROOT = Path(__file__).resolve().parent.parent


def _text(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def _session(root: Path) -> dict[str, Any]:
    """Start `python -m ffind mcp --root ROOT`, make every call, return what came back."""
    server = StdioServerParameters(  # (the SDK passes only a few variables by default)
        command=sys.executable, args=["-m", "ffind", "mcp", "--root", str(root)], cwd=str(ROOT),
        env=dict(os.environ),
    )
    out: dict[str, Any] = {}
    async with Client(server, read_timeout_seconds=60) as client:
        out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
        call = client.call_tool
        out["prompt"] = await call("find_files", {"query": "prompt"})
        out["prompt_src"] = await call("find_files", {"query": "prompt", "path": "src", "limit": 1})
        out["glob"] = await call("glob", {"pattern": "*.rb"})
        out["escape"] = await call("find_files", {"query": "prompt", "path": "../.."})
        out["absolute"] = await call("find_files", {"query": "x", "path": "/etc"})
        out["bad_limit"] = await call("find_files", {"query": "x", "limit": 500})
        out["glob_escape"] = await call("glob", {"pattern": "*", "path": ".."})
        out["string_limit"] = await call("find_files", {"query": "x", "limit": "5"})
        out["bool_limit"] = await call("find_files", {"query": "x", "limit": True})
        out["extra"] = await call("find_files", {"query": "x", "max_results": 3})
        out["glob_extra"] = await call("glob", {"pattern": "*", "limit": 3})
        out["null_query"] = await call("find_files", {"query": None})
        out["after_errors"] = await call("find_files", {"query": "schema"})
    return out


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    from agent_tool_test import make_tree

    root = make_tree(tmp_path_factory.mktemp("mcp") / "repo")
    return root, asyncio.run(_session(root))


def test_lists_both_tools_with_their_schemas(session: tuple[Path, dict[str, Any]]) -> None:
    _, out = session
    tools = out["tools"]
    assert set(tools) == {"find_files", "glob"}
    assert tools["find_files"].input_schema == FIND_FILES_SCHEMA
    assert tools["glob"].input_schema == GLOB_SCHEMA
    assert "not file contents" in tools["find_files"].description
    assert "newest first" in tools["glob"].description
    for tool in tools.values():
        assert tool.annotations is not None and tool.annotations.read_only_hint is True


def test_find_files_answers_like_the_python_function(
    session: tuple[Path, dict[str, Any]],
) -> None:
    root, out = session
    assert not out["prompt"].is_error
    assert _text(out["prompt"]) == find_files("prompt", root=root)
    assert _text(out["prompt_src"]) == find_files("prompt", path="src", limit=1, root=root)
    assert _text(out["prompt_src"]).splitlines()[2] == "session/prompt.ts"


def test_glob_answers_newest_first(session: tuple[Path, dict[str, Any]]) -> None:
    root, out = session
    assert not out["glob"].is_error
    assert _text(out["glob"]) == glob_files("*.rb", root=root)


def test_bad_arguments_are_tool_errors_not_crashes(
    session: tuple[Path, dict[str, Any]],
) -> None:
    _, out = session
    for key in ("escape", "absolute", "glob_escape"):
        assert out[key].is_error, key
        assert "outside the search root" in _text(out[key])
    assert out["bad_limit"].is_error
    assert "limit must be an integer from 1 to 200" in _text(out["bad_limit"])
    # what the published schema forbids: another JSON type, or a name it does not list
    for key, message in [("string_limit", "limit must be a JSON integer, got '5'"),
                         ("bool_limit", "limit must be a JSON integer, got True"),
                         ("extra", "unknown argument 'max_results'; the arguments are query, "
                                   "path, limit"),
                         ("glob_extra", "unknown argument 'limit'; the arguments are pattern, "
                                        "path"),
                         ("null_query", "query must be a JSON string, got None")]:
        assert out[key].is_error and message in _text(out[key]), (key, _text(out[key]))
    # ...and the server keeps answering.
    assert _text(out["after_errors"]) == 'Found 1 file matching "schema":\n\ndb/schema.rb'


def test_server_exits_cleanly_when_stdin_closes(session: tuple[Path, dict[str, Any]]) -> None:
    root, _ = session
    done = subprocess.run(
        [sys.executable, "-m", "ffind", "mcp", "--root", str(root)],
        stdin=subprocess.DEVNULL, capture_output=True, cwd=ROOT, timeout=60,
    )
    assert (done.returncode, done.stdout) == (0, b"")  # stdout carries JSON-RPC only


def test_bad_root_is_a_one_line_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ffind", "mcp", "--root", "/nonexistent/ffind"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == "ffind: search root is not a folder: /nonexistent/ffind\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--bogus"], "ffind: mcp: unrecognized arguments: --bogus\n"),
    (["--root"], "ffind: mcp: argument --root: expected one argument\n"),
    (["stray"], "ffind: mcp: unrecognized arguments: stray\n"),
])
def test_bad_flags_are_one_line_errors(args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ffind", "mcp", *args],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)


# --- the cache under concurrent calls (issue 12.11) ---------------------------------------------


def _folders(root: Path, n: int) -> Path:
    for i in range(n):
        folder = root / f"d{i}"
        folder.mkdir(parents=True)
        (folder / f"unique{i}.txt").write_text("x")
    return root


def test_concurrent_calls_over_more_folders_than_cached_all_find_their_file(
    tmp_path: Path,
) -> None:
    n = ToolServer.MAX_TREES + 4
    root = _folders(tmp_path / "repo", n)
    started = threading.Barrier(n)

    def walker(directory: str, cancel: threading.Event) -> Iterator[list[str]]:
        # Every call's walk is under way before any ends: the cache holds more than MAX_TREES
        # trees that calls are waiting on.
        with contextlib.suppress(threading.BrokenBarrierError):
            started.wait(10)
        if not cancel.is_set():
            yield sorted(os.listdir(directory))

    state = ToolServer(root, refresh_interval=60, walker=walker)
    try:
        with ThreadPoolExecutor(n) as pool:
            answers = list(pool.map(
                lambda i: state.find_files(f"unique{i}", path=f"d{i}"), range(n)))
    finally:
        state.close()
    assert answers == [f'Found 1 file matching "unique{i}":\n\nunique{i}.txt' for i in range(n)]


def test_concurrent_calls_with_the_real_walk(tmp_path: Path) -> None:
    n = 12
    root = _folders(tmp_path / "repo", n)
    state = ToolServer(root, refresh_interval=0)
    try:
        with ThreadPoolExecutor(n) as pool:
            for _ in range(3):
                answers = list(pool.map(
                    lambda i: state.find_files(f"unique{i}", path=f"d{i}"), range(n)))
                assert answers == [
                    f'Found 1 file matching "unique{i}":\n\nunique{i}.txt' for i in range(n)
                ]
                globbed = list(pool.map(lambda i: state.glob("*.txt", path=f"d{i}"), range(n)))
                assert [g.splitlines()[2:] for g in globbed] == [
                    [f"unique{i}.txt"] for i in range(n)
                ]
    finally:
        state.close()


def test_idle_trees_beyond_the_bound_are_dropped(tmp_path: Path) -> None:
    n = ToolServer.MAX_TREES + 3
    root = _folders(tmp_path / "repo", n)
    walks: list[str] = []

    def walker(directory: str, cancel: threading.Event) -> list[list[str]]:
        walks.append(os.path.basename(directory))
        return [sorted(os.listdir(directory))]

    state = ToolServer(root, refresh_interval=60, walker=walker)
    try:
        for i in range(n):
            assert "unique" in state.find_files("unique", path=f"d{i}")
        assert "unique" in state.find_files("unique", path=f"d{n - 1}")  # cached: no walk
        assert "unique" in state.find_files("unique", path="d0")  # dropped: walked again
    finally:
        state.close()
    assert walks == [f"d{i}" for i in range(n)] + ["d0"]


def test_a_cancelled_walk_is_never_answered_from(tmp_path: Path) -> None:
    def walker(directory: str, cancel: threading.Event) -> list[list[str]]:
        cancel.set()  # as if the tree were closed under the walk
        return [[]]

    tree = CachedTree(str(tmp_path), walker)
    with pytest.raises(FfindError, match="cancelled"):
        tree.get()


# --- the server process: signals, closed streams, hostile globs ---------------------------------


def test_sigint_ends_the_server_with_130_at_once(tmp_path: Path) -> None:
    root = _folders(tmp_path / "repo", 2)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ffind", "mcp", "--root", str(root)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        proc.stdin.flush()
        assert b'"id":1' in proc.stdout.readline()  # serving, stdin still open
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(("redirect", "stream"), [(">&-", "output"), ("<&-", "input")])
def test_a_closed_standard_stream_is_a_one_line_error(redirect: str, stream: str) -> None:
    done = subprocess.run(
        f"exec {shlex.quote(sys.executable)} -m ffind mcp {redirect}", shell=True,
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"ffind: mcp: standard {stream} is closed;")
    assert done.stderr.count("\n") == 1


_HOSTILE_CLIENT = """
import asyncio, os, sys
from mcp import Client, StdioServerParameters

async def main(root, pidfile):
    # The server runs in a session of its own: it says where it is, to be killed on timeout.
    server = StdioServerParameters(command="sh", args=[
        "-c", 'echo $$ > "$0"; exec "$1" -m ffind mcp --root "$2"',
        pidfile, sys.executable, root], env=dict(os.environ))
    async with Client(server, read_timeout_seconds=60) as client:
        hostile = await client.call_tool("glob", {"pattern": "*a*a*a*a*a*a*b"})
        after = await client.call_tool("find_files", {"query": "unique0"})
        print(hostile.content[0].text.splitlines()[0])
        print(after.content[0].text.splitlines()[0])

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def test_a_backtracking_glob_does_not_freeze_the_server(tmp_path: Path) -> None:
    # Issue 12.5: a regex glob backtracks for minutes over a 250-character name, holding the GIL.
    root = _folders(tmp_path / "repo", 1)
    (root / ("a" * 250)).write_text("x")
    pidfile = tmp_path / "server.pid"
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOSTILE_CLIENT, str(root), str(pidfile)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the MCP server did not answer the glob within 20 s")
    assert out.splitlines() == [
        'No files found matching glob "*a*a*a*a*a*a*b".',
        'Found 1 file matching "unique0":',
    ], err


def test_server_glob_hides_secrets_unless_named(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for rel in ("certs/server.pem", "certs/server.key", "certs/server.crt", "config/.ENV"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    state = ToolServer(root)
    try:
        assert sorted(state.glob("**").splitlines()[2:]) == ["certs/server.crt"]
        assert sorted(state.glob("**/*.{pem,key}").splitlines()[2:]) == [
            "certs/server.key", "certs/server.pem"
        ]
        assert state.glob("**/.ENV").splitlines()[2:] == ["config/.ENV"]  # globs keep case
        with pytest.raises(FfindError, match="version-control folder"):
            state.glob("**", path=".git")
    finally:
        state.close()


def test_the_server_ranks_with_the_memory_and_never_records(tmp_path: Path) -> None:
    """The MCP server reads the user's memory to rank (issue 15) but an agent's calls are not
    the user's visits: nothing is written."""
    from ffind.state.memory import Memory

    root = tmp_path / "repo"
    for rel in ("lib/prompt.ts", "src/session/prompt.ts"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    with Memory(tmp_path / "m.db") as mem:
        plain = ToolServer(root)
        first = plain.find_files("prompt").splitlines()
        mem.record(root / "src/session/prompt.ts")
        stamp = mem.stamp()
        remembering = ToolServer(root, memory=mem)
        got = remembering.find_files("prompt").splitlines()
        plain.close(wait=1)
        remembering.close(wait=1)
        assert first[-2:] == ["lib/prompt.ts", "src/session/prompt.ts"]
        assert got[-2:] == ["src/session/prompt.ts", "lib/prompt.ts"]
        assert mem.stamp() == stamp
        assert set(mem.weights(root)) == {"src/session/prompt.ts"}


def test_the_first_walk_from_a_snapshot_checked_aside_answers_as_a_walk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's first walk of a folder with a snapshot: indexed while a forked child
    checks it (``cached_tool_build``); the answer is a walk's, changed or not."""
    import time

    from ffind.fs import refresh

    monkeypatch.setattr(refresh, "RACY_NS", 50_000_000)
    monkeypatch.setattr(refresh, "ASIDE_MIN", 1)
    monkeypatch.setattr(refresh, "free_cpus", lambda: 2.0)
    checked: list[dict[str, str]] = []
    result = refresh.Aside.result

    def counted(self: refresh.Aside) -> dict[str, str]:
        checked.append(result(self))
        return checked[-1]

    monkeypatch.setattr(refresh.Aside, "result", counted)
    root = tmp_path / "t"
    for rel in ("src/prompt.ts", "src/lib/prompt_test.ts", "docs/prompt.md", "README.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    subprocess.run(["git", "init", "-q", str(root)], check=True)

    def first_answer(query: str) -> str:
        time.sleep(0.1)  # past the racy window
        state = ToolServer(root)
        try:
            return state.find_files(query)
        finally:
            state.close()

    for _ in range(2):  # cold (writes the snapshot), then warm and unchanged
        assert first_answer("prompt") == find_files("prompt", root=root)
    (root / "src" / "lib" / "prompt_new.ts").write_text("")
    os.unlink(root / "docs" / "prompt.md")
    assert first_answer("prompt") == find_files("prompt", root=root)
    assert "prompt_new.ts" in first_answer("prompt")
    assert checked[0] == {} and checked[1] != {}  # (the second and third servers')
