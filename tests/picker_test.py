"""The picker, driven in a real terminal (tmux) as a person would, plus its key parser."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import need
from tmux_pane import TmuxPane

from ffind.frontends.picker.keys import QueryLine, parse_keys
from ffind.frontends.picker.view import SPINNER
from ffind.frontends.picker.waker import Waker

LONG = "very/long/folder/name/that/goes/on/and/on/for/quite/a/while/target_file.txt"
FILES = [
    "src/session/prompt.ts", "src/session/prompt_test.ts", "src/session/other.ts",
    "lib/util.py", "lib/util_test.py", "tools/utility.rs", "docs/guide.md", "README.md", LONG,
]

LAUNCH = (
    "import sys; from ffind.frontends.picker import run_picker; "
    "from ffind.options import SearchOptions; "
    "sys.exit(run_picker(sys.argv[1], [], SearchOptions(), print0=sys.argv[2] == '0'))"
)
SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def _ffind() -> str:
    """The installed ``ffind`` command next to this interpreter (else the one on PATH)."""
    here = Path(sys.executable).parent / "ffind"
    found = str(here) if here.exists() else shutil.which("ffind")
    assert found is not None, "the ffind command is not installed"
    return found


FFIND = shlex.quote(_ffind())


def colours(lines: list[str]) -> set[str]:
    """The SGR colour parameters (foreground/background) in ``capture-pane -e`` output."""
    found: set[str] = set()
    for line in lines:
        for params in SGR.findall(line):
            for p in params.replace(":", ";").split(";"):
                if p.isdigit() and (30 <= int(p) <= 49 or 90 <= int(p) <= 107) \
                        and int(p) not in (39, 49):
                    found.add(p)
    return found


class Pane(TmuxPane):
    def __init__(self, tmux: list[str], out: Path, rc: Path) -> None:
        super().__init__(tmux, "picker", trim=False)
        self.out = out
        self.rc = rc

    def wait_for(self, what: Callable[[list[str]], bool], timeout: float = 15) -> list[str]:
        return super().wait_for(what, timeout)

    def exit_code(self, timeout: float = 15) -> int:
        deadline = time.monotonic() + timeout
        while not self.rc.exists() or not self.rc.read_text().strip():
            if time.monotonic() > deadline:
                raise AssertionError("the picker did not exit:\n" + "\n".join(self.screen()))
            time.sleep(0.05)
        return int(self.rc.read_text())


def _ready(lines: list[str]) -> bool:
    """The walk is done (no spinner) and the counter shows every file."""
    return len(lines) > 1 and f"/{len(FILES)}" in lines[1] and not any(
        c in lines[1] for c in SPINNER)


def settled(query: str) -> Callable[[list[str]], bool]:
    """The screen shows ``query`` fully matched: no spinner on the counter line."""
    return lambda s: (len(s) > 1 and s[0] == "> " + query and f"/{len(FILES)}" in s[1]
                      and not any(c in s[1] for c in SPINNER))


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Pane]]:
    tree = tmp_path / "tree"
    for rel in FILES:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text("")
    tmux = [need("tmux"), "-L", f"ffind-test-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]

    def launch(query: str = "", print0: bool = False, command: str | None = None) -> Pane:
        """Run ``run_picker`` through ``python -c``, or the shell ``command`` (its stdout is
        captured; ``NO_COLOR`` is unset unless the command sets it)."""
        out, rc = tmp_path / "out", tmp_path / "rc"
        if command is None:
            command = (f"{shlex.quote(sys.executable)} -c {shlex.quote(LAUNCH)} "
                       f"{shlex.quote(query)} {'0' if print0 else 'n'}")
        cmd = (f"cd {shlex.quote(str(tree))} && unset NO_COLOR && {{ {command}; }} "
               f"> {shlex.quote(str(out))}; echo $? > {shlex.quote(str(rc))}; sleep 60")
        # (a retry: right after a test killed its last session, the tmux server is exiting
        # and may refuse a new session for a moment)
        deadline = time.monotonic() + 10
        while True:
            made = subprocess.run([*tmux, "new-session", "-d", "-s", "picker", "-x", "80",
                                   "-y", "24", cmd], capture_output=True, text=True)
            if made.returncode == 0:
                return Pane(tmux, out, rc)
            assert time.monotonic() < deadline, f"tmux new-session failed: {made.stderr}"
            time.sleep(0.1)

    yield launch
    subprocess.run([*tmux, "kill-server"], capture_output=True)


def test_type_move_mark_two_and_enter_prints_them(start: Callable[..., Pane]) -> None:
    pane = start()
    pane.wait_for(_ready)
    pane.type("xyz")
    pane.wait_for(lambda s: s[0].startswith("> xyz") and s[1].strip().startswith("0/"))
    pane.send("C-u")
    pane.type("prompt.ts")
    lines = pane.wait_for(settled("prompt.ts"))
    assert lines[2] == "> src/session/prompt.ts"
    pane.send("BSpace", "BSpace", "BSpace")  # "prompt"
    lines = pane.wait_for(settled("prompt"))
    assert lines[1].strip().startswith("2/")
    assert sorted(x[2:] for x in lines[2:4]) == ["src/session/prompt.ts",
                                                 "src/session/prompt_test.ts"]
    pane.send("C-w")
    pane.type("util")
    lines = pane.wait_for(settled("util"))
    shown = [x[2:] for x in lines[2:5]]
    assert {"lib/util.py", "lib/util_test.py", "tools/utility.rs"} <= set(shown)
    pane.send("Down")
    pane.wait_for(lambda s: s[3].startswith(">"))
    pane.send("Tab")  # mark the second, move to the third
    pane.wait_for(lambda s: s[3].startswith(" *") and s[4].startswith(">") and "(1)" in s[1])
    pane.send("Up", "Up", "Tab")  # mark the first
    pane.wait_for(lambda s: s[2].startswith(" *") and "(2)" in s[1])
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text().splitlines() == [shown[1], shown[0]]  # in the order marked
    assert not any("util" in line for line in pane.screen()), "the screen is restored"


def test_initial_query_and_enter_prints_the_top_line_nul_terminated(
    start: Callable[..., Pane],
) -> None:
    pane = start("guide", print0=True)
    lines = pane.wait_for(settled("guide"))
    assert lines[2] == "> docs/guide.md"
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_bytes() == b"docs/guide.md\0"


def test_escape_exits_130_and_prints_nothing(start: Callable[..., Pane]) -> None:
    pane = start("util")
    pane.wait_for(lambda s: s[0] == "> util" and len(s) > 2 and s[2].startswith(">"))
    pane.send("Escape")
    assert pane.exit_code() == 130
    assert pane.out.read_bytes() == b""


def test_ctrl_c_exits_130(start: Callable[..., Pane]) -> None:
    pane = start()
    pane.wait_for(_ready)
    pane.send("C-c")
    assert pane.exit_code() == 130
    assert pane.out.read_bytes() == b""


def test_enter_with_no_match_exits_1(start: Callable[..., Pane]) -> None:
    pane = start("qqqqq")
    lines = pane.wait_for(settled("qqqqq"))
    assert lines[1].strip().startswith("0/")
    pane.send("Enter")
    assert pane.exit_code() == 1
    assert pane.out.read_bytes() == b""


def test_resize_redraws_and_cuts_long_paths_on_the_left(start: Callable[..., Pane]) -> None:
    pane = start("target")
    lines = pane.wait_for(settled("target"))
    assert lines[2] == "> " + LONG
    subprocess.run([*pane.tmux, "resize-window", "-t", "picker", "-x", "40", "-y", "10"],
                   check=True)
    lines = pane.wait_for(lambda s: len(s) > 2 and s[2].startswith("> ..")
                          and s[2].endswith("target_file.txt"))
    assert len(lines) <= 10
    assert max(len(x) for x in lines) <= 40
    subprocess.run([*pane.tmux, "resize-window", "-t", "picker", "-x", "80", "-y", "24"],
                   check=True)
    pane.wait_for(lambda s: len(s) > 2 and s[2] == "> " + LONG)
    pane.send("Escape")
    assert pane.exit_code() == 130


def test_parse_keys() -> None:
    assert list(parse_keys("ab\x7f\x1b[A\x1b[B\x1bOA\x1b[5~\x1b[6~\t\x1b[Z\r")) == [
        "char:a", "char:b", "bs", "up", "down", "up", "pgup", "pgdn", "tab", "btab", "enter"]
    assert list(parse_keys("\x10\x0e\x15\x17\x03\x1b")) == [
        "up", "down", "ctrl-u", "ctrl-w", "abort", "abort"]
    assert list(parse_keys("é\x1b[1;5C\x1b\x7f")) == ["char:é", "ignore", "alt-bs"]
    assert list(parse_keys("\x1b[200~a b\n\x1b[201~\r")) == [
        "char:a", "char: ", "char:b", "enter"]


@pytest.mark.parametrize(("text", "key", "left"), [
    ("src/ses", "ctrl-w", ""), ("foo bar ", "ctrl-w", "foo "),
    ("src/ses", "alt-bs", "src/"), ("src/", "alt-bs", ""),
])
def test_a_word_is_deleted_before_the_cursor(text: str, key: str, left: str) -> None:
    line = QueryLine(text, len(text))
    assert line.handle(key)
    assert (line.text, line.pos) == (left, len(left))


def test_page_down_and_up_move_the_cursor_to_the_ends(start: Callable[..., Pane]) -> None:
    pane = start()
    pane.wait_for(_ready)
    pane.send("PageDown")  # one page is more than the 9 files: the last one
    lines = pane.wait_for(lambda s: len(s) > 10 and s[10].startswith(">"))
    assert sum(line.startswith(">") for line in lines[2:]) == 1
    pane.send("PageUp")
    pane.wait_for(lambda s: s[2].startswith(">") and not s[10].startswith(">"))
    pane.send("C-n", "C-n", "C-p")
    pane.wait_for(lambda s: s[3].startswith(">"))
    pane.send("Escape")
    assert pane.exit_code() == 130


# --- the real command: ffind -i, --stdin -i, --color


def test_ffind_i_with_a_pattern_type_and_enter(start: Callable[..., Pane]) -> None:
    pane = start(command=f"{FFIND} -i prom")
    lines = pane.wait_for(settled("prom"))
    assert lines[1].strip().startswith("2/")
    pane.type("pt_t")
    lines = pane.wait_for(settled("prompt_t"))
    assert lines[2] == "> src/session/prompt_test.ts"
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == "src/session/prompt_test.ts\n"
    assert not any("prompt" in line for line in pane.screen()), "the screen is restored"


def test_stdin_piped_into_the_picker(start: Callable[..., Pane]) -> None:
    # The candidates come from the pipe, not from the tree the command runs in.
    pane = start(command=f"printf 'a/b.py\\nc/d.ts\\nlib/util.py\\n' | {FFIND} --stdin -i")
    pane.wait_for(lambda s: len(s) > 4 and s[1].strip() == "3/3")
    pane.type("dts")
    lines = pane.wait_for(lambda s: s[0] == "> dts" and s[1].strip() == "1/3")
    assert lines[2] == "> c/d.ts"
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == "c/d.ts\n"


@pytest.mark.parametrize(("query", "shown"), [
    # fzf's README: starts with core, ends with go, rb or py
    ("^core go$ | rb$ | py$", ["core/a.go", "core/b.rb", "core/c.py"]),
    # test_filter.rb's test_boundary_match: both ends on word boundaries
    ("'xyz'", ["/xyz/", "-xyz-", "_xyz_"]),
])
def test_the_picker_takes_fzf_s_or_and_boundary_terms(
    start: Callable[..., Pane], query: str, shown: list[str]
) -> None:
    lines_in = ["core/a.go", "core/b.rb", "core/c.py", "core/d.js", "lib/e.go", "/xyz/",
                "-xyz-", "_xyz_", "axyzb", "xyzx-"]
    listing = "\\n".join(lines_in)
    pane = start(command=f"printf '{listing}\\n' | {FFIND} --stdin -i")
    total = f"/{len(lines_in)}"
    pane.wait_for(lambda s: len(s) > 4 and s[1].strip() == "10" + total)
    pane.type(query)
    lines = pane.wait_for(lambda s: s[0] == "> " + query
                          and s[1].strip() == f"{len(shown)}{total}")
    assert [x[2:] for x in lines[2:2 + len(shown)]] == shown
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == shown[0] + "\n"


def test_stdin_from_a_file_mark_two_print0(start: Callable[..., Pane], tmp_path: Path) -> None:
    listing = tmp_path / "list.txt"
    listing.write_bytes(b"x/one.py\nx/two.py\ny/three.rs\n\n")
    pane = start(command=f"{FFIND} --stdin -i -0 py < {shlex.quote(str(listing))}")
    lines = pane.wait_for(lambda s: len(s) > 3 and s[0] == "> py" and s[1].strip() == "2/3")
    shown = [x[2:] for x in lines[2:4]]
    assert sorted(shown) == ["x/one.py", "x/two.py"]
    pane.send("Tab", "Tab")
    pane.wait_for(lambda s: "(2)" in s[1])
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_bytes() == b"".join(p.encode() + b"\0" for p in shown)


def test_scrolling_past_the_ranked_screenful_ranks_more(start: Callable[..., Pane],
                                                      tmp_path: Path) -> None:
    """The session ranks one screenful per state; paging further asks it for more."""
    listing = tmp_path / "list.txt"
    names = [f"d/file_{i:02d}.txt" for i in range(60)]
    listing.write_text("\n".join(names) + "\n")
    pane = start(command=f"{FFIND} --stdin -i < {shlex.quote(str(listing))}")
    pane.wait_for(lambda s: len(s) > 1 and s[1].strip() == "60/60")
    pane.send("PageDown")
    pane.wait_for(lambda s: any(x.startswith("> d/file_22.txt") for x in s))
    pane.send("PageDown")  # past the 24 ranked rows
    lines = pane.wait_for(lambda s: any(x.startswith("> d/file_44.txt") for x in s))
    assert [x[2:] for x in lines[2:] if x.strip()][-1] == "d/file_44.txt"
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == "d/file_44.txt\n"


@pytest.mark.parametrize(("command", "coloured"), [
    ("{ffind} -i util", True),
    ("NO_COLOR=1 {ffind} -i util", False),
    ("{ffind} -i --color never util", False),
    ("NO_COLOR=1 {ffind} -i --color always util", True),
])
def test_color_choice_reaches_the_picker(
    start: Callable[..., Pane], command: str, coloured: bool,
) -> None:
    pane = start(command=command.format(ffind=FFIND))
    pane.wait_for(settled("util"))
    lines = pane.screen(escapes=True)
    found = colours(lines)
    if coloured:
        assert "32" in found, lines  # matched characters in green
    else:
        assert not found, lines
        assert any("\x1b[4m" in line or ";4m" in line or ";4;" in line for line in lines), \
            "without colour, matched characters are underlined"
    pane.send("Escape")
    assert pane.exit_code() == 130


def test_the_waker_shows_matches_handed_over_before_their_count() -> None:
    import os

    from ffind.scoring.scorer import FileMatch
    from ffind.searching.session import Snapshot

    r, w = os.pipe()
    try:
        waker = Waker(w, limit=3)
        one, two, three = (FileMatch(1, p) for p in ("a", "b", "c"))
        waker.on_ranked("ab", [one])
        assert waker.answered("ab") and not waker.answered("a")
        early = waker.newest("ab")
        assert early is not None and early.matches == [one]
        assert early.total_match_count == 1  # fewer than the session ranks: all of them
        assert waker.newest("a") is None  # nothing for another query
        waker.on_complete(Snapshot("ab", [one], 1, 10, True))
        assert waker.newest("ab") is waker.latest and waker.answered("ab")
        waker.on_update(Snapshot("abc", [one, two, three], 50, 10, False))
        assert not waker.answered("abc")  # walked and matched: not yet
        waker.on_ranked("abc", [one, two, three])
        shown = waker.newest("abc")
        assert shown is not None and shown.total_match_count == 50  # the count to come
        assert waker.answered("abc")
    finally:
        os.close(r)
        os.close(w)


def test_a_picked_name_with_escapes_never_reaches_the_terminal_raw(
    start: Callable[..., Pane], tmp_path: Path,
) -> None:
    """The row and the printed pick (stdout on the terminal) are escaped by output's rules:
    the OSC sequence in the name must not set the pane's title."""
    listing = tmp_path / "list.txt"
    listing.write_bytes(b"d/\x1b]0;pwned\x07.txt\nother.py\n")
    pane = start(command=f"{FFIND} --stdin -i pwn < {shlex.quote(str(listing))} > /dev/tty")
    lines = pane.wait_for(lambda s: len(s) > 2 and s[0] == "> pwn" and s[1].strip() == "1/2")
    assert lines[2] == "> d/\\x1b]0;pwned\\x07.txt"  # the row: escaped, not '?'
    pane.send("Enter")
    assert pane.exit_code() == 0
    shown = pane.wait_for(lambda s: any("pwned" in line for line in s))
    assert any(line.startswith("d/\\x1b]0;pwned\\x07.txt") for line in shown), shown
    title = subprocess.run([*pane.tmux, "display-message", "-p", "-t", "picker",
                            "#{pane_title}"], capture_output=True, text=True, check=True)
    assert "pwned" not in title.stdout
