"""Generate the shell completions and the man page from the live click command.

    python scripts/generate_docs.py          # (re)write completions/* and man/ffind.1
    python scripts/generate_docs.py --check  # exit 1 when a committed file differs

Both come from the one table of flags, ``ffind/frontends/flags.py`` (``FLAGS``), through the
click command built from it:

- ``completions/ffind.bash``, ``completions/_ffind`` (zsh), ``completions/ffind.fish``: click's
  own completion scripts, the text ``_FFIND_COMPLETE={bash,zsh,fish}_source ffind`` prints.
  They call ``ffind`` back with ``_FFIND_COMPLETE=..._complete`` to complete each word.  The
  fish script is corrected: click's splits each answer at every comma, which cut an option's
  description at its first comma (``--json (Print JSON lines: {score)``); it splits at the
  first comma only (``type,value<TAB>description``).
- ``man/ffind.1``: roff rendered from the command's help text, options (with their defaults,
  and which ones the picker ignores), examples and exit codes, like pipx's
  ``scripts/generate_man.py``.  No date in ``.TH``, so regenerating never drifts by itself.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

import click
from click.shell_completion import get_completion_class

from ffind import __version__
from ffind.frontends.cli import (
    EXAMPLES,
    EXIT_STATUS,
    HELP,
    INTEGRATION,
    INTEGRATION_NOTE,
    KEY_TABLE,
    MCP_NOTE,
    QUERY_SYNTAX,
    build_command,
)
from ffind.frontends.flags import FLAGS

BY_DEST = {flag.param: flag for flag in FLAGS}
"""Each row of the table by its click parameter name."""

ROOT = Path(__file__).resolve().parent.parent

COMPLETIONS = {"bash": "completions/ffind.bash", "zsh": "completions/_ffind",
               "fish": "completions/ffind.fish"}
MAN = "man/ffind.1"


ENVIRONMENT = [
    ("FFIND_DEFAULT_OPTS",
     "Default options, put before the command line's own, as fzf's FZF_DEFAULT_OPTS: shell "
     "words, options only (e.g. '-H -e \"*.min.js\"'). The command line's options come "
     "after them and win where an option takes one value (a switch cannot be turned off). "
     "Those that do not apply to the command are left out (--limit, --json, "
     "--compute-indices with -i; --height, --preview without). A value that is not "
     "options is an error (exit status 2). Not read by --remember, --forget and --version, "
     "nor by ffind mcp: an agent's tool calls take their options from the call."),
    ("FFIND_NO_SERVER",
     "Set (not empty, not 0): no resident index server is asked or started, as with "
     "--no-server, for good (ffind --stop-servers stops those running; docs/cache.md)."),
    ("FFIND_SERVER_IDLE",
     "Seconds a resident server waits for a request before it exits (by default 600 up to "
     "100,000 files, less above: 60 from 1M)."),
    ("FFIND_SERVER_FROM",
     "The fewest files a folder's listing needs for its resident server to stay (5000; 0: "
     "any size)."),
    ("FFIND_NO_WATCH",
     "Set (not empty, not 0): the resident server watches no folder (neither inotify nor "
     "fanotify): every request checks the time of every folder of the listing "
     "(docs/cache.md)."),
    ("FFIND_MEMORY",
     "The file of the memory of opened files, instead of "
     "$XDG_STATE_HOME/ffind/memory.sqlite3 (see FILES)."),
    ("FFIND_NO_MEMORY",
     "Set (not empty, not 0): rank without the memory, as with --no-memory; --remember and "
     "--forget then fail."),
    ("FFIND_HEIGHT",
     "The picker's --height in the shell bindings (default 40%; see SHELL AND EDITOR "
     "INTEGRATION)."),
    ("FFIND_PREVIEW_COLUMNS, FFIND_PREVIEW_LINES",
     "Set for the --preview command: the size of the area it draws in (also COLUMNS and "
     "LINES)."),
    ("NO_COLOR",
     "When set to a non-empty value, --color auto does not colour (https://no-color.org)."),
    ("XDG_CACHE_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR",
     "Where ffind keeps its files (see FILES); an unset or relative one is ignored."),
]
"""The man page's ENVIRONMENT section: every variable the command reads (``docs_test``
checks that each ``FFIND_`` name in the package is here)."""

FILES = [
    ("$XDG_CACHE_HOME/ffind/",
     "The warm index's snapshots, one <hash>.snapshot per folder and listing options "
     "(~/.cache/ffind/ when XDG_CACHE_HOME is unset), at most 200 MB: the least recently "
     "used go first; a snapshot is read only when it and the folder are the user's own and "
     "no one else may write them, and its checksum holds (else the search walks). "
     "--clear-cache empties it."),
    ("$XDG_STATE_HOME/ffind/memory.sqlite3",
     "The memory of opened files (~/.local/state/ffind/ when XDG_STATE_HOME is unset; "
     "FFIND_MEMORY names another file): the remembered paths with their visit counts, and "
     "the pairs of files opened within five minutes of each other; a file written before "
     "pairs were kept gains their table when next written, every visit kept. SQLite's "
     "-wal and -shm files are beside it; a "
     "damaged one is moved aside as memory.sqlite3.corrupt-<time>; one that is not the "
     "user's own, or in a folder others may write, is not used. --forget edits it."),
    ("$XDG_RUNTIME_DIR/ffind/",
     "The resident servers' sockets, <hash>.sock, each with its lock file <hash>.lock "
     "($XDG_CACHE_HOME/ffind/run/ when XDG_RUNTIME_DIR is unset). A server exits after "
     "FFIND_SERVER_IDLE seconds without a request; ffind --servers lists them, "
     "--stop-servers (or --clear-cache) stops them all."),
]
"""The man page's FILES section (``ffind.state.paths``, ``ffind.state.cache``,
``ffind.state.memory``, ``ffind.resident.protocol``)."""

FISH_SPLIT = 'string split "," $completion'
"""click's fish script splits an answer at every comma (click 8)."""
FISH_SPLIT_FIRST = 'string split --max 1 "," -- $completion'


