"""The glob tool's patterns: braces, then gitignore semantics through the walk's compiler."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ffind.agent.glob import GlobMatcher, expand_braces, glob_lines
from ffind.errors import FfindError

ROOT = Path(__file__).resolve().parent.parent

PATHS = [
    "README.md", "setup.py", "src/app.py", "src/lib/util.py", "src/lib/util.ts",
    "tests/app_test.py", "docs/src/notes.md", "build/out.js", "build/sub/deep.js",
    "a.d/inside.txt", "x]y", "weird name.txt",
]


def matched(pattern: str) -> list[str]:
    m = GlobMatcher(pattern)
    return [p for p in PATHS if m.matches(p)]


@pytest.mark.parametrize(("pattern", "expected"), [
    # No '/' (or only a trailing one): matches at any depth.
    ("*.py", ["setup.py", "src/app.py", "src/lib/util.py", "tests/app_test.py"]),
    ("util.*", ["src/lib/util.py", "src/lib/util.ts"]),
    # A '/' inside anchors the pattern at the searched folder.
    ("src/*.py", ["src/app.py"]),
    ("/src/**/*.py", ["src/app.py", "src/lib/util.py"]),
    ("src/**", ["src/app.py", "src/lib/util.py", "src/lib/util.ts"]),
    ("**/*.md", ["README.md", "docs/src/notes.md"]),
    ("./src/*.py", ["src/app.py"]),
    # A folder matched means everything inside it, as in a .gitignore.
    ("build", ["build/out.js", "build/sub/deep.js"]),
    ("build/", ["build/out.js", "build/sub/deep.js"]),
    ("src", ["src/app.py", "src/lib/util.py", "src/lib/util.ts", "docs/src/notes.md"]),
    ("*.d", ["a.d/inside.txt"]),
    # Classes, escapes, braces.
    ("?????.md", ["docs/src/notes.md"]),
    ("??????.md", ["README.md"]),
    ("x[]]y", ["x]y"]),
    ("weird\\ name.txt", ["weird name.txt"]),
    ("**/*.{py,ts}", ["setup.py", "src/app.py", "src/lib/util.py", "src/lib/util.ts",
                      "tests/app_test.py"]),
    ("{src,tests}/*.py", ["src/app.py", "tests/app_test.py"]),
])
def test_gitignore_semantics(pattern: str, expected: list[str]) -> None:
    assert matched(pattern) == expected


def test_braces() -> None:
    assert expand_braces("a/{b,c{d,e}}.x") == ["a/b.x", "a/cd.x", "a/ce.x"]
    assert expand_braces("{x}") == ["{x}"]
    assert expand_braces("*.{a,a}") == ["*.a"]
    with pytest.raises(FfindError, match="more than 64"):
        expand_braces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")


def test_bad_patterns() -> None:
    with pytest.raises(FfindError, match="empty"):
        GlobMatcher("  ")
    with pytest.raises(FfindError, match="negation"):
        GlobMatcher("!*.py")
    with pytest.raises(FfindError, match="negation"):
        glob_lines("{!a,b}")
    # git never matches a trailing backslash: refused as invalid, or as matching nothing.
    with pytest.raises(FfindError, match="glob pattern 'a\\\\\\\\'"):
        GlobMatcher("a\\")


def test_deep_paths_do_not_recurse() -> None:
    deep = "/".join(["d"] * 3000) + "/f.py"
    assert GlobMatcher("*.py").matches(deep)
    assert not GlobMatcher("*.rs").matches(deep)


def test_many_stars_on_a_long_name_stay_fast() -> None:
    # Issue 12.5: a backtracking regex takes minutes here (git: instant).
    code = (
        "from ffind.agent.glob import GlobMatcher\n"
        "m = GlobMatcher('*a*a*a*a*a*a*b')\n"
        "assert not m.matches('a' * 250)\n"
        "assert m.matches('a' * 250 + 'b')\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=10,
                              cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.fail("'*a*a*a*a*a*a*b' against a 250-character name took over 10 s")
    assert done.returncode == 0, done.stderr.decode()
