"""The shell integration (``ffind --bash/--zsh/--fish``) driven in real shells in tmux.

Each test starts a shell with a clean rc file that only loads ffind's script, a temporary HOME
and XDG folders, and ``ffind`` on PATH running this checkout; it types a command, presses a
binding, types in the picker, and reads the command line back from the screen.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import missing, need
from tmux_pane import TmuxPane

from ffind.frontends.shell import script

ROOT = Path(__file__).resolve().parent.parent
SHELLS = ["bash", "zsh", "fish"]
FILES = ["src/session/prompt.ts", "lib/util.py", "docs/guide.md", "it's a file.txt",
         "deep/inner/keep.txt"]
PROMPT = "$ "


class Shell(TmuxPane):
    def __init__(self, name: str, tmux: list[str], tree: Path) -> None:
        super().__init__(tmux, "sh")
        self.name = name
        self.tree = tree

    def command_line(self) -> str:
        """The last prompt line's text (the command being typed)."""
        lines = [x for x in self.screen() if _is_prompt(x)]
        return lines[-1][len(PROMPT):].rstrip() if lines else ""

    def wait_line(self, text: str) -> None:
        self.wait_for(lambda s: self.command_line() == text)

    def wait_picker(self, query: str) -> list[str]:
        """The picker is open with ``query`` and its walk is over (no spinner)."""
        return self.wait_for(lambda s: any(
            x.rstrip() == ("> " + query).rstrip() and i + 1 < len(s) and "/" in s[i + 1]
            and not any(c in s[i + 1] for c in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
            for i, x in enumerate(s)))

    def kill_server(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)

    def wait_closed(self) -> None:
        self.wait_for(lambda s: not any(x.startswith("> ") for x in s))


def _is_prompt(line: str) -> bool:
    return line.rstrip() == PROMPT.rstrip() or line.startswith(PROMPT)


def _rc(name: str, tmp: Path, before: str) -> tuple[str, dict[str, str]]:
    """The shell's command line and extra environment, with an rc file loading ffind (after
    the lines ``before``)."""
    rc = tmp / f"rc.{name}"
    if name == "bash":
        rc.write_text(f"PS1='$ '\nHISTFILE=/dev/null\n{before}\neval \"$(ffind --bash)\"\n")
        return f"bash --noprofile --rcfile {shlex.quote(str(rc))} -i", {}
    if name == "zsh":
        zdot = tmp / "zdot"
        zdot.mkdir()
        (zdot / ".zshrc").write_text(f"PS1='$ '\nunset RPS1\n{before}\nsource <(ffind --zsh)\n")
        return "zsh -d -i", {"ZDOTDIR": str(zdot)}
    rc.write_text("function fish_prompt; echo -n '$ '; end\nset -g fish_greeting\n"
                  f"set -g fish_autosuggestion_enabled 0\n{before}\nffind --fish | source\n")
    return f"fish --no-config --init-command {shlex.quote('source ' + str(rc))}", {}


def start_shell(name: str, tmp_path: Path, before: str = "",
                env: dict[str, str] | None = None) -> Shell:
    """A shell in a new tmux server (killed with ``kill_server``) in a tree of ``FILES``."""
    need(name)
    tree = tmp_path / "tree"
    for rel in FILES:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text("x\n")
    home, bindir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    bindir.mkdir()
    (bindir / "ffind").write_text(
        f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(ROOT))} exec {shlex.quote(sys.executable)}"
        ' -m ffind "$@"\n')
    (bindir / "ffind").chmod(0o755)
    command, extra = _rc(name, tmp_path, before)
    full = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local/state"), "PATH": f"{bindir}:/usr/bin:/bin",
            "TERM": "xterm-256color", "LANG": "C.UTF-8", **extra, **(env or {})}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in full.items())
    tmux = [need("tmux"), "-L", f"ffind-sh-{uuid.uuid4().hex[:12]}", "-f", "/dev/null"]
    subprocess.run([*tmux, "new-session", "-d", "-s", "sh", "-x", "100", "-y", "30",
                    f"cd {shlex.quote(str(tree))} && exec env -i {exports} {command}"],
                   check=True)
    sh = Shell(name, tmux, tree)
    try:
        sh.wait_for(lambda s: bool(s) and _is_prompt(s[-1]))
    except BaseException:
        sh.kill_server()
        raise
    return sh


@pytest.fixture(params=SHELLS)
def shell(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Shell]:
    sh = start_shell(request.param, tmp_path)
    try:
        yield sh
    finally:
        sh.kill_server()


