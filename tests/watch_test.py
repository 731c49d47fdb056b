"""inotify as a hint for the warm index's validation (ffind.fs.watch): a listing validated
with only the folders the hint gives equals a cold walk after any changes; every folder whose
entries changed is drained; lost events, the watch limit, renamed and re-created folders."""

from __future__ import annotations

import os
import shutil
import struct
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refresh_test import _tree
from warm_test import (
    FOLDERS,
    OPTIONS,
    Step,
    _restore,
    apply,
    cold,
    git_repo,
    split_every_pass,
    steps,
)
from warm_test import settle as after_racy_window

from ffind.fs import inotify, warm, watch
from ffind.fs.fanwatch import _META, FAN_Q_OVERFLOW, Pair
from ffind.fs.inotify import (
    IN_CREATE,
    IN_IGNORED,
    IN_ISDIR,
    IN_MOVED_TO,
    IN_Q_OVERFLOW,
    Watcher,
    below,
    parse,
)
from ffind.fs.watch import Hint, refreshed
from ffind.options import SearchOptions
from ffind.state.cache import CachedListing, SnapshotStore


def checked(snap: CachedListing, only: Sequence[int] | None) -> list[str]:
    """The prefixes of the folders ``only`` (every one for None)."""
    return list(snap.prefixes) if only is None else [snap.prefixes[i] for i in only]


pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify: Linux"),
              pytest.mark.usefixtures("git_home", "short_racy")]

MARKS = st.sampled_from([0, None, None, 3])
"""fanotify's marks in the property tests: none, its share, a few."""
BACKENDS = {"inotify": (None, 0), "fanotify": (0, None), "both": (4, None)}
"""(inotify's budget, fanotify's) of the directed cases' hints: inotify alone, fanotify
alone, the top four folders by inotify and the rest by fanotify."""


def _raw(path: str) -> tuple[int, list[tuple[str, bool, bool]]] | None:
    """What a folder's listing can depend on, as the kernel sees it: its mode and its
    entries with their types."""
    try:
        mode = os.lstat(path).st_mode
        with os.scandir(path) as it:
            return mode, sorted((e.name, e.is_dir(follow_symlinks=False), e.is_symlink())
                                for e in it)
    except OSError:
        return None


class Resident:
    """What a process keeping a listing between requests does: the listing of the last
    request, validated with the hint's folders only (``refreshed``), the hint settled."""

    def __init__(self, root: Path, options: SearchOptions, store: SnapshotStore,
                 budget: int | None = None, marks: int | None = 0) -> None:
        self.root, self.options, self.store = str(root), options, store
        hint = Hint.start(self.root, options, budget, marks=marks)
        assert hint is not None
        self.hint: Hint = hint
        self.listing: CachedListing | None = None
        self.seen: dict[str, Any] = {}  # trusted folder -> its _raw when last validated
        self.only: list[str] = []
        self.relisted: list[str] = []

    def request(self) -> list[str]:
        found = warm.prepare(self.root, self.options, store=self.store)
        assert found is not None
        run, snap = found
        if snap is not None and self.listing is not None:
            snap = self.listing  # (kept in memory: the snapshot on disk is the same)
        changed = {p for p, raw in self.seen.items()
                   if _raw(self.hint.watcher.path_of(p)) != raw}
        if snap is None:
            paths = [p for batch in run.cold() for p in batch]
            self.hint.settle(run.listing)
            self.only = []
        else:
            batches = refreshed(run, snap, self.hint)
            paths = [p for batch in batches for p in batch]
            drained = self.hint.drained
            covered = drained.marked | set(below(changed, drained.moved))
            if self.hint.last is not None:  # (None: every folder was checked)
                assert changed <= covered, (changed - covered, drained.marked, drained.moved)
            self.only = checked(snap, self.hint.last)
        self.relisted = sorted(run.stats.relisted)
        self.listing = run.listing
        self.seen = {}
        if self.listing is not None:
            wd_of = self.hint.watcher.wd_of
            for p in self.listing.prefixes:
                if p in wd_of:
                    self.seen[p] = _raw(self.hint.watcher.path_of(p))
        assert len(paths) == len(set(paths)), "a path listed twice"
        return sorted(paths)

    def close(self) -> None:
        self.hint.close()


