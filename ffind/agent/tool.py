"""The agent tools as Python functions: ``find_files`` and ``glob_files``, plain text out
(``Found N files matching "q":``, the paths, a line when the list was cut).  Secret files are
listed, last, only when the query names them; when nothing matches exactly, looser forms of
the query are tried, then typo matches offered as ``Did you mean:``."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ffind.agent.describe import held_words, reads_as_description, weak_fuzzy
from ffind.agent.loose import MAX_LOOSE_WORDS, loose_queries
from ffind.agent.schema import ECHO_CHARS, GLOB_LIMIT, MAX_LIMIT, TOOL_LIMIT
from ffind.agent.secrets import secret_kind, split_secrets, wants_secrets
from ffind.errors import FfindError
from ffind.fs.walk import VCS_DIRS
from ffind.options import SearchOptions
from ffind.text import terminal_safe

if TYPE_CHECKING:
    from ffind.agent.describe import Describer
    from ffind.engine.index import Index, MatchSet, VisitSource
    from ffind.scoring.scorer import FileMatch
    from ffind.searching.catalog import Recalling

MAX_SUGGESTIONS = 5
ANSWER_CACHE = 32
MATCHSET_CACHE = 8
TOOL_OPTIONS = SearchOptions(hidden=True, limit=None)  # hidden files, never VCS folders
VCS_FOLDERS: frozenset[str] = VCS_DIRS | {".git", ".hg", ".svn", ".jj", ".bzr", "_darcs", "CVS"}

_OTHER_VCS = re.compile(
    "(?:^|/)(?:" + "|".join(re.escape(d) for d in sorted(VCS_FOLDERS - VCS_DIRS)) + ")/",
    re.MULTILINE,
)  # the VCS folders the walk itself does not leave out


# --- the folder searched -----------------------------------------------------------------------


def resolve_dir(
    root: str | os.PathLike[str], path: str | None, *, confine: bool = True
) -> str:
    """The real path of folder ``path`` (relative to ``root``, or absolute); ``FfindError``
    when it is missing, not a folder, in a VCS folder or (``confine``) outside ``root``."""
    real_root = os.path.realpath(root)
    if not os.path.isdir(real_root):
        raise FfindError(f"search root is not a folder: {os.fspath(root)}")
    if path is None or path in ("", "."):
        target = real_root
    elif "\0" in path:
        raise FfindError("path contains a NUL character")
    else:
        target = os.path.realpath(os.path.join(real_root, os.path.expanduser(path)))
    if confine and target != real_root and not target.startswith(real_root.rstrip(os.sep) + os.sep):
        raise FfindError(
            f"path {path!r} is outside the search root {real_root}; "
            "give a folder inside it (relative paths are taken from the root)"
        )
    vcs = VCS_FOLDERS.intersection(target.split(os.sep))
    if vcs:
        shown = os.fspath(root) if path is None or path in ("", ".") else path
        raise FfindError(
            f"path {shown!r} is inside a version-control folder ({min(vcs)}); those are "
            "never searched"
        )
    if path is not None and path not in ("", "."):
        if not os.path.exists(target):
            raise FfindError(f"path {path!r} does not exist under {real_root}")
        if not os.path.isdir(target):
            raise FfindError(f"path {path!r} is a file, not a folder; search its folder instead")
    return target


def search_dir(path: str | None, root: str | os.PathLike[str] | None) -> str:
    """``path`` confined to ``root`` when given, else as is (default: the working directory)."""
    if root is None:
        return resolve_dir(os.getcwd(), path, confine=False)
    return resolve_dir(root, path)


def tool_walk(directory: str, cancel: threading.Event | None = None) -> Iterator[list[str]]:
    """The walk the tools search, in batches (warnings dropped, VCS folders left out)."""
    from ffind.fs.walk import walk_batches

    yield from tool_batches(walk_batches(directory, TOOL_OPTIONS, cancel=cancel,
                                          on_warning=_ignore))


def cached_tool_walk(directory: str,
                     cancel: threading.Event | None = None) -> Iterator[list[str]]:
    """``tool_walk`` through the warm index (the MCP server's: re-reads only what changed)."""
    from ffind.fs.warm import cached_batches

    yield from tool_batches(cached_batches(directory, TOOL_OPTIONS, cancel=cancel,
                                            on_warning=_ignore))


def cached_tool_build(directory: str, cancel: threading.Event | None = None,
                      numpy: bool | None = None) -> TreeSnapshot:
    """``TreeSnapshot.build`` of the warm index's snapshot while a child validates it; built
    again only when the validation found a change."""
    from ffind.fs.warm import warm_attempts

    attempts = warm_attempts(directory, TOOL_OPTIONS, cancel=cancel, on_warning=_ignore)
    built = None
    try:
        for attempt in attempts:
            snap = TreeSnapshot.build(tool_batches(attempt.batches), numpy=numpy)
            if not attempt.stale():
                built = snap
    finally:
        attempts.close()
    assert built is not None  # (the last attempt is never stale)
    return built


def tool_batches(batches: Iterator[list[str]]) -> Iterator[list[str]]:
    for batch in batches:
        if _OTHER_VCS.search("\n".join(batch)):
            batch = [p for p in batch if not _OTHER_VCS.search(p)]
        yield batch


def _ignore(message: str) -> None:
    """Walk warnings (unreadable folders) are not the agent's business."""


# --- one walk, indexed -------------------------------------------------------------------------


@dataclass
class TreeSnapshot:
    """One walk of a folder, indexed (ordinary and secret files apart), and its last answers."""

    paths: list[str]
    main: Index
    secret: Index
    secret_paths: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: dict[tuple[str, int, object], str] = field(default_factory=dict)
    matchsets: dict[str, MatchSet] = field(default_factory=dict)  # narrowed from by a query
    recall: Recalling | None = None  # made on first use, as is the describer
    describer: Describer | None = None

    @classmethod
    def build(cls, batches: Iterable[list[str]], numpy: bool | None = None) -> TreeSnapshot:
        """Index the walk's batches as they arrive; ``numpy`` as for ``ffind.Index``."""
        from ffind.engine.index import Index

        snap = cls([], Index(numpy=numpy), Index(numpy=numpy))
        for batch in batches:
            snap.paths.extend(batch)
            plain, secret = split_secrets(batch)
            snap.main.extend(plain)
            if secret:
                snap.secret.extend(secret)
                snap.secret_paths.extend(secret)
        return snap


# --- find_files --------------------------------------------------------------------------------


def find_files(
    query: str,
    path: str | None = None,
    limit: int = TOOL_LIMIT,
    *,
    root: str | os.PathLike[str] | None = None,
) -> str:
    """Fuzzy-find files under ``path`` (confined to ``root``), as plain text for an agent;
    walks on every call.  ``FfindError`` for a bad ``path`` or ``limit``."""
    check_limit(limit)
    directory = search_dir(path, root)
    return search_snapshot(TreeSnapshot.build(tool_walk(directory)), query, limit)


def check_limit(limit: int) -> None:
    """Raise ``FfindError`` unless ``limit`` is an integer from 1 to ``MAX_LIMIT``."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise FfindError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")


def search_snapshot(snap: TreeSnapshot, query: str, limit: int = TOOL_LIMIT, *,
                    memory: VisitSource | None = None, root: str = "") -> str:
    """Rank ``query`` over an indexed walk and format the answer; ``memory`` (read only) ranks
    the files it remembers under ``root`` higher."""
    with snap.lock:
        key = (query, limit, None if memory is None else memory.stamp())
        answer = snap.answers.get(key)
        if answer is None:
            answer = _search(snap, query, limit, memory, root)
            if len(snap.answers) >= ANSWER_CACHE:
                del snap.answers[next(iter(snap.answers))]
            snap.answers[key] = answer
        return answer


def _ranked(snap: TreeSnapshot, ms: MatchSet, query: str, limit: int,
            memory: VisitSource | None, root: str) -> list[FileMatch]:
    if memory is None:
        return snap.main.top(ms, limit)
    from ffind.searching.catalog import Recalling

    recalling = snap.recall
    if recalling is None:
        recalling = snap.recall = Recalling(memory, root, git=False)
    elif recalling.visits.memory is not memory or recalling.root != os.path.abspath(root):
        recalling.renew(memory, root)
    return recalling.rank(snap.main, query, lambda k: snap.main.top(ms, k), limit, False, ms)


def _search(snap: TreeSnapshot, query: str, limit: int, memory: VisitSource | None = None,
            root: str = "") -> str:
    if reads_as_description(query):
        described = _described(snap, query, limit)
        if described is not None:
            return described
    base = min((m for m in snap.matchsets.values() if m.can_narrow(query)), key=len, default=None)
    ms = snap.main.run(query, within=base)
    if len(snap.matchsets) >= MATCHSET_CACHE:
        del snap.matchsets[next(iter(snap.matchsets))]
    snap.matchsets[query] = ms
    total = len(ms)
    page = _ranked(snap, ms, query, limit, memory, root) if total else []
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
    top = page[0].path if exact and page else None
    if weak_fuzzy(query, top):
        described = _described(snap, query, limit, held_words(query, top) if top else 0)
        if described is not None:
            return described
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


def _described(snap: TreeSnapshot, query: str, limit: int, beat: int = 0) -> str | None:
    """The answer of the word ranking (``ffind.agent.describe``); None when no word matched,
    or when its first path matches fewer words than ``beat`` (the fuzzy answer's first holds)."""
    from ffind.agent.describe import Describer

    if snap.describer is None:
        snap.describer = Describer(snap.main.paths)
    ranking = snap.describer.rank(query, limit)
    if not ranking.matches or len(ranking.matches[0].words) < beat:
        return None
    return format_found(query, [m.path for m in ranking.matches], ranking.total,
                        header=f"Ranked by words for {_quote(query)} ({ranking.summary()}):")


def _typo_suggestions(index: Index, query: str) -> list[str]:
    """Per word of a several-word query, its typo matches that the other words match exactly
    (``session promtp`` -> ``src/session/prompt.ts``)."""
    from ffind.engine.index import Index

    words = query.split()
    out: dict[str, None] = {}
    if not 2 <= len(words) <= MAX_LOOSE_WORDS:
        return []
    for i, word in enumerate(words):
        typos = [m.path for m in index.top(index.run(word), MAX_LIMIT) if m.typo]
        if typos:
            rest = " ".join(words[:i] + words[i + 1 :])
            out.update((m.path, None) for m in Index(typos).match(rest) if not m.typo)
    return list(out)[:MAX_SUGGESTIONS]


def _loose_matches(index: Index, query: str, limit: int) -> tuple[str, int, list[FileMatch]]:
    """The first of ``loose_queries`` with exact matches: it, its match count, its top page."""
    for q in loose_queries(query):
        ms = index.run(q)
        if len(ms):
            page = index.top(ms, limit)
            if any(not m.typo for m in page):
                return q, len(ms), page
    return "", 0, []


# --- the answer's text -------------------------------------------------------------------------


def format_found(
    query: str, paths: Sequence[str], total: int, *, what: str = "", header: str | None = None
) -> str:
    """``Found N files matching "q":``, a blank line, the paths (``terminal_safe``), and the
    truncation line."""
    noun = "file" if total == 1 else "files"
    lines = [header or f"Found {total} {noun} matching {_quote(query)}{what}:", ""]
    lines.extend(terminal_safe(p) for p in paths)
    if total > len(paths):
        hint = "narrow the query or raise limit" if not what else "narrow the pattern or path"
        lines += ["", f"(showing {len(paths)} of {total} matches; {hint})"]
    return "\n".join(lines)


def _no_match(query: str, suggestions: Sequence[str], what: str = "") -> str:
    text = f"No files found matching {what}{_quote(query)}."
    if suggestions:
        text += "\n\nDid you mean:\n" + "\n".join(terminal_safe(p) for p in suggestions)
    return text


def _quote(text: str) -> str:
    """``text`` in double quotes, escaped, cut to ``ECHO_CHARS`` characters and ``…``."""
    cut = text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…"
    return '"' + terminal_safe(cut) + '"'


# --- glob --------------------------------------------------------------------------------------


def glob_files(
    pattern: str,
    path: str | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    limit: int = GLOB_LIMIT,
) -> str:
    """Files under ``path`` matching a gitignore-style glob (``ffind.agent.glob``), newest
    first, at most ``limit``; ``path`` and ``root`` as for ``find_files``."""
    directory = search_dir(path, root)
    paths = [p for batch in tool_walk(directory) for p in batch]
    return glob_snapshot(paths, directory, pattern, limit)


def glob_snapshot(
    paths: Sequence[str], directory: str, pattern: str, limit: int,
    secret_paths: Sequence[str] | None = None,
) -> str:
    """A walk's paths matching ``pattern``, newest first; secret files (``secret_paths`` when
    known) only when the pattern names their kind."""
    import heapq

    from ffind.agent.glob import GlobMatcher, glob_wants_secrets

    matcher = GlobMatcher(pattern)
    kinds = glob_wants_secrets(pattern)
    if secret_paths is None:
        secret_paths = split_secrets(paths)[1]
    hidden = {p for p in secret_paths if secret_kind(p) not in kinds}
    hits = [p for p in paths if matcher.matches(p) and p not in hidden]
    if not hits:
        return _no_match(pattern, (), "glob ")
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
