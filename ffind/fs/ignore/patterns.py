"""One ignore file's patterns and their matching, as git's ``dir.c`` reads them (trailing
spaces, ``#``, ``!``, a trailing ``/`` for folders, name or path patterns, BOM and CRLF; globs by
``wildmatch``); the last matching pattern wins.  Literal names, ``*.ext``, ``prefix*`` and
literal paths go into tables, so a decision is a few lookups; each file also offers pre-checks
the walk merges across the files in scope (a pre-check may say yes where the decision says no,
never the reverse).  ``compile_globs`` compiles ``--exclude`` and the agent's globs.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence

from ffind.errors import FfindError
from ffind.fs.ignore.wildmatch import (
    Malformed,
    Token,
    byte_regex,
    fold,
    is_plain,
    regex_source,
    to_bytes,
    tokenize,
)

TYPE_CHECKING = False  # (not typing's: the walk's forked child imports this module)
if TYPE_CHECKING:
    from typing import Any

IGNORE_FILE = ".ignore"
GITIGNORE_FILE = ".gitignore"
MAX_FILE_SIZE = 10 * 1024 * 1024
"""Ignore files larger than this are skipped with a warning (``/dev/zero``, generated files)."""

Leads = tuple[tuple[str, ...], frozenset[str]] | None
"""``Rules.path_leads_at``: (literal leading folders, the folder paths on the way to them)."""
Check = Callable[[str], object]
"""A pre-check: ``text -> None`` when no pattern matches, anything else when one may."""
Warn = Callable[[str], None]

_GLOB_CHARS = frozenset("*?[\\")
_SURROGATE = re.compile("[\udc80-\udcff]")
_MANY = 32  # more suffixes or prefixes than this: looked up by length, not tried one by one
_MAX_LEADS = 64  # more literal leading folders than this: no filtering by folder
_NON_ASCII = "[^\\x00-\\x7f]"


def _git_trim(line: str) -> str:
    """git's trim_trailing_spaces(): drop unescaped trailing spaces (only spaces)."""
    if not line.endswith(" "):
        return line
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


def _text(tokens: Sequence[Token]) -> str | None:
    """The literal text of tokens that are all literal bytes, or None."""
    if any(kind != "lit" for kind, _ in tokens):
        return None
    return bytes(v for _, v in tokens if isinstance(v, int)).decode("utf-8", "surrogateescape")


def _whole(text: str) -> bool:
    """Valid UTF-8: then ``str.endswith`` and ``startswith`` agree with git's bytes."""
    return text.isascii() or _SURROGATE.search(text) is None


def _fold_str(text: str) -> str:
    return text.lower() if text.isascii() else fold(to_bytes(text)).decode(
        "utf-8", "surrogateescape")