def test_ctrl_t_uses_the_word_as_query_and_inserts_the_pick(shell: Shell) -> None:
    shell.type("vim pro")
    shell.wait_line("vim pro")
    shell.send("C-t")
    shell.wait_picker("pro")
    shell.type("mpt")
    shell.wait_picker("prompt")
    shell.send("Enter")
    shell.wait_closed()
    shell.wait_line("vim src/session/prompt.ts")
    # the pick is a visit in the memory (the picker records it; HOME is the test's)
    import sqlite3

    db = shell.tree.parent / "home/.local/state/ffind/memory.sqlite3"
    con = sqlite3.connect(db)
    rows = [r[0] for r in con.execute("SELECT path FROM visits")]
    con.close()
    assert rows == [str(shell.tree / "src/session/prompt.ts")]


def test_escape_leaves_the_line_as_it_was(shell: Shell) -> None:
    shell.type("echo one two")
    shell.send("Left", "Left", "Left")  # the cursor inside the line: "one |two"
    shell.send("C-t")
    shell.wait_picker("two")
    shell.send("Escape")
    shell.wait_closed()
    shell.type("X")  # the cursor is where it was
    shell.wait_line("echo one Xtwo")


def test_a_name_with_spaces_and_quotes_is_quoted(shell: Shell) -> None:
    shell.type("printf '<%s>\\n' ")
    shell.send("C-t")
    shell.wait_picker("")
    shell.type("a file")
    shell.wait_picker("a file")
    shell.send("Enter")
    shell.wait_closed()
    shell.wait_for(lambda s: "file.txt" in shell.command_line())
    shell.send("Enter")
    shell.wait_for(lambda s: "<it's a file.txt>" in s)


@pytest.mark.parametrize(("typed", "query", "expected"), [
    ("guide", "guide", "docs/guide.md"),
    ("src/", "", "src/session/prompt.ts"),
    ("src/sess", "sess", "src/session/prompt.ts"),
])
def test_star_star_tab_completes_any_command(shell: Shell, typed: str, query: str,
                                             expected: str) -> None:
    shell.type(f"cat {typed}**")
    shell.send("Tab")
    shell.wait_picker(query)
    if not query:
        shell.type("prompt")
        shell.wait_picker("prompt")
    shell.send("Enter")
    shell.wait_closed()
    shell.wait_line(f"cat {expected}")


def test_cd_star_star_tab_picks_folders(shell: Shell) -> None:
    shell.type("cd **")
    shell.send("Tab")
    shell.wait_picker("")
    shell.type("inner")
    shell.wait_picker("inner")
    shell.send("Enter")
    shell.wait_closed()
    shell.wait_line("cd deep/inner")


def test_alt_c_changes_the_working_directory(shell: Shell) -> None:
    shell.send("M-c")
    shell.wait_picker("")
    shell.type("inner")
    shell.wait_picker("inner")
    shell.send("Enter")
    shell.wait_closed()
    shell.type("pwd")
    shell.send("Enter")
    shell.wait_for(lambda s: any(x.rstrip().endswith("/tree/deep/inner") for x in s))


def test_scripts_have_one_memory_hook() -> None:
    for name in SHELLS:
        assert script(name).count("__ffind_remember") >= 3
        assert "@REMEMBER@" not in script(name)
        assert "--remember" not in script(name)
        assert "ffind --remember" in script(name, remember=True)


USER_BINDING = {
    "bash": "bind -x '\"\\C-t\": echo mine'",
    "zsh": "mine() { BUFFER=mine; }; zle -N mine; bindkey '^T' mine",
    "fish": "bind \\ct 'commandline -r mine'",
}
NEW_KEY = {"bash": "\\C-f", "zsh": "^F", "fish": "\\cf"}


@pytest.mark.parametrize("name", SHELLS)
def test_a_key_the_user_bound_is_left_alone_with_a_note(name: str, tmp_path: Path) -> None:
    sh = start_shell(name, tmp_path, before=USER_BINDING[name])
    try:
        lines = sh.screen()
        assert any("ffind:" in x and "already bound" in x and "FFIND_CTRL_T_KEY" in x
                   for x in lines), lines
        sh.send("C-t")
        sh.wait_for(lambda s: "mine" in sh.command_line() or any("mine" in x for x in s))
        assert not any(x.startswith("> ") for x in sh.screen())
    finally:
        sh.kill_server()