# --- fzf's keys, inline --height, the mouse, the preview


def test_the_query_is_edited_at_its_cursor(start: Callable[..., Pane]) -> None:
    pane = start(command=f"{FFIND} -i")
    pane.wait_for(_ready)
    pane.type("utl")
    pane.send("Left")
    pane.type("i")  # "ut|l" -> "uti|l"
    pane.wait_for(settled("util"))
    pane.send("C-a")
    pane.type("lib/")
    pane.wait_for(settled("lib/util"))
    pane.send("C-e", "BSpace", "M-b")  # "lib/uti|" -> "lib/|uti"
    pane.wait_for(settled("lib/uti"))
    pane.send("C-d", "Delete", "C-d")  # deleted after the cursor
    pane.wait_for(settled("lib/"))
    pane.send("C-b", "C-b")  # "li|b/"
    pane.type("x")
    pane.wait_for(settled("lixb/"))
    pane.send("M-f", "BSpace")  # to the end of the word "lixb", delete "b"
    pane.wait_for(settled("lix/"))
    pane.send("C-u")  # what is before the cursor
    pane.wait_for(settled("/"))
    pane.send("Escape")
    assert pane.exit_code() == 130


def test_ctrl_j_moves_down_and_only_enter_accepts(start: Callable[..., Pane]) -> None:
    pane = start("util")
    lines = pane.wait_for(settled("util"))
    second = lines[3][2:]
    pane.send("C-j")
    pane.wait_for(lambda s: s[3].startswith(">"))
    pane.send("C-k", "C-j")
    pane.wait_for(lambda s: s[3].startswith(">"))
    assert not pane.rc.exists() or not pane.rc.read_text().strip(), "Ctrl-J must not accept"
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == second + "\n"


