"""The memory through the command, as a subprocess: --remember, --forget, --no-memory,
FFIND_NO_MEMORY, bad state (one warning, results intact), and the one-shot command never
recording what it prints.  conftest.py gives every test its own XDG folders."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from both_ways import ffind_both

FILES = ["lib/prompt.ts", "src/session/prompt.ts", "src/session/index.ts", "docs/x.md"]


def ffind(*args: str, cwd: Path, env: dict[str, str] | None = None,
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ffind", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


def served(*args: str, cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """The lines of ``ffind args`` run both ways (``both_ways.ffind_both``: the same without
    and with the folder's server)."""
    return ffind_both(*args, cwd=cwd, env=env).stdout.decode().splitlines()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return root


def memory_file() -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "ffind" / "memory.sqlite3"


def test_remember_ranks_a_file_first_and_forget_undoes_it(tree: Path) -> None:
    before = served("prompt", cwd=tree)
    assert before == ["lib/prompt.ts", "src/session/prompt.ts"]
    done = ffind("--remember", "src/session/prompt.ts", cwd=tree)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert served("prompt", cwd=tree) == ["src/session/prompt.ts", "lib/prompt.ts"]
    assert served("--no-memory", "prompt", cwd=tree) == before
    assert served("prompt", cwd=tree, env={"FFIND_NO_MEMORY": "1"}) == before
    assert ffind("--forget", str(tree / "src"), cwd=tree).returncode == 0
    assert served("prompt", cwd=tree) == before


def test_the_memory_file_is_owner_only_and_holds_absolute_paths(tree: Path) -> None:
    assert ffind("--remember", "docs/x.md", "lib/prompt.ts", cwd=tree).returncode == 0
    db = memory_file()
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    assert oct(db.parent.stat().st_mode & 0o777) == "0o700"
    con = sqlite3.connect(db)
    rows = sorted(r[0] for r in con.execute("SELECT path FROM visits"))
    con.close()
    assert rows == [str(tree / "docs/x.md"), str(tree / "lib/prompt.ts")]


def test_ffind_memory_names_the_file(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "elsewhere.db"
    assert ffind("--remember", "docs/x.md", cwd=tree,
                 env={"FFIND_MEMORY": str(db)}).returncode == 0
    assert db.exists() and not memory_file().exists()


def test_the_one_shot_command_does_not_record_what_it_prints(tree: Path) -> None:
    assert ffind("prompt", cwd=tree).returncode == 0
    if memory_file().exists():
        con = sqlite3.connect(memory_file())
        assert con.execute("SELECT count(*) FROM visits").fetchone()[0] == 0
        con.close()


@pytest.mark.parametrize("args", [["--remember"], ["--forget"], ["--remember", ""],
                                  ["--remember", "--", ]])
def test_remember_without_a_path_is_one_line_and_exit_2(tree: Path, args: list[str]) -> None:
    done = ffind(*args, cwd=tree)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("ffind: ")
    assert "Traceback" not in done.stderr


def test_a_damaged_memory_warns_once_and_the_search_still_answers(tree: Path) -> None:
    db = memory_file()
    db.parent.mkdir(parents=True)
    db.write_bytes(b"garbage" * 1000)
    done = ffind("--json", "prompt", cwd=tree)
    assert done.returncode == 0
    assert [json.loads(line)["path"] for line in done.stdout.splitlines()] == [
        "lib/prompt.ts", "src/session/prompt.ts"]
    assert done.stderr.count("\n") == 1 and "moved it to" in done.stderr
    assert any(".corrupt-" in p.name for p in db.parent.iterdir())
    again = ffind("prompt", cwd=tree)  # the new memory works: no more warnings
    assert (again.returncode, again.stderr) == (0, "")


def test_an_unusable_state_folder_means_no_memory_one_warning_and_results(
    tree: Path, tmp_path: Path,
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    ffind_both("prompt", cwd=tree, env={"XDG_STATE_HOME": str(blocker)})
    done = ffind("prompt", cwd=tree, env={"XDG_STATE_HOME": str(blocker)})
    assert done.returncode == 0
    assert done.stdout.splitlines() == ["lib/prompt.ts", "src/session/prompt.ts"]
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("ffind: cannot create")


def test_a_newer_memory_is_left_alone(tree: Path) -> None:
    db = memory_file()
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 99")
    con.close()
    done = ffind_both("prompt", cwd=tree)
    assert done.returncode == 0 and b"newer ffind" in done.stderr
    assert ffind("--remember", "docs/x.md", cwd=tree).returncode == 2


def test_uncommitted_changes_count_as_recent_visits(tree: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=tree, check=True)
    subprocess.run([*git, "add", "."], cwd=tree, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=tree, check=True)
    assert ffind("prompt", cwd=tree).stdout.splitlines()[0] == "lib/prompt.ts"
    (tree / "src/session/prompt.ts").write_text("changed")
    # A search never waits for ``git status`` (lowest CPU priority): on a busy machine a fast
    # search may end first, and then ranks with the answer remembered before the edit.
    # Whenever it does answer in time, the edited file comes first.
    firsts = set()
    for _ in range(10):
        firsts.add(ffind("prompt", cwd=tree).stdout.splitlines()[0])
        if "src/session/prompt.ts" in firsts:
            break
    assert firsts <= {"src/session/prompt.ts", "lib/prompt.ts"}
    assert "src/session/prompt.ts" in firsts
    assert ffind("--no-memory", "prompt", cwd=tree).stdout.splitlines()[0] == "lib/prompt.ts"


def test_the_file_opened_with_the_one_just_opened_ranks_first_served_or_not(
    tree: Path,
) -> None:
    from ffind import Memory

    (tree / "main.go").write_text("")
    now = time.time()
    mem = Memory(memory_file())
    for _ in range(10):  # the session's prompt.ts, opened often yesterday
        assert mem.record(tree / "src/session/prompt.ts", when=now - 86400)
    for days in (5, 4):  # main.go with lib/prompt.ts, twice
        mem.record(tree / "main.go", when=now - days * 86400)
        mem.record(tree / "lib/prompt.ts", when=now - days * 86400 + 60)
    assert served("prompt", cwd=tree) == ["src/session/prompt.ts", "lib/prompt.ts"]
    assert ffind("--remember", "main.go", cwd=tree).returncode == 0  # main.go again, now
    assert served("prompt", cwd=tree) == ["lib/prompt.ts", "src/session/prompt.ts"]
    assert served("--no-memory", "prompt", cwd=tree) == ["lib/prompt.ts",
                                                         "src/session/prompt.ts"]


def test_the_empty_pattern_lists_remembered_files_first(tree: Path) -> None:
    ffind("--remember", "src/session/prompt.ts", cwd=tree)
    listed = served(cwd=tree)
    assert listed[0] == "src/session/prompt.ts"
    assert sorted(listed) == sorted(FILES)


def test_a_search_creates_no_memory_until_something_is_remembered(tree: Path) -> None:
    assert ffind("prompt", cwd=tree).returncode == 0
    assert not memory_file().exists() and not memory_file().parent.exists()
    assert ffind("--remember", "docs/x.md", cwd=tree).returncode == 0
    assert memory_file().exists()


def test_a_listing_forgets_only_what_is_gone_not_what_it_left_out(tree: Path) -> None:
    ffind("--remember", "docs/x.md", "lib/prompt.ts", cwd=tree)
    assert ffind("-e", "*.md", cwd=tree).returncode == 0  # docs/x.md left out, not gone
    (tree / "lib/prompt.ts").unlink()
    assert ffind(cwd=tree).returncode == 0  # a complete listing: lib/prompt.ts is gone
    con = sqlite3.connect(memory_file())
    rows = [r[0] for r in con.execute("SELECT path FROM visits")]
    con.close()
    assert rows == [str(tree / "docs/x.md")]


def test_a_repaired_memory_takes_every_path_and_says_so_once(tree: Path) -> None:
    db = memory_file()
    db.parent.mkdir(parents=True)
    db.write_bytes(b"garbage" * 1000)
    done = ffind("--remember", "docs/x.md", "lib/prompt.ts", cwd=tree)
    assert done.returncode == 0
    assert done.stderr.count("\n") == 1 and "moved it to" in done.stderr
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM visits").fetchone()[0] == 2
    con.close()


def test_clear_cache_removes_the_remembered_git_status(tree: Path) -> None:
    from ffind.state.gitstatus import GitChanges

    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=tree, check=True)
    assert GitChanges(str(tree)).changed(30, give_up=False)  # untracked: every file
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "ffind"
    assert [p.name[:4] for p in cache.iterdir()] == ["git-"]
    assert ffind("--clear-cache", cwd=tree).returncode == 0
    assert list(cache.iterdir()) == []


@pytest.mark.parametrize("damage", [b"", b"garbage" * 1000])
def test_a_memory_damaged_while_the_server_runs_is_recovered(tree: Path, damage: bytes) -> None:
    """The folder's server has read the memory (and runs on): truncating or overwriting the
    file then leaves no lock behind, --remember works at once and the served answer is the
    unserved one."""
    assert ffind("--remember", "src/session/prompt.ts", cwd=tree).returncode == 0
    assert served("prompt", cwd=tree) == ["src/session/prompt.ts", "lib/prompt.ts"]
    memory_file().write_bytes(damage)
    done = ffind("--remember", "lib/prompt.ts", cwd=tree)
    assert done.returncode == 0 and "locked" not in done.stderr
    assert served("prompt", cwd=tree) == ["lib/prompt.ts", "src/session/prompt.ts"]
    again = ffind("--remember", "src/session/index.ts", cwd=tree)
    assert (again.returncode, again.stderr) == (0, "")
    assert served("session", cwd=tree)[0] == "src/session/index.ts"
