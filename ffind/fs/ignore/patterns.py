"""Ignore rules: which entries of a folder the walk leaves out, the way git (and fd) would.

Sources, highest precedence first (the first source with a matching pattern decides):

1. ``.ignore`` files (the ripgrep/fd convention), deepest folder first, anywhere;
2. ``.gitignore`` files, deepest folder first, from the repository's top level down (including
   the folders above the search root), only inside a git work tree unless ``require_git=False``;
3. ``$GIT_DIR/info/exclude`` of the repository;
4. ``core.excludesFile`` (default ``$XDG_CONFIG_HOME/git/ignore`` or ``~/.config/git/ignore``).

Within one file the last matching pattern wins, and a ``!pattern`` re-includes.  The walk never
descends into an excluded folder, so a file inside it can never be re-included (git's rule).

pathspec does the pattern semantics (``GitIgnoreSpecPattern``: anchoring, ``**``, escapes,
character classes, directory-only patterns).  pathspec matches a *file path* and lets a pattern
that matches one of its folders match the file too; the walk instead asks about one entry at a
time (its folders were already accepted), so each pattern's regular expression is turned into
one that must match the whole entry path, folders written with a trailing ``/``
(:func:`_entry_regex`).  For the common case, "no pattern matches", the walk pre-checks each
entry against all ignore files in scope at once: literal names, ``*.ext`` suffixes and
``prefix*`` in merged sets, the other name patterns in one regex per file, and path patterns in
one regex per file and depth (an anchored ``/dist/`` cannot match three levels down).  The
ordered last-match-wins decision only runs when a pre-check hits.

Deviations from pathspec that work around differences with git (checked by
``tests/conformance_test.py`` against ``git ls-files``):

- trailing spaces are trimmed the way git does (an escaped space ``\\ `` ends the trim), before
  pathspec sees the line: pathspec strips every trailing space, so ``a\\  `` became invalid;
- ``dir/**/`` (folders strictly inside ``dir``) is passed to pathspec as ``dir/**/*/``: pathspec
  collapses it to ``dir/`` and so ignored ``dir`` itself;
- a trailing tab (git trims spaces only; pathspec strips all whitespace) is passed as ``[\t]``;
- a pattern pathspec rejects (``a\\`` with a trailing backslash, a reversed range ``[z-a]``) is
  dropped, as git never matches it; a UTF-8 byte order mark at the top of a file is skipped, and
  the ``\r`` of CRLF line ends dropped, as git does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ffind.errors import FfindError

IGNORE_FILE = ".ignore"
GITIGNORE_FILE = ".gitignore"

_TAIL_ANY = "(?:(?P<ps_d>/)|$)"
_TAIL_DIR = "(?P<ps_d>/)"


def _entry_regex(regex: str) -> str | None:
    """pathspec's regex (``search`` semantics, matches descendants) -> a ``fullmatch`` regex
    for one entry path, folders written with a trailing ``/``.  None for an unknown shape."""
    if regex == ".":  # '*', '**', '/**': everything
        return ".+"
    if regex == _TAIL_DIR:  # '*/', '**/': every folder
        return ".+/"
    if regex == "/":  # '**/*/**': everything below the first level
        return ".+/.+"
    if regex.endswith(_TAIL_ANY):  # 'name', 'a/b': the entry itself, file or folder
        return regex[: -len(_TAIL_ANY)] + "/?"
    if regex.endswith(_TAIL_DIR):  # 'name/': folders only
        return regex[: -len(_TAIL_DIR)] + "/"
    if regex.endswith("/"):  # 'a/**': everything strictly inside
        return regex + ".+"
    return None


def _git_trim(line: str) -> str:
    """git's trim_trailing_spaces(): drop unescaped trailing spaces (only spaces)."""
    last_space = -1
    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        if c == " ":
            if last_space < 0:
                last_space = i
        elif c == "\\":
            i += 1
            if i >= n:
                return line
            last_space = -1
        else:
            last_space = -1
        i += 1
    return line[:last_space] if last_space >= 0 else line


