"""The ``ffind`` command: flags -> one SearchOptions -> search / picker / MCP; errors -> exit code.

``main(argv)`` never raises for a user error: ``FfindError`` and click's usage errors become one
line ``ffind: ...`` on stderr and exit status 2; Ctrl-C exits 130; a closed pipe
(``ffind x | head -1``) exits quietly.  click is imported only when the command line has to be
parsed, so ``ffind --version`` starts as fast as the interpreter does.
"""

from __future__ import annotations

import contextlib
import os
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ffind import __version__
from ffind.errors import ExitCode, FfindError
from ffind.options import DEFAULT_LIMIT, DEFAULT_THREADS, SearchOptions

if TYPE_CHECKING:
    import click

HELP = """Find files by fuzzy PATTERN below the current folder (or --cwd), best match first.

Without PATTERN, list every file that would be searched, in path order.
Ignore files (.gitignore, .ignore, .git/info/exclude) and hidden files are skipped unless
-I / -H say otherwise."""

EXAMPLES: list[tuple[str, str]] = [
    ("ffind prom", 'the best 64 paths matching "prom"'),
    ("ffind -l1 base_cod", "only the best one"),
    ('vim "$(ffind -l1 base_cod)"', "open it in an editor"),
    ("ffind --json prom | jq -r .path", "JSON lines for scripts"),
    ("ffind -0 test | xargs -0 wc -l", "NUL-separated, safe for any file name"),
    ("git ls-files | ffind --stdin prom", "match paths from another command"),
    ("ffind -i", "pick interactively"),
    ("git ls-files | ffind --stdin -i", "pick among another command's paths"),
]
EXIT_STATUS: list[tuple[int, str]] = [
    (ExitCode.FOUND, "something was found"),
    (ExitCode.NOT_FOUND, "nothing was found"),
    (ExitCode.ERROR, "an error (bad flag, missing --cwd, invalid glob)"),
    (ExitCode.INTERRUPTED, "interrupted (Ctrl-C)"),
]
MCP_NOTE = "`ffind mcp` serves the find_files tool to AI agents over MCP (stdio)."

# --- Shell and editor integration (issue 16): the text of the help section, the picker's keys.
INTEGRATION: list[tuple[str, str]] = [
    ('eval "$(ffind --bash)"', "in ~/.bashrc: CTRL-T, ALT-C and **<TAB> for bash"),
    ("source <(ffind --zsh)", "in ~/.zshrc: the same for zsh"),
    ("ffind --fish | source", "in config.fish: the same for fish"),
]
INTEGRATION_NOTE = (
    "CTRL-T inserts the picked path(s) at the cursor, ALT-C cd's into a picked folder, "
    "COMMAND **<TAB> picks a path for any command (cd **<TAB>: a folder). "
    "FFIND_CTRL_T_KEY, FFIND_ALT_C_KEY, FFIND_COMPLETION_TRIGGER (empty: off) and "
    "FFIND_CTRL_T_OPTS, FFIND_ALT_C_OPTS, FFIND_COMPLETION_OPTS change them; see docs/shell.md "
    "(also for the Neovim, Vim and Emacs plugins in editors/)."
)
KEY_TABLE: list[tuple[str, str]] = [
    ("typing, Backspace, Del / Ctrl-D", "edit the query at the cursor"),
    ("Left/Right, Ctrl-B/Ctrl-F", "move the cursor by a character"),
    ("Alt-B/Alt-F", "move the cursor by a word (path parts)"),
    ("Ctrl-A/Ctrl-E", "cursor to the start / end of the query"),
    ("Ctrl-U, Ctrl-W, Alt-Backspace", "delete before the cursor: all, a word, a path part"),
    ("Up/Down, Ctrl-K/Ctrl-J, Ctrl-P/Ctrl-N", "move in the list"),
    ("PageUp/PageDown, Home/End", "move by a page / to the ends of the list"),
    ("mouse wheel, click", "scroll, select a line"),
    ("Tab / Shift-Tab", "mark (several picks) and move down / up"),
    ("Enter", "print the marked paths, or the selected one"),
    ("Alt-P or ?", "show / hide the preview (with --preview)"),
    ("Esc, Ctrl-C, Ctrl-G", "quit without picking (exit 130)"),
]
"""The picker's keys as documented (``ffind -h``, ``docs/shell.md``; they are read in
``ffind.frontends.picker.keys``)."""
PICKER_ONLY = ("height", "preview")
"""Flags that only mean something to the picker (-i)."""
NOT_IN_PICKER = {"json_output": "--json", "compute_indices": "--compute-indices",
                 "limit": "--limit"}
