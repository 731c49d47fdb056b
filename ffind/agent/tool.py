"""The agent tool: ``find_files``, its JSON Schema, ``glob``, and the MCP server (``ffind mcp``).

A coding agent knows it needs "the database migration file" but not its path.  ``find_files``
answers with a few ranked paths as plain text, and says honestly when it cut the list::

    Found 412 files matching "migration":

    db/migrate/20240101_create_users.rb
    ...
    (showing 20 of 412 matches; narrow the query or raise limit)

What is searched: the folder ``path`` (relative to the *root*: the server's ``--root`` or the
working directory), walked with ``SearchOptions(hidden=True)``: .gitignore and .ignore honoured,
hidden files included (agents need ``.github/workflows/ci.yml``), VCS folders never.  Files that
usually hold secrets (``.env``, ``.env.*`` except templates such as ``.env.example``, ``*.pem``,
``*.key``, ``id_rsa*`` and the other ssh private-key names) are left out unless the query names
them (see ``wants_secrets``), and then listed after every other match.

Safety: ``path`` must resolve inside the root; ``..``, absolute paths elsewhere and symlinks
leading out are refused.  The Python function raises ``FfindError`` for that (and for a bad
``limit``); the MCP server turns it into a tool error (``isError``) with the same one-line
message.  Nothing here writes to the file system.

When nothing matches exactly, looser forms of the query's words are tried (``loose_queries``:
``database migration`` -> ``db migrat``), then the matcher's typo matches are offered as
``Did you mean:`` suggestions (``_typo_suggestions`` extends them to each word of a
several-word query).

The MCP server walks its root at start-up, keeps one walk per searched folder (``CachedTree``)
and answers from it; after answering, a call starts a background re-walk unless one is running
or the last ended under ``REFRESH_INTERVAL`` seconds ago (OpenCode's approach, throttled), so
repeated calls are fast and new files show up.  The ``mcp`` package is only imported by
``build_server``/``mcp_main``.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NoReturn

from ffind.errors import FfindError
from ffind.options import SearchOptions

if TYPE_CHECKING:
    from ffind.engine.index import Index, MatchSet
    from ffind.scoring.scorer import FileMatch

DEFAULT_LIMIT = 20
MAX_LIMIT = 200
GLOB_LIMIT = 100
MAX_SUGGESTIONS = 5
ANSWER_CACHE = 32
MATCHSET_CACHE = 8
REFRESH_INTERVAL = 2.0
"""Seconds after a re-walk ends before a call may start the next (see ``CachedTree``)."""
REFRESH_DELAY = 0.05
"""Seconds a re-walk waits after the call that started it, so that call's answer goes first."""

TOOL_OPTIONS = SearchOptions(hidden=True, limit=None)
"""What the agent tool walks: hidden files yes (never VCS folders), ignore files honoured."""

FIND_FILES_DESCRIPTION = (
    "Find files by name. Fuzzy-matches the query against file paths (not file contents) under "
    "the project and returns the best matches first, one path a line, relative to `path`. Use it "
    "when you know roughly what a file is called or what it is about but not where it is, e.g. "
    "'database migration' or 'prompt test'. Honours .gitignore and .ignore; hidden files such "
    "as .github/workflows/ci.yml are searched, .git/ never. Files that usually hold secrets "
    "(.env, .env.*, *.pem, *.key, id_rsa*) are listed only when the query names them, and last. "
    "When more files match than `limit`, the last line says how many matched. When nothing "
    "matches exactly, it says so and tries looser word forms (database -> db, migration -> "
    "migrat) or suggests near misses. To search inside files use a grep tool instead."
)

FIND_FILES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": (
                "Words from the file's path or name. fzf-style fuzzy matching: the characters of "
                "each word must appear in order ('mgrt' finds 'migrate'); space-separated words "
                "must all match, in any order ('database migration' finds "
                "db/migrate/20240101_create_users.rb); each word tolerates one typo. Per word: "
                "'exact for a substring, ^prefix, suffix$ (e.g. .py$), !word to exclude. "
                "Case-insensitive unless the word has a capital."
            ),
        },
        "path": {
            "type": "string",
            "description": (
                "Folder to search in, relative to the project root (default: the whole project). "
                "Must be inside the project root."
            ),
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "default": DEFAULT_LIMIT,
            "description": (
                f"Most paths to return (1-{MAX_LIMIT}, default {DEFAULT_LIMIT}). When more files "
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
    ".gitignore honoured, hidden files included, .git/ never, secret files (.env, *.pem, *.key, "
    "id_rsa*) only when the pattern names them. Use find_files when you only know part of a name."
)

GLOB_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Glob pattern, e.g. '**/*.py', 'src/**/*.test.ts', '*.{yml,yaml}'.",
        },
        "path": {
            "type": "string",
            "description": (
                "Folder to search in, relative to the project root (default: the whole project). "
                "Must be inside the project root."
            ),
        },
    },
    "required": ["pattern"],
    "additionalProperties": False,
}
"""JSON Schema of ``glob``'s parameters."""