@settings(max_examples=int(os.environ.get("WARM_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=steps, which=st.integers(0, len(OPTIONS) - 1),
       budget=st.sampled_from([None, None, 0, 1, 3]), marks=MARKS, split=st.booleans())
def test_the_listing_validated_with_the_hint_equals_cold_after_any_changes(
    tmp_path_factory: pytest.TempPathFactory, git_home: Path,
    steps: list[Step], which: int, budget: int | None, marks: int | None, split: bool,
) -> None:
    """Between requests: create, delete, rename files and folders (within the racy window
    or after it), ignore files edited at any depth, info/exclude and the global excludes
    file, folders made symbolic links or unreadable, nested repositories, tags; after each,
    the listing validated with the hint equals a cold walk, and every watched folder whose
    entries changed was drained (``Resident.request``).  ``budget``: watches at most,
    ``marks``: fanotify marks for the folders beyond (0: inotify alone; with a ``budget`` of
    0, fanotify alone); ``split``: every ``stat`` pass split with a forked child
    (``refresh.SPLIT_MIN``)."""
    with pytest.MonkeyPatch.context() as mp:
        if split:
            split_every_pass(mp)
        _replay_groups(tmp_path_factory.mktemp("prop"), git_home, [[s] for s in steps],
                       which, budget, marks)


def _apply(root: Path, home: Path, step: Step) -> None:
    """``warm_test.apply``, and "swap": two folders exchange their places (through a third
    name), so that each one's sub-folders keep their paths but are other folders."""
    kind, i, _, k, _ = step
    if kind != "swap":
        apply(root, home, step)
        return
    p, q = root / FOLDERS[i % len(FOLDERS)], root / FOLDERS[k % len(FOLDERS)]
    if (p != root and q != root and p.is_dir() and q.is_dir() and not p.is_symlink()
            and not q.is_symlink() and not str(p).startswith(str(q) + "/")
            and not str(q).startswith(str(p) + "/") and p != q):
        try:
            p.rename(root / "swapping")
            q.rename(p)
            (root / "swapping").rename(q)
        except OSError:
            pass  # (through a symbolic link: one inside the other after all)


groups = st.lists(st.lists(st.tuples(st.sampled_from(["rename", "swap", "swap", "dir",
                                                      "file", "delete", "symlink", "ignore"]),
                                     st.integers(0, 20), st.integers(0, 20),
                                     st.integers(0, 20), st.just(False)),
                           min_size=1, max_size=4), min_size=1, max_size=6)


@settings(max_examples=int(os.environ.get("WARM_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(groups=groups, which=st.integers(0, len(OPTIONS) - 1),
       budget=st.sampled_from([None, None, 0, 2]), marks=MARKS)
def test_several_changes_between_two_requests(
    tmp_path_factory: pytest.TempPathFactory, git_home: Path,
    groups: list[list[Step]], which: int, budget: int | None, marks: int | None,
) -> None:
    """Several changes between two requests, renames above all: a folder renamed and another
    renamed to its name, whose sub-folders keep their names (and watches or marks)."""
    _replay_groups(tmp_path_factory.mktemp("prop"), git_home, groups, which, budget, marks)


def _replay_groups(base: Path, home: Path, groups: list[list[Step]], which: int,
                   budget: int | None, marks: int | None) -> None:
    """``warm_test._replay`` with a ``Resident``, validating after each group of steps."""
    root = git_repo(base / "repo")
    store = SnapshotStore(str(base / "cache"))
    options = OPTIONS[which]
    for p in ["a/x.py", "a/b/y.txt", "a/c/one.py", "b/x.py", "b/a/y.txt", "node_modules/x.py",
              "b/a/c/two.py", "b/b/three.py", "target/y.txt", ".h/x.py"]:
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text("x")
    r = Resident(root, options, store, budget, marks)
    try:
        assert r.request() == cold(root, options)
        after_racy_window()
        for group in groups:
            for step in group:
                _apply(root, home, step)
            assert r.request() == cold(root, options), group
    finally:
        r.close()
        _restore(root)


# ---- directed cases --------------------------------------------------------------------------


@pytest.fixture(params=sorted(BACKENDS))
def resident(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Resident]:
    root = _tree(tmp_path / "repo")
    budget, marks = BACKENDS[request.param]
    r = Resident(root, SearchOptions(threads=1), SnapshotStore(str(tmp_path / "cache")),
                 budget, marks)
    if request.param != "inotify":
        assert isinstance(r.hint.watcher, Pair)
    r.request()  # the cold walk that writes the snapshot
    r.request()  # the first validation: every folder, watched before it
    after_racy_window()
    r.request()  # (the racy folders read once more)
    yield r
    r.close()


def test_an_unchanged_listing_checks_no_folder(resident: Resident) -> None:
    assert resident.request() == cold(Path(resident.root), resident.options)
    assert resident.only == []
    assert resident.relisted == []


def test_a_change_checks_and_reads_only_its_folder(resident: Resident) -> None:
    (Path(resident.root) / "d3" / "sub" / "new.py").write_text("x")
    assert resident.request() == cold(Path(resident.root), resident.options)
    assert resident.only == ["d3/sub/"]
    assert resident.relisted == ["d3/sub/"]


def test_a_folder_deleted_and_created_again_is_watched_again(resident: Resident) -> None:
    root = Path(resident.root)
    old = resident.hint.watcher.wd_of["d2/sub/"]
    shutil.rmtree(root / "d2" / "sub")
    (root / "d2" / "sub").mkdir()
    assert resident.request() == cold(root, resident.options)
    assert "d2/sub/" in resident.only  # (its watch was removed with the folder)
    new = resident.hint.watcher.wd_of["d2/sub/"]  # (added again before the check)
    assert new != old
    after_racy_window()
    resident.request()
    (root / "d2" / "sub" / "late.py").write_text("x")
    assert resident.request() == cold(root, resident.options)
    assert "d2/sub/" in resident.hint.drained.marked
    assert "d2/sub/late.py" in resident.request()


def test_folders_below_a_renamed_one_are_checked(resident: Resident) -> None:
    """Two folders swapped: their sub-folders keep their names and their watches, but are
    other folders now; no event names them."""
    root = Path(resident.root)
    (root / "d0" / "sub" / "only0.py").write_text("x")
    (root / "d1" / "sub" / "only1.py").write_text("x")
    resident.request()
    after_racy_window()
    resident.request()
    (root / "d0").rename(root / "tmp")
    (root / "d1").rename(root / "d0")
    (root / "tmp").rename(root / "d1")
    got = resident.request()
    assert got == cold(root, resident.options)
    assert "d0/sub/only1.py" in got
    assert {"d0/sub/", "d1/sub/"} <= set(resident.only)
    after_racy_window()
    resident.request()  # (their watches added again, to the folders now at those paths)
    (root / "d0" / "sub" / "later.py").write_text("x")
    got = resident.request()
    assert got == cold(root, resident.options)
    assert "d0/sub/later.py" in got


def test_the_watch_limit_checks_the_unwatched_folders(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    r = Resident(root, SearchOptions(threads=1), SnapshotStore(str(tmp_path / "cache")),
                 budget=3)
    try:
        r.request()
        r.request()
        after_racy_window()
        r.request()
        r.request()
        watched = set(r.hint.watcher.wd_of)
        assert len(watched) == 3
        assert "" in watched  # (the top of the tree first)
        every = set(r.listing.prefixes) if r.listing else set()
        assert set(r.only) == every - watched
        deep = sorted(every - watched)[-1]
        (root / deep / "new.txt").write_text("x")
        assert r.request() == cold(root, r.options)
        assert deep in r.relisted
        assert set(r.only) == every - watched
    finally:
        r.close()


def _event(wd: int, mask: int, name: bytes = b"") -> bytes:
    padded = name + b"\0" * (-len(name) % 16 or (16 if name else 0))
    return struct.pack("iIII", wd, mask, 0, len(padded)) + padded


def test_parse_reads_events_with_and_without_names() -> None:
    buffer = (_event(3, IN_CREATE, b"new.txt") + _event(4, IN_IGNORED)
              + _event(-1, IN_Q_OVERFLOW))
    assert list(parse(buffer)) == [(3, IN_CREATE, "new.txt"), (4, IN_IGNORED, ""),
                                   (-1, IN_Q_OVERFLOW, "")]


def test_drain_marks_folders_and_renamed_subtrees(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    w = Watcher(str(tmp_path), budget=10)
    try:
        assert w.add("") and w.add("a/") and w.add("a/b/")
        got = w.drain(_event(w.wd_of[""], IN_MOVED_TO | IN_ISDIR, b"a"))
        assert got.marked == {""} and got.moved == {"a/"} and not got.overflow
        assert set(w.wd_of) == {""}  # (below a renamed folder: no watch names its folder)
    finally:
        w.close()


def test_an_overflow_means_every_folder_is_checked(resident: Resident) -> None:
    """Lost events (a synthetic ``IN_Q_OVERFLOW``): the next validation checks every
    folder, with every watch added again before it; the one after is a hint again."""
    root = Path(resident.root)
    (root / "d4" / "sub" / "lost.py").write_text("x")
    with pytest.MonkeyPatch.context() as mp:
        watcher = resident.hint.watcher
        if isinstance(watcher, Pair):  # (fanotify's queue lost events)
            lost = _META.pack(_META.size, 3, 0, _META.size, FAN_Q_OVERFLOW, -1, 0)
            mp.setattr(watcher.second, "read", lambda: lost)
        else:
            mp.setattr(watcher, "read", lambda: _event(-1, IN_Q_OVERFLOW))
        got = resident.request()
    assert resident.hint.last is None
    assert got == cold(root, resident.options)
    assert "d4/sub/lost.py" in got
    after_racy_window()
    resident.request()
    assert resident.only == []


def test_a_changed_mount_table_or_root_means_every_folder_is_checked(
        resident: Resident, tmp_path: Path) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(resident.hint.mounts, "changed", lambda: True)
        resident.request()
    assert resident.hint.last is None
    resident.request()
    assert resident.hint.last is not None
    root = Path(resident.root)  # the root replaced by a copy: no event inside says so
    shutil.copytree(root, tmp_path / "copy", symlinks=True)
    (tmp_path / "copy" / "d5" / "sub" / "copied.py").write_text("x")
    root.rename(tmp_path / "old")
    (tmp_path / "copy").rename(root)
    got = resident.request()
    assert resident.hint.last is None
    assert got == cold(root, resident.options)
    assert "d5/sub/copied.py" in got


def test_a_validation_without_a_listing_is_not_trusted(resident: Resident) -> None:
    """A validation that gave no listing (cancelled): the next one checks every folder."""
    resident.hint.only(resident.listing)  # type: ignore[arg-type]
    resident.hint.settle(None)
    resident.request()
    assert resident.hint.last is None


def test_no_hint_with_follow_links_or_an_untrusted_file_system(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert Hint.start(str(tmp_path), SearchOptions(follow_links=True)) is None
    monkeypatch.setattr(warm, "trusted_fs", lambda root: False)
    assert Hint.start(str(tmp_path), SearchOptions()) is None


def test_below() -> None:
    prefixes = ["", "a/", "a/b/", "ab/", "c/a/"]
    assert below(prefixes, {"a/"}) == ["a/", "a/b/"]
    many = {f"x{i}/" for i in range(40)} | {"a/"}
    assert below(prefixes, many) == ["a/", "a/b/"]
    assert below(prefixes, {""} | many) == prefixes


def _a_change_in_d1_checks_only_d1(r: Resident, root: Path) -> None:
    """A file added to ``d1``: the next validation equals cold and checks ``d1/`` alone."""
    (root / "d1" / "new.txt").write_text("x")
    assert r.request() == cold(root, r.options)
    assert r.only == ["d1/"]


def test_watches_added_ahead_then_one_full_check(tmp_path: Path) -> None:
    """``arm`` while idle before any validation: the next validation checks every folder
    (their watches predate it) and adds none; the one after checks only what changed."""
    root = _tree(tmp_path / "repo")
    r = Resident(root, SearchOptions(threads=1), SnapshotStore(str(tmp_path / "cache")))
    try:
        r.request()
        after_racy_window()
        assert r.listing is not None
        fresh = Hint.start(r.root, r.options)
        assert fresh is not None
        r.hint.close()
        r.hint = fresh
        assert fresh.arm(r.listing) and fresh.armed
        watched = dict(fresh.watcher.wd_of)
        assert set(watched) == set(r.listing.prefixes)
        r.request()
        assert fresh.last is None and fresh.watcher.wd_of == watched
        assert fresh.watcher.removed == 0  # (the same watches: none added again)
        _a_change_in_d1_checks_only_d1(r, root)
    finally:
        r.close()


def test_watches_added_while_idle_are_checked_once(tmp_path: Path) -> None:
    """A validation that may add only so many watches (``per_request``) leaves the rest to
    ``arm`` (while idle, stopped and resumed): the next validation checks the folders newly
    watched with the unwatched ones, the one after only what changed."""
    root = _tree(tmp_path / "repo")
    r = Resident(root, SearchOptions(threads=1), SnapshotStore(str(tmp_path / "cache")))
    try:
        r.hint.per_request = 2
        r.request()  # (cold: the snapshot)
        after_racy_window()
        r.request()  # (every folder checked, two watches added)
        assert r.listing is not None and r.hint.last is None
        first = set(r.hint.watcher.wd_of)
        assert len(first) == 2 and not r.hint.armed
        asked: list[int] = []

        def stop() -> bool:
            asked.append(1)
            return len(asked) == 1

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(watch, "_STOP_EVERY", 1)
            assert not r.hint.arm(r.listing, stop)  # (stopped: a request waits)
            assert r.hint.arm(r.listing, stop)
        assert set(r.hint.watcher.wd_of) == set(r.listing.prefixes)
        (root / "d2" / "new.txt").write_text("x")
        assert r.request() == cold(root, r.options)
        assert r.hint.last is not None and set(r.only) == set(r.listing.prefixes) - first
        assert r.request() == cold(root, r.options)
        assert r.only == []
        _a_change_in_d1_checks_only_d1(r, root)
    finally:
        r.close()


def test_a_folders_mode_changed_checks_every_folder_below(resident: Resident) -> None:
    """A search permission taken away (or given back) makes every folder below unreachable
    (or reachable) with no event of their own."""
    root = Path(resident.root)
    (root / "d1").chmod(0o700)
    try:
        assert resident.request() == cold(root, resident.options)
        assert {"d1/", "d1/sub/"} <= set(resident.only)
        assert "d1/" in resident.hint.drained.attrib
    finally:
        (root / "d1").chmod(0o755)


def test_an_inotify_read_that_fails_is_lost_events(tmp_path: Path) -> None:
    """As fanotify's (``Books.read``): a read of the queue that fails is an overflow, every
    folder checked, not an error."""
    watcher = inotify.Watcher(str(tmp_path), budget=4)
    try:
        os.close(watcher.fd)
        watcher.fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)  # (a read gives EISDIR)
        assert watcher.drain().overflow
    finally:
        watcher.close()