"""Flags that mean nothing to the picker: given with -i they are an error, not ignored."""


def _epilog() -> str:
    width = max(len(cmd) for cmd, _ in EXAMPLES) + 2
    examples = "\n".join(f"  {cmd:<{width}}{what}" for cmd, what in EXAMPLES)
    codes = "0 found, 1 nothing found, 2 error, 130 interrupted"
    return (f"\b\nExamples:\n{examples}\n\nExit status: {codes}.\n\n{MCP_NOTE}\n\n"
            f"{_integration_help()}")


def _integration_help() -> str:
    """The "Shell and editor integration" section of ``ffind -h``, with the picker's keys."""
    width = max(len(cmd) for cmd, _ in INTEGRATION) + 2
    setup = "\n".join(f"  {cmd:<{width}}{what}" for cmd, what in INTEGRATION)
    kwidth = max(len(k) for k, _ in KEY_TABLE) + 2
    keys = "\n".join(f"  {k:<{kwidth}}{what}" for k, what in KEY_TABLE)
    note = textwrap.fill(INTEGRATION_NOTE, width=96, initial_indent="  ",
                         subsequent_indent="  ")
    return (f"\b\nShell and editor integration:\n{setup}\n{note}\n\n"
            f"\b\nPicker keys (-i):\n{keys}")


TYPE_NAMES = {"f": "f", "file": "f", "d": "d", "dir": "d", "directory": "d"}


@dataclass(frozen=True)
class Invocation:
    """What the command line asks for, once parsed."""

    pattern: str
    root: str
    options: SearchOptions
    json: bool = False
    print0: bool = False
    color: str = "auto"
    stdin: bool = False
    interactive: bool = False
    height: str | None = None
    preview: str | None = None
    shell: str | None = None