class Pattern:
    """One compiled line: ``base`` patterns match the name, the others the path.  ``kind``:
    name, suffix (``*.ext``), prefix, path (literal) or other; ``depth``: the segments a path
    pattern matches (None: any); ``lead``: its literal leading folders (``"docs/api/"``)."""

    __slots__ = ("_exact", "_source", "base", "casefold", "depth", "dir_only", "first", "glob",
                 "head", "ignores", "index", "kind", "lead", "plain", "text")

    def __init__(self, index: int, ignores: bool, glob: str, *, base: bool, dir_only: bool,
                 casefold: bool, tokens: list[Token] | None = None, kind: str = "") -> None:
        self.index = index
        self.ignores = ignores
        self.glob = glob
        self.base = base
        self.dir_only = dir_only
        self.casefold = casefold
        self.depth: int | None = None
        self.lead = ""
        self.plain = True
        self.first = ""
        self.head = ""  # (the literal text every match starts with: "other" name patterns)
        self._source: str | None = None
        self._exact: Callable[[str], bool] | None = None
        if kind == "other":  # a name glob of literal parts and stars (its regex made on use)
            self.kind, self.text = kind, ""
            self.plain = glob.isascii()
            self.head = "" if casefold else glob.partition("*")[0]
            self.first = glob[0] if glob[0] != "*" and glob[0].isascii() else ""
            return
        if tokens is None:
            self.kind = kind or ("name" if base else "path")
            text = glob.strip("*") if kind else glob
            self.text = _fold_str(text) if casefold else text
            if not base:
                self._shape(glob.split("/"), [glob.split("/")])
            return
        self.kind, self.text = _kind(tokens, base)
        if self.kind in ("suffix", "prefix"):
            return
        self.plain = is_plain(tokens)
        head = tokens[0]  # the first character every match starts with, if known and ASCII
        self.first = chr(head[1]) if (head[0] == "lit" and isinstance(head[1], int)
                                      and head[1] < 128) else ""
        if base and not casefold:
            lits = 0
            while lits < len(tokens) and tokens[lits][0] == "lit":
                lits += 1
            text = _text(tokens[:lits]) or ""
            self.head = text if _whole(text) else ""
        self._source = self._suffixed(regex_source(tokens))
        if not base:
            segments: list[list[Token]] = [[]]
            for tok in tokens:
                if tok == ("lit", 0x2F):
                    segments.append([])
                else:
                    segments[-1].append(tok)
            stars = any(kind == "star" and v != 0 for kind, v in tokens)
            self._shape([_text(seg) for seg in segments], [] if stars else segments)

    def _suffixed(self, regex: str) -> str:
        return regex + ("/" if self.dir_only else "/?")

    def _shape(self, texts: Sequence[str | None], counted: Sequence[object]) -> None:
        """``depth`` and ``lead`` from the segments' literal texts (None: not literal)."""
        if counted:
            self.depth = len(texts)
        for text in texts[:-1]:
            if not text or text in (".", ".."):
                break
            self.lead += text + "/"

    @property
    def source(self) -> str:
        """The pre-check regex (``fullmatch``; folders written with a trailing ``/``)."""
        if self._source is None:
            self._source = self._suffixed(regex_source(tokenize(self.glob,
                                                                casefold=self.casefold)))
        return self._source

    def matches(self, text: str) -> bool:
        """The exact test (git's wildmatch on bytes) of a name or a path."""
        if self._exact is None:
            source = self.source.removesuffix("/?").removesuffix("/")
            self._exact = byte_regex(source, casefold=self.casefold)
        return self._exact(text)


def _kind(tokens: list[Token], base: bool) -> tuple[str, str]:
    text = _text(tokens)
    if text is not None:
        return ("name" if base else "path"), text
    if base and len(tokens) >= 2:
        first, last = tokens[0], tokens[-1]
        if first[0] == "star":
            rest = _text(tokens[1:])
            if rest is not None and _whole(rest):
                return "suffix", rest
        if last[0] == "star":
            rest = _text(tokens[:-1])
            if rest is not None and _whole(rest):
                return "prefix", rest
    return "other", ""


def _compile_pattern(line: str, index: int = 0, casefold: bool = False, *,
                     strict: bool = False) -> Pattern | None:
    """One gitignore line -> Pattern (None: blank, comment); Malformed for a line git never
    matches (``strict``: also a reversed range)."""
    line = _git_trim(line)
    if not line or line[0] == "#":
        return None
    ignores = line[0] != "!"
    body = line if ignores else line[1:]
    dir_only = body.endswith("/")
    if dir_only:
        body = body[:-1]
    if body.startswith("**/") and "/" not in body[3:]:
        body = body[3:]  # '**/x' with no other slash matches where 'x' does: the name alone
    base = "/" not in body
    if not base and body.startswith("/"):
        body = body[1:]
    if not body:
        return None
    if not _GLOB_CHARS.intersection(body):
        return Pattern(index, ignores, body, base=base, dir_only=dir_only, casefold=casefold)
    if base and len(body) > 1 and (body[0] == "*") != (body[-1] == "*"):
        rest = body.strip("*")  # '*.ext' or 'name*' (any number of stars)
        if rest and not _GLOB_CHARS.intersection(rest) and _whole(rest):
            kind = "suffix" if body[0] == "*" else "prefix"
            return Pattern(index, ignores, body, base=base, dir_only=dir_only,
                           casefold=casefold, kind=kind)
    if base and not _GLOB_CHARS.intersection(body.replace("*", "")) and _whole(body):
        return Pattern(index, ignores, body, base=base, dir_only=dir_only, casefold=casefold,
                       kind="other")
    tokens = tokenize(body, casefold=casefold, strict=strict)
    return Pattern(index, ignores, body, base=base, dir_only=dir_only, casefold=casefold,
                   tokens=tokens)


Hit = tuple[int, bool]  # (line index, ignores) of the last pattern of a key


def _table(patterns: Iterable[Pattern]) -> dict[str, Hit]:
    table: dict[str, Hit] = {}
    for p in patterns:  # in line order: the last one of a key stays
        table[p.text] = (p.index, p.ignores)
    return table


