"""The ``ffind`` command: flags -> one SearchOptions -> search / picker / MCP; errors -> exit code
(one line ``ffind: ...`` and 2; Ctrl-C 130; a closed pipe quietly).  click is imported only for
what ``fastparse`` leaves to it (``--help``, errors, unusual command lines)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping

from ffind import __version__
from ffind.errors import EXIT_MEANING, ExitCode, FfindError
from ffind.frontends import output
from ffind.frontends.exits import exit_now
from ffind.frontends.flags import FLAGS, Flag, command_limit, split_values
from ffind.frozen import replace
from ffind.options import SearchOptions

TYPE_CHECKING = False  # (not typing's: a search does not import it, nor dataclasses)
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Protocol

    import click

    from ffind.scoring.scorer import FileMatch
    from ffind.searching import oneshot

    class Started(oneshot.Started, Protocol):
        """The walk the console script started (``ffind.frontends.early``)."""

        invocation: Invocation
    from ffind.state.memory import Memory
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass

HELP = """Find files by fuzzy PATTERN below the current folder (or --cwd), best match first.

Without PATTERN, list every file that would be searched, in path order.
Ignore files (.gitignore, .ignore, .git/info/exclude) and hidden files are skipped unless
-I / -H say otherwise."""

EXAMPLES: list[tuple[str, str]] = [
    ("ffind prom", 'the best 64 paths matching "prom"'),
    ("ffind -l1 base_cod", "only the best one"),
    ('vim "$(ffind -l1 base_cod)"', "open it in an editor"),
    ("ffind --json prom | jq -r '.path // empty'", "JSON lines for scripts"),
    ("ffind -0 -l0 test | xargs -0 wc -l", "every match (-l0: no limit), NUL-separated"),
    ("ffind | wc -l", "count every file that would be searched (no limit without PATTERN)"),
    ("git ls-files | ffind --stdin prom", "match paths from another command"),
    ("ffind -i", "pick interactively"),
    ("git ls-files | ffind --stdin -i", "pick among another command's paths"),
]
QUERY_SYNTAX: list[tuple[str, str]] = [
    ("foo", "fuzzy: f, o, o in this order (prom finds src/session/prompt.ts)"),
    ("'foo", "exact: contains foo"),
    ("'foo'", "exact at word boundaries: foo with no letter or digit on either side "
              "(-foo-, /foo/, _foo_, not afoob)"),
    ("^foo, foo$", "starts / ends with foo (whitespace around the path is skipped)"),
    ("^foo$", "is exactly foo"),
    ("!foo, !^foo, !foo$", "does not contain / start with / end with foo"),
    ("!'foo", "does not match foo fuzzily"),
    ("a | b", "either a or b, of any kinds (^core go$ | rb$ | py$); the group scores as its best "
              "alternative, and a trailing | is ignored"),
]
"""fzf's extended syntax, term by term (space = AND), for the man page and docs/usage.md."""
EXIT_STATUS: list[tuple[int, str]] = [(code, long) for code, (_, long) in EXIT_MEANING.items()]
MCP_NOTE = "`ffind mcp` serves the find_files tool to AI agents over MCP (stdio)."

# --- Shell and editor integration: the text of the help section, the picker's keys.
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
    ("Alt-D", "delete the word after the cursor"),
    ("Up/Down, Ctrl-K/Ctrl-J, Ctrl-P/Ctrl-N", "move in the list"),
    ("PageUp/PageDown, Home/End", "move by a page / to the ends of the list"),
    ("mouse wheel, click", "scroll, select a line"),
    ("Tab / Shift-Tab", "mark (several picks) and move down / up"),
    ("Enter", "print the marked paths, or the selected one"),
    ("Alt-P or ?", "show / hide the preview (with --preview)"),
    ("Ctrl-L", "redraw the screen"),
    ("Esc, Ctrl-C, Ctrl-G, Ctrl-Q", "quit without picking (exit 130)"),
]
"""The picker's keys as documented (``ffind -h``, ``docs/shell.md``; they are read in
``ffind.frontends.picker.keys``)."""