def completion(shell: str) -> str:
    cls = get_completion_class(shell)
    assert cls is not None, shell
    text = cls(build_command(), {}, "ffind", "_FFIND_COMPLETE").source()
    if shell == "fish":
        assert FISH_SPLIT in text, "click's fish script changed: check the comma fix"
        text = text.replace(FISH_SPLIT, FISH_SPLIT_FIRST)
    return text if text.endswith("\n") else text + "\n"


def roff(text: str) -> str:
    """Escape plain text for roff: backslashes, hyphens, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + ln if ln.startswith((".", "'")) else ln for ln in text.split("\n"))


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def man_page() -> str:
    cmd = build_command()
    ctx = click.Context(cmd, info_name="ffind")
    out = [
        f'.TH FFIND 1 "" "ffind {__version__}" "User Commands"',
        ".SH NAME",
        "ffind \\- a fuzzy file finder for the terminal, for scripts and for AI agents",
        ".SH SYNOPSIS",
        ".B ffind",
        "[\\fIOPTIONS\\fR] [\\fIPATTERN\\fR]",
        ".br",
        ".B ffind mcp",
        "[\\fIOPTIONS\\fR]",
        ".SH DESCRIPTION",
    ]
    for i, para in enumerate(_paragraphs(HELP)):
        if i:
            out.append(".PP")
        out.append(roff(para))
    out.append(".PP")
    out.append(roff(MCP_NOTE.replace("`", "")))
    out.append(".SH PATTERN SYNTAX")
    out.append(roff("PATTERN is one or more terms separated by spaces; a path must match "
                    "every term, in any order. A backslash escapes a space (foo\\ bar is one "
                    "term). A term with a capital letter is case-sensitive, unless that finds "
                    "nothing. The terms are fzf's:"))
    out += _entries(QUERY_SYNTAX)
    out.append(".SH OPTIONS")
    for param in cmd.get_params(ctx):
        if not isinstance(param, click.Option):
            continue  # PATTERN is in the synopsis and the description
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        flag = BY_DEST.get(param.name or "")
        if flag is not None and not flag.picker:
            note = "  Not used by the picker (-i)."
            at = help_text.find("  [")
            help_text = help_text + note if at < 0 else help_text[:at] + note + help_text[at:]
        out.append(".TP")
        out.append(", ".join(f"\\fB{roff(n.split(' ')[0])}\\fR"
                             + (f" \\fI{roff(n.split(' ', 1)[1])}\\fR" if " " in n else "")
                             for n in names.split(", ")))
        out.append(roff(" ".join(help_text.split())))
    out.append(".SH EXIT STATUS")
    out += _entries((int(code), what) for code, what in EXIT_STATUS)
    out += [".SH ENVIRONMENT", *_entries(ENVIRONMENT, capitalise=False)]
    out += [".SH FILES", *_entries(FILES, capitalise=False)]
    out += _integration()
    out.append(".SH EXAMPLES")
    out += _entries(EXAMPLES)
    out += [".SH SEE ALSO", "\\fBfd\\fR(1), \\fBfzf\\fR(1)", ""]
    return "\n".join(out)


def _integration() -> list[str]:
    """The "Shell and editor integration" section and the picker's keys."""
    return [".SH SHELL AND EDITOR INTEGRATION", *_entries(INTEGRATION),
            ".PP", roff(INTEGRATION_NOTE), ".SH PICKER KEYS", *_entries(KEY_TABLE)]


def _entries(pairs: Iterable[tuple[object, str]], capitalise: bool = True) -> list[str]:
    """A ``.TP`` entry for each (term, sentence): the term bold, the sentence capitalised and
    ended with a full stop (``capitalise=False``: as written)."""
    out = []
    for term, what in pairs:
        if capitalise:
            what = what[:1].upper() + what[1:] + "."
        out += [".TP", f"\\fB{roff(str(term))}\\fR", roff(what)]
    return out


def generated() -> dict[str, str]:
    files = {path: completion(shell) for shell, path in COMPLETIONS.items()}
    files[MAN] = man_page()
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate completions and the man page.")
    ap.add_argument("--check", action="store_true", help="fail when committed files differ")
    args = ap.parse_args(argv)
    stale = []
    for rel, text in generated().items():
        path = ROOT / rel
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        stale.append(rel)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if args.check and stale:
        print(f"out of date: {', '.join(stale)}; run python scripts/generate_docs.py",
              file=sys.stderr)
        return 1
    for rel in stale:
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
