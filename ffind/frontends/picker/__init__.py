"""The interactive picker (``ffind -i``): a list on the terminal, on top of the session.

Drawn on ``/dev/tty`` (so ``vim "$(ffind -i)"`` and ``ffind -i | xargs ...`` work: stdout only
ever receives the selection): full screen in the alternate screen by default, or inline below
the cursor with ``--height`` (what the shell bindings use); nothing is left behind on exit.

Modules: ``terminal`` (raw mode, full screen or inline, reading keys), ``keys`` (key names, the
query line edited at its cursor, the keys table), ``waker`` (the session's reporter),
``view`` (the loop and the drawing), ``preview`` (``--preview``, rendered off the loop).

Built from rich (styles, cell widths, the colour system and ``NO_COLOR``) with raw terminal
input read here; prompt_toolkit costs ~60 ms of import against rich's ~17 ms, which is most of
the 150 ms first-frame budget (see the README).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable

from ffind.errors import ExitCode, FfindError
from ffind.frontends.picker.keys import delete_word, parse_keys
from ffind.frontends.picker.terminal import Height, Terminal
from ffind.frontends.picker.view import SPINNER, Picker, make_console, printable
from ffind.frontends.picker.waker import Waker
from ffind.frozen import replace
from ffind.options import SearchOptions

TYPE_CHECKING = False  # (not typing's: imported on the picker's start)
if TYPE_CHECKING:
    from ffind.scoring.scorer import FileMatch
    from ffind.searching.session import FileSearcher
    from ffind.state.memory import Memory

__all__ = ["SPINNER", "Height", "Waker", "delete_word", "parse_keys",
           "run_picker"]

CLOSE_WAIT = 0.2
"""Seconds to wait on exit for the match thread to leave an ``Index`` call."""
SERVER_WAIT = 2.0
"""Seconds the resident server's first screenful is waited for, beside the session (it is
shown only if it comes before the session's first state)."""
FIRST_WAIT = 0.5
"""Seconds the session's start waits for the resident server's first frame (its rows, then
their count), drawn meanwhile: the session's loading of a large snapshot would take the CPU
and the GIL from that frame (at 1M paths: ~50 ms for the rows, ~200 ms more for the count)."""
PREFETCH_PAGES = 1
"""Screenfuls ranked with every new state (scrolling further asks the session for more)."""


