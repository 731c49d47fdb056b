"""fanotify marks as a second watch budget (ffind.fs.fanwatch): the events read, the folders
drained, marks of renamed folders (ghosts), the budgets of a ``Pair``, the fallback to inotify
alone where fanotify cannot be had, and ``FFIND_NO_WATCH``.  (The hint's exactness with
fanotify: tests/watch_test.py, every property and directed case with it.)"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from refresh_test import _tree
from warm_test import cold
from warm_test import settle as after_racy_window
from watch_test import Resident

from ffind.fs import fanwatch
from ffind.fs.fanwatch import (
    _META,
    FAN_ATTRIB,
    FAN_CREATE,
    FAN_DELETE_SELF,
    FAN_EVENT_INFO_TYPE_DFID_NAME,
    FAN_MOVE_SELF,
    FAN_MOVED_TO,
    FAN_ONDIR,
    FAN_Q_OVERFLOW,
    MARK_LINES,
    FanWatcher,
    Pair,
    parse,
    used_marks,
)
from ffind.fs.inotify import Watcher
from ffind.fs.watch import NO_WATCH, Hint
from ffind.options import SearchOptions
from ffind.state.cache import SnapshotStore


def _fanotify() -> bool:
    try:
        FanWatcher("/", budget=0).close()
    except (OSError, AttributeError):
        return False
    return True


pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux") or not _fanotify(),
                                 reason="fanotify with file handles: Linux 5.13"),
              pytest.mark.usefixtures("git_home", "short_racy")]


def _event(mask: int, handle: bytes | None, name: bytes = b"", version: int = 3) -> bytes:
    """A ``fanotify_event_metadata`` and its ``DFID_NAME`` record (none for None)."""
    info = b""
    if handle is not None:
        body = b"\0" * 8 + struct.pack("=I", len(handle) - 4) + handle + name + b"\0"
        body += b"\0" * (-(len(body) + 4) % 4)
        info = struct.pack("=BBH", FAN_EVENT_INFO_TYPE_DFID_NAME, 0, len(body) + 4) + body
    return _META.pack(_META.size + len(info), version, 0, _META.size, mask, -1, 0) + info


H1 = struct.pack("=i", 1) + b"12345678"
H2 = struct.pack("=i", 1) + b"abcdefgh"


def test_parse_reads_handles_names_and_overflows() -> None:
    buffer = (_event(FAN_CREATE, H1, b"new.txt") + _event(FAN_ATTRIB | FAN_ONDIR, H2, b".")
              + _event(FAN_Q_OVERFLOW, None))
    assert list(parse(buffer)) == [(FAN_CREATE, H1, "new.txt"),
                                   (FAN_ATTRIB | FAN_ONDIR, H2, "."),
                                   (FAN_Q_OVERFLOW, None, "")]


def test_an_event_of_another_format_is_lost_events() -> None:
    assert list(parse(_event(FAN_CREATE, H1, b"x", version=9) + _event(FAN_CREATE, H1))) == [
        (FAN_Q_OVERFLOW, None, "")]


@pytest.fixture()
def fw(tmp_path: Path) -> Iterator[FanWatcher]:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    w = FanWatcher(str(tmp_path), budget=10)
    assert w.add("") and w.add("a/") and w.add("a/b/") and w.add("c/")
    yield w
    w.close()


def _own_marks(w: FanWatcher) -> int:
    with open(f"/proc/self/fdinfo/{w.fd}", "rb") as f:
        return sum(line.startswith(MARK_LINES) for line in f.read().splitlines())


def test_drain_marks_the_folders_whose_entries_changed(fw: FanWatcher) -> None:
    root = Path(fw.root)
    (root / "a" / "new.txt").write_text("x")
    (root / "c" / "d").mkdir()
    got = fw.drain()
    assert got.marked == {"a/", "c/"} and not got.moved and not got.attrib
    assert not got.overflow
    assert fw.drain().marked == set()  # (drained)


def test_a_folders_mode_changed_is_attrib_on_itself(fw: FanWatcher) -> None:
    (Path(fw.root) / "a" / "b").chmod(0o700)
    got = fw.drain()
    assert "a/b/" in got.attrib and "a/b/" in got.marked


def test_a_sub_folders_attrib_by_its_parent_names_the_sub_folder(fw: FanWatcher) -> None:
    """Reported with the parent's handle and the sub-folder's name (an unmarked sub-folder):
    the sub-folder is taken as changed itself."""
    got = fw.drain(_event(FAN_ATTRIB | FAN_ONDIR, fw.wd_of["a/"], b"b"))
    assert got.marked == {"a/"} and got.attrib == {"a/b/"}


def test_a_renamed_folder_stops_being_marked_below_and_leaves_ghosts(fw: FanWatcher) -> None:
    root = Path(fw.root)
    before = _own_marks(fw)
    (root / "a").rename(root / "z")
    got = fw.drain()
    assert "a/" in got.moved and "" in got.marked
    assert set(fw.wd_of) == {"", "c/"}
    assert len(fw.ghosts) == 2  # (a/ and a/b/: still marked in the kernel, not in the books)
    assert _own_marks(fw) == before
    assert fw.add("z/") and fw.add("z/b/")  # (the same folders: their marks again)
    assert not fw.ghosts and _own_marks(fw) == before
    fw.remove("z/b/")  # (at its path: its mark removed)
    assert _own_marks(fw) == before - 1 and not fw.ghosts


def test_a_deleted_ghost_frees_its_place(fw: FanWatcher) -> None:
    root = Path(fw.root)
    (root / "a").rename(root / "z")
    fw.drain()
    assert len(fw.ghosts) == 2
    (root / "z" / "b").rmdir()
    fw.drain()
    assert len(fw.ghosts) == 1


def test_a_deleted_folder_is_forgotten(fw: FanWatcher) -> None:
    (Path(fw.root) / "c").rmdir()
    got = fw.drain()
    assert "" in got.marked and "c/" not in fw.wd_of and not fw.ghosts


def test_self_events_merged_in_one_mask(fw: FanWatcher) -> None:
    got = fw.drain(_event(FAN_ATTRIB | FAN_MOVE_SELF | FAN_ONDIR, fw.wd_of["a/"], b"."))
    assert got.attrib == {"a/"} and got.moved == {"a/"} and "a/b/" not in fw.wd_of
    got = fw.drain(_event(FAN_MOVED_TO | FAN_ONDIR, fw.wd_of[""], b"c"))
    assert got.moved == {"c/"} and set(fw.wd_of) == {""}
    got = fw.drain(_event(FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR, fw.wd_of[""], b"."))
    assert "" in got.moved and not fw.wd_of


def test_the_budget_counts_the_marks_held(fw: FanWatcher, tmp_path: Path) -> None:
    assert used_marks() >= _own_marks(fw) == 4
    fw.budget = 4
    (tmp_path / "e").mkdir()
    assert not fw.add("e/")


def test_a_pair_watches_with_inotify_then_marks_with_fanotify(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")  # (13 folders)
    r = Resident(root, SearchOptions(threads=1), SnapshotStore(str(tmp_path / "cache")),
                 budget=2, marks=3)
    try:
        r.request()
        r.request()
        after_racy_window()
        r.request()
        r.request()
        watcher = r.hint.watcher
        assert isinstance(watcher, Pair)
        assert len(watcher.first.wd_of) == 2 and "" in watcher.first.wd_of  # (the top first)
        assert len(watcher.second.wd_of) == 3
        watched = set(watcher.wd_of)
        assert watched == set(watcher.first.wd_of) | set(watcher.second.wd_of)
        every = set(r.listing.prefixes) if r.listing else set()
        assert set(r.only) == every - watched
        marked = sorted(watcher.second.wd_of)[-1]
        (root / marked / "new.txt").write_text("x")
        assert r.request() == cold(root, r.options)
        assert set(r.only) == every - watched | {marked}
    finally:
        r.close()


def test_no_fanotify_means_inotify_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where fanotify cannot be had (EPERM before Linux 5.13, EINVAL before 5.9, no room for
    another group): the hint is inotify's alone, without a word."""

    class NoFanotify:
        def fanotify_init(self, *_: Any) -> int:
            return -1

    monkeypatch.setattr(fanwatch, "_libc", NoFanotify)
    hint = Hint.start(str(tmp_path), SearchOptions())
    assert hint is not None and isinstance(hint.watcher, Watcher)
    hint.close()
    monkeypatch.undo()
    hint = Hint.start(str(tmp_path), SearchOptions(), marks=0)  # (asked for none)
    assert hint is not None and isinstance(hint.watcher, Watcher)
    hint.close()
    hint = Hint.start(str(tmp_path), SearchOptions(), marks=5)
    assert hint is not None and isinstance(hint.watcher, Pair)
    hint.close()


def test_no_watch_turns_both_off(tmp_path: Path) -> None:
    assert Hint.start(str(tmp_path), SearchOptions(), environ={NO_WATCH: "1"}) is None
    for off in ("", "0"):
        hint = Hint.start(str(tmp_path), SearchOptions(), environ={NO_WATCH: off})
        assert hint is not None
        hint.close()


def test_free_marks_is_a_share_of_the_limit_less_those_used(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fanwatch, "proc_int", lambda path: 1000)
    monkeypatch.setattr(fanwatch, "used_marks", lambda: 200)
    assert fanwatch.free_marks() == 800
    w = FanWatcher("/")
    try:
        assert w.budget == 400
    finally:
        w.close()
    monkeypatch.setattr(fanwatch, "proc_int", lambda path: None)
    assert fanwatch.free_marks() == 0


def test_a_read_that_fails_is_lost_events(fw: FanWatcher) -> None:
    os.close(fw.fd)
    fw.fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)  # (a read gives EISDIR)
    assert fw.drain().overflow
