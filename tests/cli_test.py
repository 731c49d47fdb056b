"""The installed ``ffind`` command, run as a subprocess in an fd-style temporary tree."""

from __future__ import annotations

import json
import os
import pty
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from both_ways import FFIND, both, environment, ffind, ffind_both, plain, served_count

from ffind import __version__
from ffind.resident import client

VISIBLE = [
    "docs/readme.md",
    "one/two/three/deep.txt",
    "src/main.py",
    "src/prompt.ts",
    "src/session/prompt.ts",
    "top.txt",
]
HIDDEN = [".dotfile", ".gitignore", ".hidden/secret.py"]
IGNORED = ["build/out.o", "ignored.txt", "node_modules/pkg/index.js"]


def _make_tree(root: Path, files: list[str]) -> None:
    for rel in files:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x\n")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """fd's TestEnv: a git work tree with .gitignore, hidden files, a symlink to a folder."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    _make_tree(root, VISIBLE + HIDDEN + IGNORED)
    (root / ".gitignore").write_text("ignored.txt\nbuild/\n")
    (root / "link").symlink_to("src", target_is_directory=True)
    return root


def run(
    *args: str, cwd: Path | None = None, input: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``ffind args`` in the folder ``cwd``, run both ways (``both_ways.ffind_both``: the same
    result without and with the folder's server); once without ``cwd``."""
    if cwd is None:
        return ffind(*args, input=input, env=env)
    return ffind_both(*args, cwd=cwd, input=input, env=env)


def lines(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    return proc.stdout.decode().splitlines()


def json_lines(proc: subprocess.CompletedProcess[bytes]) -> list[dict[str, object]]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def assert_error(proc: subprocess.CompletedProcess[bytes], *fragments: str) -> None:
    """Exit 2, nothing on stdout, one line ``ffind: ...`` on stderr, no traceback."""
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert proc.stdout == b""
    assert err.startswith("ffind: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for f in fragments:
        assert f in err, err


# --- basics -----------------------------------------------------------------------------------

def test_version_fast_path_and_through_click() -> None:
    assert run("--version").stdout == f"ffind {__version__}\n".encode()
    assert run("-H", "--version").stdout == f"ffind {__version__}\n".encode()


def test_python_dash_m(tree: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "ffind", "--version"], capture_output=True)
    assert proc.stdout == f"ffind {__version__}\n".encode()


def test_help_lists_every_flag_with_description_and_defaults() -> None:
    proc = run("-h")
    assert proc.returncode == 0
    out = proc.stdout.decode()
    assert out == run("--help").stdout.decode()
    for flag in ["--json", "-l, --limit", "-C, --cwd", "--compute-indices", "-e, --exclude",
                 "--threads", "-H, --hidden", "-I, --no-ignore", "-L, --follow", "-t, --type",
                 "-d, --max-depth", "-0, --print0", "--color", "--no-require-git", "--stdin",
                 "-i, --interactive", "--version", "-h, --help"]:
        assert f"  {flag}" in out, flag
    for default in ["[default: 64", "[default: 2", "[default: auto]", "[default: f]"]:
        assert default in out
    assert "ffind mcp" in out


def test_no_pattern_lists_every_file_in_path_order(tree: Path) -> None:
    proc = run(cwd=tree)
    assert proc.returncode == 0
    assert lines(proc) == sorted(VISIBLE)


def test_pattern_finds_best_match_first(tree: Path) -> None:
    proc = run("deep", cwd=tree)
    assert proc.returncode == 0
    assert lines(proc)[0] == "one/two/three/deep.txt"
    prompt = lines(run("prompt", cwd=tree))
    assert set(prompt) >= {"src/prompt.ts", "src/session/prompt.ts"}
    assert set(prompt) <= set(VISIBLE)


def test_negation_only_lists_in_path_order(tree: Path) -> None:
    assert lines(run("!prompt", cwd=tree)) == sorted(p for p in VISIBLE if "prompt" not in p)
    assert lines(run("-l", "2", "!prompt", cwd=tree)) == sorted(
        p for p in VISIBLE if "prompt" not in p)[:2]


def test_nothing_found_exits_1(tree: Path) -> None:
    proc = run("qqqqzzzz", cwd=tree)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, b"", b"")


# --- flags ------------------------------------------------------------------------------------

def test_limit(tree: Path) -> None:
    assert lines(run("-l", "2", cwd=tree)) == sorted(VISIBLE)[:2]
    assert lines(run("--limit=1", "prompt", cwd=tree))[0] in {"src/prompt.ts",
                                                               "src/session/prompt.ts"}
    assert len(lines(run("-l", "1", "prompt", cwd=tree))) == 1
    assert lines(run("-l", "0", cwd=tree)) == sorted(VISIBLE)


def test_cwd(tree: Path, tmp_path: Path) -> None:
    proc = run("-C", str(tree / "src"), cwd=tmp_path)
    assert lines(proc) == ["main.py", "prompt.ts", "session/prompt.ts"]
    assert lines(run("--cwd", "src", cwd=tree)) == lines(proc)


def test_hidden(tree: Path) -> None:
    assert lines(run("-H", cwd=tree)) == sorted(VISIBLE + HIDDEN)
    assert lines(run("--hidden", "secret", cwd=tree)) == [".hidden/secret.py"]
    assert lines(run("secret", cwd=tree)) == []


def test_no_ignore(tree: Path) -> None:
    assert lines(run("-I", cwd=tree)) == sorted(VISIBLE + IGNORED)
    assert lines(run("--no-ignore", "-H", cwd=tree)) == sorted(VISIBLE + IGNORED + HIDDEN)


def test_exclude(tree: Path) -> None:
    assert lines(run("-e", "*.ts", cwd=tree)) == sorted(
        p for p in VISIBLE if not p.endswith(".ts"))
    assert lines(run("-e", "*.ts", "--exclude", "src", cwd=tree)) == sorted(
        p for p in VISIBLE if not p.startswith("src/"))


def test_follow(tree: Path) -> None:
    linked = ["link/main.py", "link/prompt.ts", "link/session/prompt.ts"]
    real = [p.replace("link/", "src/", 1) for p in linked]
    got = lines(run("-L", cwd=tree))
    # -L enters each real folder once: src/ is listed as src/ or as link/, whichever comes first
    assert got in (sorted(VISIBLE), sorted(set(VISIBLE) - set(real) | set(linked)))
    assert "link" in lines(run("--follow", "-t", "d", cwd=tree))
    assert "link" not in lines(run("-t", "d", cwd=tree))


def test_type(tree: Path) -> None:
    dirs = ["docs", "one", "one/two", "one/two/three", "src", "src/session"]
    assert [p.rstrip("/") for p in lines(run("-t", "d", cwd=tree))] == dirs
    assert lines(run("--type", "f", cwd=tree)) == sorted(VISIBLE)
    both = [p.rstrip("/") for p in lines(run("-t", "f", "-t", "d", cwd=tree))]
    assert both == sorted(VISIBLE + dirs)
    assert [p.rstrip("/") for p in lines(run("-t", "directory", cwd=tree))] == dirs


def test_max_depth(tree: Path) -> None:
    assert lines(run("-d", "1", cwd=tree)) == ["top.txt"]
    assert lines(run("--max-depth", "2", cwd=tree)) == sorted(
        p for p in VISIBLE if p.count("/") <= 1)


def test_threads(tree: Path) -> None:
    assert lines(run("--threads", "1", cwd=tree)) == sorted(VISIBLE)
    assert lines(run("--threads", "3", cwd=tree)) == sorted(VISIBLE)


def test_no_require_git(tmp_path: Path) -> None:
    root = tmp_path / "plain"  # no .git: .gitignore is not applied unless --no-require-git
    _make_tree(root, ["keep.txt", "skip.txt"])
    (root / ".gitignore").write_text("skip.txt\n")
    assert lines(run(cwd=root)) == ["keep.txt", "skip.txt"]
    assert lines(run("--no-require-git", cwd=root)) == ["keep.txt"]


def test_every_kind_of_ignore_rule_and_its_edits(tree: Path, git_home: Path) -> None:
    """Each edit to a rule is seen at once, by a warm server as without one."""
    excludes = git_home / ".config" / "git" / "ignore"  # (git's global rules)
    excludes.parent.mkdir(parents=True)
    excludes.write_text("*.md\n")
    shown = [p for p in VISIBLE if p != "docs/readme.md"]
    assert lines(run(cwd=tree)) == shown
    (tree / ".gitignore").write_text("ignored.txt\nbuild/\nsession/\n")
    shown.remove("src/session/prompt.ts")
    assert lines(run(cwd=tree)) == shown
    (tree / "src" / ".ignore").write_text("*.py\n")
    shown.remove("src/main.py")
    assert lines(run(cwd=tree)) == shown
    (tree / ".git" / "info").mkdir()
    (tree / ".git" / "info" / "exclude").write_text("top.txt\n")
    shown.remove("top.txt")
    assert lines(run(cwd=tree)) == shown
    excludes.write_text("")
    assert lines(run(cwd=tree)) == sorted([*shown, "docs/readme.md"])
    (tree / ".gitignore").write_text("!ignored.txt\n")
    assert lines(run("-H", cwd=tree)) == sorted(
        [*shown, "docs/readme.md", "src/session/prompt.ts", *HIDDEN, "src/.ignore",
         "build/out.o", "ignored.txt"])


def test_print0_with_newline_in_name(tree: Path) -> None:
    (tree / "two\nlines.txt").write_text("x")
    proc = run("-0", "lines", cwd=tree)
    assert proc.returncode == 0
    assert proc.stdout == b"two\nlines.txt\0"
    everything = run("--print0", cwd=tree).stdout
    assert everything.endswith(b"\0") and b"\n" not in everything.replace(b"two\nlines", b"")
    assert everything.split(b"\0")[:-1] == sorted(p.encode() for p in
                                                  [*VISIBLE, "two\nlines.txt"])


def test_non_utf8_name_round_trips_as_bytes(tree: Path) -> None:
    name = b"caf\xe9.txt"
    with open(os.path.join(os.fsencode(tree), name), "wb") as f:
        f.write(b"x")
    proc = run("caf", cwd=tree)
    assert proc.returncode == 0
    assert proc.stdout == name + b"\n"
    assert run("-0", "caf", cwd=tree).stdout == name + b"\0"
    # JSON: each undecodable byte becomes U+FFFD (documented).
    assert json_lines(run("--json", "caf", cwd=tree))[0]["path"] == "caf\ufffd.txt"


def test_stdin() -> None:
    data = b"a/prompt.ts\nb/other.py\nc/caf\xe9_prompt.md\n\n"
    proc = run("--stdin", "prompt", input=data)
    assert proc.returncode == 0
    out = proc.stdout.splitlines()
    assert set(out) == {b"a/prompt.ts", b"c/caf\xe9_prompt.md"}
    assert run("--stdin", input=data).stdout == b"a/prompt.ts\nb/other.py\nc/caf\xe9_prompt.md\n"
    assert run("--stdin", "zzzz", input=data).returncode == 1


def test_interactive_is_wired_to_the_picker(tree: Path) -> None:
    # In a new session there is no controlling terminal, so the picker cannot open /dev/tty
    # (and cannot take over the terminal running the tests): its one-line error proves the
    # command got there; its own behaviour is tested in picker_test.py.
    proc = subprocess.run([FFIND, "-i", "prompt"], cwd=tree, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60, start_new_session=True)
    assert_error(proc, "terminal")
    # --stdin -i: the candidates are read from the pipe, then the picker wants the terminal.
    proc = subprocess.run([FFIND, "--stdin", "-i"], cwd=tree, input=b"a/b.py\n",
                          capture_output=True, timeout=60, start_new_session=True)
    assert_error(proc, "terminal")


# --- JSON contract ----------------------------------------------------------------------------

def test_json_contract(tree: Path) -> None:
    rows = json_lines(run("--json", "prompt", cwd=tree))
    assert rows and all(set(r) == {"score", "path"} for r in rows)
    assert all(isinstance(r["score"], int) and isinstance(r["path"], str) for r in rows)
    assert {r["path"] for r in rows} >= {"src/prompt.ts", "src/session/prompt.ts"}
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)  # type: ignore[type-var]


def test_json_indices(tree: Path) -> None:
    rows = json_lines(run("--json", "--compute-indices", "-l", "1", "deep", cwd=tree))
    assert len(rows) == 1
    row = rows[0]
    assert set(row) == {"score", "path", "indices"}
    assert row["path"] == "one/two/three/deep.txt"
    indices = row["indices"]
    assert isinstance(indices, list) and all(isinstance(i, int) for i in indices)
    assert "".join(str(row["path"])[i] for i in indices) == "deep"


def test_json_typo_key(tree: Path) -> None:
    rows = json_lines(run("--json", "--compute-indices", "deeq", cwd=tree))  # one letter off
    assert rows and rows[0]["path"] == "one/two/three/deep.txt"
    assert rows[0]["typo"] is True
    assert list(rows[0]) == ["score", "path", "indices", "typo"]
    assert all(r.get("typo", True) is True for r in rows)  # never "typo": false


def test_json_truncation_record(tree: Path) -> None:
    rows = json_lines(run("--json", "-l", "2", cwd=tree))
    assert rows[:2] == [{"score": 0, "path": p} for p in sorted(VISIBLE)[:2]]
    assert rows[2] == {"matches_truncated": True, "total_match_count": len(VISIBLE)}
    assert len(rows) == 3
    full = json_lines(run("--json", "-l", "0", cwd=tree))
    assert all("matches_truncated" not in r for r in full) and len(full) == len(VISIBLE)


# --- errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "fragment"), [
    (["-l", "-1"], "--limit"),
    (["--limit", "many"], "--limit"),
    (["--threads", "0"], "--threads"),
    (["--threads", "-2"], "--threads"),
    (["-t", "x"], "--type"),
    (["-d", "-1"], "--max-depth"),
    (["--color", "sometimes"], "--color"),
    (["--bogus"], "--bogus"),
    (["a", "b"], "b"),
    (["--json", "-0"], "--print0"),
])
def test_usage_errors(tree: Path, args: list[str], fragment: str) -> None:
    assert_error(run(*args, cwd=tree), fragment)


