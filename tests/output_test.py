"""ffind.frontends.output: plain / NUL / JSON writers, colour settings, terminal escaping."""

from __future__ import annotations

import json
import os
import pty
import shlex
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from ffind.frontends.output import (
    BOLD,
    HIGHLIGHT,
    RESET,
    escape_indexed,
    format_json,
    format_plain,
    highlight,
    highlight_style,
    json_text,
    path_with_root,
    terminal_safe,
    use_color,
)
from ffind.scoring.scorer import FileMatch


def test_use_color() -> None:
    assert use_color("always", False, {})
    assert use_color("always", True, {"NO_COLOR": "1"})
    assert not use_color("never", True, {})
    assert use_color("auto", True, {})
    assert not use_color("auto", False, {})
    assert not use_color("auto", True, {"NO_COLOR": "1"})
    assert use_color("auto", True, {"NO_COLOR": ""})  # no-color.org: only a non-empty value
    assert not use_color("auto", True, {"TERM": "dumb"})


def test_highlight_style() -> None:
    assert highlight_style("auto", True, environ={}) == HIGHLIGHT
    assert highlight_style("always", False, environ={}) == HIGHLIGHT
    assert highlight_style("auto", True, environ={"NO_COLOR": "1"}) is None
    assert highlight_style("auto", True, compute_indices=True, environ={"NO_COLOR": "1"}) == BOLD
    assert highlight_style("auto", False, compute_indices=True, environ={}) is None
    assert highlight_style("never", True, compute_indices=True, environ={}) is None
    assert highlight_style("auto", True, compute_indices=True, environ={"TERM": "dumb"}) is None


def test_terminal_safe() -> None:
    assert terminal_safe("src/main.py") == "src/main.py"
    assert terminal_safe("a\nb\tc\x1b[31m\x7f") == "a\\nb\\tc\\x1b[31m\\x7f"
    assert terminal_safe("caf\udce9.txt") == "caf\\xe9.txt"  # undecodable byte 0xe9
    assert terminal_safe("caf\u00e9 \u4e2d.txt") == "caf\u00e9 \u4e2d.txt"  # printable


def test_highlight_groups_runs() -> None:
    assert highlight("abcd", [1, 2], escape=False) == f"a{HIGHLIGHT}bc{RESET}d"
    assert highlight("abcd", [0, 3], escape=False) == (
        f"{HIGHLIGHT}a{RESET}bc{HIGHLIGHT}d{RESET}")
    assert highlight("a\nb", [2], escape=True) == f"a\\n{HIGHLIGHT}b{RESET}"


def test_format_plain_bytes() -> None:
    ms = [FileMatch(10, "a/b.py"), FileMatch(5, "caf\udce9.txt")]
    assert format_plain(ms) == b"a/b.py\ncaf\xe9.txt\n"
    assert format_plain(ms, print0=True) == b"a/b.py\0caf\xe9.txt\0"
    assert format_plain(ms, escape=True) == b"a/b.py\ncaf\\xe9.txt\n"
    assert format_plain([]) == b""


def test_format_plain_colour_and_root() -> None:
    m = FileMatch(10, "a/b.py", [2], root="r")
    assert format_plain([m]) == b"r/a/b.py\n"
    assert format_plain([m], style=HIGHLIGHT) == f"r/a/{HIGHLIGHT}b{RESET}.py\n".encode()
    assert format_plain([m], style=BOLD) == f"r/a/{BOLD}b{RESET}.py\n".encode()
    assert format_plain([FileMatch(1, "x", None)], style=HIGHLIGHT) == b"x\n"


def test_format_json_keys() -> None:
    ms = [FileMatch(10, "a/b.py", [2]), FileMatch(3, "ab", [0, 1], typo=True, root="/r")]
    rows = [json.loads(x) for x in format_json(ms, total_match_count=2, limit=2).splitlines()]
    assert rows == [{"score": 10, "path": "a/b.py"},
                    {"score": 3, "path": "ab", "typo": True, "root": "/r"}]
    out = format_json(ms, total_match_count=2, limit=2, compute_indices=True)
    assert [list(json.loads(x)) for x in out.splitlines()] == [
        ["score", "path", "indices"], ["score", "path", "indices", "typo", "root"]]


