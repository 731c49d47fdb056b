"""Check the package's layout rules: unit sizes, layers, cycles and private names.

    python scripts/check_layout.py            # every finding, one a line; exit 1 if any

The limits and the order of the layers are read from ``[tool.ffind.layout]`` in
``pyproject.toml``. An import counts wherever it stands (a function's body, a
``TYPE_CHECKING`` block): the rule is about what a module knows of, not when it loads it.
``tests/layout_test.py`` runs the same checks in the suite.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def settings(root: Path = ROOT) -> dict[str, object]:
    with open(root / "pyproject.toml", "rb") as f:
        return dict(tomllib.load(f)["tool"]["ffind"]["layout"])


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted((root / "ffind").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, tree: ast.Module, known: dict[str, Path]) -> Iterator[tuple[str, str, int]]:
    """(module imported, name taken or "", line) for each import of a package module."""
    package = name if known[name].name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known:
                    yield full, "", node.lineno
                elif base in known:
                    yield base, alias.name, node.lineno


def layer(name: str, order: list[str]) -> int:
    """The index of the longest prefix of ``name`` in ``order`` (exact names or packages)."""
    best, rank = -1, -1
    for i, prefix in enumerate(order):
        if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
            best, rank = len(prefix), i
    if rank < 0:
        raise SystemExit(f"check_layout: {name} is in no layer of [tool.ffind.layout]")
    return rank


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def sizes(rel: Path, tree: ast.Module, max_function: int, max_class: int) -> Iterator[str]:
    """A finding for each function or class of ``tree`` longer than its limit."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            kind, limit = ("class", max_class) if isinstance(node, ast.ClassDef) else (
                "function", max_function)
            if size > limit:
                yield f"{rel}:{node.lineno}: {kind} {node.name} has {size} lines (> {limit})"


def findings(root: Path = ROOT) -> list[str]:
    conf = settings(root)
    max_function = int(conf["max-function-lines"])  # type: ignore[call-overload]
    max_class = int(conf["max-class-lines"])  # type: ignore[call-overload]
    order = list(conf["layers"])  # type: ignore[call-overload]
    known = modules(root)
    out: list[str] = []
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        rel = path.relative_to(root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out.extend(sizes(rel, tree, max_function, max_class))
        mine = layer(name, order)
        aliases: dict[str, str] = {}
        for target, taken, line in imports(name, tree, known):
            if target == name:
                continue
            graph.setdefault(name, set()).add(target)
            if layer(target, order) > mine:
                out.append(f"{rel}:{line}: {name} imports {target}, a layer above it")
            if taken.startswith("_") and not taken.startswith("__"):
                out.append(f"{rel}:{line}: {name} takes the private name {taken} from {target}")
            if not taken:
                aliases[target.rpartition(".")[2]] = target
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                out.append(f"{rel}:{node.lineno}: {name} uses the private name "
                           f"{node.attr} of {aliases[node.value.id]}")
    for part in cycles(graph):
        out.append(f"import cycle: {' <-> '.join(part)}")
    return out


def main() -> int:
    found = findings()
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