def _types(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    import click

    out: list[str] = []
    for v in value:
        t = TYPE_NAMES.get(v.lower())
        if t is None:
            raise click.BadParameter(f"{v!r} is not one of f (file), d (directory)")
        if t not in out:
            out.append(t)
    return tuple(out) or ("f",)


def build_command() -> click.Command:
    """The click command (also what scripts/generate_docs.py renders)."""
    import click

    @click.command(
        name="ffind", help=HELP, epilog=_epilog(),
        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    )
    @click.argument("pattern", required=False, default="")
    @click.option("--json", "json_output", is_flag=True,
                  help="Print JSON lines: {score, path[, indices, typo]} per match.")
    @click.option("-l", "--limit", type=click.IntRange(min=0), default=DEFAULT_LIMIT,
                  show_default=True, metavar="N", help="Show at most N matches; 0 = no limit.")
    @click.option("-C", "--cwd", type=click.Path(file_okay=False), default=".",
                  show_default=True, metavar="DIR", help="Search below DIR instead of here.")
    @click.option("--compute-indices", is_flag=True,
                  help="Compute the matched character positions (JSON 'indices').")
    @click.option("-e", "--exclude", multiple=True, metavar="GLOB",
                  help="Exclude paths matching the gitignore-style GLOB (repeatable).")
    @click.option("--threads", type=click.IntRange(min=1), default=DEFAULT_THREADS,
                  show_default=True, metavar="N", help="Walk with N worker processes.")
    @click.option("-H", "--hidden", is_flag=True, help="Include hidden files and folders.")
    @click.option("-I", "--no-ignore", is_flag=True,
                  help="Do not honour .gitignore, .ignore or the default exclusions.")
    @click.option("-L", "--follow", is_flag=True, help="Follow symbolic links to folders.")
    @click.option("-t", "--type", "types", multiple=True, callback=_types, metavar="f|d",
                  help="List files (f) or directories (d); repeatable.  [default: f]")
    @click.option("-d", "--max-depth", type=click.IntRange(min=0), default=None, metavar="N",
                  help="Descend at most N levels (1 = DIR's own entries); no limit by default.")
    @click.option("-0", "--print0", is_flag=True,
                  help="End each path with NUL instead of newline (for xargs -0).")
    @click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto",
                  show_default=True,
                  help="Highlight matches (in the picker too); auto = on a terminal, no NO_COLOR.")
    @click.option("--no-require-git", is_flag=True,
                  help="Honour .gitignore files outside git repositories too.")
    @click.option("--stdin", "read_stdin", is_flag=True,
                  help="Match the paths read from standard input instead of walking.")
    @click.option("-i", "--interactive", is_flag=True,
                  help="Open the interactive picker; print the chosen path(s).")
    # --- Shell and editor integration (issue 16): one block, to move into the flags table.
    @click.option("--height", metavar="N[%]", default=None,
                  help="With -i: draw inline below the cursor in N rows or N% of the terminal "
                       "instead of full screen (the shell bindings use 40%).")
    @click.option("--preview", is_flag=False, flag_value="", default=None, metavar="[CMD]",
                  help="With -i: show the selected file or folder beside the list; with CMD, "
                       "its output ({} = the path, quoted). ALT-P or ? toggles it.")
    @click.option("--bash", "shell", flag_value="bash", default=None,
                  help='Print the bash key bindings and **<TAB> completion: '
                       'eval "$(ffind --bash)".')
    @click.option("--zsh", "shell", flag_value="zsh",
                  help="Print the zsh key bindings and **<TAB> completion: "
                       "source <(ffind --zsh).")
    @click.option("--fish", "shell", flag_value="fish",
                  help="Print the fish key bindings and **<TAB> completion: "
                       "ffind --fish | source.")
    # --- end of the integration block
    @click.version_option(__version__, "--version", prog_name="ffind",
                          message="%(prog)s %(version)s", help="Show the version and exit.")
    def command(
        pattern: str, json_output: bool, limit: int, cwd: str, compute_indices: bool,
        exclude: tuple[str, ...], threads: int, hidden: bool, no_ignore: bool, follow: bool,
        types: tuple[str, ...], max_depth: int | None, print0: bool, color: str,
        no_require_git: bool, read_stdin: bool, interactive: bool,
        height: str | None, preview: str | None, shell: str | None,
    ) -> Invocation:
        if json_output and print0:
            raise click.UsageError("--json and --print0 cannot be used together")
        _check_picker_flags(click.get_current_context(), interactive)
        options = SearchOptions(
            hidden=hidden, respect_ignore=not no_ignore, exclude=tuple(exclude),
            follow_links=follow, threads=threads, types=types, max_depth=max_depth,
            require_git=not no_require_git, limit=limit or None,
            compute_indices=compute_indices,
        )
        return Invocation(pattern=pattern, root=cwd, options=options, json=json_output,
                          print0=print0, color=color, stdin=read_stdin, interactive=interactive,
                          height=height, preview=preview, shell=shell)

    return command


def _check_picker_flags(ctx: click.Context, interactive: bool) -> None:
    """Flags given that the picker ignores (with -i), or that only the picker reads (without)."""
    import click

    given = {name for name in ctx.params
             if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE}
    if interactive:
        for name, flag in NOT_IN_PICKER.items():
            if name in given:
                raise click.UsageError(f"{flag} does not apply to the picker (-i)")
    else:
        for name in PICKER_ONLY:
            if name in given:
                raise click.UsageError(f"--{name} only applies to the picker (-i)")


def _error(message: str) -> None:
    sys.stderr.write(f"ffind: {' '.join(message.split())}\n")
    sys.stderr.flush()


def _stdin_paths() -> Iterator[str]:
    for line in sys.stdin.buffer:
        line = line.rstrip(b"\r\n")
        if line:
            yield os.fsdecode(line)


