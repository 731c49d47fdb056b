"""``git status`` as visits (``ffind.state.gitstatus``): the changed paths under the root, the
lowest CPU priority, and the remembered answer used when a search's own ``git status`` has
not answered in time (only while the repository's HEAD and index are unchanged).  Real git
repositories in temporary folders; a stand-in ``git`` on PATH plays a slow one."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from ffind.state.gitstatus import GitChanges

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    for rel in ("src/a.py", "src/b.py", "README.md"):
        (root / rel).write_text("x")
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "."], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "x"], cwd=root, check=True)
    (root / "src/a.py").write_text("changed")
    (root / "src/new.py").write_text("")
    return root


def slow_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str = "sleep 30") -> None:
    """Put a ``git`` on PATH that does ``body`` (and answers nothing)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\n{body}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def finished(root: Path, remember: str | None) -> frozenset[str]:
    git = GitChanges(str(root), remember=remember)
    return git.changed(30, give_up=False)


def test_the_changed_and_untracked_files_under_the_root(repo: Path, tmp_path: Path) -> None:
    assert finished(repo, str(tmp_path / "c")) == {"src/a.py", "src/new.py"}
    assert GitChanges(str(repo / "src"), remember="").changed(30) == {"a.py", "new.py"}


def test_a_finished_answer_is_remembered_owner_only(repo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "c"
    finished(repo, str(folder))
    files = list(folder.iterdir())
    assert len(files) == 1 and files[0].name.startswith("git-")
    assert files[0].name.endswith(".snapshot")
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_slow_git_status_gives_way_to_the_remembered_answer(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = str(tmp_path / "c")
    finished(repo, folder)
    slow_git(tmp_path, monkeypatch)
    assert GitChanges(str(repo), remember=folder).changed(0) == {"src/a.py", "src/new.py"}
    # without a remembered answer (another folder, or none asked for): nothing
    assert GitChanges(str(repo), remember=str(tmp_path / "other")).changed(0) == frozenset()
    assert GitChanges(str(repo), remember="").changed(0) == frozenset()


@pytest.mark.parametrize("change", ["add", "commit", "checkout"])
def test_the_remembered_answer_is_dropped_when_head_or_the_index_change(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str,
) -> None:
    folder = str(tmp_path / "c")
    finished(repo, folder)
    if change == "add":
        subprocess.run([*GIT, "add", "src/new.py"], cwd=repo, check=True)
    elif change == "commit":
        subprocess.run([*GIT, "commit", "-qam", "y"], cwd=repo, check=True)
    else:
        subprocess.run([*GIT, "checkout", "-qb", "other"], cwd=repo, check=True)
    slow_git(tmp_path, monkeypatch)
    assert GitChanges(str(repo), remember=folder).changed(0) == frozenset()


@pytest.mark.parametrize("damage", [b"", b"garbage", b"ffind-gitstatus 1\n", None])
def test_a_damaged_remembered_answer_reads_as_none(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: bytes | None,
) -> None:
    folder = tmp_path / "c"
    finished(repo, str(folder))
    (path,) = folder.iterdir()
    if damage is None:  # truncated inside the header
        path.write_bytes(path.read_bytes()[:20])
    else:
        path.write_bytes(damage)
    slow_git(tmp_path, monkeypatch)
    assert GitChanges(str(repo), remember=str(folder)).changed(0) == frozenset()


def test_git_status_runs_at_the_lowest_priority(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = tmp_path / "nice"
    # fields 19 and 41 of /proc/PID/stat are the nice value and the scheduling policy
    # (Linux's SCHED_IDLE: 5, set before it runs); wait until the caller has set the nice
    slow_git(tmp_path, monkeypatch,
             f"sleep 1; cut -d' ' -f19,41 /proc/$$/stat > {seen}.tmp; mv {seen}.tmp {seen}")
    git = GitChanges(str(repo), remember="")
    assert git.changed(30, give_up=False) == frozenset()
    nice, policy = seen.read_text().split()
    assert nice == "19"
    assert policy == str(getattr(os, "SCHED_IDLE", 0))


def test_outside_a_repository_nothing_runs_and_nothing_is_remembered(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    folder = tmp_path / "c"
    assert GitChanges(str(tmp_path / "plain"), remember=str(folder)).changed(0) == frozenset()
    assert not folder.exists()


def test_git_status_starts_as_subprocess_would_start_it(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # started without subprocess (os.posix_spawnp): SIGPIPE and SIGXFSZ at their defaults
    # (Python ignores them), no signal blocked, stdin and stderr on /dev/null, the lock-free
    # environment, and no descriptor of the caller's
    seen = tmp_path / "seen"
    slow_git(tmp_path, monkeypatch,
             f"readlink /proc/$$/fd/0 /proc/$$/fd/2 /proc/$$/fd/* > {seen}.fds\n"
             f"echo \"$GIT_OPTIONAL_LOCKS\" > {seen}.env\n"
             f"exec grep -E '^Sig(Ign|Blk)' /proc/self/status > {seen}.sig")
    with open(tmp_path / "held", "w"):  # (a descriptor of the caller's)
        assert GitChanges(str(repo), remember="").changed(30, give_up=False) == frozenset()
    masks = {line.split(":")[0]: int(line.split(":")[1], 16)
             for line in Path(f"{seen}.sig").read_text().splitlines()}
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        assert not masks["SigIgn"] & (1 << (sig - 1))
    assert masks["SigBlk"] == 0
    fds = Path(f"{seen}.fds").read_text().splitlines()
    assert fds[:2] == [os.devnull, os.devnull]
    assert str(tmp_path / "held") not in fds
    assert Path(f"{seen}.env").read_text() == "0\n"


def test_a_search_that_gives_up_kills_git_status(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    pid_file = tmp_path / "pid"
    slow_git(tmp_path, monkeypatch, f"echo $$ > {pid_file}.tmp; mv {pid_file}.tmp {pid_file};"
                                    " exec sleep 30")
    git = GitChanges(str(repo), remember="")
    for _ in range(3000):
        if pid_file.exists():
            break
        time.sleep(0.01)
    pid = int(pid_file.read_text())
    assert git.changed(0) == frozenset()  # gives up: killed
    assert git.changed(30, give_up=False) == frozenset()  # (its thread has reaped it)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
