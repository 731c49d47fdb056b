"""The agent tool (PLACEHOLDER: replaced by issue 6)."""

from __future__ import annotations

from ffind.errors import FfindError


def mcp_main(argv: list[str]) -> int:
    """``ffind mcp [--root DIR]``: serve the MCP tools over stdio; return the exit code."""
    raise FfindError("the MCP server is not built yet")
