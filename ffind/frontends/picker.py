"""The interactive picker (``ffind -i``): a full-screen list on the terminal, on top of the session.

Drawn on ``/dev/tty`` (so ``vim "$(ffind -i)"`` and ``ffind -i | xargs ...`` work: stdout only
ever receives the selection), in the alternate screen (nothing is left behind on exit)::

    > prom▏                       <- the query
      34/110321 (2) ⠹             <- matched/scanned, marked count, spinner while busy
    > src/session/prompt.ts       <- best match first; the cursor line is highlighted
     *src/session/prompt_test.ts  <- marked with Tab

Keys: typing, Backspace, Ctrl-U (clear), Ctrl-W (delete a word), Alt-Backspace (delete to a path
boundary), Up/Down or Ctrl-P/Ctrl-N (Ctrl-K up too), PageUp/PageDown, Home/End, Tab /
Shift-Tab (mark and move), Enter (print the marked paths, or the one under the cursor, exit 0),
Esc / Ctrl-C / Ctrl-G (exit 130, print nothing), Ctrl-L (redraw).

Built from rich (styles, cell widths, the colour system and ``NO_COLOR``) with raw terminal
input read here; prompt_toolkit costs ~60 ms of import against rich's ~17 ms, which is most of
the 150 ms first-frame budget (see the README).  Frames are written in one ``write`` each,
inside synchronized-update brackets, and only rows that changed are rewritten: no flicker.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ffind.errors import ExitCode, FfindError
from ffind.options import SearchOptions

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from ffind.scoring.scorer import FileMatch
    from ffind.searching.session import FileSearcher, Snapshot
    from ffind.state.memory import Memory

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ESC_TIMEOUT = 0.03
"""Seconds to wait after a lone ESC byte for the rest of an escape sequence."""
CLOSE_WAIT = 0.2
"""Seconds to wait on exit for the match thread to leave an ``Index`` call."""
ENTER_WAIT = 1.0
"""Seconds Enter waits for the typed query's results when they are not in yet."""
TICK = 0.1
"""Spinner period while the walk or the matching is running."""
PREFETCH_PAGES = 1
"""Screenfuls ranked with every new state (scrolling further asks the session for more)."""
MIN_REDRAW = 0.03
"""Seconds between two redraws for new results while the walk or the matching goes on (the
answer to the typed query, keys other than typing, and resizes redraw at once)."""
ECHO_WAIT = 0.02
"""Seconds a typed key waits for its query's answer before the prompt is redrawn over the
previous results: one frame instead of two when the answer is quick, and no drawing (which
holds the GIL) while the matcher works on it."""

KEYS: dict[str, str] = {
    "\x1b[A": "up", "\x1bOA": "up", "\x1b[B": "down", "\x1bOB": "down",
    "\x1b[5~": "pgup", "\x1b[6~": "pgdn", "\x1b[H": "home", "\x1b[F": "end",
    "\x1bOH": "home", "\x1bOF": "end", "\x1b[1~": "home", "\x1b[4~": "end",
    "\x1b[Z": "btab", "\x1b\x7f": "alt-bs", "\x1b\x08": "alt-bs",
    "\x7f": "bs", "\x08": "bs", "\x15": "ctrl-u", "\x17": "ctrl-w",
    "\x10": "up", "\x0b": "up", "\x0e": "down", "\x0a": "enter", "\x0d": "enter",
    "\x09": "tab", "\x03": "abort", "\x07": "abort", "\x11": "abort", "\x1b": "abort",
    "\x0c": "redraw",
}