def run_picker(
    query: str | None, roots: list[str], options: SearchOptions, *, print0: bool = False,
    paths: Iterable[str] | None = None, color: bool | None = None,
    on_done: Callable[[int], object] | None = None, height: Height | None = None,
    preview: str | None = None, memory: Memory | None = None, cache: bool = False,
    server: bool = False,
) -> int:
    """Run the picker; print the selection to stdout; return the exit code.

    ``memory``: rank with it (remembered files first before typing), and record each picked
    path in it as a visit.

    ``paths``: pick among these instead of walking ``roots`` (``--stdin``).  ``color``: draw
    in colour (True, even with ``NO_COLOR`` or ``TERM=dumb``) or without (False: bold and
    underline only); None decides from the environment (``NO_COLOR``, ``TERM=dumb``).
    ``height``: draw inline below the cursor (None: full screen).  ``preview``: show the
    selected path ("" built in, else a command with ``{}``; None: no preview).
    ``cache``: use the warm index (``FileSearcher(cache=True)``: the first frame from the
    last snapshot, then the validated listing).
    ``server``: with ``cache``, one root and no ``paths``, ask the root's resident server (if
    one runs; never started here), in a thread, for the first screenful over the listing it
    holds (provisional: not validated), drawn before the session starts (``FIRST_WAIT`` at
    most; later, shown if it comes before the session's first state, which replaces it).
    ``on_done(code)``: called last, once the selection is printed and the session closed, while
    the session is still referenced (the command ends the process there with ``os._exit``:
    freeing a million paths' index costs more than everything else after Enter).
    """
    query = query or ""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        raise FfindError(f"the picker needs a terminal: /dev/tty: {e.strerror}") from e
    wake_r, wake_w = os.pipe()
    searcher: FileSearcher | None = None
    asker: threading.Thread | None = None
    try:
        with Terminal(fd, wake_r, wake_w, height) as term:
            term.write(term.goto(0) + "> " + printable(query))  # something on screen at once
            # The session ranks the first screenfuls of every state, with indices.
            prefetch = max(PREFETCH_PAGES * term.size()[1], 20)
            session_options = replace(options, limit=prefetch, compute_indices=True)
            waker = Waker(wake_w, prefetch)
            asked = threading.Event()
            if server and cache and paths is None and len(roots) == 1:
                asker = threading.Thread(
                    target=_first_from_server, name="ffind-first",
                    args=(query, roots[0], session_options, memory, waker, asked), daemon=True)
                asker.start()
            shown = None
            if preview is not None:
                from ffind.frontends.picker.preview import Preview

                shown = Preview(preview, lambda width: make_console(width, color), waker.wake)
            picker = Picker(term, None, waker, query, color, shown)
            if asker is not None:  # (its first frame drawn before the session starts)
                picker.first(FIRST_WAIT, lambda: not asked.is_set())
            from ffind.searching.session import FileSearcher  # (after the server's request)

            searcher = FileSearcher(roots or ["."], session_options, waker, paths=paths,
                                    memory=memory, cache=cache)
            picker.attach(searcher)
            try:
                searcher.set_query(query)
                picked = picker.run()
            finally:
                searcher.cancel()  # the screen is restored while the walk winds down
    finally:
        # The walk's workers are always waited for; a matcher stuck in a long ranking is not
        # (the process is about to exit), and then the wake-up pipe it may write to stays open.
        ended = searcher is None or searcher.close(timeout=CLOSE_WAIT)
        if asker is not None:  # (a server slower than the session: its answer is dropped)
            asker.join(0)
            ended = ended and not asker.is_alive()
        for f in (fd, wake_r, wake_w) if ended else (fd,):
            os.close(f)
    _print_warnings(searcher.warnings if searcher is not None else [])
    if picked is None:
        code = ExitCode.INTERRUPTED
    elif not picked:
        code = ExitCode.NOT_FOUND
    else:
        _print_selection(picked, print0)
        if memory is not None:
            _remember(memory, picked, roots)
        code = ExitCode.FOUND
    if on_done is not None:
        on_done(code)
    return code


def _first_from_server(query: str, root: str, options: SearchOptions,
                       memory: Memory | None, waker: Waker, asked: threading.Event) -> None:
    """The resident server's answer to ``query`` (``options``: the session's, so the same
    ranking and screenful), shown until the session's first state (issue 14; run in a thread
    of its own).  A provisional answer (``ask(provisional=True)``): ranked at once over the
    listing the server holds, not validated first (at 1M files that ``stat`` pass alone
    takes a second); the session's own states replace it, and they end on the validated
    listing.  Any failure, no answer within ``SERVER_WAIT``, or an answer after the
    session's first state: nothing (the session's states as without a server).  ``asked``
    is set at the end (and ``waker.arrived``: ``Picker.first`` waits no longer)."""
    from ffind.resident.client import Answer, ask

    def show(answer: Answer) -> None:
        # (imported once the request is sent: ``Picker.first`` imports it meanwhile)
        from ffind.searching.session import Snapshot

        matches: list[FileMatch] = answer.matches  # type: ignore[assignment]
        total = answer.total  # (-1: counted next; the counter says so)
        if total < 0 and (options.limit is None or len(matches) < options.limit):  # (all)
            total = len(matches)
        waker.provisional(Snapshot(query, matches, total, max(answer.scanned, total), False))

    try:
        answer = ask(query, root, options, memory=memory is not None, count=True,
                     timeout=SERVER_WAIT, provisional=True, on_rows=show)
        if answer is not None and answer.total >= 0:
            show(answer)
    finally:
        asked.set()
        waker.arrived.set()


def _print_warnings(warnings: list[str]) -> None:
    """The walk's warnings (unreadable folders), held back while the picker had the screen
    (a stderr that cannot be written loses them, never the selection)."""
    from ffind.frontends.output import warn

    for message in warnings:
        warn(message)


def _remember(memory: Memory, picked: list[FileMatch], roots: list[str]) -> None:
    """Each printed pick is a visit (the memory keeps absolute paths)."""
    for m in picked:
        memory.record(os.path.join(m.root or (roots[0] if roots else "."), m.path))


def _print_selection(picked: list[FileMatch], print0: bool) -> None:
    from ffind.frontends.output import print_paths

    print_paths(picked, print0=print0)  # the command's writer: escaped on a terminal
