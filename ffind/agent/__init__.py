"""File search for AI agents: the ``find_files`` and ``glob`` tools as Python functions
(``tool``) and as an MCP server (``server``, ``ffind mcp``).  See ``docs/agents.md``."""

from ffind.agent.schema import FIND_FILES_SCHEMA, GLOB_SCHEMA
from ffind.agent.tool import find_files, glob_files

__all__ = ["FIND_FILES_SCHEMA", "GLOB_SCHEMA", "find_files", "glob_files"]
