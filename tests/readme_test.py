"""The README's first two commands are what users and CI run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```sh\n(.*?)\n```", text, re.S)[:2]


def test_readme_starts_with_install_and_test_commands() -> None:
    install, test = _readme_commands()
    assert install.startswith("pip install . && ffind ")
    assert test.startswith("pip install '.[test]' && ")
    assert "pip install ffind" not in (ROOT / "README.md").read_text()


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    _, test = _readme_commands()
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test in ci_lines