class _Kinds:
    """The literal patterns for any entry or folders only, each with its last line."""

    __slots__ = ("names", "paths", "prefix_lens", "prefixes", "suffix_lens", "suffixes")

    def __init__(self, patterns: Sequence[Pattern], dir_only: bool) -> None:
        def pick(kind: str) -> dict[str, Hit]:
            return _table(p for p in patterns if p.kind == kind and p.dir_only == dir_only)

        self.names, self.paths = pick("name"), pick("path")
        self.suffixes, self.prefixes = pick("suffix"), pick("prefix")
        self.suffix_lens = tuple({len(k) for k in self.suffixes})
        self.prefix_lens = tuple({len(k) for k in self.prefixes})

    def best(self, found: Hit, name: str, path: str | None) -> Hit:
        hit = self.names.get(name)
        if hit is not None and hit[0] > found[0]:
            found = hit
        if path is not None:
            hit = self.paths.get(path)
            if hit is not None and hit[0] > found[0]:
                found = hit
        size = len(name)
        for n in self.suffix_lens:
            if n <= size:
                hit = self.suffixes.get(name[size - n :])
                if hit is not None and hit[0] > found[0]:
                    found = hit
        for n in self.prefix_lens:
            if n <= size:
                hit = self.prefixes.get(name[:n])
                if hit is not None and hit[0] > found[0]:
                    found = hit
        return found


class _Tables:
    """The literal patterns of one file: for any entry, and for folders only."""

    __slots__ = ("any", "dirs")

    def __init__(self, patterns: Sequence[Pattern]) -> None:
        self.any = _Kinds(patterns, False)
        self.dirs = _Kinds(patterns, True)

    def best(self, name: str, path: str | None, is_dir: bool) -> Hit:
        """The last literal pattern matching the entry: (line index, ignores), index -1 if
        none; ``path`` None: the name patterns only."""
        found = self.any.best((-1, False), name, path)
        return self.dirs.best(found, name, path) if is_dir else found


@functools.lru_cache(maxsize=4096)
def _any(sources: tuple[str, ...], catchall: bool, casefold: bool) -> Check | None:
    """One regex for "may any of these match", or None; ``catchall``: any non-ASCII text may
    (the regexes are exact on ASCII only)."""
    if not sources:
        return None
    parts = [f"(?:{r})" for r in sources]
    if catchall:
        parts.append(f".*{_NON_ASCII}.*")
    flags = re.DOTALL | (re.IGNORECASE | re.ASCII if casefold else 0)
    return re.compile("|".join(parts), flags).fullmatch


def _last_names(patterns: Sequence[Pattern]) -> frozenset[str] | None:
    """The literal last segments of path ``patterns``, or None when one is not literal."""
    names = set()
    for p in patterns:
        last = p.glob.rpartition("/")[2]
        if not last or any(c in last for c in "*?[\\"):
            return None
        names.add(last)
    return frozenset(names)