def _epilog() -> str:
    width = max(len(cmd) for cmd, _ in EXAMPLES) + 2
    examples = "\n".join(f"  {cmd:<{width}}{what}" for cmd, what in EXAMPLES)
    codes = ", ".join(f"{int(code)} {short}" for code, (short, _) in EXIT_MEANING.items())
    return (f"\b\nExamples:\n{examples}\n\nExit status: {codes}.\n\n{MCP_NOTE}\n\n"
            f"{_integration_help()}")


def _integration_help() -> str:
    """The "Shell and editor integration" section of ``ffind -h``, with the picker's keys."""
    import textwrap

    width = max(len(cmd) for cmd, _ in INTEGRATION) + 2
    setup = "\n".join(f"  {cmd:<{width}}{what}" for cmd, what in INTEGRATION)
    kwidth = max(len(k) for k, _ in KEY_TABLE) + 2
    keys = "\n".join(f"  {k:<{kwidth}}{what}" for k, what in KEY_TABLE)
    note = textwrap.fill(INTEGRATION_NOTE, width=96, initial_indent="  ",
                         subsequent_indent="  ")
    return (f"\b\nShell and editor integration:\n{setup}\n{note}\n\n"
            f"\b\nPicker keys (-i):\n{keys}")


@dataclass(frozen=True, slots=True)
class Invocation:
    """What the command line asks for, once parsed (the ``target="invocation"`` flags)."""

    pattern: str
    root: str
    options: SearchOptions
    json: bool = False
    print0: bool = False
    color: str = "auto"
    stdin: bool = False
    interactive: bool = False
    memory: bool = True
    remember: bool = False
    forget: bool = False
    cache: bool = True
    clear_cache: bool = False
    server: bool = True
    servers: bool = False
    stop_servers: bool = False
    height: str | None = None
    preview: str | None = None
    bash: bool = False
    zsh: bool = False
    fish: bool = False

    @property
    def shell(self) -> str | None:
        """The shell whose integration script was asked for (``--bash``...), if any."""
        return next((sh for sh in ("bash", "zsh", "fish") if getattr(self, sh)), None)

    @property
    def plain(self) -> bool:
        """A plain search: no picker, ``--stdin``, shell script, visit or server listing."""
        return not (self.interactive or self.stdin or self.shell is not None or self.remember
                    or self.forget or self.clear_cache or self.servers or self.stop_servers)


def plain_search(args: list[str]) -> Invocation | None:
    """``args`` parsed without click when it is a plain search; None otherwise."""
    from ffind.frontends.fastparse import parse

    quick = parse(args)
    inv = None if quick is None else invocation(*quick)
    return inv if isinstance(inv, Invocation) and inv.plain else None


def _click_option(flag: Flag) -> click.Option:
    """The click option of one row of ``FLAGS``."""
    import click

    kind: object = None  # a click.ParamType
    if flag.kind == "int":
        kind = click.IntRange(min=flag.minimum)
    elif flag.kind == "dir":
        kind = click.Path(file_okay=False)
    elif flag.kind == "choice":
        kind = click.Choice(list(flag.choices))
    callback = None
    parse = flag.parse
    if parse is not None:
        def callback(ctx: click.Context, param: click.Parameter, value: object) -> object:
            try:
                if isinstance(value, tuple):
                    return tuple(parse(v) for v in value)
                return value if value is None else parse(str(value))
            except ValueError as e:
                raise click.BadParameter(str(e)) from None

    help_text, show_default = flag.help, flag.show_default
    if isinstance(show_default, str):  # click would put the text in parentheses
        help_text, show_default = f"{help_text}  [default: {show_default}]", False
    extra: dict[str, object] = {}
    if flag.flag_value is not None:  # an optional value: ``--preview`` or ``--preview=CMD``
        extra = {"is_flag": False, "flag_value": flag.flag_value}
    else:
        extra = {"is_flag": flag.kind == "bool"}
    return click.Option(
        [*flag.names, flag.param], type=kind, default=flag.default, multiple=flag.multiple,
        metavar=flag.metavar, help=help_text, show_default=show_default, callback=callback,
        **extra,  # type: ignore[arg-type]
    )


