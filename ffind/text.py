"""Shared helpers below every layer that uses them: the version and :func:`terminal_safe`, which
escapes what a file name could use to move the cursor or change colours (controls, undecodable
bytes, non-printable characters) for the output, the picker and the agent tools."""

from __future__ import annotations

__version__ = "0.1.0"

_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def escape_char(ch: str) -> str:
    """The escape of one non-printable character (see the module docstring)."""
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x80:  # an ASCII control: the byte and the character are one
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal_safe(text: str) -> str:
    """``text`` with every non-printable character (controls, undecodable bytes, format
    characters such as a right-to-left override, unassigned code points) escaped."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else escape_char(ch) for ch in text)