class Rules:
    """The compiled patterns of one ignore file (or of ``--exclude`` globs).

    ``match(path, name, is_dir)``: True (ignored), False (re-included by ``!``) or None.
    Pre-checks: ``names``, ``suffixes``, ``prefixes`` (and ``dir_*``), ``base_any`` (whose
    first characters are ``base_firsts``) and ``path_any_at(depth)``; None when nothing
    matches.  With ``ignore_case`` the sets are empty and the matchers fold case."""

    __slots__ = ("_at", "_head_lens", "_headed", "_leads_at", "_others", "_tables", "base_any",
                 "base_firsts", "casefold", "dir_names", "dir_prefixes", "dir_suffixes",
                 "lines", "names", "patterns", "plain", "prefixes", "source", "suffixes")

    def __init__(self, lines: Sequence[str], source: str = "", *, strict: bool = False,
                 ignore_case: bool = False) -> None:
        self.source = source
        self.lines = tuple(lines)
        self.casefold = ignore_case
        patterns: list[Pattern] = []
        for index, line in enumerate(self.lines):
            try:
                compiled = _compile_pattern(line, index, ignore_case, strict=strict)
            except Malformed as exc:
                if strict:
                    raise FfindError(f"invalid exclude pattern {line!r}: {exc}") from None
                continue  # git never matches such a line
            if compiled is not None:
                patterns.append(compiled)
            elif strict and line.strip() and not line.startswith("#"):
                raise FfindError(f"invalid exclude pattern {line!r}")
        self.patterns = tuple(patterns)
        self.plain = all(p.ignores for p in patterns)  # no negation: any match means ignored
        self._tables = tables = _Tables(patterns)
        others = [p for p in patterns if p.kind == "other"]
        # Name patterns with a literal head (``pattern_7_*.x``) are found by their head, not
        # tried one by one: a file of 100,000 of them costs a few lookups a name.
        self._headed: dict[str, list[Pattern]] = {}
        if sum(bool(p.head) for p in others) > _MANY:
            for p in others:
                if p.head:
                    self._headed.setdefault(p.head, []).append(p)
            others = [p for p in others if not p.head]
        self._head_lens = tuple({len(k) for k in self._headed})
        self._others = tuple(others)
        few = not ignore_case  # the walk looks names up as they are: only without case folding

        def pre(table: dict[str, Hit], many: int = 1 << 30) -> tuple[str, ...]:
            return tuple(table) if few and len(table) <= many else ()

        self.names = frozenset(pre(tables.any.names))
        self.dir_names = frozenset(pre(tables.dirs.names))
        self.suffixes = pre(tables.any.suffixes, _MANY)
        self.dir_suffixes = pre(tables.dirs.suffixes, _MANY)
        self.prefixes = pre(tables.any.prefixes, _MANY)
        self.dir_prefixes = pre(tables.dirs.prefixes, _MANY)
        lookup = ignore_case or bool(self._headed) or any(len(t) > _MANY for t in (
            tables.any.suffixes, tables.dirs.suffixes, tables.any.prefixes,
            tables.dirs.prefixes))
        others = [p for p in self._others if p.base]
        rx = _any(tuple(p.source for p in others), not all(p.plain for p in others),
                  ignore_case)
        self.base_any = self._with_lookup(rx) if lookup else rx
        firsts = {p.first for p in others}
        self.base_firsts: frozenset[str] | None = (
            frozenset(firsts) if firsts and all(firsts) and not lookup else None)
        self._at: dict[tuple[int, str], Check | None] = {}
        self._leads_at: dict[tuple[int, str], Leads] = {}

    def _with_lookup(self, rx: Check | None) -> Check:
        """``base_any`` that also looks the name up in the literal tables (case folded)."""
        best = self._tables.best
        casefold = self.casefold

        def check(text: str) -> object:
            is_dir = text.endswith("/")
            name = text[:-1] if is_dir else text
            if best(_fold_str(name) if casefold else name, None, is_dir)[0] >= 0:
                return True
            if self._headed_of(name):
                return True
            return None if rx is None else rx(text)

        return check

    def _headed_of(self, name: str) -> list[Pattern]:
        """The name patterns whose literal head starts ``name``."""
        size = len(name)
        return [p for n in self._head_lens if n <= size
                for p in self._headed.get(name[:n], ())]

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_load_rules, (self.lines, self.source, self.casefold))

    def _path_patterns(self, depth: int, part: str) -> list[Pattern]:
        """The path patterns that can match ``depth`` segments below: all, or those with
        (``"led"``) or without (``"free"``) a literal leading folder."""
        return [p for p in self.patterns
                if not p.base and (p.depth is None or p.depth == depth)
                and (not part or bool(p.lead) == (part == "led"))]

    def path_any_at(self, depth: int, part: str = "") -> Check | None:
        """The pre-check of the path patterns that can match ``depth`` segments below the
        file's folder, or None; ``part`` as ``_path_patterns``."""
        try:
            return self._at[depth, part]
        except KeyError:
            pass
        found = self._path_patterns(depth, part)
        others = [p for p in found if p.kind == "other"]
        rx = _any(tuple(p.source for p in others), not all(p.plain for p in others),
                  self.casefold)
        keys = frozenset(k for p in found if p.kind == "path"
                         for k in ((p.text + "/",) if p.dir_only else (p.text, p.text + "/")))
        check: Check | None = rx
        if keys:
            casefold = self.casefold

            def check(text: str) -> object:
                if (_fold_str(text) if casefold else text) in keys:
                    return True
                return None if rx is None else rx(text)

        self._at[depth, part] = check
        return check

    def path_names_at(self, depth: int, part: str = "") -> frozenset[str] | None:
        """The names an entry must have for ``path_any_at(depth, part)`` to match it (each
        pattern ends with a literal name), or None."""
        return None if self.casefold else _last_names(self._path_patterns(depth, part))

    def path_leads_at(self, depth: int, part: str = "") -> Leads:
        """``(leads, ways)``: the literal leading folders of ``path_any_at(depth)``'s patterns
        and the folder paths on the way to them (a folder elsewhere matches none); None when
        one may match anywhere, or too many."""
        try:
            return self._leads_at[depth, part]
        except KeyError:
            leads = {p.lead for p in self._path_patterns(depth, part)}
            found: Leads = None
            if leads and all(leads) and not self.casefold and len(leads) <= _MAX_LEADS:
                ways = {""}
                for lead in leads:
                    cut = lead.find("/")
                    while cut >= 0:
                        ways.add(lead[:cut + 1])
                        cut = lead.find("/", cut + 1)
                found = (tuple(leads), frozenset(ways))
            self._leads_at[depth, part] = found
            return found

    def match(self, path: str, name: str, is_dir: bool) -> bool | None:
        """The decision for one entry (see the class docstring)."""
        if is_dir and path.endswith("/"):
            path = path[:-1]
        if self.casefold:
            index, ignores = self._tables.best(_fold_str(name), _fold_str(path), is_dir)
        else:
            index, ignores = self._tables.best(name, path, is_dir)
        depth = -1
        others: Sequence[Pattern] = self._others
        if self._headed:
            others = sorted((*others, *self._headed_of(name)), key=lambda p: p.index)
        for p in reversed(others):
            if p.index < index:
                break
            if p.dir_only and not is_dir:
                continue
            if p.base:
                hit = p.matches(name)
            else:
                if p.depth is not None:
                    if depth < 0:
                        depth = path.count("/") + 1
                    if p.depth != depth:
                        continue
                hit = p.matches(path)
            if hit:
                return p.ignores
        return ignores if index >= 0 else None