def test_height_draws_inline_below_the_cursor_and_restores(start: Callable[..., Pane]) -> None:
    pane = start(command=f"echo above > /dev/tty; {FFIND} -i --height 6 util")
    lines = pane.wait_for(lambda s: len(s) > 3 and s[2] == "> util" and "/9" in s[3])
    assert lines[0] == "above"
    assert all(not x.strip() for x in lines[8:]), "six rows, no more"
    pane.send("Escape")
    assert pane.exit_code() == 130
    lines = pane.wait_for(lambda s: not any("util" in x for x in s))
    assert lines[0] == "above"


def test_height_at_the_bottom_scrolls_the_terminal(start: Callable[..., Pane]) -> None:
    pane = start(command=f"seq 1 30 > /dev/tty; {FFIND} -i --height 40% util")
    lines = pane.wait_for(lambda s: any(x == "> util" for x in s) and "30" in s)
    at = lines.index("> util")
    assert lines[at - 2] == "30", "the last line printed stays visible above the picker"
    assert at + 9 <= 24 and len(lines) <= 24  # 40% of 24 rows: 10 rows below "30"'s line
    pane.send("Enter")
    assert pane.exit_code() == 0
    lines = pane.wait_for(lambda s: not any(x.startswith("> ") for x in s))
    assert "30" in lines