_GLOB_CHARS = frozenset("*?[\\")
Leads = tuple[tuple[str, ...], frozenset[str]] | None
"""``Rules.path_leads_at``: (literal leading folders, the folder paths on the way to them)."""
_BASE_PREFIX = "^(?:.+/)?"


def _is_literal(text: str) -> bool:
    return bool(text) and not _GLOB_CHARS.intersection(text)


class Pattern:
    """One compiled line.

    ``base`` patterns (no ``/`` inside; git matches them against the name alone) match
    ``name`` or ``name/``; the others match the whole relative path.  ``kind`` and ``text``
    let the walk pre-check the trivial ones without a regex: ``"name"`` (a literal name),
    ``"suffix"`` (``*`` + literal), ``"prefix"`` (literal + ``*``), ``"other"`` (``text``:
    the glob).  ``depth`` is
    the number of path segments an anchored pattern without ``**`` matches (None: any).
    ``lead`` is the literal folders an anchored path pattern starts with (``"docs/api/"`` for
    ``docs/api/*.md``; ``""`` when it starts with a wildcard or is not anchored): every path it
    matches starts with them, so the walk need not try it in folders off that way.
    """

    __slots__ = ("_regex", "base", "depth", "dir_only", "ignores", "kind", "lead", "source",
                 "text")

    def __init__(self, source: str, ignores: bool, *, base: bool = False,
                 kind: str = "other", text: str = "", dir_only: bool = False,
                 depth: int | None = None, lead: str = "") -> None:
        self.source = source  # the fullmatch regex, compiled on first use (pre-checks are
        self._regex: re.Pattern[str] | None = None  # joined regexes; this one is rarely needed)
        self.ignores = ignores
        self.base = base
        self.kind = kind
        self.text = text
        self.dir_only = dir_only
        self.depth = depth
        self.lead = lead

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = re.compile(self.source)
        return self._regex


def _compile_pattern(line: str) -> Pattern | None:
    """One gitignore line -> Pattern; None for blanks, comments and lines git never matches.

    Raises ValueError for a line pathspec rejects.
    """
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    line = _git_trim(line)
    if not line or line[0] == "#":
        return None
    if line[-1] != " " and line[-1].isspace():
        # git keeps a trailing tab (it trims spaces only); pathspec would strip it: write the
        # trailing whitespace as one-character classes, which pathspec keeps.
        kept = line.rstrip()
        line = kept + "".join(f"[{c}]" for c in line[len(kept) :])
    body = line[1:] if line[0] == "!" else line
    if body.endswith("/**/") and body != "/**/":
        line = line + "*/"  # pathspec collapses 'dir/**/' to 'dir/'; git means folders inside
    regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
    if regex is None or include is None:
        return None
    entry = _entry_regex(regex)
    if entry is None:  # a pathspec version with another regex shape: keep its own semantics
        return Pattern(f"(?:{regex}).*", include)
    dir_only = body.endswith("/")
    core = body[:-1] if dir_only else body
    if core.startswith("**/"):
        core = core[3:]
    if core and "/" not in core and entry.startswith(_BASE_PREFIX) and core != "**":
        # Matched against the name alone.
        base_entry = entry[len(_BASE_PREFIX) :]
        kind, text = "other", core
        if _is_literal(core):
            kind, text = "name", core
        elif core[0] == "*" and _is_literal(core[1:]):
            kind, text = "suffix", core[1:]
        elif core[-1] == "*" and _is_literal(core[:-1]):
            kind, text = "prefix", core[:-1]
        return Pattern(base_entry, include, base=True, kind=kind, text=text,
                       dir_only=dir_only)
    depth = None
    lead = ""
    if "/" in core and "\\" not in core:  # anchored: a fixed number of segments unless '**'
        segments = core.removeprefix("/").split("/")
        if "**" not in segments:
            depth = len(segments)
        if not body.startswith("**/"):
            for seg in segments[:-1]:
                if not _is_literal(seg) or seg in (".", ".."):
                    break
                lead += seg + "/"
    return Pattern(entry, include, dir_only=dir_only, depth=depth, lead=lead)