# --- secrets -----------------------------------------------------------------------------------

SSH_KEY_PREFIXES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})


def secret_kind(path: str) -> str | None:
    """The kind of secret a path's file name suggests (``env``, ``pem``, ``key``, ``ssh``), or None.

    ``.env`` and ``.env.*`` (but not templates like ``.env.example``), ``*.pem``, ``*.key``,
    and ssh private-key names (``id_rsa*``, ``id_dsa*``, ``id_ecdsa*``, ``id_ed25519*``).
    """
    name = path.rpartition("/")[2]
    if name == ".env" or (name.startswith(".env.") and name not in ENV_TEMPLATES):
        return "env"
    if name.endswith(".pem"):
        return "pem"
    if name.endswith(".key"):
        return "key"
    if name.startswith(SSH_KEY_PREFIXES):
        return "ssh"
    return None


def wants_secrets(query: str) -> frozenset[str]:
    """The secret kinds a query (or glob pattern) asks for by naming them.

    Per word (negated words ``!x`` ignored; fzf's ``'``, ``^`` and ``$`` stripped; case
    ignored): a word starting with ``.env`` (or containing ``/.env``) asks for ``env`` files;
    one containing ``pem`` for ``*.pem``; ``.key`` for ``*.key``; ``id_rsa``, ``id_dsa``,
    ``id_ecdsa`` or ``id_ed25519`` for ssh keys.  ``env``, ``key`` or ``secret`` alone ask for
    nothing: they are ordinary words in file names.
    """
    kinds: set[str] = set()
    for word in query.lower().split():
        if word.startswith("!"):
            continue
        word = word.lstrip("'^").rstrip("$")
        if word.startswith(".env") or "/.env" in word:
            kinds.add("env")
        if "pem" in word:
            kinds.add("pem")
        if ".key" in word:
            kinds.add("key")
        if any(p in word for p in SSH_KEY_PREFIXES):
            kinds.add("ssh")
    return frozenset(kinds)


# --- the search root ---------------------------------------------------------------------------


def resolve_dir(root: str | os.PathLike[str], path: str | None) -> str:
    """The real path of folder ``path`` (relative to ``root``, or absolute), inside ``root``.

    Raises ``FfindError`` when it resolves outside ``root`` (``..``, an absolute path elsewhere,
    a symlink leading out), does not exist, or is not a folder.
    """
    real_root = os.path.realpath(root)
    if not os.path.isdir(real_root):
        raise FfindError(f"search root is not a folder: {os.fspath(root)}")
    if path is None or path in ("", "."):
        return real_root
    if "\0" in path:
        raise FfindError("path contains a NUL character")
    target = os.path.realpath(os.path.join(real_root, os.path.expanduser(path)))
    if target != real_root and not target.startswith(real_root.rstrip(os.sep) + os.sep):
        raise FfindError(
            f"path {path!r} is outside the search root {real_root}; "
            "give a folder inside it (relative paths are taken from the root)"
        )
    if not os.path.exists(target):
        raise FfindError(f"path {path!r} does not exist under {real_root}")
    if not os.path.isdir(target):
        raise FfindError(f"path {path!r} is a file, not a folder; search its folder instead")
    return target


# --- one walk, indexed -------------------------------------------------------------------------


