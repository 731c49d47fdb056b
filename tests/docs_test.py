"""The committed completions and man page match a fresh generation; the man page renders."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "generate_docs.py"


def test_generated_files_are_up_to_date() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                          text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(("rel", "first"), [
    ("completions/ffind.bash", "_ffind_completion()"),
    ("completions/_ffind", "#compdef ffind"),
    ("completions/ffind.fish", "function _ffind_completion"),
])
def test_completion_scripts_call_back_into_ffind(rel: str, first: str) -> None:
    text = (ROOT / rel).read_text()
    assert first in text
    assert "_FFIND_COMPLETE" in text


def test_completion_protocol_answers() -> None:
    env = {**os.environ, "_FFIND_COMPLETE": "bash_complete", "COMP_WORDS": "ffind --col",
           "COMP_CWORD": "1"}
    proc = subprocess.run([sys.executable, "-m", "ffind"], env=env, capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["plain,--color"]
    env["COMP_WORDS"], env["COMP_CWORD"] = "ffind --color ", "2"
    proc = subprocess.run([sys.executable, "-m", "ffind"], env=env, capture_output=True,
                          text=True, timeout=30)
    assert proc.stdout.splitlines() == ["plain,auto", "plain,always", "plain,never"]


def test_man_page_renders() -> None:
    man = need("man")
    proc = subprocess.run([man, "--warnings", "-l", str(ROOT / "man" / "ffind.1")],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MANWIDTH": "100", "MANPAGER": "cat",
                               "PAGER": "cat"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = proc.stdout
    for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES"]:
        assert heading in out
    for flag in ["--limit", "--json", "--print0", "--no-require-git", "--interactive"]:
        assert flag in out
    assert "[default: 64" in out


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _without_fences(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _prose(text: str) -> str:
    """The text without code blocks and inline code, where brackets are not links."""
    return re.sub(r"`[^`\n]*`", "", _without_fences(text))


def _anchors(md: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#{1,6} +(.+?) *$", _without_fences(md.read_text()), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_relative_links_point_to_existing_files() -> None:
    """Every relative link of README.md and docs/*.md names a file (and heading) that exists."""
    checked = 0
    broken = []
    for md in _markdown_files():
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(md.read_text())):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto: ...
            path, _, anchor = target.partition("#")
            dest = (md.parent / path).resolve() if path else md
            checked += 1
            if not dest.exists():
                broken.append(f"{md.relative_to(ROOT)}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{md.relative_to(ROOT)}: {target} (no such heading)")
    assert checked >= 10, "the README links to docs/"
    assert broken == []


def test_every_variable_the_package_reads_is_in_the_man_page() -> None:
    names = set()
    for path in (ROOT / "ffind").rglob("*"):
        if path.is_file() and path.suffix in (".py", ".sh", ".zsh", ".fish"):
            names |= set(re.findall(r"(?<![\w])FFIND_[A-Z0-9_]+", path.read_text()))
    assert {"FFIND_DEFAULT_OPTS", "FFIND_NO_SERVER", "FFIND_MEMORY"} <= names
    man = (ROOT / "man" / "ffind.1").read_text().replace("\\-", "-")
    environment = man.partition(".SH ENVIRONMENT")[2].partition(".SH FILES")[0]
    assert sorted(n for n in names if n not in environment and n not in man) == []
    for name in ("FFIND_DEFAULT_OPTS", "FFIND_NO_SERVER", "FFIND_SERVER_IDLE", "FFIND_MEMORY",
                 "FFIND_NO_MEMORY", "FFIND_NO_WATCH"):
        assert f"\\fB{name}\\fR" in environment, name
    files = man.partition(".SH FILES")[2].partition(".SH ")[0]
    for where in ("$XDG_CACHE_HOME/ffind", "memory.sqlite3", "$XDG_RUNTIME_DIR/ffind",
                  ".sock"):
        assert where in files, where


PROGRAMS = {"fzf", "tmux", "zsh", "fish", "nvim", "vim", "emacs", "man", "jq", "git"}
"""The programs tests drive (``need``), which .ci/run installs and the README lists."""


def test_the_programs_the_tests_drive_are_listed_in_the_readme_and_installed_by_ci() -> None:
    asked = set()
    for path in (ROOT / "tests").glob("*.py"):
        asked |= set(re.findall(r"""\bneed\(["']([\w-]+)["']\)""", path.read_text()))
    assert asked | {"zsh", "fish"} == PROGRAMS  # (the shells: ``need(name)``)
    readme = (ROOT / "README.md").read_text()
    tests = readme[readme.index("```sh\npip install '.[test]'"):readme.index("\n## ")]
    ci = (ROOT / ".ci" / "run").read_text()
    for program in sorted(PROGRAMS):
        assert f"`{program}`" in tests, program
        assert f"need {program} " in ci, program


def test_a_missing_program_skips_the_test_but_fails_it_in_ci(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"^tmux is not installed"):
        need("tmux")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"^tmux is required in CI"):
        need("tmux")
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))
    assert need(os.path.basename(sys.executable)) == sys.executable
