"""Every flag of the ``ffind`` command, defined once: the click command, the fast parse, the
shell completions and the man page are made from :data:`FLAGS`.  Adding a flag is one
:class:`Flag` row, then ``python scripts/generate_docs.py``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ffind.options import DEFAULT_LIMIT, DEFAULT_THREADS

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass

KINDS = ("bool", "int", "str", "dir", "choice")  # a switch, a number >= ``minimum``, text...


def _identity(value: object) -> object:
    return value


@dataclass(frozen=True, slots=True)
class Flag:
    """One command-line flag."""

    long: str  # without ``--`` (``"max-depth"``)
    short: str | None  # one letter without ``-``, or None
    kind: str  # one of :data:`KINDS`
    default: object
    help: str  # one sentence or two for ``--help`` and the man page
    dest: str  # the field the value goes to, in ``target``
    target: str = "options"  # ``"options"`` (SearchOptions) or ``"invocation"``
    convert: Callable[[object], object] = _identity  # parsed value -> field value
    metavar: str | None = None  # the placeholder shown after the flag (``N``, ``DIR``)
    multiple: bool = False  # repeatable: the value is a tuple of every occurrence
    choices: tuple[str, ...] = ()
    minimum: int = 0  # for ``kind="int"``
    show_default: bool | str = False  # ``[default: ...]`` in the help (a str: that text)
    picker: bool = True  # applies to the picker too (else an error with ``-i``)
    picker_only: bool = False  # applies only to the picker (else an error without ``-i``)
    flag_value: str | None = None  # the value when given without one (``--preview``); such a
    # flag takes a value only attached (``--preview=CMD``), never the next word
    parse: Callable[[str], object] | None = None  # checks and converts; ValueError: message

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind
        assert self.target in ("options", "invocation"), self.target
        assert self.kind != "choice" or self.choices, self.long

    @property
    def param(self) -> str:
        """The click parameter name (``"max_depth"``)."""
        return self.long.replace("-", "_")

    @property
    def names(self) -> list[str]:
        """``["-l", "--limit"]``."""
        return ([f"-{self.short}"] if self.short else []) + [f"--{self.long}"]


def _types(value: object) -> object:
    """``-t`` values (already checked by :func:`parse_type`), deduplicated; files by default."""
    assert isinstance(value, tuple)
    out: list[str] = []
    for v in value:
        if v not in out:
            out.append(v)
    return tuple(out) or ("f",)


def _not(value: object) -> object:
    return not value


def command_limit(given: int | None, pattern: str) -> int | None:
    """The limit of the command: ``-l N`` (0 = none); without ``-l``, ``DEFAULT_LIMIT`` with a
    pattern and none without (as ``fd``)."""
    if given is None:
        return DEFAULT_LIMIT if pattern else None
    return given or None


TYPE_NAMES = {"f": "f", "file": "f", "d": "d", "dir": "d", "directory": "d"}  # ``-t`` values


def parse_type(value: str) -> str:
    """One ``-t`` value as ``"f"`` or ``"d"``; ValueError with the message to show."""
    t = TYPE_NAMES.get(value.lower())
    if t is None:
        raise ValueError(f"{value!r} is not one of f (file), d (directory)")
    return t


FLAGS: tuple[Flag, ...] = (
    Flag("json", None, "bool", False, "Print JSON lines: {score, path[, indices, typo]} per match.",
         dest="json", target="invocation", picker=False),
    Flag("limit", "l", "int", None,
         "Show at most N matches; 0 = no limit.  Without PATTERN every file is listed unless "
         "-l is given.", dest="limit", metavar="N",
         show_default=f"{DEFAULT_LIMIT} with a PATTERN", picker=False),
    Flag("cwd", "C", "dir", ".", "Search below DIR instead of here.", dest="root",
         target="invocation", metavar="DIR", show_default=True),
    Flag("compute-indices", None, "bool", False,
         "Compute the matched character positions (JSON 'indices').", dest="compute_indices",
         picker=False),
    Flag("exclude", "e", "str", (), "Exclude paths matching the gitignore-style GLOB (repeatable).",
         dest="exclude", metavar="GLOB", multiple=True),
    Flag("threads", None, "int", DEFAULT_THREADS, "Walk with N worker processes.",
         dest="threads", metavar="N", minimum=1, show_default=True),
    Flag("hidden", "H", "bool", False, "Include hidden files and folders.", dest="hidden"),
    Flag("no-ignore", "I", "bool", False,
         "Do not honour .gitignore, .ignore or the default exclusions.", dest="respect_ignore",
         convert=_not),
    Flag("follow", "L", "bool", False, "Follow symbolic links to folders.", dest="follow_links"),
    Flag("type", "t", "str", (), "List files (f) or directories (d); repeatable.",
         dest="types", convert=_types, metavar="f|d", multiple=True, parse=parse_type,
         show_default="f"),
    Flag("max-depth", "d", "int", None,
         "Descend at most N levels (1 = DIR's own entries); no limit by default.",
         dest="max_depth", metavar="N"),
    Flag("print0", "0", "bool", False,
         "End each path with NUL instead of newline (for xargs -0).", dest="print0",
         target="invocation"),
    Flag("color", None, "choice", "auto",
         "Highlight matches (in the picker too); auto = on a terminal, no NO_COLOR.",
         dest="color", target="invocation", choices=("auto", "always", "never"),
         show_default=True),
    Flag("no-require-git", None, "bool", False,
         "Honour .gitignore files outside git repositories too.", dest="require_git",
         convert=_not),
    Flag("stdin", None, "bool", False,
         "Match the paths read from standard input instead of walking.", dest="stdin",
         target="invocation"),
    Flag("interactive", "i", "bool", False,
         "Open the interactive picker; print the chosen path(s).", dest="interactive",
         target="invocation"),
    Flag("height", None, "str", None,
         "With -i: draw inline below the cursor in N rows or N% of the terminal instead of "
         "full screen (the shell bindings use 40%).", dest="height", target="invocation",
         metavar="N[%]", picker_only=True),
    Flag("preview", None, "str", None,
         "With -i: show the selected file or folder beside the list; --preview=CMD shows "
         "CMD's output ({} = the path, quoted); a word after a bare --preview is the "
         "pattern.  ALT-P or ? toggles it.", dest="preview",
         target="invocation", metavar="[=CMD]", flag_value="", picker_only=True),
    Flag("bash", None, "bool", False,
         'Print the bash key bindings and **<TAB> completion: eval "$(ffind --bash)".',
         dest="bash", target="invocation", picker=False),
    Flag("zsh", None, "bool", False,
         "Print the zsh key bindings and **<TAB> completion: source <(ffind --zsh).",
         dest="zsh", target="invocation", picker=False),
    Flag("fish", None, "bool", False,
         "Print the fish key bindings and **<TAB> completion: ffind --fish | source.",
         dest="fish", target="invocation", picker=False),
    Flag("no-memory", None, "bool", False,
         "Rank without the memory of opened files (also FFIND_NO_MEMORY=1).", dest="memory",
         target="invocation", convert=_not),
    Flag("remember", None, "bool", False,
         "Remember the PATH(s) given as opened (for editors and shell hooks); no search.",
         dest="remember", target="invocation", picker=False),
    Flag("forget", None, "bool", False,
         "Forget the PATH(s) given, and every remembered path under a folder; no search.",
         dest="forget", target="invocation", picker=False),
    Flag("no-cache", None, "bool", False,
         "Walk cold: do not use or write the warm index of this folder (docs/cache.md).",
         dest="cache", target="invocation", convert=_not),
    Flag("clear-cache", None, "bool", False,
         "Empty the warm index's cache folder ($XDG_CACHE_HOME/ffind) and stop the resident "
         "servers; no search.",
         dest="clear_cache", target="invocation", picker=False),
    Flag("no-server", None, "bool", False,
         "Neither ask nor start the resident index server of this folder (also "
         "FFIND_NO_SERVER=1; --no-cache implies it; docs/cache.md).",
         dest="server", target="invocation", convert=_not),
    Flag("servers", None, "bool", False,
         "List this user's running resident servers (folder, files, memory, inotify watches, "
         "idle time; with --json one object per server); no search.  Exit 1 when none runs.",
         dest="servers", target="invocation", picker=False),
    Flag("stop-servers", None, "bool", False,
         "Stop this user's resident servers (the cache is kept); no search.  Exit 1 when "
         "none ran.", dest="stop_servers", target="invocation", picker=False),
)
"""The flags, in ``--help`` order (``-h/--help`` and ``--version`` are added by the command)."""


def split_values(
    values: dict[str, object], flags: Sequence[Flag] = FLAGS,
) -> tuple[dict[str, object], dict[str, object]]:
    """Parsed values by flag ``long`` name -> (SearchOptions fields, Invocation fields)."""
    options: dict[str, object] = {}
    invocation: dict[str, object] = {}
    for flag in flags:
        value = flag.convert(values[flag.long])
        (options if flag.target == "options" else invocation)[flag.dest] = value
    return options, invocation