def test_default_opts_reach_the_picker_without_the_ones_it_does_not_take(
        start: Callable[..., Pane]) -> None:
    # -e applies; -l and --json (not the picker's) are left out instead of refused
    opts = shlex.quote("-l 1 --json --height 6 -e docs")
    pane = start(command=f"echo above > /dev/tty; FFIND_DEFAULT_OPTS={opts} {FFIND} -i util")
    lines = pane.wait_for(lambda s: len(s) > 3 and s[2] == "> util" and "/8" in s[3])
    assert lines[0] == "above", "drawn inline: --height 6 came from the variable"
    pane.send("Escape")
    assert pane.exit_code() == 130


def test_mouse_wheel_moves_and_click_selects(start: Callable[..., Pane]) -> None:
    pane = start("util")
    pane.wait_for(settled("util"))

    def mouse(button: int, col: int, row: int) -> None:
        seq = f"\x1b[<{button};{col};{row}M"
        pane.send("-H", *(f"{ord(c):02x}" for c in seq))

    mouse(65, 5, 5)  # wheel down
    pane.wait_for(lambda s: s[3].startswith(">"))
    mouse(0, 5, 5)  # a click on the third match (screen row 5)
    lines = pane.wait_for(lambda s: s[4].startswith(">"))
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == lines[4][2:] + "\n"