def _load_rules(lines: tuple[str, ...], source: str = "", casefold: bool = False) -> Rules:
    """Compile, or reuse this process's copy of the same lines (identical ignore files are
    common; a worker gets the rules by pickle)."""
    rules = _compiled_lines(lines, casefold)
    if not rules.source:
        rules.source = source
    return rules


@functools.lru_cache(maxsize=4096)
def _compiled_lines(lines: tuple[str, ...], casefold: bool) -> Rules:
    return Rules(lines, ignore_case=casefold)


def read_lines(path: str, warn: Warn | None = None) -> list[str] | None:
    """The lines of an ignore file (surrogate escapes); None, with a warning unless missing,
    if unreadable, not a regular file (never a blocking open) or over ``MAX_FILE_SIZE``."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            if warn is not None and not stat.S_ISDIR(st.st_mode):
                warn(f"ignoring {path}: not a regular file")
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if warn is not None:
            warn(f"cannot read {path}: {exc.strerror or exc}")
        return None
    try:
        st = os.fstat(fd)  # the file opened, not the one looked at (it may have changed)
        if not stat.S_ISREG(st.st_mode):
            if warn is not None:
                warn(f"ignoring {path}: not a regular file")
            return None
        chunks = []
        size = 0
        while size <= MAX_FILE_SIZE:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_SIZE + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        if warn is not None:
            warn(f"cannot read {path}: {exc.strerror or exc}")
        return None
    finally:
        os.close(fd)
    if size > MAX_FILE_SIZE:
        if warn is not None:
            warn(f"ignoring {path}: larger than {MAX_FILE_SIZE // (1024 * 1024)} MB")
        return None
    data = b"".join(chunks)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    # git drops the '\r' of a CRLF line end.
    return [line.removesuffix("\r") for line in data.decode("utf-8", "surrogateescape").split("\n")]


def load_file(path: str, warn: Warn | None = None, *, ignore_case: bool = False) -> Rules | None:
    """Compiled rules of an ignore file (cached per process); None if unreadable or empty.
    ``ignore_case``: git's ``core.ignoreCase``."""
    lines = read_lines(path, warn)
    if lines is None:
        return None
    rules = _load_rules(tuple(lines), path, ignore_case)
    return rules if rules else None


def compile_globs(globs: Iterable[str], *, ignore_case: bool = False) -> Rules | None:
    """Globs (gitignore syntax, relative to the search root) -> Rules; None if all are blank.
    A leading ``#`` is a name; FfindError for a glob git could never match."""
    if isinstance(globs, str):
        raise TypeError("globs must be an iterable of strings, not a string")
    lines = []
    for glob in globs:
        if not glob.strip():
            continue
        # A leading '#' is a comment in a .gitignore; on the command line it is a name.
        lines.append("\\" + glob if glob.startswith("#") else glob)
    rules = Rules(lines, "", strict=True, ignore_case=ignore_case)
    return rules if rules else None
