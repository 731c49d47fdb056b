"""Writers for the command's output, as bytes: plain lines (piped: the names' own bytes; on a
terminal or with colour: escaped, matches highlighted with plain ANSI), NUL-separated, and
JSON lines (a last ``{"matches_truncated": true, "total_match_count": N}`` when the limit
cut; undecodable bytes as U+FFFD, so ``indices`` line up)."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable, Mapping

from ffind.errors import FfindError
from ffind.text import escape_char, terminal_safe

TYPE_CHECKING = False  # (not typing's: ``ffind --version`` does not import typing)
if TYPE_CHECKING:
    from typing import BinaryIO

    from ffind.scoring.scorer import FileMatch

HIGHLIGHT = "\x1b[1;31m"  # bold red, like ripgrep's matches
BOLD = "\x1b[1m"  # ``--compute-indices`` under ``NO_COLOR`` (no-color.org allows bold)
RESET = "\x1b[0m"
_UNDECODABLE = dict.fromkeys(range(0xDC80, 0xDD00), "\ufffd")  # surrogateescape's, to U+FFFD


def use_color(choice: str, isatty: bool, environ: Mapping[str, str] | None = None) -> bool:
    """Settle ``--color``: ``auto`` means a terminal, no ``NO_COLOR``, not ``TERM=dumb``."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    env = os.environ if environ is None else environ
    return isatty and not env.get("NO_COLOR") and env.get("TERM") != "dumb"


def highlight_style(
    choice: str, isatty: bool, *, compute_indices: bool = False,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """How to mark matched characters: colour, bold (``NO_COLOR`` on a terminal with
    ``--compute-indices``), or not at all."""
    env = os.environ if environ is None else environ
    if use_color(choice, isatty, env):
        return HIGHLIGHT
    if compute_indices and choice == "auto" and isatty and env.get("TERM") != "dumb":
        return BOLD
    return None


def highlight(
    text: str, indices: Iterable[int], *, escape: bool, style: str = HIGHLIGHT
) -> str:
    """``text`` with the characters at ``indices`` wrapped in ``style`` (an ANSI escape)."""
    marked = set(indices)
    out: list[str] = []
    inside = False
    for i, ch in enumerate(text):
        on = i in marked
        if on != inside:
            out.append(style if on else RESET)
            inside = on
        out.append(terminal_safe(ch) if escape else ch)
    if inside:
        out.append(RESET)
    return "".join(out)


def escape_indexed(text: str, indices: Iterable[int]) -> tuple[str, list[int]]:
    """``terminal_safe(text)`` and ``indices`` moved to match (an escaped character's whole
    escape is marked)."""
    if text.isprintable():
        return text, list(indices)
    starts: list[int] = []
    out: list[str] = []
    n = 0
    for ch in text:
        starts.append(n)
        shown = ch if ch.isprintable() else escape_char(ch)
        out.append(shown)
        n += len(shown)
    starts.append(n)
    moved = [j for i in indices if 0 <= i < len(text) for j in range(starts[i], starts[i + 1])]
    return "".join(out), moved


def path_with_root(m: FileMatch) -> tuple[str, list[int] | None]:
    """The path as printed (prefixed with its root when it has one) and its indices."""
    if m.root is None:
        return m.path, m.indices
    prefix = m.root if m.root.endswith(("/", os.sep)) else m.root + "/"
    indices = None if m.indices is None else [i + len(prefix) for i in m.indices]
    return prefix + m.path, indices


def format_plain(
    matches: Iterable[FileMatch], *, print0: bool = False, style: str | None = None,
    escape: bool = False,
) -> bytes:
    """Plain output as bytes: one path a line (or NUL-terminated), matches in ``style``."""
    end = b"\0" if print0 else b"\n"
    if not style and not escape:
        return b"".join(os.fsencode(path_with_root(m)[0]) + end for m in matches)
    lines: list[bytes] = []
    for m in matches:
        path, indices = path_with_root(m)
        if style and indices:
            text = highlight(path, indices, escape=escape, style=style)
        else:
            text = terminal_safe(path) if escape else path
        # Escaped text holds no surrogates; unescaped (colour while piped) keeps the raw bytes.
        lines.append(os.fsencode(text) + end)
    return b"".join(lines)


def json_text(path: str) -> str:
    """``path`` as a JSON-safe string: each undecodable byte becomes U+FFFD (one for one)."""
    return path.translate(_UNDECODABLE)


def format_json(
    matches: Iterable[FileMatch], *, total_match_count: int, limit: int | None,
    compute_indices: bool = False,
) -> bytes:
    """JSON lines: one object a match (``score``, ``path``, then ``indices``, ``typo``,
    ``root`` when they apply), then the truncation record when the limit cut."""
    import orjson

    lines: list[bytes] = []
    shown = 0
    for m in matches:
        obj: dict[str, object] = {"score": m.score, "path": m.path}
        if compute_indices:
            obj["indices"] = list(m.indices or ())
        if m.typo:
            obj["typo"] = True
        if m.root is not None:
            obj["root"] = m.root
        try:
            line = orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)
        except TypeError:  # orjson.JSONEncodeError: surrogates in a non-UTF-8 name
            obj["path"] = json_text(m.path)
            if m.root is not None:
                obj["root"] = json_text(m.root)
            line = orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)
        lines.append(line)
        shown += 1
    if total_match_count > shown and limit is not None:
        lines.append(orjson.dumps(
            {"matches_truncated": True, "total_match_count": total_match_count},
            option=orjson.OPT_APPEND_NEWLINE,
        ))
    return b"".join(lines)