def test_preview_beside_the_list_and_toggled(start: Callable[..., Pane], tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "docs/guide.md").write_text("# Guide\n\nhello preview\n")
    (tree / "README.md").write_bytes(b"\x00\x01" * 50)
    pane = start(command=f"{FFIND} -i guide --preview")
    subprocess.run([*pane.tmux, "resize-window", "-t", "picker", "-x", "120", "-y", "24"],
                   check=True)
    lines = pane.wait_for(lambda s: any("hello preview" in x for x in s))
    row = next(x for x in lines if "hello preview" in x)
    assert "│" in row and row.index("hello preview") > 60
    pane.send("M-p")
    pane.wait_for(lambda s: not any("hello preview" in x or "│" in x for x in s))
    pane.type("?")
    pane.wait_for(lambda s: any("hello preview" in x for x in s))
    pane.send("C-u")
    pane.type("readme")
    pane.wait_for(lambda s: any("binary, 100 bytes" in x for x in s))
    pane.send("Escape")
    assert pane.exit_code() == 130


def test_a_word_after_a_bare_preview_is_the_pattern(start: Callable[..., Pane],
                                                    tmp_path: Path) -> None:
    """``--preview restart`` is the built-in preview and the pattern ``restart`` (a command
    is only ever ``--preview=CMD``), inline as the shell bindings draw it."""
    (tmp_path / "tree" / "docs/guide.md").write_text("# Guide\n\nhello preview\n")
    pane = start(command=f"{FFIND} -i --height 40% --preview guide")
    subprocess.run([*pane.tmux, "resize-window", "-t", "picker", "-x", "120", "-y", "24"],
                   check=True)
    lines = pane.wait_for(lambda s: any("hello preview" in x for x in s))
    assert any(x.startswith("> guide") for x in lines), lines
    assert not any("not found" in x for x in lines)
    pane.send("Escape")
    assert pane.exit_code() == 130


