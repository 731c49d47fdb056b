"""Keys: terminal input split into key names (fzf's defaults where they do not clash; the
documented table is ``cli.KEY_TABLE``), and the query line edited at its cursor."""

from __future__ import annotations

import re
from collections.abc import Iterator

KEYS: dict[str, str] = {
    "\x1b[A": "up", "\x1bOA": "up", "\x1b[B": "down", "\x1bOB": "down",
    "\x1b[C": "right", "\x1bOC": "right", "\x1b[D": "left", "\x1bOD": "left",
    "\x1b[5~": "pgup", "\x1b[6~": "pgdn", "\x1b[H": "home", "\x1b[F": "end",
    "\x1bOH": "home", "\x1bOF": "end", "\x1b[1~": "home", "\x1b[4~": "end",
    "\x1b[3~": "del", "\x1b[Z": "btab", "\x1b\x7f": "alt-bs", "\x1b\x08": "alt-bs",
    "\x1bb": "alt-b", "\x1bf": "alt-f", "\x1bp": "preview", "\x1bd": "alt-d",
    "\x7f": "bs", "\x08": "bs", "\x15": "ctrl-u", "\x17": "ctrl-w",
    "\x01": "ctrl-a", "\x05": "ctrl-e", "\x02": "ctrl-b", "\x06": "ctrl-f",
    "\x04": "del",
    "\x10": "up", "\x0b": "up", "\x0e": "down", "\x0a": "down", "\x0d": "enter",
    "\x09": "tab", "\x03": "abort", "\x07": "abort", "\x11": "abort", "\x1b": "abort",
    "\x0c": "redraw",
}
WORD_SEPS = " /_-."  # where Alt-B, Alt-F and Alt-Backspace stop (path parts)
MOUSE = re.compile(r"\x1b\[<(\d+);(\d+);(\d+)([Mm])")
CPR = re.compile(r"\x1b\[(\d+);(\d+)R")


def parse_keys(text: str) -> Iterator[str]:
    """Split terminal input into key names and typed characters (pasted text typed, its
    controls dropped; ``mouse:BUTTON:COL:ROW`` presses; ``cpr:ROW:COL`` reports)."""
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
                yield _csi(seq)
                continue
            seq = text[i : i + 2]
            i += 2
            yield KEYS.get(seq, "ignore")
            continue
        i += 1
        key = KEYS.get(ch)
        if ch >= " " and ch != "\x7f":
            yield "char:" + ch
        elif key is not None and not pasting:
            yield key


def _csi(seq: str) -> str:
    m = MOUSE.fullmatch(seq)
    if m is not None:
        button, col, row, kind = m.groups()
        return f"mouse:{button}:{col}:{row}" if kind == "M" else "ignore"
    m = CPR.fullmatch(seq)
    if m is not None:
        return f"cpr:{m.group(1)}:{m.group(2)}"
    return KEYS.get(seq, "ignore")


def word_left(text: str, pos: int, seps: str) -> int:
    """Where a word ending before ``pos`` starts (separators before the cursor skipped)."""
    while pos and text[pos - 1] in seps:
        pos -= 1
    while pos and text[pos - 1] not in seps:
        pos -= 1
    return pos


def word_right(text: str, pos: int, seps: str) -> int:
    """Where the word at or after ``pos`` ends (separators after the cursor skipped)."""
    n = len(text)
    while pos < n and text[pos] in seps:
        pos += 1
    while pos < n and text[pos] not in seps:
        pos += 1
    return pos


class QueryLine:
    """The query and the cursor inside it (0 = before the first character)."""

    __slots__ = ("pos", "text")

    def __init__(self, text: str = "", pos: int = 0) -> None:
        self.text, self.pos = text, pos

    EDITS = frozenset({"bs", "del", "ctrl-u", "ctrl-w", "alt-bs", "alt-d", "left", "right",
                       "ctrl-a", "ctrl-e", "ctrl-b", "ctrl-f", "alt-b", "alt-f"})

    def handle(self, key: str) -> bool:
        """Apply an editing or cursor key; False when ``key`` is not one."""
        text, pos = self.text, self.pos
        if key.startswith("char:"):
            ch = key[5:]
            self.text, self.pos = text[:pos] + ch + text[pos:], pos + len(ch)
        elif key not in self.EDITS:
            return False
        elif key == "bs" and pos:
            self.text, self.pos = text[: pos - 1] + text[pos:], pos - 1
        elif key == "del":
            self.text = text[:pos] + text[pos + 1 :]
        elif key == "ctrl-u":  # fzf's unix-line-discard: what is before the cursor
            self.text, self.pos = text[pos:], 0
        elif key in ("ctrl-w", "alt-bs"):
            start = word_left(text, pos, " " if key == "ctrl-w" else WORD_SEPS)
            self.text, self.pos = text[:start] + text[pos:], start
        elif key == "alt-d":
            self.text = text[:pos] + text[word_right(text, pos, WORD_SEPS) :]
        else:
            self.pos = self._moved(key)
        return True

    def _moved(self, key: str) -> int:
        text, pos = self.text, self.pos
        if key in ("left", "ctrl-b"):
            return max(pos - 1, 0)
        if key in ("right", "ctrl-f"):
            return min(pos + 1, len(text))
        if key == "ctrl-a":
            return 0
        if key == "ctrl-e":
            return len(text)
        if key == "alt-b":
            return word_left(text, pos, WORD_SEPS)
        if key == "alt-f":
            return word_right(text, pos, WORD_SEPS)
        return pos