def _check_picker_flags(values: dict[str, object]) -> str | None:
    """Flags the picker ignores, given with -i, and picker-only flags given without, are
    errors (not silently ignored): the message, or None."""
    interactive = bool(values["interactive"])
    for flag in FLAGS:
        if values[flag.long] == flag.default:
            continue
        if interactive and not flag.picker:
            return f"--{flag.long} does not apply to the picker (-i)"
        if not interactive and flag.picker_only:
            return f"--{flag.long} only applies to the picker (-i)"
    if sum(bool(values[sh]) for sh in ("bash", "zsh", "fish")) > 1:
        return "--bash, --zsh and --fish cannot be used together"
    return None


def invocation(pattern: str, values: dict[str, object]) -> Invocation | str:
    """The parsed command line (each flag's value by its ``long`` name) as an Invocation, or
    the message of the usage error it is (click's command and :mod:`fastparse` share it)."""
    if values["json"] and values["print0"]:
        return "--json and --print0 cannot be used together"
    error = _check_picker_flags(values)
    if error is not None:
        return error
    fields, inv = split_values(values, FLAGS)
    limit = fields["limit"]
    fields["limit"] = command_limit(limit if isinstance(limit, int) else None, pattern)
    try:
        options = SearchOptions(**fields)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        return str(e)
    return Invocation(pattern=pattern, options=options, **inv)  # type: ignore[arg-type]


def build_command() -> click.Command:
    """The click command, built from ``flags.FLAGS`` (also what scripts/generate_docs.py
    renders)."""
    import click

    def command(pattern: str, **values: object) -> Invocation:
        inv = invocation(pattern, {flag.long: values[flag.param] for flag in FLAGS})
        if isinstance(inv, str):
            raise click.UsageError(inv)
        return inv

    params: list[click.Parameter] = [click.Argument(["pattern"], required=False, default="")]
    params += [_click_option(flag) for flag in FLAGS]
    cmd = click.Command(
        name="ffind", help=HELP, epilog=_epilog(), callback=command, params=params,
        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    )
    version = click.version_option(__version__, "--version", prog_name="ffind",
                                   message="%(prog)s %(version)s",
                                   help="Show the version and exit.")
    return version(cmd)


def _stdin_paths() -> Iterator[str]:
    for line in sys.stdin.buffer:
        line = line.rstrip(b"\r\n")
        if line:
            yield os.fsdecode(line)


def _check_where(inv: Invocation) -> None:
    """Errors of the place to search, told before a walk or a picker starts."""
    if inv.stdin and sys.stdin is None:
        raise FfindError("cannot read standard input: it is closed")
    if not inv.stdin and not os.path.isabs(inv.root):
        try:
            os.getcwd()
        except FileNotFoundError:
            raise FfindError("the current folder no longer exists; "
                             "use -C with a folder that does") from None


def run(inv: Invocation, *, exit_fast: bool = False, started: Started | None = None,
        first: bool = False) -> int:
    """Run a parsed command line; user errors raise FfindError.  ``exit_fast``: end the process
    once the results are out; ``started``: the early walk; ``first``: the folder's first call."""
    if inv.shell is not None:
        from ffind.frontends.shell import script

        # The bindings pick with ``ffind -i``, which records its picks in the memory itself:
        # the scripts' own hook (for a picker that does not) stays a no-op.
        output.write_stdout(script(inv.shell, remember=False).encode())
        return ExitCode.FOUND
    if inv.remember or inv.forget:
        if inv.remember and inv.forget:
            raise FfindError("--remember and --forget cannot be used together")
        from ffind.frontends.visits import visits

        return visits("--remember" if inv.remember else "--forget", [inv.pattern])
    if inv.clear_cache:
        from ffind.resident.client import stop_all
        from ffind.state.cache import SnapshotStore

        stop_all()
        SnapshotStore().clear()
        return ExitCode.FOUND
    if inv.servers or inv.stop_servers:
        from ffind.frontends.servers import manage

        return manage(inv.stop_servers, inv.json)
    _check_where(inv)
    if exit_fast:
        # A search ends at ``exit_now``: the collector would free nothing the exit does not.
        import gc

        if inv.interactive:
            gc.enable()
        else:
            gc.disable()
    if _server_may_answer(inv):
        code = _from_server(inv, exit_fast)
        if code is not None:
            return code
    memory = None
    if inv.memory:
        from ffind.state.memory import open_memory

        memory = open_memory()

    def finish(code: int) -> int:
        """The one end of a search or a pick: the memory's warning once, after the results;
        then, for the console script, the process ends at once."""
        if memory is not None and memory.warning:
            output.warn(memory.warning)
        if exit_fast:
            exit_now(code)
        return code

    return _run(inv, memory, finish, started, first)


