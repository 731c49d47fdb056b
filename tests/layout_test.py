"""The package keeps its layout rules (``scripts/check_layout.py``), and the checker finds each
kind of breach in a small package made here."""

from __future__ import annotations

import importlib.util
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _checker() -> Callable[[Path], list[str]]:
    spec = importlib.util.spec_from_file_location("check_layout",
                                                  ROOT / "scripts" / "check_layout.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    findings: Callable[[Path], list[str]] = module.findings
    return findings


findings = _checker()

PYPROJECT = """\
[tool.ffind.layout]
max-function-lines = 80
max-class-lines = 400
layers = ["ffind.low", "ffind", "ffind.high"]
"""


def _package(root: Path, files: dict[str, str]) -> Path:
    """A package ``ffind`` under ``root`` with ``files`` (path -> source) and the layers
    ``ffind.low`` < ``ffind`` < ``ffind.high``; the root to check."""
    (root / "pyproject.toml").write_text(PYPROJECT)
    sources = {"ffind/__init__.py": "", "ffind/low/__init__.py": "", "ffind/high.py": "",
               **files}
    for rel, text in sources.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _function(name: str, lines: int) -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 2))
    return f"def {name}() -> None:\n{body}    return None\n"


def _class(name: str, lines: int) -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 1))
    return f"class {name}:\n{body}"


def test_the_package_keeps_its_layout() -> None:
    found = findings(ROOT)
    assert not found, "\n".join(found)


def test_a_clean_package_has_no_findings(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "ffind/low/a.py": _function("ok", 80) + _class("Fine", 400) + "_hidden = 1\n",
        "ffind/low/b.py": "from ffind.low import a\nfrom ffind.low.a import ok\n",
        "ffind/high.py": "import ffind.low.b\nfrom ffind import low\nfrom .low import a\n",
    })
    assert findings(root) == []


@pytest.mark.parametrize(("files", "expected"), [
    ({"ffind/low/a.py": _function("long", 81)},
     "ffind/low/a.py:1: function long has 81 lines (> 80)"),
    ({"ffind/low/a.py": "class Outer:\n" + textwrap.indent(_function("long", 81), "    ")},
     "ffind/low/a.py:2: function long has 81 lines (> 80)"),
    ({"ffind/low/a.py": _class("Big", 401)},
     "ffind/low/a.py:1: class Big has 401 lines (> 400)"),
    ({"ffind/low/a.py": "from ffind import high\n"},
     "ffind/low/a.py:1: ffind.low.a imports ffind.high, a layer above it"),
    ({"ffind/low/a.py": "def later() -> None:\n    from ffind.high import x\n"},
     "ffind/low/a.py:2: ffind.low.a imports ffind.high, a layer above it"),
    ({"ffind/low/a.py": "_x = 1\n", "ffind/high.py": "from ffind.low.a import _x\n"},
     "ffind/high.py:1: ffind.high takes the private name _x from ffind.low.a"),
    ({"ffind/low/a.py": "_x = 1\n", "ffind/high.py": "from ffind.low import a\nprint(a._x)\n"},
     "ffind/high.py:2: ffind.high uses the private name _x of ffind.low.a"),
    ({"ffind/low/a.py": "from ffind.low import b\n", "ffind/low/b.py": "from . import a\n"},
     "import cycle: ffind.low.a <-> ffind.low.b"),
])
def test_each_breach_is_found(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    assert findings(_package(tmp_path, files)) == [expected]