@pytest.mark.parametrize("name", SHELLS)
def test_bindings_move_and_turn_off(name: str, tmp_path: Path) -> None:
    env = {"FFIND_CTRL_T_KEY": NEW_KEY[name], "FFIND_ALT_C_KEY": ""}
    sh = start_shell(name, tmp_path, env=env)
    try:
        sh.type("cat guide")
        sh.wait_line("cat guide")
        sh.send("C-f")
        sh.wait_picker("guide")
        sh.send("Enter")
        sh.wait_closed()
        sh.wait_line("cat docs/guide.md")
        sh.send("C-u", "M-c")  # not bound any more: the picker does not open
        sh.type("echo done")
        sh.send("Enter")
        sh.wait_for(lambda s: any(x.rstrip() == "done" for x in s))
        assert not any(x.startswith("> ") for x in sh.screen())
    finally:
        sh.kill_server()


FZF = Path("/usr/share/doc/fzf/examples")
FZF_FIRST = {
    "bash": f"source {FZF}/key-bindings.bash\nsource /usr/share/bash-completion/completions/fzf",
    "zsh": f"source {FZF}/key-bindings.zsh\nsource {FZF}/completion.zsh",
    "fish": f"source {FZF}/key-bindings.fish\nfzf_key_bindings",
}


def need_fzf() -> None:
    """fzf and the shell scripts its Debian package installs (``FZF``)."""
    need("fzf")
    if not FZF.is_dir():
        missing(f"fzf's shell scripts ({FZF}: the fzf package)")


@pytest.mark.parametrize("name", SHELLS)
def test_fzf_loaded_first_keeps_its_keys_and_ffind_moves(name: str, tmp_path: Path) -> None:
    """The documented order: fzf's bindings, then ffind's with its keys moved; both work."""
    need_fzf()
    env = {"FFIND_CTRL_T_KEY": NEW_KEY[name], "FFIND_ALT_C_KEY": "",
           "FFIND_COMPLETION_TRIGGER": ",,", "FZF_DEFAULT_OPTS": "--prompt=FZF>"}
    sh = start_shell(name, tmp_path, before=FZF_FIRST[name], env=env)
    try:
        assert not any("ffind:" in x for x in sh.screen()), "nothing taken, nothing to say"
        sh.send("C-t")  # fzf's
        sh.wait_for(lambda s: any(x.startswith("FZF") for x in s))
        sh.send("Escape")
        sh.wait_for(lambda s: not any(x.startswith("FZF") for x in s))
        sh.type("cat guide")
        sh.send("C-f")  # ffind's
        sh.wait_picker("guide")
        sh.send("Enter")
        sh.wait_closed()
        sh.wait_line("cat docs/guide.md")
        sh.send("C-u")
        sh.type("cat guide,,")
        sh.send("Tab")  # ffind's trigger
        sh.wait_picker("guide")
        sh.send("Enter")
        sh.wait_closed()
        sh.wait_line("cat docs/guide.md")
        if name != "fish":  # fzf has no ** completion for fish
            sh.send("C-u")
            sh.type("cat **")
            sh.send("Tab")  # fzf's trigger
            sh.wait_for(lambda s: any(x.startswith("FZF") for x in s))
            sh.send("Escape")
    finally:
        sh.kill_server()


@pytest.mark.parametrize("name", ["bash", "zsh"])
def test_fzf_completion_keeps_its_trigger_with_a_note(name: str, tmp_path: Path) -> None:
    need_fzf()
    sh = start_shell(name, tmp_path, before=FZF_FIRST[name],
                     env={"FZF_DEFAULT_OPTS": "--prompt=FZF>"})
    try:
        lines = sh.screen()
        assert any("ffind:" in x and "FFIND_COMPLETION_TRIGGER" in x for x in lines), lines
        assert any("ffind:" in x and "FFIND_CTRL_T_KEY" in x for x in lines), lines
        sh.type("cat **")
        sh.send("Tab")
        sh.wait_for(lambda s: any(x.startswith("FZF") for x in s))
        sh.send("Escape")
    finally:
        sh.kill_server()


@pytest.mark.parametrize("name", SHELLS)
def test_opts_variables_reach_ffind(name: str, tmp_path: Path) -> None:
    sh = start_shell(name, tmp_path, env={"FFIND_CTRL_T_OPTS": "-t d -e 'lib'",
                                          "FFIND_HEIGHT": "8"})
    try:
        sh.type("ls inner")
        sh.send("C-t")
        lines = sh.wait_picker("inner")
        assert any(x.strip().endswith("deep/inner") for x in lines)  # folders only
        assert sum(1 for x in lines if x.strip()) <= 1 + 8  # the prompt and eight rows
        sh.send("C-u")
        sh.type("lib")
        sh.wait_for(lambda s: any(x.strip().startswith("0/") for x in s))  # lib/ excluded
        sh.send("Escape")
        sh.wait_closed()
        sh.wait_line("ls inner")
    finally:
        sh.kill_server()
