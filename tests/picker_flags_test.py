"""The command's integration flags, run as a subprocess: the shell scripts, and the flags that
do not apply to the picker (or only to it) refused with one line and exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ffind(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ffind", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=60, stdin=subprocess.DEVNULL,
                          start_new_session=True)  # no controlling terminal


@pytest.mark.parametrize(("args", "message"), [
    (["-i", "--json"], "ffind: --json does not apply to the picker (-i)"),
    (["-i", "--compute-indices"], "ffind: --compute-indices does not apply to the picker (-i)"),
    (["-i", "-l", "5"], "ffind: --limit does not apply to the picker (-i)"),
    (["--height", "10", "x"], "ffind: --height only applies to the picker (-i)"),
    (["--preview=cat {}"], "ffind: --preview only applies to the picker (-i)"),
    (["-i", "--height", "abc"],
     "ffind: --height: 'abc' is not N (rows) or N% (1-100) of the terminal"),
])
def test_flags_that_do_not_apply_are_an_error(tmp_path: Path, args: list[str],
                                              message: str) -> None:
    proc = _ffind(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == message + "\n"
    assert proc.stdout == ""


@pytest.mark.parametrize(("flag", "check"), [
    ("--bash", ["bash", "-n"]), ("--zsh", ["zsh", "-n"]), ("--fish", ["fish", "-n"]),
])
def test_shell_scripts_are_printed_and_parse(tmp_path: Path, flag: str,
                                             check: list[str]) -> None:
    proc = _ffind(flag, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "ffind -i -0 --height" in proc.stdout
    script = tmp_path / "script"
    script.write_text(proc.stdout)
    parsed = subprocess.run([*check, str(script)], capture_output=True, text=True, timeout=60)
    assert parsed.returncode == 0, parsed.stderr


def test_help_has_the_integration_section_and_the_keys(tmp_path: Path) -> None:
    out = _ffind("-h", cwd=tmp_path).stdout
    assert "Shell and editor integration:" in out
    assert 'eval "$(ffind --bash)"' in out
    assert "Picker keys (-i):" in out and "Alt-B/Alt-F" in out
