"""git's wildmatch (``wildmatch.c``, ``WM_PATHNAME``) compiled to regexes that cannot backtrack.

A glob becomes one regex over bytes (``?`` and ``[...]`` match one byte, as git's), written as
a ``str`` so it compiles exact as a bytes pattern and exact-on-ASCII as a ``str`` pattern (the
walk's pre-checks).  Linear time: each ``*`` but the last, and each group after a ``**/``, is an
atomic group taking the leftmost place its piece fits, which is always right, so no choice is
revisited.  ``tests/wildmatch_test.py`` checks it against git's own ``dowild``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_SLASH = 0x2F

# POSIX classes as git's sane_ctype defines them (ASCII only).
_POSIX: dict[str, Callable[[int], bool]] = {
    "alnum": lambda c: chr(c).isalnum() and c < 128,
    "alpha": lambda c: chr(c).isalpha() and c < 128,
    "blank": lambda c: c in (0x20, 0x09),
    "cntrl": lambda c: c < 0x20 or c == 0x7F,
    "digit": lambda c: 0x30 <= c <= 0x39,
    "graph": lambda c: 0x21 <= c <= 0x7E,
    "lower": lambda c: 0x61 <= c <= 0x7A,
    "print": lambda c: 0x20 <= c <= 0x7E,
    "punct": lambda c: 0x21 <= c <= 0x7E and not chr(c).isalnum(),
    "space": lambda c: c in (0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D),
    "upper": lambda c: 0x41 <= c <= 0x5A,
    "xdigit": lambda c: chr(c) in "0123456789abcdefABCDEF",
}

Token = tuple[str, object]
"""``("lit", byte)``, ``("set", frozenset of bytes)``, ``("star", kind)``."""
_STAR = 0  # '*' (or '**' next to anything but a slash): any bytes but '/'
_DIRS = 1  # '**/' at the start or after a slash: zero or more whole folders
_SOME_DIRS = 2  # '**\\/': git skips the zero-folder case when the slash is escaped
_ANY = 3  # a trailing '/**' (or a lone '**'): anything


class Malformed(ValueError):
    """A glob git can never match (unclosed ``[``, unknown ``[:class:]``, trailing ``\\``)."""


def to_bytes(text: str) -> bytes:
    """A name or pattern as the bytes git sees (undecodable bytes kept as surrogates)."""
    return text.encode("utf-8", "surrogateescape")


def fold(data: bytes) -> bytes:
    """ASCII lower case, as git's ``tolower`` (bytes >= 0x80 unchanged)."""
    return data.translate(_LOWER)


def _class(p: bytes, i: int, casefold: bool, strict: bool) -> tuple[frozenset[int], int]:
    """The bracket class starting after ``[`` at ``p[i]``: (bytes it accepts, index after
    ``]``).  A port of the class loop of git's ``dowild``, evaluated for every byte at once."""
    n = len(p)
    negated = i < n and p[i] in b"!^"
    if negated:
        i += 1
    members: set[int] = set()
    prev = 0
    first = True
    while True:
        if i >= n:
            raise Malformed("unclosed [")
        c = p[i]
        if c == 0x5D and not first:  # ']'
            break
        first = False
        if c == 0x5C:  # '\\'
            i += 1
            if i >= n:
                raise Malformed("trailing backslash")
            c = p[i]
            members.add(c)
        elif c == 0x2D and prev and i + 1 < n and p[i + 1] != 0x5D:  # 'a-z'
            i += 1
            hi = p[i]
            if hi == 0x5C:
                i += 1
                if i >= n:
                    raise Malformed("trailing backslash")
                hi = p[i]
            if strict and hi < prev:
                raise Malformed(f"reversed range {chr(prev)}-{chr(hi)}")
            members.update(range(prev, hi + 1))
            if casefold:  # a lower-case byte whose upper case is in the range
                members.update(t for t in range(0x61, 0x7B) if prev <= t - 32 <= hi)
            c = 0
        elif c == 0x5B and i + 1 < n and p[i + 1] == 0x3A:  # '[:name:]'
            close = p.find(b"]", i + 2)
            if close < 0:
                raise Malformed("unclosed [")
            if close - (i + 2) - 1 < 0 or p[close - 1] != 0x3A:
                members.add(0x5B)  # not a class: '[' is a member, go on after it
            else:
                name = p[i + 2 : close - 1].decode("latin-1")
                test = _POSIX.get(name)
                if test is None:
                    raise Malformed(f"unknown class [:{name}:]")
                members.update(t for t in range(256) if test(t))
                if casefold and name == "upper":
                    members.update(range(0x61, 0x7B))
                i = close
                c = 0
        else:
            members.add(c)
        prev = c
        i += 1
    accepted = frozenset(t for t in range(256) if (t in members) != negated and t != _SLASH)
    return accepted, i + 1


def tokenize(pattern: str, *, casefold: bool = False, strict: bool = False) -> list[Token]:
    """A glob as git's ``dowild`` reads it with ``WM_PATHNAME``; raises Malformed (``strict``:
    also for a reversed range such as ``[z-a]``, which git reads as ``[z]``)."""
    p = to_bytes(pattern)
    out: list[Token] = []
    n = len(p)
    i = 0
    while i < n:
        c = p[i]
        if c == 0x2A:  # '*'
            start = i
            while i < n and p[i] == 0x2A:
                i += 1
            kind = _STAR
            if i - start >= 2 and (start == 0 or p[start - 1] == _SLASH):
                if i == n:
                    kind = _ANY
                elif p[i] == _SLASH:
                    kind = _DIRS
                elif p[i : i + 2] == b"\\/":
                    kind = _SOME_DIRS
            out.append(("star", kind))
            continue
        if c == 0x3F:  # '?'
            out.append(("set", frozenset(t for t in range(256) if t != _SLASH)))
        elif c == 0x5B:  # '['
            accepted, i = _class(p, i + 1, casefold, strict)
            out.append(("set", accepted))
            continue
        else:
            if c == 0x5C:  # '\\': the next byte as it is (git does not lower it either)
                i += 1
                if i >= n:
                    raise Malformed("trailing backslash")
                c = p[i]
            elif casefold and 0x41 <= c <= 0x5A:
                c += 32
            out.append(("lit", c))
        i += 1
    return out


def _set_regex(accepted: frozenset[int]) -> str:
    if not accepted:
        return "(?!)"
    parts = []
    run: list[int] = []
    for t in sorted(accepted):
        if run and t == run[-1] + 1:
            run.append(t)
            continue
        if run:
            parts.append(_range(run[0], run[-1]))
        run = [t]
    parts.append(_range(run[0], run[-1]))
    return "[" + "".join(parts) + "]"


def _range(lo: int, hi: int) -> str:
    return f"\\x{lo:02x}" if lo == hi else f"\\x{lo:02x}-\\x{hi:02x}"


def _piece(tokens: list[Token]) -> str:
    out = []
    for kind, value in tokens:
        if kind == "lit":
            assert isinstance(value, int)
            out.append(re.escape(chr(value)))
        else:
            assert isinstance(value, frozenset)
            out.append(_set_regex(value))
    return "".join(out)


def _group(tokens: list[Token], last: bool) -> str:
    """Tokens without folder stars: pieces joined by single stars, each but the last star of
    the whole glob an atomic leftmost search."""
    pieces: list[list[Token]] = [[]]
    for tok in tokens:
        if tok[0] == "star":
            pieces.append([])
        else:
            pieces[-1].append(tok)
    out = [_piece(pieces[0])]
    for k, piece in enumerate(pieces[1:], 1):
        if last and k == len(pieces) - 1:
            out.append("[^/]*" + _piece(piece))
        else:
            out.append(f"(?>[^/]*?{_piece(piece)})")
    return "".join(out)


_FOLDERS = {_DIRS: "(?:[^/]*/)*", _SOME_DIRS: "(?:[^/]*/)+"}


def regex_source(tokens: list[Token]) -> str:
    """The regular expression (``fullmatch``, DOTALL, characters standing for bytes) of a
    tokenized glob; the module docstring says why it cannot backtrack."""
    groups: list[list[Token]] = [[]]
    kinds: list[int] = []
    for tok in tokens:
        if tok[0] == "star" and tok[1] != _STAR:
            assert isinstance(tok[1], int)
            kinds.append(tok[1])
            groups.append([])
        else:
            groups[-1].append(tok)
    out = [_group(groups[0], not kinds)]
    for k, kind in enumerate(kinds):
        group = groups[k + 1]
        if kind == _ANY:  # a trailing '**': anything (nothing can follow it)
            out.append(".*")
            continue
        star = _FOLDERS[kind]
        body = group[1:]  # the '/' after '**' is the last one of the folders it matches
        if k == len(kinds) - 1:
            out.append(star + _group(body, True))
        else:
            out.append(f"(?>{star}?{_group(body, False)})")
    return "".join(out)


def translate(pattern: str, *, casefold: bool = False) -> str:
    """``pattern`` (a glob, ``WM_PATHNAME``) -> regex source; raises Malformed."""
    return regex_source(tokenize(pattern, casefold=casefold))


def is_plain(tokens: list[Token]) -> bool:
    """Only ASCII literals and stars: the ``str`` regex is then exact on any text (a literal
    run of whole characters matches the same bytes wherever it matches)."""
    return all(kind == "star" or (kind == "lit" and isinstance(v, int) and v < 128)
               for kind, v in tokens)


def byte_regex(source: str, *, casefold: bool = False) -> Callable[[str], bool]:
    """The exact matcher of a regex source: ``name -> bool`` on the name's bytes."""
    rx = re.compile(source.encode("latin-1"), re.DOTALL).fullmatch

    if casefold:
        return lambda text: rx(fold(to_bytes(text))) is not None
    return lambda text: rx(to_bytes(text)) is not None


def wildmatch(pattern: str, text: str, *, casefold: bool = False) -> bool:
    """Whether git's ``wildmatch(pattern, text, WM_PATHNAME)`` matches (one-off use)."""
    try:
        source = translate(pattern, casefold=casefold)
    except Malformed:
        return False
    return byte_regex(source, casefold=casefold)(text)
