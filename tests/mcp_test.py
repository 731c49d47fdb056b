"""`ffind mcp` driven by the mcp SDK's own client over stdio, as an agent would."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

from ffind.agent.tool import FIND_FILES_SCHEMA, GLOB_SCHEMA, find_files, glob_files

ROOT = Path(__file__).resolve().parent.parent


def _text(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def _session(root: Path) -> dict[str, Any]:
    """Start `python -m ffind mcp --root ROOT`, make every call, return what came back."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "ffind", "mcp", "--root", str(root)], cwd=str(ROOT)
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
        out["after_errors"] = await call("find_files", {"query": "schema"})
    return out


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    from tool_test import make_tree

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