@dataclass
class Snapshot:
    """One walk of a folder: every path, split into ordinary and secret files, indexed; and the
    last few answers given from it (a walk's answers stay right while the walk is current)."""

    paths: list[str]
    main: Index
    secret: Index
    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: dict[tuple[str, int], str] = field(default_factory=dict)
    matchsets: dict[str, MatchSet] = field(default_factory=dict)
    """Recent queries' match sets: a query that narrows one (a longer word, one more word)
    only re-filters its matches, as the session does while the user types."""

    @classmethod
    def build(cls, batches: Iterable[list[str]], numpy: bool | None = None) -> Snapshot:
        """Index the walk's batches as they arrive (overlapping the walk's worker processes);
        ``numpy``: the indexes' numpy use (``ffind.Index``)."""
        from ffind.engine.index import Index

        snap = cls([], Index(numpy=numpy), Index(numpy=numpy))
        for batch in batches:
            snap.paths.extend(batch)
            plain = [p for p in batch if secret_kind(p) is None]
            snap.main.extend(plain)
            if len(plain) < len(batch):
                snap.secret.extend(p for p in batch if secret_kind(p) is not None)
        return snap


def walk_batches(directory: str, cancel: threading.Event | None = None) -> Iterable[list[str]]:
    """The walk the tool searches: ``TOOL_OPTIONS``, warnings dropped."""
    from ffind.fs.walk import walk_batches as batches

    return batches(directory, TOOL_OPTIONS, cancel=cancel, on_warning=_ignore)


def _ignore(message: str) -> None:
    """Walk warnings (unreadable folders) are not the agent's business."""


# --- find_files --------------------------------------------------------------------------------


def find_files(
    query: str,
    path: str | None = None,
    limit: int = DEFAULT_LIMIT,
    *,
    root: str | os.PathLike[str] | None = None,
) -> str:
    """Fuzzy-find files by path, as plain text for an agent (see the module docstring).

    ``path`` is a folder relative to ``root`` (default: the working directory); the output is
    relative to ``path``.  One-shot: walks ``path`` on every call (the MCP server caches).
    Raises ``FfindError`` for a ``path`` outside ``root`` or a ``limit`` outside 1..200.
    """
    _check_limit(limit)
    directory = resolve_dir(os.getcwd() if root is None else root, path)
    return search_snapshot(Snapshot.build(walk_batches(directory)), query, limit)


def _check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise FfindError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")


def search_snapshot(snap: Snapshot, query: str, limit: int = DEFAULT_LIMIT) -> str:
    """Rank ``query`` over an indexed walk and format the answer.

    Order of answers: exact (non-typo) matches, with asked-for secrets last; else matches of
    the query's looser forms (``loose_queries``); else the matcher's typo matches as
    suggestions; else nothing.
    """
    with snap.lock:
        answer = snap.answers.get((query, limit))
        if answer is None:
            answer = _search(snap, query, limit)
            if len(snap.answers) >= ANSWER_CACHE:
                del snap.answers[next(iter(snap.answers))]
            snap.answers[(query, limit)] = answer
        return answer


