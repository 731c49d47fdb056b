"""The README's first two commands are what users and CI run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import need

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.*?)\n```", text, re.S)[:2]


def test_readme_starts_with_install_and_test_commands() -> None:
    install, test = _readme_commands()
    assert install.startswith("pip install . && ffind ")
    assert test.startswith("pip install '.[test]' && ")
    # The registry's "ffind" is an unrelated project: no command block may install it.
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:sh|console|bash)?\n(.*?)\n```", readme, re.S)
    assert not any(re.search(r"pip install ffind\b", b) for b in blocks)


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    _, test = _readme_commands()
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test in ci_lines


def test_public_api_resolves() -> None:
    import ffind

    for name in ffind.__all__:
        assert getattr(ffind, name) is not None, name
    assert callable(ffind.walk) and callable(ffind.match) and callable(ffind.search)


def test_public_names_are_functions_not_modules() -> None:
    import ffind
    import ffind.fs.walk
    import ffind.scoring.scorer

    assert ffind.walk is ffind.fs.walk.walk
    assert ffind.match is ffind.engine.index.match
    assert [m.path for m in ffind.match("ab", ["x/ab.rs", "c.txt"])] == ["x/ab.rs"]


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)\n```", text, re.S)


def _run_block(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    for var in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        env[var] = str(cwd.parent / var.lower())
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


def test_readme_python_examples_run(tmp_path: Path) -> None:
    """Every Python block of the README runs as it is, in a folder with a few files."""
    tree = tmp_path / "project"
    for rel in ["src/session/prompt.ts", "src/session/prompt_test.ts", "docs/guide.md",
                "aider/coders/base_coder.py"]:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text("")
    blocks = _python_blocks((ROOT / "README.md").read_text())
    assert len(blocks) >= 2, "the README shows the library and the agent tool in one example each"
    for code in blocks:
        proc = _run_block(code, tree)
        assert proc.returncode == 0, (code, proc.stderr)
        assert "src/session/prompt.ts" in proc.stdout, (code, proc.stdout)


def test_readme_is_short() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 300


def test_the_readme_and_usage_jq_examples_print_only_paths(tmp_path: Path) -> None:
    """``ffind --json`` ends a cut answer with ``{"matches_truncated": ...}``: the examples
    that pipe it to ``jq`` must still print paths only, as printed in the docs."""
    need("jq")
    for i in range(80):  # (more than the default limit: the closing line is written)
        (tmp_path / f"prom{i}.txt").write_text("")
    lines = [line.split("  #")[0].strip()
             for doc in ("README.md", "docs/usage.md")
             for line in (ROOT / doc).read_text().splitlines()
             if line.startswith("ffind --json") and "| jq" in line]
    assert len(lines) == 3, lines
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    for line in lines:
        out = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True,
                             text=True, check=True).stdout.splitlines()
        assert out and "null" not in out and all("prom" in o for o in out), (line, out)