def _run(inv: Invocation, memory: Memory | None, finish: Callable[[int], int],
         started: Started | None = None, first: bool = False) -> int:
    if inv.interactive:
        from ffind.frontends.picker import Height, run_picker

        # The candidates are read before the picker takes the terminal (it draws on /dev/tty,
        # so stdin may be a pipe); Ctrl-C while they are read still exits 130.
        height = None if inv.height is None else Height.parse(inv.height)
        paths = list(_stdin_paths()) if inv.stdin else None
        color = output.use_color(inv.color, isatty=True)  # the picker draws on a terminal
        with output.stdout_errors():  # writing the selection
            return run_picker(inv.pattern, [inv.root], inv.options, print0=inv.print0,
                              paths=paths, color=color, memory=memory,
                              on_done=finish, height=height, preview=inv.preview,
                              cache=inv.cache, server=inv.server)

    on_tty, options, style = rendering(inv)
    if inv.stdin:
        from ffind.searching.oneshot import search_paths

        results = search_paths(inv.pattern, _stdin_paths(), options, eager_count=inv.json)
    else:
        from ffind.searching.oneshot import search

        results = search(inv.pattern, inv.root, options, on_warning=output.warn,
                         eager_count=inv.json, memory=memory,
                         cache=inv.cache and not first,  # (a first call: as ``--no-cache``)
                         server=False,  # (asked first, in ``run``, when it may answer)
                         _started=started)

    code = _write_results(inv, options, style, on_tty, results.matches,
                          lambda: results.total_match_count)
    if not inv.stdin and _server_may_answer(inv):
        _start_server(inv, first)
    # the walk is over and reaped: the console script skips freeing the index and the heap
    return finish(code)


def rendering(inv: Invocation, on_tty: bool | None = None,
               environ: Mapping[str, str] | None = None,
               ) -> tuple[bool, SearchOptions, str | None]:
    """(stdout is a terminal, the options to search with, the highlight style); ``on_tty`` and
    ``environ``: this process's by default (the resident server passes its client's)."""
    on_tty = sys.stdout.isatty() if on_tty is None else on_tty
    options = inv.options
    style = None if inv.json else output.highlight_style(
        inv.color, on_tty, compute_indices=options.compute_indices, environ=environ)
    if style and inv.pattern and not options.compute_indices:
        options = replace(options, compute_indices=True)
    return on_tty, options, style


def render(inv: Invocation, options: SearchOptions, style: str | None, on_tty: bool,
           err_tty: bool, matches: list[FileMatch], total: Callable[[], int],
           ) -> tuple[bytes, list[str], int]:
    """The results as the command writes them, locally or served: (stdout's bytes, the notes
    for stderr, the exit status); ``total()`` is asked only when printed."""
    if inv.json:
        data = output.format_json(
            matches, total_match_count=total(), limit=options.limit,
            compute_indices=inv.options.compute_indices)
    else:
        # Coloured output is for a terminal, even through a pager (``--color always | less
        # -R``): it is escaped too.
        data = output.format_plain(matches, print0=inv.print0, style=style,
                                   escape=on_tty or style is not None)
    notes = []
    shown = len(matches)
    # The count is only read when the limit may have cut (it may cost a pass over the names).
    if (not inv.json and options.limit is not None and shown == options.limit
            and err_tty and total() > shown):
        notes.append(f"showing {shown} of {total()} matches; use --limit")
    return data, notes, ExitCode.FOUND if matches else ExitCode.NOT_FOUND


def _write_results(inv: Invocation, options: SearchOptions, style: str | None, on_tty: bool,
                   matches: list[FileMatch], total: Callable[[], int]) -> int:
    """Write the results (``render``) and the notes after them; the exit status."""
    return output.write_answer([], *render(inv, options, style, on_tty, _stderr_isatty(),
                                           matches, total))


def _server_may_answer(inv: Invocation) -> bool:
    """A search (not the picker, not ``--stdin``) with the warm index and the server on."""
    if not (inv.cache and inv.server) or inv.interactive or inv.stdin:
        return False
    from ffind.resident.protocol import disabled

    return not disabled()


