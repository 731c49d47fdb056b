"""The command line of a plain search parsed without click (whose import costs more than the
rest of the parsing): :func:`parse` reads ``argv`` from the same table (``flags.FLAGS``) as
click 8.5's parser would, and answers only when sure of click's answer; anything else gives
None and goes to click, so every message and exit status is click's
(``tests/fastparse_test.py`` compares the two)."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from ffind.frontends.flags import FLAGS, Flag

__all__ = ["occurrences", "parse"]


def parse(args: Sequence[str], flags: Sequence[Flag] = FLAGS,
          ) -> tuple[str, dict[str, object]] | None:
    """(the pattern, each flag's value by its ``long`` name) as click gives them for
    ``args``, or None when click must parse them (see the module docstring)."""
    found = occurrences(args, flags)
    if found is None:
        return None
    given: dict[str, object] = {}
    positional: list[str] = []
    for flag, text in found:
        if flag is None:
            positional.append(text or "")
        elif not _take(given, flag, text):
            return None
    if len(positional) > 1:
        return None
    values: dict[str, object] = {}
    for flag in flags:
        if flag.long in given:
            values[flag.long] = given[flag.long]
        elif flag.kind == "dir" and isinstance(flag.default, str):
            if not _folder_ok(flag.default):
                return None
            values[flag.long] = flag.default
        else:
            values[flag.long] = flag.default
    return (positional[0] if positional else ""), values


def occurrences(args: Sequence[str], flags: Sequence[Flag] = FLAGS,
                ) -> list[tuple[Flag | None, str | None]] | None:
    """Each flag of ``args`` with its value's text (None: a switch), each argument as ``(None,
    text)``, as click splits them (``--``, ``-abc`` runs, optional values); None when click
    must read them.  The values are not checked."""
    longs = {f"--{f.long}": f for f in flags}
    shorts = {f.short: f for f in flags if f.short}
    found: list[tuple[Flag | None, str | None]] = []
    n = len(args)
    i = 0
    while i < n:
        arg = args[i]
        i += 1
        if arg == "--":
            found += [(None, rest) for rest in args[i:]]
            break
        if arg[:1] != "-" or len(arg) == 1:
            found.append((None, arg))
            continue
        if arg[:2] == "--":
            name, eq, attached = arg.partition("=")
            flag = longs.get(name)
            if flag is None:
                return None
            if flag.kind == "bool":
                if eq:
                    return None
                value: str | None = None
            elif eq:
                if flag.flag_value is not None and _looks_like_option(attached):
                    return None  # (click reads ``--preview=-H`` as ``--preview -H``)
                value = attached
            elif i < n and flag.flag_value is None:
                value = args[i]
                i += 1
            elif flag.flag_value is not None:
                value = flag.flag_value  # ``--preview`` alone
            else:
                return None
            found.append((flag, value))
            continue
        j = 1  # a run of short flags
        while j < len(arg):
            flag = shorts.get(arg[j])
            j += 1
            if flag is None:
                return None
            if flag.kind == "bool":
                found.append((flag, None))
                continue
            if flag.flag_value is not None:
                return None
            if j < len(arg):
                value = arg[j:]
            elif i < n:
                value = args[i]
                i += 1
            else:
                return None
            found.append((flag, value))
            break
    return found


def _looks_like_option(arg: str) -> bool:
    """What click does not take as the value of a flag whose value may be left out."""
    return arg[:1] == "-" and len(arg) > 1


def _take(given: dict[str, object], flag: Flag, text: str | None) -> bool:
    """Record one occurrence of ``flag`` (``text``: its value; None for a switch); False when
    click would reject the value."""
    value: object
    if text is None:
        value = True
    elif flag.kind == "int":
        if not (text.isascii() and text.isdigit()):
            return False
        value = int(text)
        if value < flag.minimum:
            return False
    elif flag.kind == "dir":
        if not _folder_ok(text):
            return False
        value = text
    elif flag.kind == "choice":
        if text not in flag.choices:
            return False
        value = text
    elif flag.parse is not None:
        try:
            value = flag.parse(text)
        except ValueError:
            return False
    else:
        value = text
    if flag.multiple:
        before = given.get(flag.long, ())
        assert isinstance(before, tuple)
        given[flag.long] = (*before, value)
    else:
        given[flag.long] = value
    return True


def _folder_ok(path: str) -> bool:
    """What ``click.Path(file_okay=False)`` accepts: a path that does not exist, or exists,
    is not a regular file and is readable."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return "\0" not in path  # (a NUL: click fails in its own way; leave it to click)
    return not stat.S_ISREG(st.st_mode) and os.access(path, os.R_OK)
