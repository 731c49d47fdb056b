"""The console script's path (``ffind.frontends.entry``): what a call imports and does not.

Not timings: which modules a plain search loads.  Each is a cost every ``ffind`` call would
pay (docs/cache.md, "Cold start"); these tests fail when one comes back on the path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from both_ways import ffind_both
from conftest import need

from ffind.errors import FfindError
from ffind.frontends.entry import with_defaults
from ffind.frontends.fastparse import parse

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]

_IMPORTS = """
import sys
from ffind.frontends.entry import main
rc = main(sys.argv[1:])
print(rc, " ".join(sorted(sys.modules)), file=sys.stderr)
"""

NEVER = {
    "click",  # the flags are read without it (fastparse)
    "dataclasses", "inspect", "ast", "dis", "tokenize",  # the records are ffind.frozen's
    "subprocess",  # git status is started with os.posix_spawnp
    "multiprocessing",  # the walk forks its workers and talks to them over plain pipes
    "numpy", "rich", "pathspec", "prompt_toolkit", "mcp", "ffind.frontends.picker",
}
"""Never imported by a plain search, cold or warm, with the memory or not."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    need("git")
    root = tmp_path / "repo"
    for rel in ("src/main.py", "src/query.py", "docs/q.md", "README.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    (root / ".gitignore").write_text("*.log\n")
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "."], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "x"], cwd=root, check=True)
    (root / "src/new.py").write_text("")
    return root


def imported(cwd: Path, *args: str) -> tuple[str, set[str]]:
    """(exit status, the modules loaded) of ``ffind ARGS`` run through the console script's
    entry point (without its final ``os._exit``) in a fresh interpreter."""
    proc = subprocess.run([sys.executable, "-c", _IMPORTS, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60)
    rc, _, modules = proc.stderr.strip().rpartition("\n")[2].partition(" ")
    return rc, set(modules.split())


ORJSON = {"dataclasses", "inspect", "ast", "dis", "tokenize"}
"""What orjson imports itself (``--json`` writes with it)."""


@pytest.mark.parametrize(("args", "allowed"), [
    (("--no-cache", "-l", "5", "q"), set()),
    (("--no-cache", "--no-memory", "-l", "5", "q"), set()),
    (("-l", "5", "q"), set()),
    (("--no-cache",), set()),
    (("--no-cache", "-l", "5", "--json", "q"), ORJSON),
])
def test_a_plain_search_imports_none_of_the_heavy_modules(
        repo: Path, args: tuple[str, ...], allowed: set[str]) -> None:
    for _ in range(2):  # cold, then (unless --no-cache) warm
        rc, modules = imported(repo, *args)
        assert rc == "0"
        assert not modules & (NEVER - allowed), sorted(modules & (NEVER - allowed))


def test_a_cold_search_reads_no_snapshot_format(repo: Path) -> None:
    # orjson (with json, uuid, datetime, platform) is for the warm index and --json only
    rc, modules = imported(repo, "--no-cache", "-l", "5", "q")
    assert rc == "0"
    assert not modules & {"orjson", "json"}


def modules_after(*names: str) -> set[str]:
    """``sys.modules`` of a fresh interpreter (no ``site``) after importing ``names``."""
    code = f"import sys\nimport {', '.join(names)}\nprint(' '.join(sorted(sys.modules)))"
    # (from the checkout: without ``site`` the module path is the current folder's)
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                          timeout=60, check=True, cwd=Path(__file__).resolve().parent.parent)
    return set(proc.stdout.split())


def test_the_command_line_and_output_modules_import_no_re_typing_nor_dataclasses() -> None:
    # what a thin client in front of a resident index needs: parse, options, output
    modules = modules_after("ffind.frontends.fastparse", "ffind.frontends.flags",
                            "ffind.frontends.output", "ffind.options", "ffind.errors")
    assert "ffind.frontends.fastparse" in modules
    assert not modules & {"re", "typing", "dataclasses", "inspect", "click"}