def _search(snap: Snapshot, query: str, limit: int) -> str:
    base = min((m for m in snap.matchsets.values() if m.can_narrow(query)), key=len, default=None)
    ms = snap.main.run(query, within=base)
    if len(snap.matchsets) >= MATCHSET_CACHE:
        del snap.matchsets[next(iter(snap.matchsets))]
    snap.matchsets[query] = ms
    total = len(ms)
    page = snap.main.top(ms, limit) if total else []
    kinds = wants_secrets(query)
    secrets: list[FileMatch] = []
    if kinds and len(snap.secret):
        found = snap.secret.top(snap.secret.run(query), None)
        secrets = [m for m in found if secret_kind(m.path) in kinds]
    typo_only = bool(page) and all(m.typo for m in page)
    if typo_only and total > len(page):
        # Exact matches may rank below near-whole-name typo matches; look at all of them.
        typo_only = all(m.typo for m in snap.main.top(ms, None))
    exact = (total and not typo_only) or any(not m.typo for m in secrets)
    if not exact:
        used, n_loose, matches = _loose_matches(snap.main, query, limit)
        if matches:
            noun = "file matches" if n_loose == 1 else "files match"
            return format_found(
                query, [m.path for m in matches], n_loose,
                header=f"No exact matches for {_quote(query)}; {n_loose} {noun} {_quote(used)}:",
            )
        suggestions = ([m.path for m in page[:MAX_SUGGESTIONS]] if typo_only
                       else _typo_suggestions(snap.main, query))
        return _no_match(query, suggestions)
    # Secrets the query asked for come last; when the limit would cut them, they keep up to
    # half of the slots (rounded up), since the query named them.
    n_secret = min(len(secrets), max(limit - total, limit - limit // 2))
    shown = [m.path for m in page[: limit - n_secret]] + [m.path for m in secrets[:n_secret]]
    return format_found(query, shown, total + len(secrets))


def _typo_suggestions(index: Index, query: str) -> list[str]:
    """Typo tolerance per word of a several-word query: the matcher's typo matches of one word
    that the other words match exactly (``session promtp`` -> ``src/session/prompt.ts``)."""
    from ffind.engine.index import Index

    words = query.split()
    out: dict[str, None] = {}
    if len(words) < 2:
        return []
    for i, word in enumerate(words):
        typos = [m.path for m in index.top(index.run(word), MAX_LIMIT) if m.typo]
        if typos:
            rest = " ".join(words[:i] + words[i + 1 :])
            out.update((m.path, None) for m in Index(typos).match(rest) if not m.typo)
    return list(out)[:MAX_SUGGESTIONS]


# Words agents write in full that paths abbreviate.  Only for the loose tier, which runs when
# the query itself found nothing exact.
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "administration": ("admin",), "administrator": ("admin",), "application": ("app",),
    "argument": ("arg",), "arguments": ("args",), "authentication": ("auth",),
    "authorization": ("auth",), "button": ("btn",), "calculator": ("calc",),
    "command": ("cmd",), "commands": ("cmd",), "configuration": ("config", "conf", "cfg"),
    "config": ("conf", "cfg"), "controller": ("ctrl",), "database": ("db",),
    "databases": ("db",), "development": ("dev",), "directory": ("dir",),
    "directories": ("dir",), "document": ("doc",), "documents": ("docs",),
    "documentation": ("docs", "doc"), "environment": ("env",), "error": ("err",),
    "errors": ("err",), "function": ("func", "fn"), "functions": ("func", "fn"),
    "generator": ("gen",), "image": ("img",), "images": ("img",),
    "implementation": ("impl",), "index": ("idx",), "information": ("info",),
    "internationalization": ("i18n",), "javascript": ("js",), "kubernetes": ("k8s",),
    "library": ("lib",), "libraries": ("lib",), "localization": ("l10n",),
    "manager": ("mgr",), "message": ("msg",), "messages": ("msg",), "number": ("num",),
    "package": ("pkg",), "packages": ("pkg",), "parameter": ("param",),
    "parameters": ("params",), "production": ("prod",), "python": ("py",),
    "reference": ("ref",), "repository": ("repo",), "request": ("req",),
    "response": ("resp", "res"), "service": ("svc",), "source": ("src",),
    "specification": ("spec",), "statistics": ("stats",), "string": ("str",),
    "synchronization": ("sync",), "template": ("tmpl", "tpl"), "temporary": ("tmp", "temp"),
    "typescript": ("ts",), "utilities": ("utils", "util"), "utility": ("util",),
    "variable": ("var",), "variables": ("vars",),
}
_SUFFIXES = (("ations", "at"), ("ation", "at"), ("ings", ""), ("ing", ""), ("ions", ""),
             ("ion", ""), ("ers", ""), ("er", ""), ("ies", "y"), ("es", ""), ("s", ""),
             ("ed", ""))
_MAX_LOOSE = 12


def stem(word: str) -> str | None:
    """A crude English stem that stays a prefix-ish of related names, at least 4 letters:
    ``migration`` -> ``migrat`` (finds ``migrate``), ``controllers`` -> ``controll``."""
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(repl) >= 4:
            return word[: -len(suffix)] + repl
    return None


def loose_queries(query: str) -> list[str]:
    """Looser forms of a query, tried when it matched nothing exactly (at most 12).

    Each plain word (letters only, no fzf operators) may be replaced by its lower-case stem or
    a common abbreviation: ``database migration`` -> ``db migrat``, ``database migrat``,
    ``db migration``.
    """
    import itertools

    options: list[list[str]] = []
    for word in query.split():
        alts = [word]
        if word.isalpha():
            low = word.lower()
            st = stem(low)
            singular = low[:-1] if low.endswith("s") else low
            for alt in (*ABBREVIATIONS.get(low, ()), *ABBREVIATIONS.get(singular, ()), st,
                        *(ABBREVIATIONS.get(st, ()) if st else ())):
                if alt and alt not in alts:
                    alts.append(alt)
        options.append(alts)
    combos = [" ".join(c) for c in itertools.product(*options)][1:]
    # Most changed words first: the abbreviation of every word is likeliest to find the file.
    combos.sort(key=lambda q: -sum(a != b for a, b in zip(q.split(), query.split(), strict=True)))
    return combos[:_MAX_LOOSE]


def _loose_matches(index: Index, query: str, limit: int) -> tuple[str, int, list[FileMatch]]:
    """The first of ``loose_queries`` with exact matches: it, its match count, its top page."""
    for q in loose_queries(query):
        ms = index.run(q)
        if len(ms):
            page = index.top(ms, limit)
            if any(not m.typo for m in page):
                return q, len(ms), page
    return "", 0, []


def format_found(
    query: str, paths: Sequence[str], total: int, *, what: str = "", header: str | None = None
) -> str:
    """``Found N files matching "q":``, a blank line, the paths, and the truncation line."""
    noun = "file" if total == 1 else "files"
    lines = [header or f"Found {total} {noun} matching {_quote(query)}{what}:", ""]
    lines.extend(display_path(p) for p in paths)
    if total > len(paths):
        hint = "narrow the query or raise limit" if not what else "narrow the pattern or path"
        lines += ["", f"(showing {len(paths)} of {total} matches; {hint})"]
    return "\n".join(lines)


def _no_match(query: str, suggestions: Sequence[str]) -> str:
    text = f"No files found matching {_quote(query)}."
    if suggestions:
        text += "\n\nDid you mean:\n" + "\n".join(display_path(p) for p in suggestions)
    return text


def _quote(text: str) -> str:
    return '"' + display_path(text) + '"'


def display_path(path: str) -> str:
    """A path as one line of valid UTF-8: control characters escaped (``\\n``, ``\\x1b``) and
    bytes that are not UTF-8 (kept by the walk as surrogates) shown as ``\\xNN``, as the
    command shows them on a terminal."""
    from ffind.frontends.output import terminal_safe

    return terminal_safe(path)


# --- glob --------------------------------------------------------------------------------------


def glob_files(
    pattern: str,
    path: str | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    limit: int = GLOB_LIMIT,
) -> str:
    """Files under ``path`` matching a gitignore-style glob, newest first, at most ``limit``."""
    directory = resolve_dir(os.getcwd() if root is None else root, path)
    paths = [p for batch in walk_batches(directory) for p in batch]
    return glob_snapshot(paths, directory, pattern, limit)


def glob_snapshot(paths: Iterable[str], directory: str, pattern: str, limit: int) -> str:
    """Match a walk's paths against ``pattern`` and order the matches by mtime, newest first."""
    rx = compile_glob(pattern)
    kinds = wants_secrets(pattern.replace("*", " "))
    hits = [p for p in paths if rx.match(p)
            and ((kind := secret_kind(p)) is None or kind in kinds)]
    if not hits:
        return f"No files found matching glob {_quote(pattern)}."
    import heapq

    prefix = os.path.join(directory, "")
    newest = heapq.nsmallest(limit, ((-_mtime(prefix + p), p) for p in hits))
    return format_found(pattern, [p for _, p in newest], len(hits), what=" (newest first)")


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        try:
            return os.lstat(path).st_mtime
        except OSError:
            return 0.0


_MAX_GLOBS = 64


def expand_braces(pattern: str) -> list[str]:
    """``src/*.{ts,tsx}`` -> ``["src/*.ts", "src/*.tsx"]``; nested braces too, at most 64.

    Braces without a comma at their level (``{x}``) are kept as they are.
    """
    out = _expand(pattern)
    if len(out) > _MAX_GLOBS:
        raise FfindError(f"glob pattern {pattern!r} expands to more than {_MAX_GLOBS} patterns")
    return list(dict.fromkeys(out))


def _expand(p: str) -> list[str]:
    depth, start = 0, -1
    commas: list[int] = []
    for i, c in enumerate(p):
        if c == "{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0 and commas:
                cuts = [start, *commas, i]
                alts = [p[a + 1 : b] for a, b in pairwise(cuts)]
                rests = _expand(p[i + 1 :])
                if len(alts) * len(rests) > _MAX_GLOBS:
                    return [p] * (_MAX_GLOBS + 1)
                heads = [h for alt in alts for h in _expand(p[:start] + alt)]
                if len(heads) * len(rests) > _MAX_GLOBS:
                    return [p] * (_MAX_GLOBS + 1)
                return [h + r for h in heads for r in rests]
        elif c == "," and depth == 1:
            commas.append(i)
    return [p]


def compile_glob(pattern: str) -> re.Pattern[str]:
    """One regex for a glob with gitignore semantics (pathspec), braces expanded."""
    import pathspec

    text = pattern.strip()
    if not text:
        raise FfindError("glob pattern is empty")
    if text.startswith("!"):
        raise FfindError("glob pattern cannot start with '!' (negation is not supported)")
    if text.startswith("./"):
        text = text[2:]
    regexes: list[str] = []
    for p in expand_braces(text):
        try:
            spec = pathspec.PathSpec.from_lines("gitignore", [p])
        except Exception as e:  # pathspec raises various errors for malformed patterns
            raise FfindError(f"invalid glob pattern {pattern!r}: {e}") from None
        for pat in spec.patterns:
            rx = getattr(pat, "regex", None)
            if isinstance(rx, re.Pattern) and pat.include:
                regexes.append(rx.pattern)
    if not regexes:
        raise FfindError(f"glob pattern {pattern!r} matches nothing")
    return re.compile("|".join(f"(?:{r})" for r in regexes))


# --- the cached walks of the MCP server --------------------------------------------------------


class CachedTree:
    """The walk of one folder, kept in the server and refreshed in the background.

    ``get()`` returns the last finished walk at once (the first call walks in the foreground);
    ``kick()``, called once the answer is ready, starts a re-walk in a background thread when
    none is running and the last one ended at least ``min_interval`` seconds ago (OpenCode's
    approach, throttled so that a burst of calls does not keep the walk workers busy while
    matching).  A re-walk that finds
    the same paths keeps the old snapshot, and with it the answers cached in it.
    """

    def __init__(
        self,
        directory: str,
        walker: Callable[[str, threading.Event], Iterable[list[str]]] = walk_batches,
        min_interval: float = REFRESH_INTERVAL,
    ) -> None:
        self.directory = directory
        self.min_interval = min_interval
        self._walker = walker
        self._lock = threading.Lock()
        self._first = threading.Lock()
        self._snap: Snapshot | None = None
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._done_at = 0.0
        self.refreshes = 0

    def get(self) -> Snapshot:
        snap = self._snap
        if snap is None:
            with self._first:
                snap = self._snap
                if snap is None:
                    snap = Snapshot.build(self._walker(self.directory, self._cancel), numpy=True)
                    self._snap = snap
                    self._done_at = time.monotonic()
        return snap

    def kick(self) -> None:
        """Start a background re-walk unless one is running or the last ended too recently."""
        with self._lock:
            if (self._cancel.is_set() or (self._thread is not None and self._thread.is_alive())
                    or time.monotonic() - self._done_at < self.min_interval):
                return
            self._thread = threading.Thread(
                target=self._refresh, name=f"ffind-refresh {self.directory}", daemon=True
            )
            self._thread.start()

    def _refresh(self) -> None:
        # Let the call that kicked us send its answer first: starting the walk forks worker
        # processes, and forking a process this size holds the interpreter for ~10 ms.
        if self._cancel.wait(REFRESH_DELAY):
            self._done_at = time.monotonic()
            return
        try:
            new = Snapshot.build(self._walker(self.directory, self._cancel), numpy=True)
        except Exception:  # a vanished folder, say; keep serving the last walk
            return
        finally:
            self._done_at = time.monotonic()
        if self._cancel.is_set():
            return
        old = self._snap
        # The parallel walk's order varies from walk to walk: compare the sets.
        if old is None or len(new.paths) != len(old.paths) or set(new.paths) != set(old.paths):
            self._snap = new
        self.refreshes += 1

    def wait_refresh(self, timeout: float | None = None) -> None:
        """Block until a running refresh has finished (tests and benchmarks)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def close(self) -> None:
        self._cancel.set()
        self.wait_refresh(5.0)


class ToolServer:
    """The state behind ``ffind mcp``: the root and one ``CachedTree`` per searched folder."""

    MAX_TREES = 8

    def __init__(
        self, root: str | os.PathLike[str], refresh_interval: float = REFRESH_INTERVAL
    ) -> None:
        self.root = resolve_dir(root, None)
        self.refresh_interval = refresh_interval
        self._trees: dict[str, CachedTree] = {}
        self._lock = threading.Lock()

    def tree(self, path: str | None) -> CachedTree:
        directory = resolve_dir(self.root, path)
        with self._lock:
            tree = self._trees.pop(directory, None) or CachedTree(
                directory, min_interval=self.refresh_interval
            )
            self._trees[directory] = tree  # most recently used last
            while len(self._trees) > self.MAX_TREES:
                oldest = next(iter(self._trees))
                self._trees.pop(oldest).close()
        return tree

    def find_files(self, query: str, path: str | None = None, limit: int = DEFAULT_LIMIT) -> str:
        _check_limit(limit)
        tree = self.tree(path)
        try:
            return search_snapshot(tree.get(), query, limit)
        finally:
            tree.kick()  # after the answer, so the re-walk does not slow this call

    def glob(self, pattern: str, path: str | None = None) -> str:
        tree = self.tree(path)
        try:
            return glob_snapshot(tree.get().paths, tree.directory, pattern, GLOB_LIMIT)
        finally:
            tree.kick()

    def warm(self) -> threading.Thread:
        """Walk the root in the background now, so the agent's first call finds it walked
        (or joins the walk under way)."""
        tree = self.tree(None)
        thread = threading.Thread(target=tree.get, name="ffind-warm", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        with self._lock:
            trees = list(self._trees.values())
            self._trees.clear()
        for t in trees:
            t.close()


# --- the MCP server ----------------------------------------------------------------------------

SERVER_INSTRUCTIONS = (
    "ffind finds files in this project by name. Call find_files with a few words from the path "
    "you are looking for (fuzzy, typo tolerant); call glob for a pattern such as '**/*.py'. "
    "Both return paths relative to the project root unless you pass `path`."
)


def build_server(state: ToolServer) -> Any:
    """The ``MCPServer`` (mcp SDK 2.x) with the ``find_files`` and ``glob`` tools."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools.base import Tool
    from mcp_types import ToolAnnotations

    from ffind import __version__

    def find_files(query: str, path: str | None = None, limit: int = DEFAULT_LIMIT) -> str:
        try:
            return state.find_files(query, path, limit)
        except FfindError as e:
            raise ToolError(str(e)) from None

    def glob(pattern: str, path: str | None = None) -> str:
        try:
            return state.glob(pattern, path)
        except FfindError as e:
            raise ToolError(str(e)) from None

    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )

    def tool(fn: Callable[..., str], title: str, description: str,
             schema: dict[str, Any]) -> Tool:
        t = Tool.from_function(fn, title=title, description=description,
                               annotations=read_only, structured_output=False)
        # Publish our hand-written schema (descriptions for the model, limit's range); the
        # SDK still validates arguments with the model it derived from the signature.
        return t.model_copy(update={"parameters": schema})

    return MCPServer(
        "ffind",
        title="ffind: fuzzy file search",
        instructions=SERVER_INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        tools=[
            tool(find_files, "Find files by name", FIND_FILES_DESCRIPTION, FIND_FILES_SCHEMA),
            tool(glob, "Find files by glob pattern", GLOB_DESCRIPTION, GLOB_SCHEMA),
        ],
    )


def mcp_main(argv: list[str]) -> int:
    """``ffind mcp [--root DIR]``: serve the MCP tools over stdio; return the exit code."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # one line, like the rest of the command
            raise FfindError(f"mcp: {message}")

    parser = Parser(
        prog="ffind mcp",
        description="Serve ffind's find_files and glob tools to an AI agent over MCP (stdio).",
    )
    parser.add_argument(
        "--root", default=None, metavar="DIR",
        help="project folder the tools may search (default: the working directory)",
    )
    parser.add_argument(
        "--no-warm", action="store_true",
        help="do not walk the root at start-up (by default the walk starts at once, so the "
        "first call is fast)",
    )
    args = parser.parse_args(argv)
    state = ToolServer(os.getcwd() if args.root is None else args.root)
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise FfindError(
            "the MCP server needs the mcp package (ffind's mcp extra): pip install 'mcp>=2'"
        ) from None
    server = build_server(state)
    if not args.no_warm:
        state.warm()
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        return 130
    finally:
        state.close()
    return 0