def run_picker(
    query: str | None, roots: list[str], options: SearchOptions, *, print0: bool = False,
    paths: Iterable[str] | None = None, color: bool | None = None,
    on_done: Callable[[int], object] | None = None, memory: Memory | None = None,
) -> int:
    """Run the full-screen picker; print the selection to stdout; return the exit code.

    ``memory``: rank with it, and record each picked path in it as a visit.

    ``paths``: pick among these instead of walking ``roots`` (``--stdin``).  ``color``: draw
    in colour (True, even with ``NO_COLOR`` or ``TERM=dumb``) or without (False: bold and
    underline only); None decides from the environment (``NO_COLOR``, ``TERM=dumb``).
    ``on_done(code)``: called last, once the selection is printed and the session closed, while
    the session is still referenced (the command ends the process there with ``os._exit``:
    freeing a million paths' index costs more than everything else after Enter).
    """
    from ffind.searching.session import FileSearcher

    query = query or ""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        raise FfindError(f"the picker needs a terminal: /dev/tty: {e.strerror}") from e
    wake_r, wake_w = os.pipe()
    searcher: FileSearcher | None = None
    try:
        with _Terminal(fd, wake_r, wake_w) as term:
            term.write("\x1b[1;1H> " + _printable(query))  # something on screen at once
            # The session ranks the first screenfuls of every state, with indices.
            prefetch = max(PREFETCH_PAGES * term.size()[1], 20)
            session_options = dataclasses.replace(options, limit=prefetch, compute_indices=True)
            waker = _Waker(wake_w, prefetch)
            searcher = FileSearcher(roots or ["."], session_options, waker, paths=paths,
                                    memory=memory)
            try:
                searcher.set_query(query)
                picked = _Picker(term, searcher, waker, query, color).run()
            finally:
                searcher.cancel()  # the screen is restored while the walk winds down
    finally:
        # The walk's workers are always waited for; a matcher stuck in a long ranking is not
        # (the process is about to exit), and then the wake-up pipe it may write to stays open.
        ended = searcher is None or searcher.close(timeout=CLOSE_WAIT)
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


class _Waker:
    """The session's reporter: keeps the latest snapshot (ranked, counted, with indices: the UI
    draws it without waiting for the matcher) and wakes the UI loop through a pipe."""

    def __init__(self, wake_w: int, limit: int) -> None:
        self._w = wake_w
        self._limit = limit  # how many matches the session ranks per state
        self.latest: Snapshot | None = None
        self.complete = False
        """``latest`` came from ``on_complete``: walked and fully matched."""
        self.ranked: tuple[str, list[FileMatch]] | None = None
        """A completed query's matches, handed over before its count (``on_ranked``)."""
        self.seq = self.latest_seq = self.ranked_seq = 0  # what arrived last (match thread)
        self.arrived = threading.Event()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._w, b".")

    def _poke(self, snapshot: Snapshot, complete: bool = False) -> None:
        self.latest, self.complete = snapshot, complete
        self.seq += 1
        self.latest_seq = self.seq
        self.arrived.set()
        self._wake()

    def on_ranked(self, query: str, matches: list[FileMatch]) -> None:
        self.ranked = (query, matches)
        self.seq += 1
        self.ranked_seq = self.seq
        self.arrived.set()
        self._wake()

    def newest(self, query: str) -> Snapshot | None:
        """The newest state to show: the latest snapshot, or the matches of ``query`` handed
        over ahead of their count.  Their count is exact when they are fewer than the session
        ranks; else, until it comes, the previous one (at least as many as handed over)."""
        latest, ranked = self.latest, self.ranked
        if ranked is None or self.ranked_seq < self.latest_seq or ranked[0] != query:
            return latest
        from ffind.searching.session import Snapshot

        matches = ranked[1]
        count = len(matches)
        if count >= self._limit and latest is not None:
            count = max(count, latest.total_match_count)
        if latest is None:
            return Snapshot(query, matches, count, 0, False)
        return Snapshot(query, matches, count, latest.scanned_file_count, latest.walk_complete)

    def answered(self, query: str) -> bool:
        """The newest state is the typed query's answer (complete, or its matches)."""
        if self.ranked_seq > self.latest_seq:
            return self.ranked is not None and self.ranked[0] == query
        return self.complete and self.latest is not None and self.latest.query == query

    def on_update(self, snapshot: Snapshot) -> None:
        self._poke(snapshot)

    def on_complete(self, snapshot: Snapshot) -> None:
        self._poke(snapshot, complete=True)