def test_missing_or_bad_cwd(tree: Path) -> None:
    assert_error(run("-C", str(tree / "nope"), "x"), "nope")
    assert_error(run("-C", str(tree / "top.txt"), "x"), "top.txt")


def test_invalid_glob(tree: Path) -> None:
    assert_error(run("-e", "[z-a]", cwd=tree), "[z-a]")


def test_mcp_dispatch() -> None:
    proc = run("mcp", "--help")
    assert proc.returncode == 0, proc.stderr
    assert b"ffind mcp" in proc.stdout
    assert b"--limit" not in proc.stdout  # the MCP server's own help, not the search's


_IMPORTS = """
import sys
from ffind.frontends.cli import main
rc = main(sys.argv[1:])
heavy = {"rich", "numpy", "rapidfuzz", "click", "prompt_toolkit", "mcp", "ffind.frontends.picker",
         "multiprocessing"}
print(" ".join(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
"""


def _imported(*args: str, cwd: Path) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", _IMPORTS, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60)
    return set(proc.stderr.split())


def test_version_imports_nothing_heavy(tree: Path) -> None:
    assert _imported("--version", cwd=tree) == set()


def test_the_console_script_answers_version_with_the_output_module_alone(tree: Path) -> None:
    code = ("import sys\nfrom ffind.frontends.entry import main\nrc = main(['--version'])\n"
            "print(rc, sorted(m for m in ('typing', 'dataclasses', 'ffind.frontends.cli', "
            "'ffind.options') if m in sys.modules), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert (proc.stdout, proc.stderr) == (f"ffind {__version__}\n", "0 []\n")


def test_one_shot_search_imports_no_picker_nor_rich(tree: Path) -> None:
    # nor multiprocessing: the walk forks its workers and talks to them over plain pipes
    assert _imported("-l", "3", "prompt", cwd=tree) <= {"rapidfuzz", "click"}
    assert _imported("--json", "prompt", cwd=tree) <= {"rapidfuzz", "click"}


# --- terminal, colour -------------------------------------------------------------------------

def run_tty(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, bytes]:
    """Run with stdout and stderr on a pseudo-terminal, both ways (``both_ways.both``); return
    (exit code, what it showed)."""
    def once(extra: dict[str, str]) -> tuple[int, bytes]:
        return _tty(list(args), cwd, {"TERM": "xterm", **(env or {}), **extra})

    (code, shown), answered = both(once, cwd, env)
    assert answered or not plain(list(args), code)
    return code, shown


def _tty(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    master, slave = pty.openpty()
    proc = subprocess.Popen([FFIND, *args], cwd=cwd, stdout=slave, stderr=slave,
                            stdin=subprocess.DEVNULL, env=environment(env))
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return proc.wait(timeout=60), b"".join(chunks).replace(b"\r\n", b"\n")


def test_color_on_a_terminal_and_no_color(tree: Path) -> None:
    rc, shown = run_tty("deep", cwd=tree)
    assert rc == 0 and b"\x1b[1;31md" in shown  # the matched characters are highlighted
    assert shown.replace(b"\x1b[1;31m", b"").replace(b"\x1b[0m", b"") == (
        b"one/two/three/deep.txt\n")
    rc, shown = run_tty("deep", cwd=tree, env={"NO_COLOR": "1"})
    assert (rc, shown) == (0, b"one/two/three/deep.txt\n")
    assert run_tty("--color", "never", "deep", cwd=tree)[1] == b"one/two/three/deep.txt\n"
    # --compute-indices under NO_COLOR: bold only (no-color.org allows it)
    rc, shown = run_tty("--compute-indices", "deep", cwd=tree, env={"NO_COLOR": "1"})
    assert shown == b"one/two/three/\x1b[1mdeep\x1b[0m.txt\n"
    assert b"\x1b[" in run_tty("--color", "always", "deep", cwd=tree,
                               env={"NO_COLOR": "1"})[1]


def test_color_always_when_piped(tree: Path) -> None:
    proc = run("--color", "always", "deep", cwd=tree)
    assert b"\x1b[" in proc.stdout
    assert run("--color", "auto", "deep", cwd=tree).stdout == b"one/two/three/deep.txt\n"


def test_control_characters_escaped_on_a_terminal_only(tree: Path) -> None:
    (tree / "bad\x1b[31mname.txt").write_text("x")
    rc, shown = run_tty("--color", "never", "badname", cwd=tree)
    assert (rc, shown) == (0, b"bad\\x1b[31mname.txt\n")
    assert run("badname", cwd=tree).stdout == b"bad\x1b[31mname.txt\n"


def test_truncation_warning_only_on_a_terminal(tree: Path) -> None:
    rc, shown = run_tty("-l", "2", cwd=tree)
    assert rc == 0
    assert shown.endswith(f"showing 2 of {len(VISIBLE)} matches; use --limit\n".encode())
    proc = run("-l", "2", cwd=tree)
    assert proc.stderr == b""


# --- pipes and signals ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def wide_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough output (about 200 KB) to fill a pipe."""
    root = tmp_path_factory.mktemp("wide")
    for d in range(40):
        sub = root / f"folder_{d:03d}_with_a_fairly_long_name"
        sub.mkdir()
        for f in range(100):
            (sub / f"file_{f:04d}_also_with_a_long_name_to_fill_pipes.txt").touch()
    return root


@pytest.mark.parametrize("args", ["-l 0", "-l 0 --json file"])
def test_broken_pipe_exits_quietly(wide_tree: Path, args: str) -> None:
    def piped(extra: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(f"'{FFIND}' {args} | head -1; exit ${{PIPESTATUS[0]}}",
                              shell=True, executable="bash", cwd=wide_tree,
                              capture_output=True, timeout=60, env=environment(extra))

    proc, answered = both(piped, wide_tree)
    assert (proc.stdout.count(b"\n"), proc.stderr, proc.returncode) == (1, b"", 0)
    assert answered


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out.update(int(c) for c in f.read().split())
    except OSError:
        pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_ctrl_c_while_reading_stdin() -> None:
    # A SIGINT that lands while the interpreter is still starting (a loaded machine) kills it
    # with -SIGINT before ffind runs: then try again, waiting longer, up to 4 s.
    for delay in (0.5, 1, 2, 4):
        proc = subprocess.Popen([FFIND, "--stdin", "prompt"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        assert proc.stdin is not None
        proc.stdin.write(b"a/prompt.ts\n")
        proc.stdin.flush()
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, err = proc.communicate(timeout=30)
        if proc.returncode != -signal.SIGINT or delay == 4:
            break
    assert proc.returncode == 130, err
    assert b"Traceback" not in err


def test_ctrl_c_while_the_server_answers(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("")
    assert ffind("x", cwd=tmp_path).returncode == 0
    assert served_count(str(tmp_path), environment()) is not None
    [sock] = client.sockets()
    for delay in (0.5, 1, 2, 4):
        with socket.socket(socket.AF_UNIX) as busy:
            busy.connect(sock)  # (the server waits for this request, 10 s at most)
            proc = subprocess.Popen([FFIND, "x"], cwd=tmp_path, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True,
                                    env=environment())
            time.sleep(delay)
            os.killpg(proc.pid, signal.SIGINT)  # (while the command waits for the server)
            out, err = proc.communicate(timeout=30)
        if proc.returncode != -signal.SIGINT or delay == 4:
            break
    assert (proc.returncode, out, err) == (130, b"", b"")


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("big")
    for a in range(50):
        for b in range(50):
            sub = f"{root}/d{a}/e{b}"
            os.makedirs(sub)
            for c in range(6):
                os.close(os.open(f"{sub}/f{c}.txt", os.O_CREAT | os.O_WRONLY, 0o644))
    yield root


_WORKERS_AT_ONCE = """
import sys
import ffind.fs.walk
ffind.fs.walk.INLINE_FIRST = 0  # the workers at once, idle CPU or not (load.cpu_idle)
from ffind.frontends.entry import main
sys.argv[0] = "ffind"
raise SystemExit(main())
"""


def test_ctrl_c_during_walk_stops_workers(big_tree: Path) -> None:
    for _ in range(5):
        proc = subprocess.Popen([sys.executable, "-c", _WORKERS_AT_ONCE, "--threads", "2",
                                 "-l", "0", "zzzz"], cwd=big_tree,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        # Wait for the walk's worker processes: then the walk is surely running (a signal
        # during interpreter start-up would kill the process before Python handles it).
        deadline = time.monotonic() + 10
        kids: set[int] = set()
        while not kids and time.monotonic() < deadline and proc.poll() is None:
            kids = _children(proc.pid)
            time.sleep(0.005)
        if not kids or proc.poll() is not None:
            proc.communicate()
            continue  # the walk was faster than the signal: try again
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert b"Traceback" not in err
        time.sleep(0.2)
        assert not [k for k in kids if _alive(k)]
        return
    pytest.fail("the walk always finished before SIGINT could be sent")


# --- issue 12: no limit without a pattern, unusable streams -----------------------------------

def _many(root: Path, n: int) -> None:
    for i in range(n):
        (root / f"f{i:03}.txt").write_text("")


def test_without_a_pattern_every_file_is_listed(tmp_path: Path) -> None:
    _many(tmp_path, 100)
    assert len(lines(run(cwd=tmp_path))) == 100  # fd's rule: no limit unless -l
    assert len(lines(run("-l", "5", cwd=tmp_path))) == 5
    assert len(lines(run("f0", cwd=tmp_path))) == 64  # with a pattern: the best 64
    assert len(lines(run("-l", "0", "f0", cwd=tmp_path))) == 100


def test_help_example_for_xargs_passes_every_match(tmp_path: Path) -> None:
    _many(tmp_path, 100)
    help_text = run("-h").stdout.decode()
    assert "ffind -0 -l0 test | xargs -0 wc -l" in help_text
    proc = subprocess.run(f"{shlex.quote(FFIND)} -0 -l0 f | xargs -0 printf '%s\\n' | wc -l",
                          shell=True, cwd=tmp_path, capture_output=True, timeout=60)
    assert proc.stdout.strip() == b"100"


def _sh(script: str, cwd: Path,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run a shell line with ``$FFIND`` set (redirections such as ``2>&-`` need a shell), in a
    session of its own (no terminal: a picker cannot take the one running the tests)."""
    return subprocess.run(["sh", "-c", script], cwd=cwd,
                          env=environment({**(env or {}), "FFIND": FFIND}), capture_output=True,
                          timeout=60, start_new_session=True)


@pytest.mark.parametrize("redirect", ["2>&-", "2>/dev/full"])
def test_results_survive_an_unusable_stderr_on_proc(tmp_path: Path, redirect: str) -> None:
    # /proc holds folders nobody may read (warnings), whoever runs the test
    proc = _sh(f'"$FFIND" -C /proc -l 5 -d 2 status {redirect}', tmp_path)
    assert proc.returncode == 0
    assert len(proc.stdout.splitlines()) == 5


@pytest.mark.parametrize(("script", "served"), [
    ('"$FFIND" x >&-', False),
    ('"$FFIND" x >/dev/full', True),
    ('"$FFIND" --version >/dev/full', False),
    ('"$FFIND" --version >&-', False),
    ('"$FFIND" --help >/dev/full', False),
    ('"$FFIND" -l1 --version >/dev/full', False),
    ('"$FFIND" --stdin x <&-', False),
])
def test_unusable_stdout_or_stdin_is_one_line_and_exit_2(tmp_path: Path, script: str,
                                                         served: bool) -> None:
    (tmp_path / "x.txt").write_text("")
    proc, answered = both(lambda extra: _sh(script, tmp_path, extra), tmp_path)
    assert answered is served
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.startswith("ffind: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


@pytest.mark.parametrize(("how", "line"), [
    ("unserved", 'FFIND_NO_SERVER=1 "$FFIND" x'),
    ("first call", '"$FFIND" x'),
    ("served", '"$FFIND" x'),
    ("served", '"$FFIND" -l 1 --json x'),
    ("picker", '"$FFIND" -i x'),
    ("remember", '"$FFIND" --remember x.txt'),
    ("forget", '"$FFIND" --forget x.txt'),
])
def test_a_deleted_working_folder_is_one_line_and_exit_2(tmp_path: Path, how: str,
                                                         line: str) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    (gone / "x.txt").write_text("")
    if how == "served":  # (the folder's server runs, and answered before)
        assert ffind("x", cwd=gone).returncode == 0
        assert served_count(str(gone), environment()) is not None
        assert ffind("x", cwd=gone).stdout == b"x.txt\n"
    proc = _sh(f"cd gone && rm x.txt && rmdir ../gone && {line}", tmp_path)
    assert_error(proc, "current folder")


def test_from_a_deleted_working_folder_an_absolute_cwd_and_stdin_still_answer(
        tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("")

    def absolute(extra: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
        return _sh(f"mkdir gone && cd gone && rmdir ../gone && "
                   f'"$FFIND" -C {shlex.quote(str(tmp_path))} x', tmp_path, extra)

    proc, _ = both(absolute, tmp_path)  # (served or not: the client needs its folder)
    assert (proc.returncode, proc.stdout) == (0, b"x.txt\n")
    # (the paths piped in do not depend on the folder)
    proc = _sh("mkdir gone && cd gone && rmdir ../gone && "
               "printf 'a/x.txt\\nb.py\\n' | \"$FFIND\" --stdin x", tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"a/x.txt\n", b"")


def test_bad_options_are_a_usage_error(tmp_path: Path) -> None:
    assert_error(run("--threads", "0", "x", cwd=tmp_path), "--threads")
    assert_error(run("-d", "-1", "x", cwd=tmp_path), "--max-depth")


# --- issue 12.18: escaping wherever a path reaches a terminal --------------------------------

def test_color_always_escapes_control_characters_for_a_pager(tree: Path) -> None:
    (tree / "d").mkdir()
    (tree / "d" / "\x1b]0;title\x07.txt").write_text("x")
    out = run("--color", "always", "title", cwd=tree).stdout
    assert b"\x07" not in out and b"\x1b]" not in out
    assert out.replace(b"\x1b[1;31m", b"").replace(b"\x1b[0m", b"") == (
        b"d/\\x1b]0;title\\x07.txt\n")
    # piped without colour: the bytes as they are
    assert run("title", cwd=tree).stdout == b"d/\x1b]0;title\x07.txt\n"


def test_nbsp_and_the_invalid_byte_a0_look_different(tmp_path: Path) -> None:
    os.close(os.open(os.fsencode(tmp_path) + b"/nb\xc2\xa0x.txt", os.O_CREAT | os.O_WRONLY))
    os.close(os.open(os.fsencode(tmp_path) + b"/bad\xa0x.txt", os.O_CREAT | os.O_WRONLY))
    rc, shown = run_tty("--color", "never", "x", cwd=tmp_path)
    assert rc == 0
    assert sorted(shown.splitlines()) == [b"bad\\xa0x.txt", b"nb\\u00a0x.txt"]


_GC = """
import gc, os, sys
from ffind.frontends import cli
real_exit = os._exit
def end(code):
    print("collector on:", gc.isenabled(), flush=True)
    real_exit(code)
os._exit = end
print("in-process:", cli.main(sys.argv[1:]), gc.isenabled(), flush=True)
cli._main(sys.argv[1:], exit_fast=True)
"""


def test_the_console_script_s_one_shot_search_runs_without_the_cyclic_collector(
        tree: Path) -> None:
    """The process ends with its results (os._exit): the cyclic collector is switched off for
    a one-shot search of the console script, and left alone for ``main(argv)`` in-process."""
    proc = subprocess.run([sys.executable, "-c", _GC, "-l", "1", "prompt"], cwd=tree,
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout.splitlines()[1::2] == ["in-process: 0 True", "collector on: False"]