class Rules:
    """The compiled patterns of one ignore file (or of ``--exclude`` globs).

    ``match(path, name, is_dir)`` takes the entry path relative to the folder holding the file
    (``/``-separated, folders with a trailing ``/``) and the entry's name; it returns True
    (ignored), False (re-included by ``!``) or None (no pattern matches).

    Pre-checks for the walk's fast "nothing matches" case: literal ``names``, ``suffixes`` and
    ``prefixes`` (and their folder-only ``dir_*`` twins), one regex ``base_any`` for the other
    name patterns, and ``path_any_at(depth)``: one regex for the path patterns that can match an
    entry that many segments below the file's folder.
    """

    __slots__ = ("_at", "_leads_at", "base_any", "base_firsts", "dir_names", "dir_prefixes",
                 "dir_suffixes", "lines", "names", "patterns", "plain", "prefixes", "source",
                 "suffixes")

    def __init__(self, lines: Sequence[str], source: str = "", *, strict: bool = False) -> None:
        self.source = source
        self.lines = tuple(lines)
        patterns: list[Pattern] = []
        for line in self.lines:
            try:
                compiled = _compile_pattern(line)
            except (ValueError, re.error) as exc:  # GitIgnorePatternError is a ValueError
                if strict:
                    raise FfindError(f"invalid exclude pattern {line!r}: {exc}") from None
                continue  # git never matches such a line
            if compiled is not None and "[" in compiled.source:
                try:  # a reversed range ('[z-a]') is not a valid regex; git never matches it
                    compiled.regex  # noqa: B018
                except re.error as exc:
                    if strict:
                        raise FfindError(f"invalid exclude pattern {line!r}: {exc}") from None
                    continue
            if compiled is not None:
                patterns.append(compiled)
            elif strict and line.strip() and not line.startswith("#"):
                raise FfindError(f"invalid exclude pattern {line!r}")
        self.patterns = tuple(patterns)
        # No negation: any match means ignored, no ordered scan needed.
        self.plain = all(p.ignores for p in patterns)
        base = [p for p in patterns if p.base]

        def texts(kind: str, dir_only: bool) -> frozenset[str]:
            return frozenset(p.text for p in base if p.kind == kind and p.dir_only == dir_only)

        self.names = texts("name", False)
        self.dir_names = texts("name", True)
        self.suffixes = tuple(texts("suffix", False))
        self.dir_suffixes = tuple(texts("suffix", True))
        self.prefixes = tuple(texts("prefix", False))
        self.dir_prefixes = tuple(texts("prefix", True))
        others = [p for p in base if p.kind == "other"]
        self.base_any = _any(others)
        # The first characters the ``base_any`` patterns can match, when each starts with a
        # literal one (``.#*``, ``Untitled*.ipynb``); None when one starts with a wildcard.
        firsts = {p.text[:1] for p in others}
        self.base_firsts: frozenset[str] | None = (
            frozenset(firsts) if firsts and all(c and c not in _GLOB_CHARS for c in firsts)
            else None)
        self._at: dict[int, Callable[[str], re.Match[str] | None] | None] = {}
        self._leads_at: dict[int, Leads] = {}

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_load_rules, (self.lines, self.source))

    def path_any_at(self, depth: int) -> Callable[[str], re.Match[str] | None] | None:
        try:
            return self._at[depth]
        except KeyError:
            fm = self._at[depth] = _any(
                p for p in self.patterns
                if not p.base and (p.depth is None or p.depth == depth)
            )
            return fm

    def path_leads_at(self, depth: int) -> Leads:
        """Where the path patterns of ``path_any_at(depth)`` can match: ``(leads, ways)``, the
        patterns' literal leading folders and every folder path on the way to one of them
        (``""`` included); a folder whose path (relative to this file's folder, ``/``-ended)
        neither starts with a lead nor is on the way matches none of them.  None when one of
        them may match anywhere."""
        try:
            return self._leads_at[depth]
        except KeyError:
            leads = [p.lead for p in self.patterns
                     if not p.base and (p.depth is None or p.depth == depth)]
            found: Leads = None
            if leads and all(leads):
                ways = {""}
                for lead in leads:
                    cut = lead.find("/")
                    while cut >= 0:
                        ways.add(lead[:cut + 1])
                        cut = lead.find("/", cut + 1)
                found = (tuple(set(leads)), frozenset(ways))
            self._leads_at[depth] = found
            return found

    def match(self, path: str, name: str, is_dir: bool) -> bool | None:
        depth = -1
        for p in reversed(self.patterns):
            if p.base:
                if p.dir_only and not is_dir:
                    continue
                kind = p.kind
                if kind == "name":
                    hit = name == p.text
                elif kind == "suffix":
                    hit = name.endswith(p.text)
                elif kind == "prefix":
                    hit = name.startswith(p.text)
                else:
                    hit = p.regex.fullmatch(name + "/" if is_dir else name) is not None
            else:
                if p.depth is not None:
                    if depth < 0:
                        depth = path.count("/") + (0 if is_dir else 1)
                    if p.depth != depth:
                        continue
                hit = p.regex.fullmatch(path) is not None
            if hit:
                return p.ignores
        return None


