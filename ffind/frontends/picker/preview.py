"""The preview (``--preview``): a text file highlighted by rich (at most ``READ_LIMIT`` bytes
read), a folder's listing, or ``CMD {}`` run through ``sh -c`` like fzf.  Each request renders
in its own thread and never blocks typing; a newer one cancels the older."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ffind.frontends.picker.terminal import make_console, to_ansi

if TYPE_CHECKING:
    from rich.text import Text

READ_LIMIT = 8192  # bytes read from a file at most (a screenful of text is far less)
OUTPUT_LIMIT = 65536  # bytes of a preview command's output kept at most (the rest is not read)
Key = tuple[str, int, int]  # a request: the path, and the columns and rows to fill


def file_text(path: str, rows: int) -> tuple[str, bool]:
    """``(text, is_text)``: the first ``rows`` lines of a text file, or what it is instead."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            data = f.read(READ_LIMIT)
    except OSError as e:
        return f"cannot read: {e.strerror}", False
    if b"\0" in data:
        return f"binary, {size} bytes", False
    if len(data) == READ_LIMIT:  # cut: drop the partial last line (and a split character)
        data = data[: data.rfind(b"\n") + 1] or data[:-4]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"binary, {size} bytes", False
    return "\n".join(text.expandtabs(4).splitlines()[:rows]), True


def folder_text(path: str, rows: int) -> str:
    """A short listing: folders first (with a ``/``), then files, each sorted."""
    try:
        with os.scandir(path) as it:
            entries = [(not e.is_dir(), e.name + ("/" if e.is_dir() else "")) for e in it]
    except OSError as e:
        return f"cannot list: {e.strerror}"
    entries.sort()
    names = [name for _, name in entries]
    if len(names) > rows:
        names = [*names[: rows - 1], f"... {len(names) - rows + 1} more"]
    return "\n".join(names) if names else "(empty folder)"


def builtin_lines(path: str, cols: int, rows: int) -> list[Text]:
    """The built-in preview of ``path`` as styled lines (not yet cut to ``cols``)."""
    from rich.text import Text

    if os.path.isdir(path):
        return [Text(line, style="blue" if line.endswith("/") else "")
                for line in folder_text(path, rows).split("\n")]
    text, is_text = file_text(path, rows)
    if not is_text:
        return [Text(text, style="dim")]
    from rich.syntax import Syntax

    cut = "\n".join(line[: cols + 1] for line in text.split("\n"))
    lexer = Syntax.guess_lexer(path, cut) if cut else "text"
    syntax = Syntax(cut, lexer, theme="ansi_dark", background_color="default")
    return syntax.highlight(cut).split("\n")[:rows]


class Preview:
    """The newest preview: rendered in a thread per request, handed over through a lock."""

    def __init__(self, command: str | None, color: bool | None,
                 wake: Callable[[], None]) -> None:
        """``command``: the preview command (None or "": the built-in preview); ``color``: as
        ``run_picker``'s; ``wake``: called when a preview is ready."""
        self.command = command or None
        self.color = color
        self._wake = wake
        self._lock = threading.Lock()
        self._key: Key | None = None
        self._lines: list[str] | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    def get(self, key: Key) -> list[str] | None:
        """The rendered lines for ``key`` when ready; else start rendering it (cancelling
        any other request) and return None."""
        with self._lock:
            if key == self._key:
                return self._lines
            self._cancel_locked()
            self._key, self._lines = key, None
        threading.Thread(target=self._render, args=(key,), daemon=True,
                         name="ffind-preview").start()
        return None

    def cancel(self) -> None:
        with self._lock:
            self._cancel_locked()
            self._key = self._lines = None

    def _cancel_locked(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)

    def _render(self, key: Key) -> None:
        path, cols, rows = key
        try:
            texts = self._run(key) if self.command else builtin_lines(path, cols, rows)
            lines = self._to_ansi(texts, cols, rows)
        except Exception as e:  # a preview must never take the picker down
            lines = self._to_ansi_plain(f"preview failed: {e}", cols, rows)
        with self._lock:
            if self._key != key:
                return
            self._lines = lines
        self._wake()

    def _run(self, key: Key) -> list[Text]:
        from rich.text import Text

        path, cols, rows = key
        assert self.command is not None
        cmd = self.command.replace("{}", shlex.quote(path))
        env = {**os.environ, "FFIND_PREVIEW_COLUMNS": str(cols), "FFIND_PREVIEW_LINES": str(rows),
               "COLUMNS": str(cols), "LINES": str(rows)}
        proc = subprocess.Popen(["sh", "-c", cmd], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        with self._lock:
            if self._key != key:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                self._proc = proc
        assert proc.stdout is not None
        out = b""
        with proc.stdout:
            while len(out) < OUTPUT_LIMIT and out.count(b"\n") < rows:
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                out += chunk
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)  # what is not shown is not waited for
        proc.wait()
        return Text.from_ansi(out.decode("utf-8", "replace").expandtabs(4)).split("\n")[:rows]

    def _to_ansi(self, texts: list[Text], cols: int, rows: int) -> list[str]:
        lines = [t.copy() for t in texts[:rows]]
        for line in lines:
            line.truncate(cols, overflow="crop", pad=True)
        out = to_ansi(make_console(cols, self.color), lines, cols) if lines else []
        return out + [" " * cols] * (rows - len(out))

    def _to_ansi_plain(self, message: str, cols: int, rows: int) -> list[str]:
        shown = message[:cols].ljust(cols)
        return [shown] + [" " * cols] * (rows - 1)