def test_preview_command_below_a_narrow_list(start: Callable[..., Pane]) -> None:
    pane = start(command=f"{FFIND} -i guide --preview='echo PV:{{}}:'")
    lines = pane.wait_for(lambda s: any("PV:docs/guide.md:" in x for x in s))
    at = next(i for i, x in enumerate(lines) if "PV:" in x)
    assert lines[at - 1].startswith("─") and at > 3, "below the list, after a rule"
    pane.send("Escape")
    assert pane.exit_code() == 130


def test_parse_keys_reads_mouse_reports_and_cursor_keys() -> None:
    assert list(parse_keys("\x1b[<65;3;7M\x1b[<0;3;7m\x1b[12;40R")) == [
        "mouse:65:3:7", "ignore", "cpr:12:40"]
    assert list(parse_keys("\x1b[D\x1b[C\x01\x05\x02\x06\x1bb\x1bf\x0a\x0d\x1bp")) == [
        "left", "right", "ctrl-a", "ctrl-e", "ctrl-b", "ctrl-f", "alt-b", "alt-f", "down",
        "enter", "preview"]


def test_query_line_edits_at_the_cursor() -> None:
    line = QueryLine("src/ses", 7)
    for key in ("alt-b", "char:X", "ctrl-e", "bs", "ctrl-a", "del", "alt-f", "ctrl-f"):
        assert line.handle(key)
    assert (line.text, line.pos) == ("rc/Xse", 3)
    assert not line.handle("up")
    line.handle("alt-bs")
    assert (line.text, line.pos) == ("Xse", 0)