@pytest.mark.parametrize(("args", "collecting"), [
    (["--version"], False),
    (["--no-cache", "-l", "1", "q"], False),
    (["mcp", "--help"], True),  # a server lives on
])
def test_the_console_script_runs_without_the_cyclic_collector(
        repo: Path, args: list[str], collecting: bool) -> None:
    code = ("import atexit, gc, os, sys\n"
            "real_exit = os._exit\n"
            "def report(code):\n"
            "    sys.stderr.write(f'gc={gc.isenabled()}\\n'); sys.stderr.flush()\n"
            "    real_exit(code)\n"
            "os._exit = report\n"
            "atexit.register(lambda: sys.stderr.write(f'gc={gc.isenabled()}\\n'))\n"
            f"sys.argv = ['ffind', *{args!r}]\n"
            "from ffind.frontends.entry import main\n"
            "raise SystemExit(main())\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == f"gc={collecting}"


def test_a_folder_whose_name_is_not_utf8_is_searched_cold_and_warm(tmp_path: Path) -> None:
    # (the warm index's key and the memory's query once failed there with a traceback)
    root = os.path.join(os.fsencode(tmp_path), b"\xffdir")
    os.makedirs(os.path.join(root, b"sub"))
    open(os.path.join(root, b"sub", b"main.txt"), "w").close()
    proc = subprocess.run([sys.executable, "-m", "ffind", "--no-cache", "main"], cwd=root,
                          capture_output=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"sub/main.txt\n", b"")
    proc = ffind_both("main", cwd=Path(os.fsdecode(root)))  # (first, served, unserved)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"sub/main.txt\n", b"")


def test_a_search_without_a_memory_file_imports_no_sqlite3(repo: Path, tmp_path: Path) -> None:
    # the memory file exists once a file is picked; until then the memory reads as empty
    # without sqlite3 (and datetime); once it exists, it is read (the control)
    for args in (("--no-cache", "-l", "5", "q"), ("-l", "5", "q"), ("-l", "5", "q")):
        rc, modules = imported(repo, *args)
        assert rc == "0"
        assert not modules & {"sqlite3", "_sqlite3", "datetime"}
    remember = subprocess.run([sys.executable, "-m", "ffind", "--remember",
                               str(repo / "src/query.py")], cwd=repo, capture_output=True,
                              timeout=60)
    assert remember.returncode == 0, remember.stderr
    rc, modules = imported(repo, "--no-cache", "-l", "5", "q")
    assert rc == "0"
    assert "sqlite3" in modules


FOR_WORKERS = {"pickle", "_pickle", "struct", "signal", "fcntl"}


def test_a_walk_read_in_the_process_imports_nothing_for_workers(tmp_path: Path) -> None:
    # pickle, signal and fcntl are for the walk's worker processes (and signal for git
    # status): a small tree outside a repository is read before any worker would start
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "src/query.py").write_text("")
    (root / ".ignore").write_text("*.log\n")
    for args in (("--no-cache", "-l", "5", "q"), ("-l", "5", "q")):
        rc, modules = imported(root, *args)
        assert rc == "0"
        assert not modules & FOR_WORKERS, sorted(modules & FOR_WORKERS)


_SCRIPT = """
import os, sys
def report(code):
    print(" ".join(sorted(sys.modules)), file=sys.stderr)
    sys.stderr.flush()
    real_exit(code)
real_exit, os._exit = os._exit, report
sys.argv = ["ffind", *sys.argv[1:]]
from ffind.frontends.entry import main
report(main())
"""


@pytest.mark.parametrize(("args", "no_server", "client"), [
    (["--no-cache", "-l", "1", "q"], "", False),
    (["-l", "1", "--no-server", "q"], "", False),
    (["-l", "1", "q"], "1", False),
    (["-l", "1", "q"], "", True),  # (no server runs: the client looked, twice)
])
def test_the_console_script_imports_no_server_client_when_none_may_answer(
        repo: Path, tmp_path: Path, args: list[str], no_server: str, client: bool) -> None:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    # (a search the server is on for starts one when none answered: it exits after a second)
    env = {**os.environ, "FFIND_NO_SERVER": no_server, "XDG_RUNTIME_DIR": str(run),
           "FFIND_SERVER_IDLE": "1"}
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    modules = set(proc.stderr.strip().rpartition("\n")[2].split())
    assert ("ffind.resident.client" in modules) is client
    assert "ffind.frontends.cli" in modules


def test_the_server_clients_modules_import_no_contextlib_importlib_nor_warnings() -> None:
    # what the console script loads when the resident server answers (docs/cache.md)
    modules = modules_after("ffind", "ffind.frontends.entry", "ffind.resident.client",
                            "ffind.frontends.output", "ffind.frontends.exits")
    assert "ffind.frontends.exits" in modules
    assert not modules & {"contextlib", "importlib", "warnings", "typing"}


_AHEAD = """
import sys
import ffind.fs.pool, ffind.fs.walk
ffind.fs.walk.AHEAD_PROBE = 0.0  # the child at once, whatever the tree and the load
ffind.fs.load.cpu_idle = lambda *args: True
from ffind.frontends.entry import main
rc = main(sys.argv[1:])
print(rc, " ".join(sorted(sys.modules)), file=sys.stderr)
"""


