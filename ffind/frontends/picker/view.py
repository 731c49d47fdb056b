"""The picker's loop and drawing: the query line, the counter (matched/scanned, marked, a
spinner while busy), the list, the preview (right half from ``SIDE_MIN_COLS`` columns, else
lower half).  Each frame is one ``write`` in synchronized-update brackets, changed rows only."""

from __future__ import annotations

import time
from collections.abc import Callable

from ffind.frontends.picker.keys import QueryLine
from ffind.frontends.picker.terminal import Terminal, make_console, to_ansi
from ffind.frontends.picker.waker import Waker

TYPE_CHECKING = False  # (not typing's: imported on the picker's start)
if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from ffind.frontends.picker.preview import Preview
    from ffind.scoring.scorer import FileMatch
    from ffind.searching.session import FileSearcher, Snapshot

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ENTER_WAIT = 1.0  # seconds Enter waits for the typed query's results when they are not in yet
TICK = 0.1  # spinner period while the walk or the matching is running
MIN_REDRAW = 0.03  # fewest seconds between two redraws for progress (the walk's, the matching's)
ECHO_WAIT = 0.02
"""Seconds a typed key waits for its query's answer before the prompt is redrawn over the
previous results: one frame instead of two when the answer is quick."""
COUNTING = "…"
"""The counter's match count while it is counted (the resident server's rows come first)."""
SIDE_MIN_COLS = 100  # from this width on the preview is beside the list; below it, under the list
WHEEL = {"64": -1, "65": 1}  # SGR mouse buttons of the wheel: up, down


def printable(text: str) -> str:
    """One printable character for each character of ``text`` (indices stay aligned)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else "?" for c in text)


def _count(snap: Snapshot | None) -> int:
    """The matches the cursor may move over: the count, or the rows while it is counted."""
    if snap is None:
        return 0
    return len(snap.matches) if snap.total_match_count < 0 else snap.total_match_count


def prompt_line(query: str, pos: int, cols: int, plain: bool) -> tuple[str, int]:
    """The query line cut to ``cols`` around the cursor at ``pos``, and the cursor's column."""
    from rich.cells import cell_len

    shown = printable(query)
    while shown and pos and cell_len(shown) > cols - 3:  # keep the cursor in view
        shown, pos = shown[1:], pos - 1
    while shown and cell_len(shown) > cols - 3:
        shown = shown[:-1]
    arrow = "\x1b[1m>\x1b[0m " if plain else "\x1b[1;36m>\x1b[0m "
    return arrow + shown, 3 + cell_len(shown[:pos])


def info_line(snap: Snapshot, marked: int, busy: bool) -> Text:
    """The counter: matched/scanned, how many are marked, and a spinner while busy."""
    from rich.text import Text

    count = snap.total_match_count
    text = Text(f"  {COUNTING if count < 0 else count}/{snap.scanned_file_count}",
                style="yellow")
    if marked:
        text.append(f" ({marked})", style="magenta")
    if busy:
        text.append(" " + SPINNER[int(time.monotonic() / TICK) % len(SPINNER)], style="cyan")
    return text


def match_line(m: FileMatch, is_cur: bool, marked: bool, cols: int, plain: bool) -> Text:
    """One row of the list: the path (cut on the left to keep the file name) with its
    matched characters highlighted, after the cursor and mark columns."""
    from rich.cells import cell_len
    from rich.text import Text

    from ffind.frontends.output import escape_indexed, path_with_root

    full, indices = path_with_root(m)
    shown, indices = escape_indexed(full, indices or ())  # never a raw control character
    avail = cols - 2
    shift = lo = 0  # lo: the first column a highlight may fall on (after "..")
    if cell_len(shown) > avail:
        cut = 0
        while cut < len(shown) and cell_len(shown[cut:]) > avail - 2:
            cut += 1
        shown = ".." + shown[cut:]
        shift, lo = 2 - cut, 2
    line = Text(no_wrap=True, overflow="crop", end="")
    line.append(">" if is_cur else " ", style="bold red" if is_cur else "")
    line.append("*" if marked else " ", style="bold magenta")
    start = len(line)
    line.append(shown, style="bold" if is_cur else "")
    for i in indices:
        j = i + shift
        if lo <= j < len(shown):
            line.stylize("bold underline" if plain else "bold green", start + j, start + j + 1)
    if is_cur:
        pad = cols - cell_len(line.plain)
        if pad > 0:
            line.append(" " * pad)
        line.stylize("on grey23")
    return line


