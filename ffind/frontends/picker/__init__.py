"""The interactive picker (``ffind -i``): a list drawn on ``/dev/tty`` on top of the session
(stdout only receives the selection).  ``terminal``: raw mode and input; ``keys``: key names and
the query line; ``waker``: the session's reporter; ``view``: the loop and drawing; ``preview``.
Built on rich with raw input read here (prompt_toolkit's import costs the first frame)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable

from ffind.errors import ExitCode, FfindError
from ffind.frontends.picker.terminal import Height, Terminal
from ffind.frontends.picker.view import Picker, printable
from ffind.frontends.picker.waker import Waker
from ffind.frozen import replace
from ffind.options import SearchOptions

TYPE_CHECKING = False  # (not typing's: imported on the picker's start)
if TYPE_CHECKING:
    from ffind.scoring.scorer import FileMatch
    from ffind.searching.session import FileSearcher
    from ffind.state.memory import Memory

__all__ = ["Height", "run_picker"]

CLOSE_WAIT = 0.2  # seconds to wait on exit for the match thread to leave an ``Index`` call
SERVER_WAIT = 2.0
"""Seconds the resident server's first screenful is waited for, beside the session (it is
shown only if it comes before the session's first state)."""
FIRST_WAIT = 0.5
"""Seconds the session's start waits for the resident server's first frame (its rows, then
their count), drawn meanwhile: loading a large snapshot would take the CPU from that frame."""
PREFETCH_PAGES = 1
"""Screenfuls ranked with every new state (scrolling further asks the session for more)."""


def run_picker(
    query: str | None, roots: list[str], options: SearchOptions, *, print0: bool = False,
    paths: Iterable[str] | None = None, color: bool | None = None,
    on_done: Callable[[int], object] | None = None, height: Height | None = None,
    preview: str | None = None, memory: Memory | None = None, cache: bool = False,
    server: bool = False,
) -> int:
    """Run the picker, print the selection and return the exit code.  ``paths``: pick among
    these instead of walking; ``color``: None follows ``NO_COLOR``; ``height``: inline;
    ``preview``: "" built in, else a command; ``memory``: rank with it and record picks;
    ``server``: a provisional first screen from the resident server; ``on_done(code)``: last."""
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

                shown = Preview(preview, color, waker.wake)
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
    code = _finish(picked, searcher.warnings, print0, memory, roots)
    if on_done is not None:
        on_done(code)
    return code


def _first_from_server(query: str, root: str, options: SearchOptions,
                       memory: Memory | None, waker: Waker, asked: threading.Event) -> None:
    """Ask the resident server for ``query`` in a thread and hand its answer to ``waker`` as a
    provisional state until the session's first; sets ``asked`` and ``waker.arrived`` at the
    end."""
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


def _finish(picked: list[FileMatch] | None, warnings: list[str], print0: bool,
            memory: Memory | None, roots: list[str]) -> ExitCode:
    """Print the walk's warnings (held back while the picker had the screen) and the
    selection, record each pick in the memory (as an absolute path); the exit code."""
    from ffind.frontends.output import print_paths, warn

    for message in warnings:
        warn(message)
    if picked is None:
        return ExitCode.INTERRUPTED
    if not picked:
        return ExitCode.NOT_FOUND
    print_paths(picked, print0=print0)  # the command's writer: escaped on a terminal
    if memory is not None:
        for m in picked:
            memory.record(os.path.join(m.root or (roots[0] if roots else "."), m.path))
    return ExitCode.FOUND