def test_the_pickers_start_imports_no_dataclasses_nor_typing() -> None:
    """What runs before the picker asks the resident server for its first frame (the
    command's parse, the picker's modules) imports neither."""
    import subprocess
    import sys

    code = ("import sys\nimport ffind.frontends.cli, ffind.frontends.picker\n"
            "print(' '.join(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert not set(proc.stdout.split()) & {"typing", "dataclasses", "inspect", "rich"}


def test_height_parse() -> None:
    from ffind.errors import FfindError
    from ffind.frontends.picker import Height

    assert Height.parse("10").rows(24) == 10
    assert Height.parse("40%").rows(24) == 10
    assert Height.parse("100%").rows(24) == 23  # the prompt's line stays
    assert Height.parse("1").rows(24) == 3
    for bad in ("", "x", "0", "-3", "101%", "4.5"):
        with pytest.raises(FfindError):
            Height.parse(bad)


def test_empty_query_lists_files_in_path_order(start: Callable[..., Pane]) -> None:
    pane = start()
    lines = pane.wait_for(_ready)
    assert [x[2:] for x in lines[2:2 + len(FILES)]] == sorted(FILES)
    pane.send("Escape")
    assert pane.exit_code() == 130


def test_a_pick_is_remembered_and_listed_first_next_time(start: Callable[..., Pane],
                                                          tmp_path: Path) -> None:
    """The memory: each printed pick is a visit; before typing, the next listing
    puts it first.  conftest.py points XDG_STATE_HOME at a test folder."""
    import sqlite3

    pane = start(command=f"{FFIND} -i prompt")
    lines = pane.wait_for(settled("prompt"))
    assert lines[2] == "> src/session/prompt.ts"
    pane.send("Down")
    pane.wait_for(lambda s: s[3].startswith(">"))
    second = lines[3][2:]
    pane.send("Enter")
    assert pane.exit_code() == 0
    assert pane.out.read_text() == second + "\n"
    db = Path(os.environ["XDG_STATE_HOME"]) / "ffind" / "memory.sqlite3"
    con = sqlite3.connect(db)
    rows = [r[0] for r in con.execute("SELECT path FROM visits")]
    con.close()
    assert rows == [str(tmp_path / "tree" / second)]
    again = subprocess.run([_ffind()], cwd=tmp_path / "tree", capture_output=True,
                           text=True, timeout=60)
    assert again.stdout.splitlines()[0] == second
    subprocess.run([*pane.tmux, "kill-session", "-t", "picker"], check=True)
    pane2 = start(command=f"{FFIND} -i")
    pane2.wait_for(lambda s: len(s) > 2 and s[2] == f"> {second}")


@pytest.mark.parametrize("flag", ["", "--no-cache"])
def test_ffind_i_keeps_a_warm_snapshot_unless_no_cache(start: Callable[..., Pane],
                                                       flag: str) -> None:
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "ffind"
    for _ in range(2):  # the second run starts from the snapshot the first one wrote
        pane = start(command=f"{FFIND} -i {flag} prom")
        lines = pane.wait_for(settled("prom"))
        assert lines[1].strip().startswith("2/")
        pane.send("Enter")
        assert pane.exit_code() == 0
        assert pane.out.read_text() == "src/session/prompt.ts\n"
        subprocess.run([*pane.tmux, "kill-server"], capture_output=True)
        pane.rc.unlink()
        time.sleep(0.3)  # (the server's socket goes away)
        written = sorted(p.name for p in cache.glob("*.snapshot")) if cache.exists() else []
        assert len(written) == (0 if flag else 1)
