"""ffind.fs.ignore.wildmatch: the compiled globs against a line-by-line port of git's dowild()."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.fs.ignore.wildmatch import fold, to_bytes, translate, wildmatch

MATCH, NOMATCH, ABORT_ALL, ABORT_TO_STARSTAR = 0, 1, -1, -2


def _isupper(c: int) -> bool:
    return 0x41 <= c <= 0x5A


def _islower(c: int) -> bool:
    return 0x61 <= c <= 0x7A


_CLASSES = {
    "alnum": lambda c: c < 128 and chr(c).isalnum(),
    "alpha": lambda c: c < 128 and chr(c).isalpha(),
    "blank": lambda c: c in (32, 9),
    "cntrl": lambda c: c < 32 or c == 127,
    "digit": lambda c: 48 <= c <= 57,
    "graph": lambda c: 33 <= c <= 126,
    "lower": _islower,
    "print": lambda c: 32 <= c <= 126,
    "punct": lambda c: 33 <= c <= 126 and not chr(c).isalnum(),
    "space": lambda c: c in (32, 9, 10, 11, 12, 13),
    "upper": _isupper,
    "xdigit": lambda c: chr(c) in "0123456789abcdefABCDEF",
}


def dowild(p: bytes, text: bytes, casefold: bool) -> int:
    """git's wildmatch.c dowild() with WM_PATHNAME, statement by statement (NUL-terminated
    strings become index checks).  Exponential in the worst case: only for small inputs."""
    pi = ti = 0
    pn, tn = len(p), len(text)

    def at(s: bytes, i: int) -> int:
        return s[i] if i < len(s) else 0

    while pi < pn:
        p_ch = p[pi]
        t_ch = at(text, ti)
        if t_ch == 0 and p_ch != 0x2A:
            return ABORT_ALL
        if casefold and _isupper(t_ch):
            t_ch += 32
        if casefold and _isupper(p_ch):
            p_ch += 32
        if p_ch == 0x5C:
            pi += 1
            p_ch = at(p, pi)
            if t_ch != p_ch:
                return NOMATCH
        elif p_ch == 0x3F:
            if t_ch == 0x2F:
                return NOMATCH
        elif p_ch == 0x2A:
            pi += 1
            if at(p, pi) == 0x2A:
                prev_p = pi - 2
                while at(p, pi) == 0x2A:
                    pi += 1
                if (prev_p < 0 or p[prev_p] == 0x2F) and (
                        at(p, pi) in (0, 0x2F) or (at(p, pi) == 0x5C and at(p, pi + 1) == 0x2F)):
                    if at(p, pi) == 0x2F and dowild(p[pi + 1:], text[ti:], casefold) == MATCH:
                        return MATCH
                    match_slash = True
                else:
                    match_slash = False
            else:
                match_slash = False
            if pi >= pn:
                if not match_slash and 0x2F in text[ti:]:
                    return NOMATCH
                return MATCH
            if not match_slash and p[pi] == 0x2F:
                slash = text.find(b"/", ti)
                if slash < 0:
                    return NOMATCH
                ti = slash
                pi += 1
                ti += 1
                continue
            while True:
                if t_ch == 0:
                    break
                matched = dowild(p[pi:], text[ti:], casefold)
                if matched != NOMATCH:
                    if not match_slash or matched != ABORT_TO_STARSTAR:
                        return matched
                elif not match_slash and t_ch == 0x2F:
                    return ABORT_TO_STARSTAR
                ti += 1
                t_ch = at(text, ti)
                if casefold and _isupper(t_ch):
                    t_ch += 32
            return ABORT_ALL
        elif p_ch == 0x5B:
            pi += 1
            p_ch = at(p, pi)
            if p_ch == 0x5E:
                p_ch = 0x21
            negated = p_ch == 0x21
            if negated:
                pi += 1
                p_ch = at(p, pi)
            prev_ch = 0
            matched_b = False
            while True:
                if not p_ch:
                    return ABORT_ALL
                if p_ch == 0x5C:
                    pi += 1
                    p_ch = at(p, pi)
                    if not p_ch:
                        return ABORT_ALL
                    if t_ch == p_ch:
                        matched_b = True
                elif p_ch == 0x2D and prev_ch and at(p, pi + 1) and at(p, pi + 1) != 0x5D:
                    pi += 1
                    p_ch = at(p, pi)
                    if p_ch == 0x5C:
                        pi += 1
                        p_ch = at(p, pi)
                        if not p_ch:
                            return ABORT_ALL
                    upper = t_ch - 32 if casefold and _islower(t_ch) else -1
                    if prev_ch <= t_ch <= p_ch or prev_ch <= upper <= p_ch:
                        matched_b = True
                    p_ch = 0
                elif p_ch == 0x5B and at(p, pi + 1) == 0x3A:
                    s = pi = pi + 2
                    while at(p, pi) and at(p, pi) != 0x5D:
                        pi += 1
                    p_ch = at(p, pi)
                    if not p_ch:
                        return ABORT_ALL
                    i = pi - s - 1
                    if i < 0 or p[pi - 1] != 0x3A:
                        pi = s - 2
                        p_ch = 0x5B
                        if t_ch == p_ch:
                            matched_b = True
                        prev_ch = p_ch
                        pi += 1
                        p_ch = at(p, pi)
                        if p_ch == 0x5D:
                            break
                        continue
                    name = p[s:s + i].decode("latin-1")
                    test = _CLASSES.get(name)
                    if test is None:
                        return ABORT_ALL
                    if test(t_ch) or (name == "upper" and casefold and _islower(t_ch)):
                        matched_b = True
                    p_ch = 0
                elif t_ch == p_ch:
                    matched_b = True
                prev_ch = p_ch
                pi += 1
                p_ch = at(p, pi)
                if p_ch == 0x5D:
                    break
            if matched_b == negated or t_ch == 0x2F:
                return NOMATCH
        else:
            if t_ch != p_ch:
                return NOMATCH
        pi += 1
        ti += 1
    return NOMATCH if ti < tn else MATCH


def git_wildmatch(pattern: str, text: str, casefold: bool = False) -> bool:
    return dowild(to_bytes(pattern), to_bytes(text), casefold) == MATCH


# Pattern and text alphabets chosen to meet each other: bytes of 'é', slashes, classes.
_PAT = st.lists(st.sampled_from(
    ["a", "b", "A", "/", "*", "**", "?", "[a-c]", "[!a]", "[^b/]", "[]a]", "[[:digit:]]",
    "[[:upper:]]", "[[:alpha:][:digit:]]", "[a-]", "[\\]]", "\\*", "\\a", "é", "1", "[é]",
    "[[:a]", "[Z-a]", "[!é]", "x", "\\/", "***", "/**/", "**/", "[a-c-e]", "[[:x]]"]),
    max_size=7).map("".join)
_TEXT = st.lists(st.sampled_from(["a", "b", "A", "B", "/", "é", "1", "]", "-", "*", "x", "[",
                                  ":"]), max_size=8).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_PAT, _TEXT, st.booleans())
def test_compiled_glob_agrees_with_dowild(pattern: str, text: str, casefold: bool) -> None:
    assert wildmatch(pattern, text, casefold=casefold) is git_wildmatch(pattern, text, casefold)


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    ("?.txt", "ü.txt", False),  # '?' is one byte; 'ü' is two
    ("??.txt", "ü.txt", True),
    ("[!a]b.md", "éb.md", False),
    ("[[:digit:]].txt", "1.txt", True),
    ("[[:digit:]].txt", "a.txt", False),
    ("x[\\]]y", "x]y", True),
    ("[[:nope:]]", "a", False),  # an unknown class: git never matches
    ("a[", "a[", False),
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("**/b", "b", True),
    ("a**b", "a/b", False),  # not between slashes: a plain '*'
])
def test_byte_semantics(pattern: str, text: str, expected: bool) -> None:
    assert wildmatch(pattern, text) is expected
    assert git_wildmatch(pattern, text) is expected


def test_casefold_is_ascii_only() -> None:
    assert wildmatch("*.TXT", "a.txt", casefold=True)
    assert not wildmatch("*.TXT", "a.txt")
    assert not wildmatch("é", "É", casefold=True)
    assert fold(to_bytes("ÀB")) == to_bytes("Àb")


def test_compiled_glob_is_linear() -> None:
    """*a*a*a*a*a*a*b against 250 'a': a backtracking regex takes minutes (run in a
    subprocess so that a regression cannot hang the suite)."""
    code = (
        "import time\n"
        "from ffind.fs.ignore.patterns import compile_globs\n"
        "from ffind.fs.ignore.wildmatch import wildmatch\n"
        "t = time.perf_counter()\n"
        "for pat in ('*a*a*a*a*a*a*b', '**/*a*a*a*a*a*a*b', 'a*/**/*a*a*a*a*a*b'):\n"
        "    assert not wildmatch(pat, 'a' * 250)\n"
        "    assert not wildmatch(pat, '/'.join(['a' * 20] * 12))\n"
        "    rules = compile_globs([pat])  # --exclude and the agent's glob\n"
        "    assert rules is not None and rules.match('a' * 250, 'a' * 250, False) is None\n"
        "    assert rules.match('/'.join(['a' * 20] * 12), 'a' * 20, False) is None\n"
        "print(time.perf_counter() - t)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=20, check=True)
    assert float(out.stdout) < 1.0


def test_translate_never_nests_sets() -> None:
    """pathspec wrote '[[:digit:]]' as a nested set (a FutureWarning, and no match)."""
    assert "[[" not in translate("[[:digit:]]x")