def _from_server(inv: Invocation, exit_fast: bool) -> int | None:
    """The root's resident server's answer, written as a local one; None: search locally."""
    from ffind.resident.client import ask

    on_tty, options, style = rendering(inv)
    answer = ask(inv.pattern, inv.root, options, memory=inv.memory,
                 count=inv.json or _stderr_isatty())
    if answer is None:
        return None
    matches: list[FileMatch] = answer.matches  # type: ignore[assignment]
    data, notes, code = render(inv, options, style, on_tty, _stderr_isatty(), matches,
                               lambda: answer.total)
    notes += [answer.memory_warning] if answer.memory_warning else []
    code = output.write_answer(answer.warnings, data, notes, code)
    if exit_fast:
        exit_now(code)
    return code


def _start_server(inv: Invocation, first: bool = False) -> None:
    """Once the results are out, start the root's resident server (not waited for), primed
    with the listing after a first call."""
    if not first:
        from ffind.fs.warm import listing_key
        from ffind.state.cache import SnapshotStore

        if not os.path.exists(SnapshotStore().path(listing_key(inv.root, inv.options))):
            return
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    from ffind.resident.client import start

    start(inv.root, prime=inv.options, index=bool(inv.pattern))


def _stderr_isatty() -> bool:
    return sys.stderr is not None and sys.stderr.isatty()


def attached_values(args: list[str]) -> list[str]:
    """``args`` with each bare flag of an optional value (``--preview``) written with its
    value attached (``--preview=``), so that click never takes the next word (the pattern)
    as the value: ``--preview=CMD`` is the only way to give one."""
    bare = {f"--{f.long}" for f in FLAGS if f.flag_value is not None}
    end = args.index("--") if "--" in args else len(args)
    return [f"{a}=" if i < end and a in bare else a for i, a in enumerate(args)]


def _parse(args: list[str]) -> Invocation | int:
    """The command line as an Invocation, or the exit status of ``--help``/``--version``; a
    usage error raises FfindError.  ``fastparse`` reads plain command lines, click the rest."""
    from ffind.frontends.fastparse import parse

    # (click answers the shell's completion requests: they come in this variable)
    args = attached_values(args)
    quick = None if os.environ.get("_FFIND_COMPLETE") else parse(args)
    if quick is not None:
        inv = invocation(*quick)
        if isinstance(inv, Invocation):
            return inv
    import click

    try:
        with output.stdout_errors():  # --help into a full disk
            rv = build_command().main(args=args, prog_name="ffind", standalone_mode=False)
    except click.exceptions.Abort:
        return ExitCode.INTERRUPTED
    except click.ClickException as e:
        raise FfindError(e.format_message()) from None
    if isinstance(rv, Invocation):
        return rv
    return int(rv or 0)  # --help / --version: click printed it


def main(argv: list[str] | None = None, *, started: Started | None = None,
         first: Invocation | None = None, server: bool = True,
         exit_fast: bool | None = None) -> int:
    """Entry point of the ``ffind`` console script and ``python -m ffind``; ``started``,
    ``first``: as for ``run``; ``server=False``: as ``--no-server`` (the server did not answer
    in time); ``exit_fast``: by default when ``argv`` is None."""
    args = sys.argv[1:] if argv is None else list(argv)
    return int(_main(args, exit_fast=argv is None if exit_fast is None else exit_fast,
                     started=started, first=first, server=server))


def _main(args: list[str], exit_fast: bool = False, started: Started | None = None,
          first: Invocation | None = None, server: bool = True) -> int:
    """The command's work; a user error becomes ``ffind: ...`` and exit status 2."""
    from ffind.frontends.exits import answered

    def work() -> int:
        if args and args[0] == "mcp":
            from ffind.agent.server import mcp_main

            return mcp_main(args[1:])
        output.check_streams()
        if args == ["--version"]:  # (``cli.main`` called directly: answered without click)
            output.write_stdout(f"ffind {__version__}\n".encode())
            return ExitCode.FOUND
        # (the console script parsed it already when it started the walk: ``early``)
        inv = (first if first is not None else _parse(args) if started is None
               else started.invocation)
        if isinstance(inv, int):
            return inv
        if not server:
            inv = replace(inv, server=False)
        return run(inv, exit_fast=exit_fast, started=started, first=first is not None)

    return answered(work)