def test_a_walk_read_by_the_forked_child_imports_no_pickle_here(tmp_path: Path) -> None:
    # the child of walk_ahead imports pickle itself, only to hand folders back (a big tree)
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "src/query.py").write_text("")
    proc = subprocess.run([sys.executable, "-c", _AHEAD, "--no-cache", "-l", "5", "q"],
                          cwd=root, capture_output=True, text=True, timeout=60)
    assert proc.stdout == "src/query.py\n"
    rc, _, modules = proc.stderr.strip().rpartition("\n")[2].partition(" ")
    assert rc == "0"
    assert "signal" in modules.split(), "a child was forked"
    assert not set(modules.split()) & {"pickle", "_pickle"}


def test_the_walks_modules_import_no_typing() -> None:
    # the walk's child of a cold search imports them after its fork (ffind.frontends.early):
    # typing (~2 ms) would be on the critical path of a tree the child reads
    modules = modules_after("ffind.frontends.early", "ffind.fs.walk", "ffind.fs.pool",
                            "ffind.fs.ignore.patterns", "ffind.fs.ignore.scope")
    assert "ffind.fs.ignore.scope" in modules
    assert not modules & {"typing", "dataclasses", "click"}


def test_the_early_walk_and_git_status_import_no_ignore_rules() -> None:
    # what the process of a cold search imports to read the child's paths and start git
    # status (the rules are the child's: ffind.frontends.early)
    modules = modules_after("ffind.frontends.early", "ffind.fs.walk", "ffind.state.gitstatus",
                            "ffind.fs.load")
    assert "ffind.fs.walk" in modules
    assert not modules & {"ffind.fs.ignore.patterns", "ffind.fs.ignore.scope",
                          "ffind.fs.ignore.wildmatch", "re", "typing"}


def defaults(value: str, *args: str) -> list[str]:
    return with_defaults(list(args), {"FFIND_DEFAULT_OPTS": value})


def test_default_opts_come_before_the_command_line_each_spelled_whole() -> None:
    assert defaults("") == [] and defaults("  ", "q") == ["q"]
    assert defaults("-Hl5 -e '*.log' --type=d", "-l", "2", "q") == [
        "--hidden", "--limit=5", "--exclude=*.log", "--type=d", "-l", "2", "q"]
    # a flag whose value may be left out does not take the command line's first word
    assert defaults("--preview", "q", "-i") == ["--preview=", "q", "-i"]
    quick = parse(defaults("--preview", "q", "-i"))
    assert quick is not None and quick[0] == "q" and quick[1]["preview"] == ""
    # the command line's own value wins; a repeatable flag keeps both
    quick = parse(defaults("-l 5 -e a", "-l", "2", "-e", "b", "q"))
    assert quick is not None and quick[1]["limit"] == 2 and quick[1]["exclude"] == ("a", "b")


def test_default_opts_that_do_not_apply_to_the_command_are_left_out() -> None:
    value = "-l 5 --json --preview --height 40% -H"
    assert defaults(value, "q") == ["--limit=5", "--json", "--hidden", "q"]
    assert defaults(value, "-i") == ["--preview=", "--height=40%", "--hidden", "-i"]
    assert defaults(value, "--stdin", "-Hi") == [
        "--preview=", "--height=40%", "--hidden", "--stdin", "-Hi"]
    assert defaults(f"{value} -i") == [
        "--preview=", "--height=40%", "--hidden", "--interactive"]


@pytest.mark.parametrize(("value", "message"), [
    ("-H '*.log", "no closing quotation"),
    ("--bogus", "No such option '--bogus'"),
    ("-l x", "'x' is not a valid integer"),
    ("-l", "requires an argument"),
    ("--hidden=yes", "does not take a value"),
    ("-H prom", "'prom' is not an option"),
    ("-- -H", "'-H' is not an option"),
    ("-h", "No such option '-h'"),
    ("--version", "No such option '--version'"),
    ("-l +5", "cannot read '-l +5' as options"),
])
def test_a_bad_default_opts_value_is_one_error_naming_the_variable(value: str,
                                                                   message: str) -> None:
    with pytest.raises(FfindError, match=r"^FFIND_DEFAULT_OPTS: ") as err:
        defaults(value, "q")
    assert message in str(err.value)


