"""What a model reads about the agent tools: their descriptions, JSON Schemas and limits (the
MCP server publishes them as they are; ``tool`` checks the same limits)."""

from __future__ import annotations

from typing import Any

from ffind.errors import FfindError

TOOL_LIMIT = 20  # how many paths ``find_files`` returns unless asked for another ``limit``
MAX_LIMIT = 200  # the largest ``limit`` a caller may ask for
GLOB_LIMIT = 100  # how many paths ``glob`` returns at most
ECHO_CHARS = 200
"""How much of the query (or pattern) an answer repeats back before cutting it with ``…``."""

_SECRETS_SHORT = ".env, *.pem, *.key, *.p12, id_rsa, credentials.json, .npmrc, .netrc and the like"

FIND_FILES_DESCRIPTION = (
    "Find files by name. Matches the query against file paths (not file contents) under the "
    "project and returns the best matches first, one path a line, relative to `path`. Pass the "
    "words you know - names, identifiers, the area - not a sentence: 'image inspect', "
    "'MemCacheStore', 'db migration', 'session prompt test'. One or two words are fuzzy-matched "
    "(keystroke style: 'base_cod', 'daemon config'); three words or more (or two the fuzzy "
    "match cannot find as words) are ranked by words: each word matched as a whole word of a "
    "folder or name, forgiving a typo, a plural or tense, a common abbreviation, rare words and "
    "the file name counting most; the first line then says how many of the words the first "
    "file matched. Honours .gitignore and .ignore; hidden files such as "
    ".github/workflows/ci.yml are searched, .git/ (and every other VCS folder) never. Files "
    f"that usually hold secrets ({_SECRETS_SHORT}) are listed only when the query names them, "
    "and last. When more files match than `limit`, the last line says how many matched. To "
    "search inside files use a grep tool instead."
)

_PATH_PARAMETER: dict[str, Any] = {
    "type": "string",
    "description": (
        "Folder to search in, relative to the project root (default: the whole project). "
        "Must be inside the project root and not a VCS folder such as .git."
    ),
}

FIND_FILES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": (
                "Words from the file's path or name (names, identifiers, the area; not a "
                "sentence). One or two words: fzf-style fuzzy matching, the characters of "
                "each word must appear in order ('mgrt' finds 'migrate'); space-separated words "
                "must all match, in any order ('database migration' finds "
                "db/migrate/20240101_create_users.rb); each word tolerates one typo. Per word: "
                "'exact for a substring, ^prefix, suffix$ (e.g. .py$), !word to exclude. "
                "Case-insensitive unless the word has a capital."
            ),
        },
        "path": _PATH_PARAMETER,
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "default": TOOL_LIMIT,
            "description": (
                f"Most paths to return (1-{MAX_LIMIT}, default {TOOL_LIMIT}). When more files "
                "match, the output says how many; prefer a more specific query to a higher limit."
            ),
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}
"""JSON Schema of ``find_files``' parameters, written for a model to read."""

GLOB_DESCRIPTION = (
    "List files whose path matches a glob pattern, newest first (by modification time), at most "
    f"{GLOB_LIMIT}. Patterns follow .gitignore rules: '*.py' matches at any depth, 'src/**/*.ts' "
    "is anchored at `path`, '{a,b}' alternatives are expanded. The same files as find_files: "
    ".gitignore honoured, hidden files included, .git/ never, secret files "
    f"({_SECRETS_SHORT}) only when the pattern names them. Use find_files when you only know "
    "part of a name."
)

GLOB_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Glob pattern, e.g. '**/*.py', 'src/**/*.test.ts', '*.{yml,yaml}'.",
        },
        "path": _PATH_PARAMETER,
    },
    "required": ["pattern"],
    "additionalProperties": False,
}
"""JSON Schema of ``glob``'s parameters."""

SERVER_INSTRUCTIONS = (
    "ffind finds files in this project by name. Call find_files with the words you know of the "
    "path you are looking for (names, identifiers, the area; typo tolerant); call glob for a "
    "pattern such as '**/*.py'. "
    "Both return paths relative to the project root unless you pass `path`."
)
"""What the MCP server tells a client about itself at initialisation."""


_JSON_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,)}


def check_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    """Raise ``FfindError`` when ``arguments`` break ``schema`` (one of the schemas above) by
    name or JSON type: an argument it does not list, or a value of another type (``"5"`` for
    an integer; a bool is not an integer).  Ranges are the tool's own check."""
    props = schema["properties"]
    unknown = sorted(set(arguments) - set(props))
    if unknown:
        raise FfindError(f"unknown argument {', '.join(map(repr, unknown))}; "
                         f"the arguments are {', '.join(props)}")
    for name, value in arguments.items():
        kind = props[name]["type"]
        if isinstance(value, bool) or not isinstance(value, _JSON_TYPES[kind]):
            raise FfindError(f"{name} must be a JSON {kind}, got {value!r}")
