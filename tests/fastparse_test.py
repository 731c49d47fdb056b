"""ffind.frontends.fastparse: the command line read without click gives click's answer, or
none (and click answers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffind.frontends import cli
from ffind.frontends.fastparse import parse
from ffind.frontends.flags import FLAGS, Flag

VALUES = ["0", "1", "5", "20", "007", "-1", "+5", " 5", "5_0", "", "x", "٣", "auto", "always",
          "never", "Auto", "sometimes", "f", "d", "file", "dir", "directory", "F", "*.py",
          "-x", "--hidden", "a=b", "40%", "cat {}", "sub", "file.txt", "missing", ".", "-"]
"""Values of every kind, good and bad (``sub`` is a folder, ``file.txt`` a file)."""
OTHER = ["main", "", "-", "--", "-x", "--bogus", "-z", "-h", "--help", "--version", "-Hl5",
         "-iH", "-0l3", "-l=5", "--hidden=1", "--json=", "---x", "-HI", "-Il", "-lH", "a b",
         "-e", "--limit=", "--preview", "--preview=cat", "mcp"]


BY_KIND = {"int": ["0", "3", "-1", "+5", " 5", "5_0", "x", "٣", "99999999999999999999"],
           "dir": ["sub", "file.txt", "missing", ".", "", "-"],
           "choice": ["auto", "always", "never", "Auto", "NEVER", "sometimes", ""],
           "str": ["f", "d", "file", "Dir", "directory", "F", "x", "", "*.py", "40%", "-x"]}
"""Values of each kind, most of them near the edge of what click takes."""


def _tokens(flag: Flag) -> st.SearchStrategy[list[str]]:
    names = flag.names
    if flag.kind == "bool":
        return st.sampled_from(names).map(lambda n: [n])
    value = st.one_of(st.sampled_from(BY_KIND[flag.kind]), st.sampled_from(VALUES))
    return st.one_of(
        st.tuples(st.sampled_from(names), value).map(list),
        value.map(lambda v: [f"--{flag.long}={v}"]),
        *([value.map(lambda v: [f"-{flag.short}{v}"])] if flag.short else []),
    )


ARGV = st.lists(st.one_of(*[_tokens(f) for f in FLAGS for _ in range(2)],
                          st.sampled_from(OTHER).map(lambda t: [t])), max_size=6).map(
    lambda parts: [t for part in parts for t in part])


def _click(args: list[str]) -> cli.Invocation | str:
    """What click makes of ``args`` (as the command gives them: ``attached_values``): the
    Invocation, or "error"/"exit"."""
    try:
        rv = cli.build_command().main(args=cli.attached_values(args), prog_name="ffind",
                                      standalone_mode=False)
    except click.ClickException:
        return "error"
    except click.exceptions.Exit:
        return "exit"
    return rv if isinstance(rv, cli.Invocation) else "exit"


def _fast(args: list[str]) -> cli.Invocation | None:
    quick = parse(cli.attached_values(args))
    if quick is None:
        return None
    inv = cli.invocation(*quick)
    return inv if isinstance(inv, cli.Invocation) else None


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "file.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@settings(max_examples=1000, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=ARGV)
def test_the_fast_parser_agrees_with_click(place: Path, args: list[str]) -> None:
    fast = _fast(args)
    if fast is not None:  # an answer: click's, exactly
        assert _click(args) == fast, args


PICKER = st.lists(st.one_of(*[_tokens(f) for f in FLAGS if f.picker],
                            st.sampled_from(OTHER).map(lambda t: [t])), max_size=5).map(
    lambda parts: ["-i", *(t for part in parts for t in part)])
"""Command lines of the picker (``-i`` and the flags it takes)."""


@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=PICKER)
def test_the_fast_parser_agrees_with_click_on_picker_command_lines(place: Path,
                                                                   args: list[str]) -> None:
    fast = _fast(args)
    if fast is not None:
        assert _click(args) == fast, args


@pytest.mark.parametrize("args", [
    ["main"], [], ["-l", "20", "main"], ["-l20", "main"], ["--limit=20", "main"],
    ["main", "--limit", "0"], ["--json", "--compute-indices", "x"], ["-0", "x"],
    ["-HIL", "-d", "3", "-t", "d", "-t", "file", "-e", "*.o", "-e", "-x", "x"],
    ["--threads", "1", "--no-require-git", "--no-cache", "--no-memory", "q"],
    ["-C", "sub", "--color", "never", "--stdin", "x"], ["-C", "missing", "x"],
    ["-i", "--height", "40%", "-0"], ["-i", "-H", "--color=always"], ["--", "-x"],
    ["-", "-l", "3"], ["--bash"], ["--remember", "file.txt"], ["--clear-cache"], ["-e", ""],
    ["-t", "DIR", "x"], ["--limit", "007", ""], ["-i", "--preview"], ["-i", "--preview", "x"],
    ["-i", "--preview=cat {}", "x"], ["-i", "--preview", "-H"], ["-i", "--preview=", "x"],
    ["-i", "--preview", "--", "-x"], ["-i", "--preview", "-"],
])
def test_plain_command_lines_are_read_without_click(place: Path, args: list[str]) -> None:
    fast = _fast(args)
    assert fast is not None, args
    assert fast == _click(args)


@pytest.mark.parametrize("args", [
    ["-h"], ["--help"], ["--version"], ["main", "--version"], ["--bogus"], ["-z"], ["a", "b"],
    ["-l", "-1"], ["-l", "+5"], ["-l", "5_0"], ["-l"], ["--limit="], ["--threads", "0"],
    ["--hidden=1"], ["-t", "x"], ["--color", "Auto"], ["-C", "file.txt"], ["--json", "-0"],
    ["-i", "--json"], ["--height", "3"], ["--bash", "--zsh"], ["--preview"], ["-l=5"],
    ["--preview=-H", "-i"],
    ["-x"], ["-Hz"], ["-C", "a\0b"],
])
def test_anything_else_is_left_to_click(place: Path, args: list[str]) -> None:
    assert parse(args) is None or isinstance(cli.invocation(*parse(args)), str)  # type: ignore[misc]


def test_every_flag_of_the_table_is_read_in_every_form(place: Path) -> None:
    good = {"int": "3", "dir": "sub", "choice": "never", "str": "f"}
    for flag in FLAGS:
        forms = [[n] for n in flag.names] if flag.kind == "bool" else [
            [flag.names[-1], good[flag.kind]], [f"{flag.names[-1]}={good[flag.kind]}"],
            *([[f"-{flag.short}{good[flag.kind]}"]] if flag.short else [])]
        for form in forms:
            args = [*form, "-i"] if flag.picker_only else form
            quick = parse(args)
            assert quick is not None, args
            assert quick[1][flag.long] not in (None, flag.default) or flag.long == "threads", args
            assert _fast(args) == _click(args) or isinstance(cli.invocation(*quick), str), args


def test_errors_through_the_command_are_click_s(place: Path) -> None:
    for args in (["-l", "x"], ["--bogus"], ["-C", "file.txt", "q"]):
        proc = subprocess.run([sys.executable, "-m", "ffind", *args], capture_output=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
                              timeout=60)
        assert proc.returncode == 2, args
        err = proc.stderr.decode()
        assert err.startswith("ffind: ") and err.count("\n") == 1 and "Traceback" not in err
        try:
            cli.build_command().main(args=args, prog_name="ffind", standalone_mode=False)
        except click.ClickException as e:
            assert err == f"ffind: {' '.join(e.format_message().split())}\n"


def test_a_plain_search_does_not_import_click(place: Path) -> None:
    code = ("import sys\nfrom ffind.frontends.cli import main\nmain(sys.argv[1:])\n"
            "print('click' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, "-l", "3", "-H", "file"],
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout == "file.txt\n" and proc.stderr.strip() == "False"
    proc = subprocess.run([sys.executable, "-c", code, "-l", "3", "--bogus"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr.strip().endswith("True")  # (main returns 2)


def test_completion_requests_go_to_click(place: Path) -> None:
    env = {**os.environ, "_FFIND_COMPLETE": "bash_complete", "COMP_WORDS": "ffind --js",
           "COMP_CWORD": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-m", "ffind"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0 and "--json" in proc.stdout and "file.txt" not in proc.stdout
