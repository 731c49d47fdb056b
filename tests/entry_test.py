"""The console script's path (``ffind.frontends.entry``): what a call imports and does not.

Not timings: which modules a plain search loads.  Each is a cost every ``ffind`` call would
pay (docs/cache.md, "Cold start"); these tests fail when one comes back on the path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_the_command_line_and_output_modules_import_no_re_typing_nor_dataclasses() -> None:
    # what a thin client in front of a resident index needs: parse, options, output
    code = ("import sys\nimport ffind.frontends.fastparse, ffind.frontends.flags, "
            "ffind.frontends.output, ffind.options, ffind.errors\n"
            "print(' '.join(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert not set(proc.stdout.split()) & {"re", "typing", "dataclasses", "inspect", "click"}


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
    for args in (["--no-cache", "main"], ["main"], ["main"]):
        proc = subprocess.run([sys.executable, "-m", "ffind", *args], cwd=root,
                              capture_output=True, timeout=60)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"sub/main.txt\n", b"")
