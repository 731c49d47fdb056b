"""The session with the warm index (``FileSearcher(cache=True)``): the first frame comes from
the last snapshot, the validated listing replaces it only when it differs, and once the
session is complete its results are a cold session's."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from warm_test import settle

from ffind.fs import refresh, warm
from ffind.fs.warm import listing_key
from ffind.options import SearchOptions
from ffind.searching import feed
from ffind.searching.session import FileSearcher, Snapshot
from ffind.state.cache import SUFFIX, CachedListing, SnapshotStore

OPTIONS = SearchOptions(threads=1, limit=None)
QUERIES = ["", "py", "b"]


pytestmark = pytest.mark.usefixtures("git_home", "short_racy")  # (conftest.py)


@pytest.fixture()
def replaces(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The ``replace`` flag of every batch the warm listing gives the sessions."""
    seen: list[bool] = []
    original = warm.session_batches

    def spied(*args: Any, **kwargs: Any) -> Iterator[tuple[bool, list[str]]]:
        for replace, batch in original(*args, **kwargs):
            seen.append(replace)
            yield replace, batch

    monkeypatch.setattr(warm, "session_batches", spied)
    return seen


def make_tree(root: Path) -> Path:
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    for rel in ["a/x.py", "a/y.txt", "b/c/z.py", "b/keep.md", "top.py", "logs/old.log"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    (root / ".gitignore").write_text("*.log\n")
    (root / "b" / "c" / "w.tmp").write_text("x")
    (root / "b" / ".gitignore").write_text("*.tmp\n")
    settle()  # (ignore files above within the racy window: no snapshot is used)
    return root


def session_results(root: Path, cache: bool, query: str) -> list[str]:
    with FileSearcher(root, OPTIONS, cache=cache) as fs:
        fs.set_query(query)
        assert fs.wait(30)
        assert fs.walk_complete
        return [m.path for m in fs.results()]


def snapshots(store: SnapshotStore) -> list[str]:
    try:
        return [n for n in os.listdir(store.folder) if n.endswith(SUFFIX)]
    except FileNotFoundError:
        return []


def change(root: Path) -> None:
    (root / "a" / "new.py").write_text("x")               # create
    (root / "b" / "keep.md").unlink()                    # delete
    os.rename(root / "a" / "y.txt", root / "b" / "c" / "y.txt")  # rename across folders
    (root / "b" / "c" / "d").mkdir()
    (root / "b" / "c" / "d" / "deep.py").write_text("x")
    (root / "b" / ".gitignore").write_text("z.py\n")    # w.tmp listed again, z.py not


@pytest.mark.parametrize("query", QUERIES)
def test_after_changes_a_warm_session_equals_a_cold_one(
        tmp_path: Path, query: str, replaces: list[bool]) -> None:
    root = make_tree(tmp_path / "t")
    first = session_results(root, True, query)
    assert first == session_results(root, False, query)
    assert len(snapshots(SnapshotStore())) == 1
    settle()
    change(root)
    settle()
    replaces.clear()
    warm_paths = session_results(root, True, query)
    assert warm_paths == session_results(root, False, query)
    assert warm_paths != first
    assert replaces.count(True) == 1  # the snapshot's paths first, then the validated ones
    body = SnapshotStore().load(listing_key(str(root), OPTIONS))
    assert body is not None  # refreshed: the next session starts from the new listing
    assert sorted(body.paths()) == sorted(session_results(root, False, ""))


def test_the_first_frame_is_the_snapshot_then_the_validated_listing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_tree(tmp_path / "t")
    before = sorted(session_results(root, True, ""))
    settle()
    change(root)
    settle()
    gate = threading.Event()
    validate = refresh.Refresh.warm

    def held(self: refresh.Refresh, body: CachedListing) -> Iterator[list[str]]:
        assert gate.wait(30)
        yield from validate(self, body)

    monkeypatch.setattr(refresh.Refresh, "warm", held)
    with FileSearcher(root, OPTIONS, cache=True) as fs:
        fs.set_query("")
        deadline = time.monotonic() + 30
        while len(fs.results()) < len(before) and time.monotonic() < deadline:
            time.sleep(0.01)
        early = fs.snapshot()
        assert sorted(m.path for m in early.matches) == before  # unvalidated, at once
        assert not early.walk_complete
        assert not fs.wait(0.2)  # not complete before the validated listing is in
        gate.set()
        assert fs.wait(30)
        assert sorted(m.path for m in fs.results()) == sorted(session_results(root, False, ""))


class Recorder:
    def __init__(self) -> None:
        self.seen: list[Snapshot] = []

    def on_update(self, snapshot: Snapshot) -> None:
        self.seen.append(snapshot)

    def on_complete(self, snapshot: Snapshot) -> None:
        self.seen.append(snapshot)


@pytest.mark.parametrize("wait_first", [False, True])
def test_nothing_changed_means_no_jump(tmp_path: Path, replaces: list[bool],
                                       wait_first: bool) -> None:
    root = make_tree(tmp_path / "t")
    expected = session_results(root, False, "py")
    session_results(root, True, "py")
    if wait_first:
        settle()  # (else every folder is racy: read again, the same listing)
    replaces.clear()
    recorder = Recorder()
    with FileSearcher(root, OPTIONS, recorder, cache=True) as fs:
        fs.set_query("py")
        assert fs.wait(30)
        assert [m.path for m in fs.results()] == expected
    assert replaces == [False]  # the snapshot's paths, nothing replaced them
    assert recorder.seen
    for snap in recorder.seen:  # every frame shown is the final one
        if snap.query == "py":
            assert [m.path for m in snap.matches] == expected
            assert snap.scanned_file_count == len(session_results(root, False, ""))


def test_a_snapshot_that_does_not_add_up_gives_a_cold_listing(
        tmp_path: Path, replaces: list[bool]) -> None:
    root = make_tree(tmp_path / "t")
    session_results(root, True, "")
    store = SnapshotStore()
    key = listing_key(str(root), OPTIONS)
    body = store.load(key)
    assert body is not None
    body.paths().append("ghost.py")  # the counts no longer add up to the paths
    settle()
    body.start = time.time_ns()
    assert store.save(key, body)
    settle()
    replaces.clear()
    assert session_results(root, True, "") == session_results(root, False, "")
    assert replaces[:2] == [False, True]  # the bad snapshot's paths, then the cold walk


def test_without_cache_nothing_is_written(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "t")
    other = make_tree(tmp_path / "u")
    session_results(root, False, "py")
    with FileSearcher([root, other], OPTIONS, cache=True) as fs:  # several roots: no cache
        assert fs.wait(30)
    with FileSearcher(root, OPTIONS, paths=["a.py", "b.py"], cache=True) as fs:
        assert fs.wait(30)
        assert len(fs.results()) == 2
    assert snapshots(SnapshotStore()) == []
    session_results(root, True, "py")
    assert len(snapshots(SnapshotStore())) == 1


def test_candidates_first_splits_by_the_prefilter() -> None:
    paths = ["a/x.py", "a/y.txt", "b/c/z.py", "b/keep.md", "top.py", "n1.txt", "n2.txt"]
    head, rest = feed.candidates_first("zpy", paths)
    assert head == ["b/c/z.py"] and sorted(head + rest) == sorted(paths)
    assert rest == [p for p in paths if p != "b/c/z.py"]  # (the order kept)
    assert feed.candidates_first("", paths) == (paths, [])  # no query
    assert feed.candidates_first("!txt", paths) == (paths, [])  # no positive term
    assert feed.candidates_first("qqq", paths) == (paths, [])  # nothing kept
    assert feed.candidates_first("t", paths) == (paths, [])  # more than half kept


def test_the_first_frame_indexes_the_querys_candidates_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The snapshot's paths the query can match are given first: the first frame, drawn from
    them alone, already shows the final rows; every path follows; the results are a cold
    session's."""
    root = make_tree(tmp_path / "t")
    for i in range(12):
        (root / "a" / f"n{i}.txt").write_text("x")
    settle()
    expected = session_results(root, False, "py")
    session_results(root, True, "")  # the snapshot
    settle()
    original = feed.candidates_first
    splits: list[tuple[int, int]] = []

    def known(query: str, paths: list[str]) -> tuple[list[str], list[str]]:
        head, rest = original("py", paths)  # (as if the query were set before the load)
        splits.append((len(head), len(rest)))
        return head, rest

    monkeypatch.setattr(feed, "candidates_first", known)

    class Frames:
        def __init__(self) -> None:
            self.seen: list[Snapshot] = []

        def on_update(self, snap: Snapshot) -> None:
            self.seen.append(snap)

        def on_complete(self, snap: Snapshot) -> None:
            self.seen.append(snap)

    frames = Frames()
    with FileSearcher(root, OPTIONS, frames, cache=True) as fs:
        fs.set_query("py")
        assert fs.wait(30)
        assert [m.path for m in fs.results()] == expected
        assert fs.snapshot().scanned_file_count == len(session_results(root, False, ""))
    assert splits == [(len(expected), len(session_results(root, False, "")) - len(expected))]
    shown = [s for s in frames.seen if s.query == "py" and s.matches]
    assert shown and all([m.path for m in s.matches] == expected for s in shown)
