"""The ffind command (PLACEHOLDER: replaced by issue 4)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        from ffind import __version__

        print(f"ffind {__version__}")
        return 0
    from ffind.index import match
    from ffind.walk import walk

    query = args[0] if args else ""
    found = match(query, walk("."), limit=64)
    for m in found:
        print(m.path)
    return 0 if found else 1