class Picker:
    def __init__(
        self, term: Terminal, searcher: FileSearcher | None, waker: Waker, query: str,
        color: bool | None = None, preview: Preview | None = None,
    ) -> None:
        """``searcher``: the session; None until ``attach`` (``first`` draws before it)."""
        self.term = term
        self.color = color
        self.plain = False  # no colour: the prompt bold, matched characters bold and underlined
        self._searcher = searcher
        self.waker = waker
        self.line = QueryLine(query, len(query))
        self.sent_query = query
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
        self.cursor_col = 1
        self.preview = preview
        self.show_preview = preview is not None

    @property
    def query(self) -> str:
        return self.line.text

    @property
    def searcher(self) -> FileSearcher:
        assert self._searcher is not None, "the session is attached before the loop runs"
        return self._searcher

    def attach(self, searcher: FileSearcher) -> None:
        self._searcher = searcher

    def _console(self) -> None:
        if self.console is None:
            self.console = make_console(self.term.size()[0], self.color)
            self.plain = self.console.no_color or self.console.color_system is None

    def first(self, wait: float, asking: Callable[[], bool]) -> None:
        """Before the session starts: draw the resident server's provisional states that come
        within ``wait`` seconds, until one with its count."""
        deadline = time.monotonic() + wait
        self._console()  # (rich's import, while the server works)
        import ffind.searching.session  # noqa: F401  (the frame's state, meanwhile too)
        drawn = None
        while True:
            latest = self.waker.latest
            if latest is not None and latest is not drawn:
                self.draw()
                drawn = latest
                if latest.total_match_count >= 0:
                    return
            left = deadline - time.monotonic()
            if left <= 0 or (not asking() and self.waker.latest is drawn):
                return
            self.waker.arrived.wait(left)
            self.waker.arrived.clear()

    def run(self) -> list[FileMatch] | None:
        """The selection (empty: Enter with nothing to pick), or None when aborted."""
        try:
            self._console()
            return self.loop()
        except KeyboardInterrupt:
            return None
        finally:
            if self.preview is not None:
                self.preview.cancel()

    def loop(self) -> list[FileMatch] | None:
        # The typed query's answer, resizes and keys that leave the query alone redraw at
        # once; a typed key redraws after ECHO_WAIT without its answer.  Progress (the walk,
        # the spinner, the preview) redraws at most every twice the last draw's cost: drawing
        # every state would starve the walk.
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

    def busy(self) -> bool:
        """The walk or the matching of the typed query is still running."""
        if self._searcher is not None:
            self._searcher.wait(0)  # raises the walk's error, if any
        snap = self.waker.latest
        return not (self.waker.complete and snap is not None and snap.query == self.query)

    def handle(self, key: str) -> tuple[bool, list[FileMatch] | None]:
        if self.preview is not None and (key == "preview" or key == "char:?"):
            self.show_preview = not self.show_preview
            self.prev_lines = []
        elif self.line.handle(key):
            self.set_query(self.line.text)
        elif key in ("up", "down", "pgup", "pgdn", "home", "end"):
            rows = self.layout()[1]
            step = {"up": -1, "down": 1, "pgup": -rows, "pgdn": rows,
                    "home": -(1 << 60), "end": 1 << 60}[key]
            self.move(step)
        elif key in ("tab", "btab"):
            self.toggle_mark()
            self.move(1 if key == "tab" else -1)
        elif key.startswith("mouse:"):
            self.click(*key.split(":")[1:])
        elif key.startswith("cpr:"):
            self.term.set_origin(int(key.split(":")[1]))
        elif key == "enter":
            return True, self.accept()
        elif key == "abort":
            return True, None
        elif key == "redraw":
            self.prev_lines = []
        return False, None

    def set_query(self, query: str) -> None:
        if query != self.sent_query:
            self.sent_query = query
            self.cur = self.offset = 0
            self.searcher.set_query(query)

    def move(self, step: int) -> None:
        self.cur = max(0, min(self.cur + step, _count(self.snap) - 1))

    def click(self, button: str, col: str, screen_row: str) -> None:
        if button in WHEEL:
            self.move(WHEEL[button])
            return
        row = self.term.row_at(int(screen_row))
        list_cols, rows, _ = self.layout()
        if button != "0" or row is None or row < 2 or int(col) > list_cols:
            return
        index = self.offset + row - 2
        if row - 2 < rows and index < len(self.items):
            self.cur = index

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

    def layout(self) -> tuple[int, int, bool | None]:
        """The list's columns and rows, and the preview's place: beside the list (True),
        under it (False), or not shown (None)."""
        cols, height = self.term.size()
        rows = max(height - 2, 1)
        if self.preview is None or not self.show_preview or height < 6:
            return cols, rows, None
        if cols >= SIDE_MIN_COLS:
            return cols // 2, rows, True
        return cols, max(rows // 2, 1), False

    def draw(self) -> None:
        from ffind.searching.session import Snapshot

        cols, height = self.term.size()
        rows = self.layout()[1]
        self.drawn_seq = self.waker.seq
        snap = self.waker.newest(self.query)
        if snap is None:
            snap = Snapshot(self.query, [], 0, 0, False)
        self.snap = snap
        if snap.query != self.shown_query:
            self.shown_query = snap.query
            self.cur = self.offset = 0
        self.cur = max(0, min(self.cur, _count(snap) - 1))
        if self.cur < self.offset:
            self.offset = self.cur
        elif rows and self.cur >= self.offset + rows:
            self.offset = self.cur - rows + 1
        need = self.offset + rows
        if (need <= len(snap.matches) or len(snap.matches) >= snap.total_match_count
                or self._searcher is None):
            self.items = snap.matches
        else:  # scrolled past the prefetched rows: rank more (may wait for the matcher)
            self.items = self.searcher.results(need, compute_indices=True)
        lines = self.render(cols, height, snap)
        self.flush(lines, cols, height)

    def render(self, cols: int, height: int, snap: Snapshot) -> list[str]:
        list_cols, rows, side = self.layout()
        texts = [match_line(m, i == self.cur, (m.root, m.path) in self.marks, list_cols,
                            self.plain)
                 for i, m in enumerate(self.items[self.offset : self.offset + rows], self.offset)]
        if side:
            for t in texts:
                t.truncate(list_cols, overflow="crop", pad=True)
        assert self.console is not None
        info = info_line(snap, len(self.marks), self.busy())
        body = to_ansi(self.console, [info, *texts], cols)
        listed = body[1:] + [" " * list_cols if side else ""] * (rows - len(texts))
        prompt, self.cursor_col = prompt_line(self.query, self.line.pos, cols, self.plain)
        if side is not None:
            listed = self.with_preview(listed, side, list_cols, rows)
        return [prompt, body[0], *listed][:height]

    def with_preview(self, listed: list[str], side: bool, list_cols: int, rows: int,
                     ) -> list[str]:
        """The list's rows with the preview beside them (after a separator), or followed by a
        rule and it."""
        assert self.preview is not None
        cols, height = self.term.size()
        pcols, prows = (cols - list_cols - 2, height - 2) if side else (cols, height - 3 - rows)
        m = self.current() if self.shown_query == self.query else None
        shown = None
        if m is not None and pcols > 0 and prows > 0:
            from ffind.frontends.output import path_with_root

            shown = self.preview.get((path_with_root(m)[0], pcols, prows))
        else:
            self.preview.cancel()
        shown = shown or [""] * prows
        if side:
            bar = "\x1b[0m\x1b[0;2m│\x1b[0m "
            return [f"{row}{bar}{p}" for row, p in zip(listed, shown, strict=False)]
        rule = "\x1b[0;2m" + "─" * cols + "\x1b[0m"
        return [*listed, rule, *shown]

    def flush(self, lines: list[str], cols: int, height: int) -> None:
        full = (cols, height) != self.prev_size or self.term.resized
        self.term.resized = False
        out = ["\x1b[?2026h\x1b[?25l"]
        if full:
            out.append("\x1b[0m" + self.term.clear())
            self.prev_lines = []
        lines = lines + [""] * (height - len(lines))
        for row, line in enumerate(lines):
            if row < len(self.prev_lines) and self.prev_lines[row] == line:
                continue
            out.append(f"{self.term.goto(row)}\x1b[0m{line}\x1b[0m\x1b[K")
        out.append(f"{self.term.goto(0, self.cursor_col)}\x1b[?25h\x1b[?2026l")
        self.term.write("".join(out))
        self.prev_lines = lines
        self.prev_size = (cols, height)