def run(inv: Invocation, *, exit_fast: bool = False) -> int:
    """Run a parsed command line; user errors raise FfindError.

    ``exit_fast``: end the process with ``os._exit`` as soon as the picker is done or a search
    has written its results (the console script does; ``main(argv)`` called in-process does
    not).
    """
    from ffind.frontends import output

    if inv.shell is not None:
        from ffind.frontends.shell import script

        remember = any("--remember" in getattr(p, "opts", ()) for p in build_command().params)
        sys.stdout.write(script(inv.shell, remember=remember))
        sys.stdout.flush()
        return ExitCode.FOUND
    if inv.interactive:
        from ffind.frontends.picker import Height, run_picker

        # The candidates are read before the picker takes the terminal (it draws on /dev/tty,
        # so stdin may be a pipe); Ctrl-C while they are read still exits 130.
        height = None if inv.height is None else Height.parse(inv.height)
        paths = list(_stdin_paths()) if inv.stdin else None
        color = output.use_color(inv.color, isatty=True)  # the picker draws on a terminal
        return run_picker(inv.pattern, [inv.root], inv.options, print0=inv.print0,
                          paths=paths, color=color, on_done=_exit_now if exit_fast else None,
                          height=height, preview=inv.preview)

    stdout = sys.stdout.buffer
    on_tty = sys.stdout.isatty()
    options = inv.options
    style = None if inv.json else output.highlight_style(
        inv.color, on_tty, compute_indices=options.compute_indices)
    if style and inv.pattern and not options.compute_indices:
        from dataclasses import replace

        options = replace(options, compute_indices=True)

    if inv.stdin:
        from ffind.searching.oneshot import search_paths

        results = search_paths(inv.pattern, _stdin_paths(), options, eager_count=inv.json)
    else:
        from ffind.searching.oneshot import search

        results = search(inv.pattern, inv.root, options, on_warning=_error,
                         eager_count=inv.json)

    matches = results.matches
    if inv.json:
        data = output.format_json(matches, total_match_count=results.total_match_count,
                                  limit=options.limit, compute_indices=inv.options.compute_indices)
    else:
        data = output.format_plain(matches, print0=inv.print0, style=style, escape=on_tty)
    output.write(stdout, data)
    shown = len(matches)
    # The count is only read when the limit may have cut (it may cost a pass over the names).
    if (not inv.json and options.limit is not None and shown == options.limit
            and sys.stderr.isatty() and results.total_match_count > shown):
        _error(f"showing {shown} of {results.total_match_count} matches; use --limit")
    code = ExitCode.FOUND if matches else ExitCode.NOT_FOUND
    if exit_fast:
        _exit_now(code)  # the walk is over and reaped: skip freeing the index and the heap
    return code


def _parse(args: list[str]) -> Invocation | int:
    import click

    try:
        rv = build_command().main(args=args, prog_name="ffind", standalone_mode=False)
    except click.exceptions.Abort:
        return ExitCode.INTERRUPTED
    except click.ClickException as e:
        _error(e.format_message())
        return ExitCode.ERROR
    if isinstance(rv, Invocation):
        return rv
    return int(rv or 0)  # --help / --version: click printed it


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ffind`` console script and ``python -m ffind``."""
    args = sys.argv[1:] if argv is None else list(argv)
    return int(_main(args, exit_fast=argv is None))


def _exit_now(code: int) -> None:
    """Flush and end the process without the interpreter's teardown.

    Used after the picker (its ``on_done``: its session is closed, the walk's workers have been
    waited for, the selection is written and the terminal restored) and after a one-shot search
    has written its results (its walk is over and reaped); what is left is freeing the index
    and the rest of the heap: ~0.1-0.7 s for a million paths in the picker, 10-20 ms after a
    search of 100k files.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _main(args: list[str], exit_fast: bool = False) -> int:
    try:
        if args == ["--version"]:  # the common case, answered without importing click
            sys.stdout.write(f"ffind {__version__}\n")
            sys.stdout.flush()
            return ExitCode.FOUND
        if args and args[0] == "mcp":
            from ffind.agent.tool import mcp_main

            return mcp_main(args[1:])
        inv = _parse(args)
        if isinstance(inv, int):
            return inv
        return run(inv, exit_fast=exit_fast)
    except FfindError as e:
        _error(str(e))
        return ExitCode.ERROR
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return ExitCode.FOUND
