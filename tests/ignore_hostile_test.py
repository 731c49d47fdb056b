"""Ignore files and globs as an attacker would write them: each run in a subprocess with a time
bound (and a memory bound), so a regression fails instead of hanging the suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ffind.fs.ignore.patterns import MAX_FILE_SIZE, read_lines

REPO = Path(__file__).resolve().parents[1]
_LIMIT_AS = 1 << 30  # bytes of address space for the child: a 10 GB read fails fast


def _limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (_LIMIT_AS, _LIMIT_AS))


def run(args: list[str], cwd: Path, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1",
           "XDG_CONFIG_HOME": str(cwd / ".xdg"), "XDG_STATE_HOME": str(cwd / ".state"),
           "XDG_CACHE_HOME": str(cwd / ".cache")}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limit, check=False)


def walk_cli(root: Path, *flags: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return run(["-m", "ffind", *flags, "-C", str(root)], root, timeout)


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", "--template=", str(path)], check=True)


@pytest.mark.parametrize("threads", ["1", "2"])
def test_ignore_symlink_to_dev_zero_is_skipped(tmp_path: Path, threads: str) -> None:
    (tmp_path / "a.txt").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("")
    os.symlink("/dev/zero", tmp_path / "sub" / ".ignore")
    proc = walk_cli(tmp_path, "--threads", threads)
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == ["a.txt", "sub/b.txt"]
    assert proc.stderr.count("not a regular file") == 1, proc.stderr


def test_ignore_fifo_does_not_block(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    os.mkfifo(tmp_path / ".ignore")
    git_init(tmp_path)
    os.mkfifo(tmp_path / ".gitignore")
    proc = walk_cli(tmp_path, "--threads", "1", timeout=20)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["a.txt"]
    assert proc.stderr.count("not a regular file") == 2, proc.stderr


def test_huge_ignore_file_is_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    (tmp_path / "b.log").write_text("")
    with open(tmp_path / ".ignore", "wb") as f:
        f.write(b"*.log\n")
        f.write(b"#" * (MAX_FILE_SIZE + 10))
    proc = walk_cli(tmp_path, "--threads", "1")
    assert sorted(proc.stdout.split()) == ["a.txt", "b.log"]  # the file is not read at all
    assert "larger than 10 MB" in proc.stderr


def test_unreadable_ignore_file_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root reads a mode-000 file, so the refusal is simulated at the open."""
    (tmp_path / ".ignore").write_text("*.log\n")
    real_open = os.open

    def refuse(path: str, *args: object, **kwargs: object) -> int:
        if str(path).endswith(".ignore"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    seen: list[str] = []
    assert read_lines(str(tmp_path / ".ignore"), seen.append) is None
    assert seen == [f"cannot read {tmp_path / '.ignore'}: Permission denied"]
    assert read_lines(str(tmp_path / "missing"), seen.append) is None
    assert len(seen) == 1  # a missing file is no news


def test_unreadable_ignore_file_warning_reaches_the_walk(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.txt").write_text("")
    os.symlink("/dev/null", tmp_path / "sub" / ".ignore")  # a character device
    from ffind import walk

    seen: list[str] = []
    assert list(walk(tmp_path, on_warning=seen.append)) == ["sub/x.txt"]
    assert seen == [f"ignoring {tmp_path / 'sub' / '.ignore'}: not a regular file"]


_BACKTRACK = "*a*a*a*a*a*a*b"


def test_backtracking_glob_in_gitignore(tmp_path: Path) -> None:
    git_init(tmp_path)
    (tmp_path / ".gitignore").write_text(_BACKTRACK + "\n" + "d/" + _BACKTRACK + "\n")
    (tmp_path / "d").mkdir()
    name = "a" * 250
    (tmp_path / name).write_text("")
    (tmp_path / "d" / name).write_text("")
    (tmp_path / "d" / (name[:-1] + "b")).write_text("")
    proc = walk_cli(tmp_path, "--threads", "1", timeout=20)
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == [name, f"d/{name}"]  # d/a...ab is ignored


def test_backtracking_exclude_glob_on_the_command_line(tmp_path: Path) -> None:
    name = "a" * 250
    (tmp_path / name).write_text("")
    (tmp_path / (name[:-1] + "b")).write_text("")
    proc = run(["-m", "ffind", "-l", "0", "-e", _BACKTRACK, "aaaa"], tmp_path, timeout=20)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [name]


def test_100k_line_gitignore_is_fast_and_small(tmp_path: Path) -> None:
    """git reads such a file in 0.02 s; ffind took 11 s and 350 MB compiling a regex a line."""
    git_init(tmp_path)
    lines = []
    for i in range(100_000):
        kind = i % 4
        lines.append((f"gen_{i}.txt", f"*.ext{i}", f"/out/part{i}/", f"cache{i}/")[kind])
    lines += ["!gen_7.txt", "*.tmp[0-9]"]
    (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
    for name in ("gen_4.txt", "gen_7.txt", "keep.txt", "x.ext1", "x.ext2", "a.tmp3",
                 "out/part2/f", "out/part3/f", "cache3/f", "cache4/f"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    code = (
        "import resource, sys, time\n"
        "from ffind import walk\n"
        "from ffind.options import SearchOptions\n"
        "t = time.perf_counter()\n"
        f"paths = sorted(walk({str(tmp_path)!r}, SearchOptions(threads=1)))\n"
        "took = time.perf_counter() - t\n"
        "rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024\n"
        "print(' '.join(paths)); print(took); print(rss)\n"
    )
    proc = run(["-c", code], tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    listed, took, rss = proc.stdout.splitlines()
    assert listed.split() == ["cache4/f", "gen_7.txt", "keep.txt", "out/part3/f", "x.ext2"]
    assert float(took) < 4.0, took  # about 0.5 s here
    assert int(rss) < 200, rss  # MB; about 90


def test_the_command_warns_and_still_finds(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".ignore")
    (tmp_path / "xa.txt").write_text("")
    proc = run(["-m", "ffind", "-l", "0", "xa"], tmp_path, timeout=20)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["xa.txt"]
    assert proc.stderr == "ffind: ignoring ./.ignore: not a regular file\n"
