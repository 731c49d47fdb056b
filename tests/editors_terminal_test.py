"""The Neovim and Vim plugins (editors/nvim, editors/vim), run in the real editors inside tmux.

Each test starts the editor with no user configuration in a temporary tree, a temporary HOME
and XDG folders, and an ``ffind`` on PATH that runs this checkout's code.  The editor writes
the name of every buffer it enters to a file, which the test reads.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import need
from tmux_pane import TmuxPane

CHECKOUT = Path(__file__).resolve().parent.parent
FILES = ["docs/guide.md", "src/base_code.py", "src/other_code.py", "odd 'name' here.txt",
         ".hidden/secret_notes.txt", "build/ignored_output.txt"]
WRAPPER = """#!/bin/sh
printf '%s\\n' "$*" >> {calls}
if [ -n "$FAKE_REMEMBER" ]; then
  case "$1" in
    --remember) exit 0 ;;
    --help) {python} -m ffind --help; echo '  --remember PATH  Record a visit.'; exit 0 ;;
  esac
fi
if [ -z "$FAKE_REMEMBER" ] && [ "$1" = --help ]; then  # an ffind from before --remember
  PYTHONPATH={checkout} {python} -m ffind --help | grep -v -e --remember; exit 0
fi
PYTHONPATH={checkout} exec {python} -m ffind "$@"
"""


class Editor(TmuxPane):
    def __init__(self, tmux: list[str], tmp: Path, bufname: Path) -> None:
        super().__init__(tmux, "ed", trim=False)
        self.tmp = tmp
        self.bufname = bufname

    def wait(self, what: Callable[[], bool], why: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not what():
            if time.monotonic() > deadline:
                raise AssertionError(f"never {why}:\n" + "\n".join(self.screen()))
            time.sleep(0.05)

    def wait_screen(self, text: str) -> None:
        self.wait(lambda: any(text in line for line in self.screen()), f"showed {text!r}")

    def last_entered(self) -> str:
        return self.bufname.read_text().strip() if self.bufname.exists() else ""

    def entered(self, *names: str) -> str:
        """Wait until the last buffer the editor entered is one of ``names``; return it."""
        self.wait(lambda: self.last_entered() in names, f"entered {names}")
        return self.last_entered()

    def ex(self, command: str) -> None:
        """Run an Ex command from Normal mode."""
        self.send("Escape")
        self.type(":" + command)
        self.send("Enter")

    def evaluate(self, expr: str) -> list[str]:
        """Have the editor write the list ``expr`` to a file; return its lines."""
        out = self.tmp / f"eval-{uuid.uuid4().hex[:8]}"
        # written aside, then renamed: the file appears complete
        self.ex(f"call writefile({expr}, '{out}.part') | call rename('{out}.part', '{out}')")
        self.wait(out.exists, f"evaluated {expr}")
        return out.read_text().splitlines()

    def calls(self) -> list[str]:
        path = self.tmp / "calls"
        return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"{rel}\n")
    (root / ".gitignore").write_text("build/\n")
    subprocess.run([need("git"), "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def start(tmp_path: Path, tree: Path) -> Iterator[Callable[..., Editor]]:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    wrapper = bindir / "ffind"
    wrapper.write_text(WRAPPER.format(calls=shlex.quote(str(tmp_path / "calls")),
                                      python=shlex.quote(sys.executable),
                                      checkout=shlex.quote(str(CHECKOUT))))
    wrapper.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    tmux = [need("tmux"), "-L", f"ffind-ed-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]

    def launch(argv: list[str], *, env: dict[str, str] | None = None) -> Editor:
        bufname = tmp_path / "bufname"
        variables = {"HOME": str(home), "PATH": f"{bindir}:{os.environ['PATH']}",
                     "XDG_CONFIG_HOME": str(home / ".config"),
                     "XDG_DATA_HOME": str(home / ".local/share"),
                     "XDG_STATE_HOME": str(home / ".local/state"),
                     "XDG_CACHE_HOME": str(home / ".cache"), **(env or {})}
        record = f"autocmd BufEnter * call writefile([expand('%')], '{bufname}')"
        cmd = (f"cd {shlex.quote(str(tree))} && env "
               + " ".join(shlex.quote(f"{k}={v}") for k, v in variables.items()) + " "
               + " ".join(shlex.quote(a) for a in [*argv, "-c", record]) + "; sleep 60")
        subprocess.run([*tmux, "new-session", "-d", "-s", "ed", "-x", "100", "-y", "30", cmd],
                       check=True)
        editor = Editor(tmux, tmp_path, bufname)
        editor.wait_screen("~")  # the editor is up
        return editor

    yield launch
    socket = subprocess.run([*tmux, "display-message", "-p", "#{socket_path}"],
                            capture_output=True, text=True).stdout.strip()
    subprocess.run([*tmux, "kill-server"], capture_output=True)
    if socket:
        Path(socket).unlink(missing_ok=True)


def nvim_argv() -> list[str]:
    return [need("nvim"), "--clean", "-u", "NONE", "-n", "--cmd",
            f"set rtp+={CHECKOUT / 'editors/nvim'}", "-c", "runtime plugin/ffind.lua"]


def vim_argv() -> list[str]:
    return [need("vim"), "-Nu", "NONE", "-i", "NONE", "-n", "--cmd",
            f"set rtp+={CHECKOUT / 'editors/vim'}", "-c", "runtime plugin/ffind.vim"]


EDITORS = {"nvim": nvim_argv, "vim": vim_argv}


@pytest.mark.parametrize("editor", EDITORS)
def test_ffind_type_a_query_and_enter_edits_the_file(
    editor: str, start: Callable[..., Editor],
) -> None:
    ed = start(EDITORS[editor]())
    ed.ex("Ffind")
    ed.wait_screen("/4")  # the picker's counter: the four searched files (not hidden/ignored)
    ed.type("guide")
    ed.wait_screen("> docs/guide.md")
    ed.send("Enter")
    ed.entered("docs/guide.md")
    assert ed.evaluate("[&buftype, winnr('$')]") == ["", "1"], "the picker's window is gone"


@pytest.mark.parametrize("editor", EDITORS)
def test_ffind_with_a_query_starts_with_it_and_edits_odd_names(
    editor: str, start: Callable[..., Editor],
) -> None:
    ed = start(EDITORS[editor]())
    ed.ex("Ffind name here")
    ed.wait_screen("> odd 'name' here.txt")
    ed.send("Enter")
    ed.entered("odd 'name' here.txt")
    assert ed.evaluate("getline(1, '$')") == ["odd 'name' here.txt"]


@pytest.mark.parametrize("editor", EDITORS)
def test_ffind_bang_finds_hidden_and_ignored_files(
    editor: str, start: Callable[..., Editor],
) -> None:
    ed = start(EDITORS[editor]())
    ed.ex("Ffind secret_notes")
    ed.wait_screen("0/4")  # without the bang the hidden file is not searched
    ed.send("Escape")
    ed.wait(lambda: not any("0/4" in line for line in ed.screen()), "closed the picker")
    ed.ex("Ffind! secret_notes")
    ed.wait_screen("> .hidden/secret_notes.txt")
    ed.send("Enter")
    ed.entered(".hidden/secret_notes.txt")
    ed.ex("Ffind! ignored_output")
    ed.wait_screen("> build/ignored_output.txt")
    ed.send("Enter")
    ed.entered("build/ignored_output.txt")


@pytest.mark.parametrize("editor", EDITORS)
def test_escape_leaves_the_editor_as_it_was(editor: str, start: Callable[..., Editor]) -> None:
    ed = start(EDITORS[editor]())
    ed.ex("Ffind guide")
    ed.wait_screen("> docs/guide.md")
    ed.send("Escape")
    ed.wait(lambda: not any("docs/guide.md" in line for line in ed.screen()), "closed")
    assert ed.evaluate("[bufname('%'), &buftype, winnr('$')]") == ["", "", "1"]


@pytest.mark.parametrize("editor", EDITORS)
def test_several_picks_go_to_the_quickfix_list(
    editor: str, start: Callable[..., Editor],
) -> None:
    ed = start(EDITORS[editor]())
    ed.ex("Ffind _code.py")
    ed.wait_screen("2/4")
    ed.wait_screen("src/other_code.py")
    ed.send("Tab")
    ed.wait_screen("(1)")
    ed.send("Tab")
    ed.wait_screen("(2)")
    ed.send("Enter")
    first = ed.entered("src/base_code.py", "src/other_code.py")
    listed = ed.evaluate("map(getqflist(), 'bufname(v:val.bufnr)')")
    assert sorted(listed) == ["src/base_code.py", "src/other_code.py"]
    assert first == listed[0], "the first pick is edited"
    ed.wait(lambda: ed.evaluate("[&buftype]") == [""], "went back to the file window")


@pytest.mark.parametrize("editor", EDITORS)
def test_entered_buffers_are_remembered_when_ffind_supports_it(
    editor: str, start: Callable[..., Editor], tree: Path,
) -> None:
    ed = start(EDITORS[editor](), env={"FAKE_REMEMBER": "1"})
    ed.ex("edit docs/guide.md")
    want = f"--remember {tree / 'docs/guide.md'}"
    ed.wait(lambda: want in ed.calls(), "recorded the buffer")
    ed.ex("edit src/other_code.py")
    ed.wait(lambda: f"--remember {tree / 'src/other_code.py'}" in ed.calls(), "recorded it")
    assert ed.calls().count("--help") == 1, "support is detected once"


@pytest.mark.parametrize("editor", EDITORS)
def test_nothing_is_recorded_when_ffind_has_no_remember(
    editor: str, start: Callable[..., Editor],
) -> None:
    ed = start(EDITORS[editor]())
    ed.ex("edit docs/guide.md")
    ed.wait(lambda: "--help" in ed.calls(), "asked ffind for its flags")
    ed.ex("edit src/other_code.py")
    ed.ex("edit docs/guide.md")
    ed.entered("docs/guide.md")
    ed.ex("Ffind guide")  # the editor is still responsive, and ffind ran once more
    ed.wait_screen("> docs/guide.md")
    ed.send("Escape")
    assert not [c for c in ed.calls() if c.startswith("--remember")]


def test_nvim_setup_defines_the_command_and_takes_options(start: Callable[..., Editor]) -> None:
    """The lazy.nvim way: the folder added to 'runtimepath' late, then setup({...})."""
    ed = start([need("nvim"), "--clean", "-u", "NONE", "-n", "-c",
                f"set rtp+={CHECKOUT / 'editors/nvim'}", "-c",
                "lua require('ffind').setup({ args = { '-e', 'docs' }, border = 'none' })"])
    ed.ex("Ffind guide")
    ed.wait_screen("0/3")  # docs/ excluded by the extra arguments
    ed.send("Escape")
    ed.wait(lambda: not any("0/3" in line for line in ed.screen()), "closed the picker")
    ed.ex("Ffind code")
    ed.wait_screen("> src/")
    ed.send("Enter")
    ed.entered("src/base_code.py", "src/other_code.py")


def test_vim_options(start: Callable[..., Editor]) -> None:
    ed = start([*vim_argv(), "--cmd", "let g:ffind_args = ['-e', 'docs'] | let g:ffind_popup = 0"])
    ed.ex("Ffind guide")
    ed.wait_screen("0/3")  # docs/ excluded by the extra arguments
    screen = ed.screen()
    assert not any("╔" in line for line in screen), "drawn in a split, not in a popup"
    assert any("ffind [running]" in line for line in screen), screen
    ed.send("Escape")
    ed.wait(lambda: not any("0/3" in line for line in ed.screen()), "closed the picker")
    assert ed.evaluate("[winnr('$'), &buftype]") == ["1", ""]


@pytest.mark.parametrize("editor", EDITORS)
def test_an_error_of_ffind_is_shown(editor: str, start: Callable[..., Editor]) -> None:
    setup = {"nvim": ["-c", "lua require('ffind').setup({ args = { '--no-such-flag' } })"],
             "vim": ["--cmd", "let g:ffind_args = ['--no-such-flag']"]}[editor]
    ed = start([*EDITORS[editor](), *setup])
    ed.ex("Ffind guide")
    ed.wait_screen("--no-such-flag")  # click's message, from the picker's stderr
    assert ed.evaluate("[&buftype, winnr('$')]") == ["", "1"]


def test_the_picker_command_line(tmp_path: Path) -> None:
    """What :Ffind / :Ffind! run, from each plugin's own function, with the editor headless."""
    out = tmp_path / "out"
    lua = ("vim.fn.writefile({ vim.fn.json_encode({ require('ffind').command('-a b', true),"
           " require('ffind').command('', false) }) }, '" + str(out) + "')")
    subprocess.run([need("nvim"), "--headless", "--clean", "-u", "NONE", "-n", "--cmd",
                    f"set rtp+={CHECKOUT / 'editors/nvim'}", "-c", f"lua {lua}", "-c", "qa!"],
                   check=True, timeout=60, capture_output=True, stdin=subprocess.DEVNULL)
    nvim = json.loads(out.read_text())
    out.unlink()
    subprocess.run([need("vim"), "-Nu", "NONE", "-i", "NONE", "-n", "-es", "--cmd",
                    f"set rtp+={CHECKOUT / 'editors/vim'}", "-c", "runtime plugin/ffind.vim",
                    "-c", "let g:ffind_args = ['-e', 'x']",
                    "-c", f"call writefile([json_encode([FfindCommand('-a b', 1), "
                          f"FfindCommand('', 0)])], '{out}')", "-c", "qa!"],
                   check=True, timeout=60, capture_output=True, stdin=subprocess.DEVNULL)
    vim = json.loads(out.read_text())
    assert nvim == [["ffind", "-i", "-0", "-H", "-I", "--", "-a b"], ["ffind", "-i", "-0"]]
    assert vim == [["ffind", "-i", "-0", "-H", "-I", "-e", "x", "--", "-a b"],
                   ["ffind", "-i", "-0", "-e", "x"]]
