"""File search for AI agents: the ``find_files`` and ``glob`` tools, as Python functions and as
an MCP server (``ffind mcp``).  See ``docs/agents.md``.

- ``tool``: ``find_files`` and ``glob_files``, plain-text answers; the folder searched;
- ``glob``: brace expansion and gitignore-style matching for ``glob``;
- ``secrets``: which files usually hold secrets, and which queries ask for them;
- ``loose``: looser forms of a query that matched nothing;
- ``schema``: the tools' descriptions, JSON Schemas and limits, as a model reads them;
- ``server``: the MCP server and its cache of walks.
"""

from ffind.agent.schema import FIND_FILES_SCHEMA, GLOB_SCHEMA
from ffind.agent.tool import find_files, glob_files

__all__ = ["FIND_FILES_SCHEMA", "GLOB_SCHEMA", "find_files", "glob_files"]