class _Terminal:
    """Raw mode and the alternate screen on ``fd``, restored on exit; reads keys and the
    wake-up pipe (written by the session's reporter and on SIGWINCH)."""

    def __init__(self, fd: int, wake_r: int, wake_w: int) -> None:
        self.fd = fd
        self.wake_r, self.wake_w = wake_r, wake_w
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        self.resized = False
        self._saved: list[Any] | None = None
        self._handlers: dict[int, Any] = {}

    def __enter__(self) -> _Terminal:
        import termios
        import tty

        try:
            self._saved = termios.tcgetattr(self.fd)
        except termios.error as e:
            raise FfindError("the picker needs a terminal: /dev/tty is not one") from e
        tty.setraw(self.fd, termios.TCSANOW)
        if threading.current_thread() is threading.main_thread():
            self._handlers[signal.SIGWINCH] = signal.signal(signal.SIGWINCH, self._on_winch)
            for sig in (signal.SIGTERM, signal.SIGHUP):
                self._handlers[sig] = signal.signal(sig, _interrupt)
        self.write("\x1b[?1049h\x1b[?2004h\x1b[?25l\x1b[H\x1b[2J")
        return self

    def __exit__(self, *exc: object) -> None:
        import termios

        with contextlib.suppress(OSError):
            self.write("\x1b[0m\x1b[2J\x1b[?25h\x1b[?2004l\x1b[?1049l")
        if self._saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        for sig, old in self._handlers.items():
            signal.signal(sig, old)

    def _on_winch(self, signum: int, frame: object) -> None:
        self.resized = True
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self.wake_w, b"r")

    def size(self) -> tuple[int, int]:
        try:
            cols, rows = os.get_terminal_size(self.fd)
        except OSError:
            cols, rows = 80, 24
        return max(cols, 10), max(rows, 1)

    def write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        while data:
            n = os.write(self.fd, data)
            data = data[n:]

    def read_keys(self, timeout: float | None) -> tuple[list[str], bool]:
        """Wait up to ``timeout`` for input or a wake-up: the keys read, and whether woken."""
        ready, _, _ = select.select([self.fd, self.wake_r], [], [], timeout)
        woken = self.wake_r in ready
        if woken:
            with contextlib.suppress(BlockingIOError):
                os.read(self.wake_r, 4096)
        if self.fd not in ready:
            return [], woken
        data = os.read(self.fd, 4096)
        if not data:
            return ["abort"], woken
        # A lone ESC may be the start of a sequence split across reads: wait for the rest.
        while data.endswith(b"\x1b") and select.select([self.fd], [], [], ESC_TIMEOUT)[0]:
            data += os.read(self.fd, 4096)
        return list(parse_keys(data.decode("utf-8", "replace"))), woken


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def parse_keys(text: str) -> Iterator[str]:
    """Split terminal input into key names (``KEYS`` values) and typed characters.

    Text pasted in bracketed-paste mode is typed, its control characters (newlines) dropped.
    """
    i = 0
    pasting = False
    while i < len(text):
        ch = text[i]
        if ch == "\x1b" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in "[O":
                j = i + 2
                while j < len(text) and not ("\x40" <= text[j] <= "\x7e"):
                    j += 1
                seq = text[i : j + 1]
                i = j + 1
                if seq in ("\x1b[200~", "\x1b[201~"):
                    pasting = seq == "\x1b[200~"
                    continue
                yield KEYS.get(seq, "ignore")
                continue
            seq = text[i : i + 2]
            i += 2
            yield KEYS.get(seq, "ignore")  # Alt+key: only Alt-Backspace means something
            continue
        i += 1
        key = KEYS.get(ch)
        if ch >= " " and ch != "\x7f":
            yield "char:" + ch
        elif key is not None and not pasting:
            yield key