def test_format_json_truncation_record() -> None:
    ms = [FileMatch(1, "a")]
    last = format_json(ms, total_match_count=912, limit=1).splitlines()[-1]
    assert json.loads(last) == {"matches_truncated": True, "total_match_count": 912}
    assert len(format_json(ms, total_match_count=1, limit=1).splitlines()) == 1
    assert len(format_json(ms, total_match_count=1, limit=None).splitlines()) == 1


def test_json_non_utf8_path_is_lossy_one_for_one() -> None:
    m = FileMatch(1, "caf\udce9\udc80.txt", [0, 5])
    row = json.loads(format_json([m], total_match_count=1, limit=None, compute_indices=True))
    assert row["path"] == "caf\ufffd\ufffd.txt"
    assert row["indices"] == [0, 5] and row["path"][5] == "."


@given(st.text())
def test_terminal_safe_output_is_printable(text: str) -> None:
    assert terminal_safe(text).isprintable()
    assert len(json_text(text)) == len(text)


def test_a_valid_nbsp_and_the_invalid_byte_a0_are_told_apart() -> None:
    assert terminal_safe("a\u00a0b") == "a\\u00a0b"
    assert terminal_safe("a\udca0b") == "a\\xa0b"  # the byte 0xa0, kept by surrogateescape
    assert terminal_safe("\x85\x9b") == "\\u0085\\u009b"  # C1 controls: valid characters
    assert terminal_safe("\x1b\x7f") == "\\x1b\\x7f"
    assert terminal_safe("caf\u00e9") == "caf\u00e9"


def test_escape_indexed_moves_the_indices() -> None:
    assert escape_indexed("abc", [0, 2]) == ("abc", [0, 2])
    shown, idx = escape_indexed("d/\x1bx", [2, 3])
    assert shown == "d/\\x1bx"
    assert idx == [2, 3, 4, 5, 6]  # the escape of a matched character is marked whole
    assert "".join(shown[i] for i in idx) == "\\x1bx"


def test_path_with_root_joins_with_one_slash() -> None:
    assert path_with_root(FileMatch(1, "a/b.py", [2], root="r")) == ("r/a/b.py", [4])
    assert path_with_root(FileMatch(1, "a/b.py", [2], root="r/")) == ("r/a/b.py", [4])
    assert path_with_root(FileMatch(1, "a/b.py", None)) == ("a/b.py", None)


def test_print_paths_is_the_plain_writer() -> None:
    # the picker prints its selection with it: the same bytes as the command, escaped only
    # on a terminal
    script = (
        "import sys; from ffind.frontends.output import print_paths; "
        "from ffind.scoring.scorer import FileMatch; "
        "print_paths([FileMatch(1, 'd/\\x1b]0;t\\x07.txt', root='r'), FileMatch(1, 'x')], "
        "print0=sys.argv[1] == '0')"
    )
    piped = subprocess.run([sys.executable, "-c", script, "n"], capture_output=True,
                           timeout=60, check=True)
    assert piped.stdout == b"r/d/\x1b]0;t\x07.txt\nx\n"
    nul = subprocess.run([sys.executable, "-c", script, "0"], capture_output=True, timeout=60,
                         check=True)
    assert nul.stdout == b"r/d/\x1b]0;t\x07.txt\0x\0"
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", script, "n"], stdout=slave)
    os.close(slave)
    assert proc.wait(timeout=60) == 0
    shown = os.read(master, 4096)
    os.close(master)
    assert shown.replace(b"\r\n", b"\n") == b"r/d/\\x1b]0;t\\x07.txt\nx\n"


def test_warn_never_fails_on_an_unusable_stderr() -> None:
    script = ("from ffind.frontends.output import warn; warn('one\\ntwo'); "
              "warn('again \\x1b]0;t\\x07'); "
              "print('still here')")
    for redirect in ("2>&-", "2>/dev/full"):
        proc = subprocess.run(f"{shlex.quote(sys.executable)} -c {shlex.quote(script)} {redirect}",
                              shell=True, capture_output=True, timeout=60)
        assert (proc.returncode, proc.stdout) == (0, b"still here\n"), proc.stderr
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.stderr == b"ffind: one two\nffind: again \\x1b]0;t\\x07\n"