def write(out: BinaryIO, data: bytes) -> None:
    """Write and flush (the caller handles ``OSError``, ``BrokenPipeError`` included)."""
    out.write(data)
    out.flush()


def print_paths(
    matches: Iterable[FileMatch], *, print0: bool = False, style: str | None = None,
    escape: bool | None = None,
) -> None:
    """The one plain-path writer of the command and the picker: each path (with its root),
    matches in ``style``, escaped when ``escape`` (None: on a terminal)."""
    stdout = sys.stdout
    if stdout is None:
        raise OSError(errno.EBADF, "standard output is closed")
    stdout.flush()
    if escape is None:
        escape = stdout.isatty()
    write(stdout.buffer, format_plain(matches, print0=print0, style=style, escape=escape))


def write_answer(before: list[str], data: bytes, after: list[str], code: int) -> int:
    """Write an answer: the warnings, the output, the notes after it; the exit status."""
    for warning in before:
        warn(warning)
    write_stdout(data)
    for note in after:
        warn(note)
    return code


def warn(message: str) -> None:
    """One line ``ffind: message`` on stderr, escaped; a failing stderr loses the message,
    never the results."""
    stream = sys.stderr
    if stream is None:  # started with fd 2 closed
        return
    try:
        stream.write(f"ffind: {terminal_safe(' '.join(message.split()))}\n")
        stream.flush()
    except (OSError, ValueError):
        to_devnull(2)


def to_devnull(fd: int) -> None:
    """Point ``fd`` at /dev/null (after a failed write, or to keep a closed one reserved)."""
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        if devnull != fd:
            os.dup2(devnull, fd)
            os.close(devnull)
    except OSError:
        pass


def check_streams() -> None:
    """Before anything is opened: a closed stdin or stderr is reserved with /dev/null (a pipe
    must not become fd 2); a closed stdout is an error."""
    for fd in (0, 2):
        if not _is_open(fd):
            to_devnull(fd)
    if not _is_open(1) or sys.stdout is None:
        raise FfindError("cannot write to standard output: it is closed")


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


class _StdoutErrors:
    """``with stdout_errors():`` (a class: no ``contextlib`` import on the served path)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, e: BaseException | None,
                 tb: object) -> None:
        if isinstance(e, OSError) and not isinstance(e, BrokenPipeError):
            quiet_stdout()
            raise FfindError(f"cannot write to standard output: {e.strerror or e}") from None


def stdout_errors() -> _StdoutErrors:
    """A write error on stdout becomes a one-line FfindError (``BrokenPipeError`` is left to
    the caller: it ends quietly)."""
    return _StdoutErrors()


def write_stdout(data: bytes) -> None:
    """Write bytes to stdout (``--version``, JSON lines), errors as :func:`stdout_errors`."""
    with stdout_errors():
        stdout = sys.stdout
        if stdout is None:
            raise OSError(errno.EBADF, "it is closed")
        stdout.flush()
        write(stdout.buffer, data)


def quiet_stdout() -> None:
    """After a failed write: stdout to /dev/null, so the final flush is quiet."""
    to_devnull(1)
