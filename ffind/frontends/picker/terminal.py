"""The terminal the picker draws on: raw mode, full screen (the alternate screen) or inline
(``--height``: N lines below the cursor, reached from a saved cursor, cleared on exit), restored
on exit."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading

from ffind.errors import FfindError
from ffind.frontends.picker.keys import parse_keys

TYPE_CHECKING = False  # (not typing's: the picker's start imports as little as it can)
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any

    from rich.console import Console
    from rich.text import Text
else:  # (a frozen record without importing dataclasses: ffind.frozen)
    from ffind.frozen import dataclass

ESC_TIMEOUT = 0.03  # seconds to wait after a lone ESC byte for the rest of an escape sequence
MIN_HEIGHT = 3  # the fewest rows an inline picker uses (the query, the counter, one match)
MOUSE_ON = "\x1b[?1000h\x1b[?1006h"
MOUSE_OFF = "\x1b[?1006l\x1b[?1000l"


@dataclass(frozen=True, slots=True)
class Height:
    """``--height``: a number of rows, or a percentage of the terminal's."""

    value: int
    percent: bool = False

    @classmethod
    def parse(cls, text: str) -> Height:
        """``"10"`` or ``"40%"``; raises FfindError for anything else."""
        raw = text.strip()
        percent = raw.endswith("%")
        digits = raw[:-1] if percent else raw
        if not digits.isdigit() or int(digits) < 1 or (percent and int(digits) > 100):
            raise FfindError(f"--height: {text!r} is not N (rows) or N% (1-100) of the terminal")
        return cls(int(digits), percent)

    def rows(self, terminal_rows: int) -> int:
        """Rows to use on a terminal of ``terminal_rows`` (the prompt's line stays visible)."""
        want = -(-terminal_rows * self.value // 100) if self.percent else self.value
        return max(min(want, terminal_rows - 1), min(MIN_HEIGHT, terminal_rows))


class Terminal:
    """Raw mode on ``fd``, full screen or inline (``height``), restored on exit; reads keys and
    the wake-up pipe (written by the session's reporter, the preview, and on SIGWINCH)."""

    def __init__(self, fd: int, wake_r: int, wake_w: int, height: Height | None = None) -> None:
        self.fd = fd
        self.wake_r, self.wake_w = wake_r, wake_w
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        self.height = height
        self.resized = False
        self.rows = 0  # inline: the rows below the cursor's line that were made room for
        self.origin = 0
        """The screen row (1-based) of the first row drawn, for mouse clicks; 0: unknown."""
        self._saved: list[Any] | None = None
        self._handlers: dict[int, Any] = {}

    def __enter__(self) -> Terminal:
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
        if self.height is None:
            self.origin = 1
            self.write(f"\x1b[?1049h\x1b[?2004h{MOUSE_ON}\x1b[?25l\x1b[H\x1b[2J")
        else:
            self.rows = self.height.rows(self._raw_size()[1])
            # Make room below (scrolling at the bottom), back to the line, save it, ask where
            # it is (the answer comes in as a "cpr" key).
            self.write(f"\x1b[?2004h{MOUSE_ON}\x1b[?25l" + "\n" * self.rows
                       + f"\x1b[{self.rows}A\x1b7\x1b[6n")
        return self

    def __exit__(self, *exc: object) -> None:
        import termios

        with contextlib.suppress(OSError):
            if self.height is None:
                self.write(f"\x1b[0m\x1b[2J\x1b[?25h\x1b[?2004l{MOUSE_OFF}\x1b[?1049l")
            else:
                self.write(f"\x1b[0m{self.clear()}\x1b8\x1b[?25h\x1b[?2004l{MOUSE_OFF}")
        if self._saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        for sig, old in self._handlers.items():
            signal.signal(sig, old)

    def _on_winch(self, signum: int, frame: object) -> None:
        self.resized = True
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self.wake_w, b"r")

    def _raw_size(self) -> tuple[int, int]:
        try:
            cols, rows = os.get_terminal_size(self.fd)
        except OSError:
            cols, rows = 80, 24
        return max(cols, 10), max(rows, 1)

    def size(self) -> tuple[int, int]:
        """Columns and rows to draw in."""
        cols, rows = self._raw_size()
        if self.height is None:
            return cols, rows
        return cols, max(min(self.rows, rows - 1), 1)

    def goto(self, row: int, col: int = 1) -> str:
        """The escape sequence to reach ``row`` (0 = the first drawn) at ``col`` (1-based)."""
        if self.height is None:
            return f"\x1b[{row + 1};{col}H"
        return f"\x1b8\x1b[{row + 1}B\x1b[{col}G"

    def clear(self) -> str:
        """The escape sequence that clears every row drawn in."""
        if self.height is None:
            return "\x1b[2J"
        return "\x1b8\x1b[1B\r\x1b[J"

    def set_origin(self, cursor_row: int) -> None:
        """The cursor position report for the saved cursor: rows are drawn below it."""
        if self.height is not None:
            self.origin = cursor_row + 1

    def row_at(self, screen_row: int) -> int | None:
        """The drawn row (0-based) at a 1-based screen row, None when unknown or outside."""
        if not self.origin:
            return None
        row = screen_row - self.origin
        return row if 0 <= row < self.size()[1] else None

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


def make_console(width: int, color: bool | None) -> Console:
    """A rich console writing ANSI for the picker (``color``: as ``run_picker``'s)."""
    from rich.console import Console

    dumb = os.environ.get("TERM") == "dumb"  # (rich: no colour system; NO_COLOR read too)
    return Console(
        force_terminal=True, highlight=False, markup=False, emoji=False,
        legacy_windows=False, width=width,
        no_color=None if color is None else not color,
        color_system="standard" if color and dumb else "auto",
    )


def to_ansi(console: Console, texts: list[Text], width: int) -> list[str]:
    """``texts`` as lines of ANSI, each cut to ``width`` cells."""
    from rich.text import Text

    console.width = width
    with console.capture() as cap:
        console.print(Text("\n").join(texts), no_wrap=True, overflow="crop", crop=True, end="")
    return cap.get().split("\n")