_CACHE_SIZE = 4096
_ANY: dict[str, Callable[[str], re.Match[str] | None]] = {}


def _any(patterns: Iterable[Pattern]) -> Callable[[str], re.Match[str] | None] | None:
    """One regex for "does any of these match" (``fullmatch``), or None for no patterns."""
    regexes = [p.source for p in patterns]
    if not regexes:
        return None
    joined = "|".join(f"(?:{r})" for r in regexes)
    fm = _ANY.get(joined)
    if fm is None:
        if len(_ANY) >= _CACHE_SIZE:  # a long-lived process walking many trees
            _ANY.clear()
        fm = _ANY[joined] = re.compile(joined).fullmatch
    return fm


_CACHE: dict[tuple[str, ...], Rules] = {}


def _load_rules(lines: tuple[str, ...], source: str) -> Rules:
    """Compile, or reuse this process's copy of the same lines (identical ignore files are
    common, and a worker receiving folders to walk gets the rules again by pickle)."""
    cached = _CACHE.get(lines)
    if cached is not None:
        return cached
    rules = Rules(lines, source)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[lines] = rules
    return rules


def read_lines(path: str) -> list[str] | None:
    """The lines of an ignore file, non-UTF-8 bytes kept as surrogates; None if unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    # git drops the '\r' of a CRLF line end.
    return [line.removesuffix("\r") for line in data.decode("utf-8", "surrogateescape").split("\n")]


def load_file(path: str) -> Rules | None:
    """Compiled rules of an ignore file (cached per process); None if missing, unreadable or
    without a single pattern."""
    lines = read_lines(path)
    if lines is None:
        return None
    rules = _load_rules(tuple(lines), path)
    return rules if rules else None


def compile_globs(globs: Iterable[str]) -> Rules | None:
    """``--exclude`` globs (gitignore syntax, relative to the search root) -> Rules.

    Raises FfindError for a glob pathspec rejects or cannot compile.
    """
    lines = []
    for glob in globs:
        if not glob.strip():
            continue
        # A leading '#' is a comment in a .gitignore; on the command line it is a name.
        lines.append("\\" + glob if glob.startswith("#") else glob)
    rules = Rules(lines, "", strict=True)
    return rules if rules else None
