"""Shared helpers below every layer that uses them: the version, terminal-safe text.

A file name may hold control characters, undecodable bytes (kept by ``surrogateescape``) and
other non-printable characters; shown on a terminal they could move the cursor or change
colours.  :func:`terminal_safe` escapes them: ``\\n``, ``\\t``, ``\\r``, ``\\x1b`` (an ASCII
control), ``\\xa0`` (an undecodable byte), ``\\u00a0`` / ``\\U000e0001`` (a valid but
non-printable character).  The command's output, the picker and the agent tools escape here.
"""

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