def _printable(text: str) -> str:
    """One printable character for each character of ``text`` (indices stay aligned)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else "?" for c in text)


def _delete_word(query: str, seps: str) -> str:
    """The query without its last word: trailing separators, then up to the previous one."""
    end = len(query)
    while end and query[end - 1] in seps:
        end -= 1
    while end and query[end - 1] not in seps:
        end -= 1
    return query[:end]


class _Picker:
    def __init__(
        self, term: _Terminal, searcher: FileSearcher, waker: _Waker, query: str,
        color: bool | None = None,
    ) -> None:
        self.term = term
        self.color = color
        self.plain = False
        """Drawing without colour: the prompt is bold, matched characters bold and underlined."""
        self.searcher = searcher
        self.waker = waker
        self.query = query
        self.cur = 0
        self.offset = 0
        self.marks: dict[tuple[str | None, str], FileMatch] = {}
        self.shown_query: str | None = None
        self.prev_lines: list[str] = []
        self.prev_size = (0, 0)
        self.console: Console | None = None
        self.items: list[FileMatch] = []
        self.snap: Snapshot | None = None
        self.drawn_seq = -1  # the waker's ``seq`` when the last frame was drawn

    # --- the loop

    def run(self) -> list[FileMatch] | None:
        """The selection (empty: Enter with nothing to pick), or None when aborted."""
        try:
            from rich.console import Console

            # no_color=None: rich reads NO_COLOR; its colour system is None for TERM=dumb.
            dumb = os.environ.get("TERM") == "dumb"
            self.console = Console(
                force_terminal=True, highlight=False, markup=False, emoji=False,
                legacy_windows=False, width=self.term.size()[0],
                no_color=None if self.color is None else not self.color,
                color_system="standard" if self.color and dumb else "auto",
            )
            self.plain = self.console.no_color or self.console.color_system is None
            # The answer to the typed query and resizes redraw at once; so do keys that do not
            # change the query.  A typed key waits up to ECHO_WAIT for its answer, then the
            # prompt is redrawn over the previous results.  Other new states (the walk's
            # progress, the spinner) redraw at most every ``2 x`` the last draw's cost: a draw
            # ranks the new state, and drawing every state while walking would starve the walk.
            now_due, later_due, next_at = True, False, 0.0
            echo_at: float | None = None
            while True:
                now = time.monotonic()
                waker = self.waker
                first = later_due and not self.items and waker.latest is not None
                answer = waker.seq > self.drawn_seq and waker.answered(self.query)
                if (now_due or self.term.resized or first or answer
                        or (echo_at is not None and now >= echo_at)
                        or (later_due and now >= next_at)):
                    t = time.perf_counter()
                    self.draw()
                    cost = time.perf_counter() - t
                    next_at = time.monotonic() + max(MIN_REDRAW, 2 * cost)
                    now_due = later_due = False
                    echo_at = None
                busy = self.busy()
                timeout = TICK if busy else None
                for due in (next_at if later_due else None, echo_at):
                    if due is not None:
                        wait = max(0.0, due - time.monotonic())
                        timeout = wait if timeout is None else min(timeout, wait)
                keys, woken = self.term.read_keys(timeout)
                later_due = later_due or woken or busy
                for key in keys:
                    before = self.query
                    done, picked = self.handle(key)
                    if done:
                        return picked
                    if self.query == before:
                        now_due = True
                    elif echo_at is None:
                        echo_at = time.monotonic() + ECHO_WAIT
        except KeyboardInterrupt:
            return None

    def busy(self) -> bool:
        """The walk or the matching of the typed query is still running."""
        self.searcher.wait(0)  # raises the walk's error, if any
        snap = self.waker.latest
        return not (self.waker.complete and snap is not None and snap.query == self.query)

    def handle(self, key: str) -> tuple[bool, list[FileMatch] | None]:
        rows = self.list_rows()
        if key.startswith("char:"):
            self.set_query(self.query + key[5:])
        elif key == "bs":
            self.set_query(self.query[:-1])
        elif key == "ctrl-u":
            self.set_query("")
        elif key == "ctrl-w":
            self.set_query(_delete_word(self.query, " "))
        elif key == "alt-bs":
            self.set_query(_delete_word(self.query, " /_-."))
        elif key in ("up", "down", "pgup", "pgdn", "home", "end"):
            step = {"up": -1, "down": 1, "pgup": -rows, "pgdn": rows,
                    "home": -(1 << 60), "end": 1 << 60}[key]
            self.move(step)
        elif key in ("tab", "btab"):
            self.toggle_mark()
            self.move(1 if key == "tab" else -1)
        elif key == "enter":
            return True, self.accept()
        elif key == "abort":
            return True, None
        elif key == "redraw":
            self.prev_lines = []
        return False, None

    def set_query(self, query: str) -> None:
        if query != self.query:
            self.query = query
            self.cur = self.offset = 0
            self.searcher.set_query(query)

    def move(self, step: int) -> None:
        total = self.snap.total_match_count if self.snap is not None else 0
        self.cur = max(0, min(self.cur + step, total - 1))

    def current(self) -> FileMatch | None:
        """The match under the cursor: as drawn, unless the list has not been drawn for it."""
        if self.shown_query == self.query and self.cur < len(self.items):
            return self.items[self.cur]
        snap = self.waker.newest(self.query)
        if snap is not None and snap.query == self.query and self.cur < len(snap.matches):
            return snap.matches[self.cur]
        items = self.searcher.results(self.cur + 1)
        return items[self.cur] if self.cur < len(items) else None

    def toggle_mark(self) -> None:
        m = self.current()
        if m is not None:
            key = (m.root, m.path)
            if self.marks.pop(key, None) is None:
                self.marks[key] = m

    def accept(self) -> list[FileMatch]:
        if self.marks:
            return list(self.marks.values())
        # Enter right after typing: let the typed query's results arrive first.
        deadline = time.monotonic() + ENTER_WAIT
        while time.monotonic() < deadline:
            snap = self.waker.newest(self.query)
            if snap is not None and snap.query == self.query:
                break
            self.waker.arrived.clear()
            self.waker.arrived.wait(0.01)
        m = self.current()
        return [] if m is None else [m]

    # --- drawing

    def list_rows(self) -> int:
        return max(self.term.size()[1] - 2, 1)

    def draw(self) -> None:
        from ffind.searching.session import Snapshot

        cols, height = self.term.size()
        rows = max(height - 2, 0)
        self.drawn_seq = self.waker.seq
        snap = self.waker.newest(self.query)
        if snap is None:
            snap = Snapshot(self.query, [], 0, 0, False)
        self.snap = snap
        if snap.query != self.shown_query:
            self.shown_query = snap.query
            self.cur = self.offset = 0
        self.cur = max(0, min(self.cur, snap.total_match_count - 1))
        if self.cur < self.offset:
            self.offset = self.cur
        elif rows and self.cur >= self.offset + rows:
            self.offset = self.cur - rows + 1
        need = self.offset + rows
        if need <= len(snap.matches) or len(snap.matches) >= snap.total_match_count:
            self.items = snap.matches
        else:  # scrolled past the prefetched rows: rank more (may wait for the matcher)
            self.items = self.searcher.results(need, compute_indices=True)
        lines = self.render(cols, height, snap)
        self.flush(lines, cols, height)

    def render(self, cols: int, height: int, snap: Snapshot) -> list[str]:
        from rich.text import Text

        assert self.console is not None
        texts = [self.info_line(snap)]
        for i in range(self.offset, min(len(self.items), self.offset + height - 2)):
            texts.append(self.match_line(self.items[i], i == self.cur, cols))
        self.console.width = cols
        with self.console.capture() as cap:
            self.console.print(Text("\n").join(texts), no_wrap=True, overflow="crop",
                               crop=True, end="")
        prompt, col = self.prompt_line(cols)
        self.cursor_col = col
        return [prompt, *cap.get().split("\n")][:height]

    def prompt_line(self, cols: int) -> tuple[str, int]:
        from rich.cells import cell_len

        shown = _printable(self.query)
        while shown and cell_len(shown) > cols - 3:
            shown = shown[1:]
        arrow = "\x1b[1m>\x1b[0m " if self.plain else "\x1b[1;36m>\x1b[0m "
        return arrow + shown, 3 + cell_len(shown)

    def info_line(self, snap: Snapshot) -> Text:
        from rich.text import Text

        text = Text(f"  {snap.total_match_count}/{snap.scanned_file_count}", style="yellow")
        if self.marks:
            text.append(f" ({len(self.marks)})", style="magenta")
        if self.busy():
            text.append(" " + SPINNER[int(time.monotonic() / TICK) % len(SPINNER)], style="cyan")
        return text

    def match_line(self, m: FileMatch, is_cur: bool, cols: int) -> Text:
        from rich.cells import cell_len
        from rich.text import Text

        from ffind.frontends.output import escape_indexed, path_with_root

        full, indices = path_with_root(m)
        shown, indices = escape_indexed(full, indices or ())  # never a raw control character
        avail = cols - 2
        shift = lo = 0  # lo: the first column a highlight may fall on (after "..")
        if cell_len(shown) > avail:  # keep the file name: cut on the left
            cut = 0
            while cut < len(shown) and cell_len(shown[cut:]) > avail - 2:
                cut += 1
            shown = ".." + shown[cut:]
            shift, lo = 2 - cut, 2
        marked = (m.root, m.path) in self.marks
        line = Text(no_wrap=True, overflow="crop", end="")
        line.append(">" if is_cur else " ", style="bold red" if is_cur else "")
        line.append("*" if marked else " ", style="bold magenta")
        start = len(line)
        line.append(shown, style="bold" if is_cur else "")
        for i in indices:
            j = i + shift
            if lo <= j < len(shown):
                line.stylize("bold underline" if self.plain else "bold green",
                             start + j, start + j + 1)
        if is_cur:
            pad = cols - cell_len(line.plain)
            if pad > 0:
                line.append(" " * pad)
            line.stylize("on grey23")
        return line

    def flush(self, lines: list[str], cols: int, height: int) -> None:
        full = (cols, height) != self.prev_size or self.term.resized
        self.term.resized = False
        out = ["\x1b[?2026h\x1b[?25l"]
        if full:
            out.append("\x1b[0m\x1b[2J")
            self.prev_lines = []
        lines = lines + [""] * (height - len(lines))
        for row, line in enumerate(lines):
            if row < len(self.prev_lines) and self.prev_lines[row] == line:
                continue
            out.append(f"\x1b[{row + 1};1H\x1b[0m{line}\x1b[0m\x1b[K")
        out.append(f"\x1b[1;{self.cursor_col}H\x1b[?25h\x1b[?2026l")
        self.term.write("".join(out))
        self.prev_lines = lines
        self.prev_size = (cols, height)