def test_default_opts_bring_no_heavy_module_to_a_plain_search(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FFIND_DEFAULT_OPTS", "-H -l 3 --preview -e '*.log'")
    for args in (("--no-cache", "q"), ("q",)):
        rc, modules = imported(repo, *args)
        assert rc == "0"
        assert not modules & NEVER, sorted(modules & NEVER)


def ffind(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ffind", *args], cwd=cwd,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=60)


def test_default_opts_apply_to_the_command_and_the_command_line_wins(tmp_path: Path) -> None:
    for name in (".hx", "ax", "bx"):
        (tmp_path / name).write_text("")
    opts = {"FFIND_DEFAULT_OPTS": "-H -l 1"}
    for extra in ((), ("--no-cache",)):
        assert ffind(tmp_path, *extra, "x").stdout.split() == ["ax", "bx"]
        assert ffind(tmp_path, *extra, "x", **opts).stdout.count("\n") == 1
        proc = ffind(tmp_path, *extra, "-l", "5", "x", **opts)
        assert sorted(proc.stdout.split()) == [".hx", "ax", "bx"], proc.stderr


def test_a_bad_default_opts_value_exits_2_on_every_path(tmp_path: Path) -> None:
    bad = {"FFIND_DEFAULT_OPTS": "-H --bogus"}
    for args in (["q"], ["--no-cache", "q"], ["-i"], ["--stdin", "q"], ["--clear-cache"]):
        proc = ffind(tmp_path, *args, **bad)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stdout == ""
        assert proc.stderr.startswith("ffind: FFIND_DEFAULT_OPTS: No such option '--bogus'")
        assert proc.stderr.count("\n") == 1, proc.stderr
    # what does not search does not read it: an editor's hook, --version, the MCP server
    for args in (["--remember", "a", "b"], ["--forget", "a"], ["--version"], ["mcp", "--help"]):
        proc = ffind(tmp_path, *args, **bad)
        assert proc.returncode == 0, (args, proc.stderr)


@pytest.mark.parametrize(("opts", "served"), [("-H", True), ("-H --no-server", False)])
def test_default_opts_reach_the_resident_server_and_can_turn_it_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opts: str, served: bool) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    for name in (".hx", "ax"):
        (root / name).write_text("")
    run = Path(tempfile.mkdtemp(prefix="ffo-", dir="/tmp"))  # (short: AF_UNIX)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("FFIND_SERVER_IDLE", "30")
    monkeypatch.setenv("FFIND_SERVER_FROM", "0")  # (a two-file tree gets its server)
    monkeypatch.setenv("FFIND_DEFAULT_OPTS", opts)
    try:
        for call in range(3):  # a first call, the server started after it, then served
            proc = subprocess.run([sys.executable, "-c", _SCRIPT, "x"], cwd=root,
                                  capture_output=True, text=True, timeout=60)
            assert sorted(proc.stdout.split()) == [".hx", "ax"], proc.stderr
            modules = set(proc.stderr.strip().rpartition("\n")[2].split())
            assert ("ffind.resident.client" in modules) is served
            if call == 2:
                assert ("ffind.frontends.cli" not in modules) is served
            time.sleep(0.5)
        assert bool(list(run.glob("ffind/*.sock"))) is served
    finally:
        from ffind.resident.client import stop_all

        stop_all()
        shutil.rmtree(run, ignore_errors=True)


FAKE_GIT = """#!/bin/sh
# git status as a slow child: say who it is, have the command terminated, then sleep
echo $$ > "$FFIND_TEST_PIDS"
kill -TERM $PPID
exec sleep 30
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] not in "ZX"
    except OSError:
        return False


@pytest.mark.parametrize("mode", ["--no-cache", "--no-server"])
def test_a_terminated_command_stops_its_git_status(tmp_path: Path, mode: str) -> None:
    """SIGTERM while ``git status`` (started for the memory) runs: the command stops it on
    the way out, then ends by the signal as it would without ffind's handler."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)  # (a work tree as find_repo_top sees one)
    (root / "a.py").write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(FAKE_GIT)
    (bin_dir / "git").chmod(0o755)
    pids = tmp_path / "pids"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
           "FFIND_TEST_PIDS": str(pids)}
    cmd = [sys.executable, "-m", "ffind"]
    assert subprocess.run([*cmd, "--remember", "a.py"], cwd=root, env=env).returncode == 0
    for _ in range(5):  # (on a loaded machine the command may end before git's SIGTERM)
        done = subprocess.run([*cmd, mode, "a"], cwd=root, env=env, capture_output=True,
                              timeout=60)
        if done.returncode != 0:
            break
    assert done.returncode == -15, done  # (killed by SIGTERM, as the default action does)
    git = int(pids.read_text())
    end = time.monotonic() + 10
    while _alive(git) and time.monotonic() < end:
        time.sleep(0.05)
    assert not _alive(git)
