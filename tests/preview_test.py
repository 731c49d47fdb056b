"""The picker's preview: what it reads of a file, a folder's listing, a command run safely."""

from __future__ import annotations

import threading
from pathlib import Path

from ffind.frontends.picker.preview import READ_LIMIT, Preview, file_text, folder_text


def test_text_file_first_lines(tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_text("".join(f"line {i}\tx\n" for i in range(100)))
    text, is_text = file_text(str(f), 3)
    assert is_text and text == "line 0  x\nline 1  x\nline 2  x"


def test_binary_and_huge_files_are_not_read_past_the_limit(tmp_path: Path) -> None:
    f = tmp_path / "blob"
    f.write_bytes(b"\x00" * 10 + b"a" * 5_000_000)
    assert file_text(str(f), 10) == ("binary, 5000010 bytes", False)
    big = tmp_path / "big.txt"
    big.write_text("word " * 2_000_000 + "\n")  # one 10 MB line
    text, is_text = file_text(str(big), 10)
    assert is_text and len(text) <= READ_LIMIT


def test_folder_listing(tmp_path: Path) -> None:
    for name in ("b.txt", "a.txt", "c.txt"):
        (tmp_path / name).write_text("")
    (tmp_path / "sub").mkdir()
    assert folder_text(str(tmp_path), 10).split("\n") == ["sub/", "a.txt", "b.txt", "c.txt"]
    assert folder_text(str(tmp_path), 3).split("\n") == ["sub/", "a.txt", "... 2 more"]


def _rendered(preview: Preview, key: tuple[str, int, int], woken: threading.Event) -> list[str]:
    assert preview.get(key) is None  # rendered off the caller's thread
    assert woken.wait(20), "the preview never arrived"
    lines = preview.get(key)
    assert lines is not None
    return lines


def test_command_gets_the_path_quoted(tmp_path: Path) -> None:
    name = str(tmp_path / "it's a $(file).txt")
    woken = threading.Event()
    preview = Preview("printf '[%s]' {}", False, woken.set)
    lines = _rendered(preview, (name, 200, 4), woken)
    assert lines[0].rstrip() == f"[{name}]"
    assert len(lines) == 4 and all(len(x) == 200 for x in lines)


def test_builtin_highlights_and_cuts_long_lines(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("def f():\n    return '" + "x" * 500 + "'\n")
    woken = threading.Event()
    preview = Preview(None, True, woken.set)
    lines = _rendered(preview, (str(f), 40, 5), woken)
    assert "\x1b[" in lines[0] and "def" in lines[0]
    assert len(lines) == 5


def test_a_newer_request_cancels_a_slow_command(tmp_path: Path) -> None:
    woken = threading.Event()
    preview = Preview("sleep 30; echo {}", False, woken.set)
    assert preview.get(("slow", 20, 2)) is None
    preview.cancel()
    assert not woken.wait(0.5)
    assert preview.get(("slow", 20, 2)) is None  # a new request, not the cancelled one
    preview.cancel()
