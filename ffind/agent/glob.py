"""The ``glob`` tool's patterns: ``{a,b}`` expanded (at most 64), then matched as ``.gitignore``
lines by the walk's compiler; a file matches when it or one of its folders does (``glob src``
lists everything under ``src/``, as ``git ls-files -i -x src``).  Negation is refused."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from ffind.agent.secrets import wants_secrets
from ffind.errors import FfindError

if TYPE_CHECKING:
    from ffind.fs.ignore.patterns import Rules

MAX_GLOBS = 64  # the most patterns one glob may expand to


def expand_braces(pattern: str) -> list[str]:
    """``src/*.{ts,tsx}`` -> ``["src/*.ts", "src/*.tsx"]``; nested braces too, at most 64.

    Braces without a comma at their level (``{x}``) are kept as they are.
    """
    out = _expand(pattern)
    if len(out) > MAX_GLOBS:
        raise FfindError(f"glob pattern {pattern!r} expands to more than {MAX_GLOBS} patterns")
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
                if len(alts) * len(rests) > MAX_GLOBS:
                    return [p] * (MAX_GLOBS + 1)
                heads = [h for alt in alts for h in _expand(p[:start] + alt)]
                if len(heads) * len(rests) > MAX_GLOBS:
                    return [p] * (MAX_GLOBS + 1)
                return [h + r for h in heads for r in rests]
        elif c == "," and depth == 1:
            commas.append(i)
    return [p]


def glob_lines(pattern: str) -> list[str]:
    """The gitignore lines a glob stands for: stripped, ``./`` dropped, braces expanded.

    Raises ``FfindError`` for an empty pattern, a negation, or too many alternatives.
    """
    text = pattern.strip()
    if not text:
        raise FfindError("glob pattern is empty")
    if text.startswith("./"):
        text = text[2:]
    lines = expand_braces(text)
    if any(line.startswith("!") for line in lines):
        raise FfindError("glob pattern cannot start with '!' (negation is not supported)")
    return lines


def glob_wants_secrets(pattern: str) -> frozenset[str]:
    """The secret kinds a glob names, alternative by alternative, its ``*`` read as a word
    break: ``**/*.{pem,key}`` names both ``pem`` and ``key``; ``*`` names none."""
    kinds: set[str] = set()
    for alt in _expand(pattern.strip())[:MAX_GLOBS]:
        kinds.update(wants_secrets(alt.replace("*", " ")))
    return frozenset(kinds)


class GlobMatcher:
    """A compiled glob: ``matches(path)`` for a file path relative to the searched folder."""

    def __init__(self, pattern: str) -> None:
        from ffind.fs.ignore.patterns import compile_globs

        self.pattern = pattern
        try:
            rules = compile_globs(glob_lines(pattern))
        except FfindError as e:
            detail = str(e).partition(": ")[2] or str(e)
            raise FfindError(f"invalid glob pattern {pattern!r}: {detail}") from None
        if rules is None:
            raise FfindError(f"glob pattern {pattern!r} matches nothing")
        self._rules: Rules = rules
        self._folders: dict[str, bool] = {"": False}

    def _folder(self, folder: str) -> bool:
        """Whether ``folder`` (``a/b``, no trailing ``/``) or one above it matches."""
        known = self._folders
        todo: list[str] = []
        while folder not in known:  # up to the nearest folder already asked about
            todo.append(folder)
            folder = folder.rpartition("/")[0]
        hit = known[folder]
        for below in reversed(todo):  # then down again, asking the rules on the way
            hit = hit or self._rules.match(below + "/", below.rpartition("/")[2], True) is True
            known[below] = hit
        return hit

    def matches(self, path: str) -> bool:
        cut = path.rfind("/")
        if cut > 0:
            folder = path[:cut]
            hit = self._folders.get(folder)
            if hit or (hit is None and self._folder(folder)):
                return True
        return self._rules.match(path, path[cut + 1 :], False) is True
