"""The warm index (ffind.fs.warm, ffind.state.cache): after any change to the tree or to an
ignore input, a warm listing equals a cold one; bad snapshots are ignored; only changed
folders are read again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from both_ways import served_count
from conftest import RACY_TEST_NS  # (the racy window of ``short_racy``)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snapshot_helpers import folders_of, to_snapshot

import ffind
from ffind.fs import refresh, warm
from ffind.fs.walk import walk
from ffind.fs.warm import WarmStats, cached_batches, listing_key, warm_attempts
from ffind.options import SearchOptions
from ffind.state.cache import SIG_FIELDS, CachedListing, SnapshotStore

TAG = "Signature: 8a477f597d28d172789f06886806bc55\n"

pytestmark = pytest.mark.usefixtures("git_home")  # (conftest.py)



def listing(root: Path, options: SearchOptions, store: SnapshotStore,
            stats: WarmStats | None = None) -> list[str]:
    got = [p for batch in cached_batches(root, options, store=store, stats=stats)
           for p in batch]
    assert len(got) == len(set(got)), "a path listed twice"
    return sorted(got)


def attempted(root: Path, options: SearchOptions, store: SnapshotStore,
              stats: WarmStats | None = None) -> list[str]:
    """The listing through ``warm_attempts`` (the one-shot search's): the batches of the
    attempt that is not stale, the last one."""
    got = None
    for attempt in warm_attempts(root, options, store=store, stats=stats):
        paths = [p for batch in attempt.batches for p in batch]
        if not attempt.stale():
            got = paths
    assert got is not None
    assert len(got) == len(set(got)), "a path listed twice"
    return sorted(got)


@pytest.fixture()
def aside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every snapshot checked in a forked child (``refresh.Aside``), however small."""
    monkeypatch.setattr(refresh, "ASIDE_MIN", 1)
    monkeypatch.setattr(refresh, "free_cpus", lambda: 2.0)


def split_every_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``stat`` pass split with a forked child (``refresh.SPLIT_MIN``), however small."""
    monkeypatch.setattr(refresh, "SPLIT_MIN", 1)
    monkeypatch.setattr(refresh, "cpus", lambda: 2)


@pytest.fixture()
def split(monkeypatch: pytest.MonkeyPatch) -> None:
    """``split_every_pass`` for the test."""
    split_every_pass(monkeypatch)


def cold(root: Path, options: SearchOptions) -> list[str]:
    return sorted(walk(root, options))


def git_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    return root


def settle() -> None:
    time.sleep(RACY_TEST_NS / 1e9 * 1.5)


# ---- the property: warm == cold after any sequence of changes -------------------------------

NAMES = ["a", "b", "c", "x.py", "y.txt", "node_modules", "target", ".h"]
FOLDERS = ["", "a/", "b/", "a/b/", "a/c/", "b/a/", "node_modules/", "target/", ".h/"]
PATTERNS = ["*.py", "b/", "!x.py", "y*", "/c", "**/x.py", "a/*.txt", "!node_modules/",
            "!target/", ".h", "c", "*", "!a/", "[ab]/"]
OPTIONS = [
    SearchOptions(threads=1),
    SearchOptions(threads=2, hidden=True),
    SearchOptions(threads=1, respect_ignore=False, types=("f", "d")),
    SearchOptions(threads=1, types=("d",), max_depth=2),
    SearchOptions(threads=1, exclude=("*.txt",), require_git=False),
]

Step = tuple[str, int, int, int, bool]


def _path(root: Path, folder: int, name: int) -> Path:
    return root / (FOLDERS[folder % len(FOLDERS)] + NAMES[name % len(NAMES)])


def _remove(p: Path) -> None:
    if p.is_symlink() or p.is_file():
        p.unlink()
    elif p.is_dir():
        shutil.rmtree(p)


def apply(root: Path, home: Path, step: Step) -> None:
    kind, i, j, k, pause = step
    if pause:  # past the racy window: the next search trusts the folders' times
        settle()
    p = _path(root, i, j)
    try:
        if kind == "file":
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("x")
        elif kind == "dir":
            p.mkdir(parents=True, exist_ok=True)
        elif kind == "delete":
            _remove(p)
        elif kind == "rename":
            q = _path(root, k, j + k)
            if p.exists() and not q.exists() and not str(q).startswith(str(p) + "/"):
                q.parent.mkdir(parents=True, exist_ok=True)
                p.rename(q)
        elif kind in ("gitignore", "ignore"):
            folder = root / FOLDERS[i % len(FOLDERS)]
            folder.mkdir(parents=True, exist_ok=True)
            name = ".gitignore" if kind == "gitignore" else ".ignore"
            text = "\n".join(PATTERNS[(j + n) % len(PATTERNS)] for n in range(k % 3 + 1))
            (folder / name).write_text(text + "\n")
        elif kind == "unignore":
            for name in (".gitignore", ".ignore"):
                _remove(root / FOLDERS[i % len(FOLDERS)] / name)
        elif kind == "exclude":
            (root / ".git" / "info").mkdir(parents=True, exist_ok=True)
            (root / ".git" / "info" / "exclude").write_text(PATTERNS[j % len(PATTERNS)] + "\n")
        elif kind == "nested":  # a nested repository, or its info/exclude edited
            info = root / FOLDERS[i % len(FOLDERS)] / ".git" / "info"
            info.mkdir(parents=True, exist_ok=True)
            (info / "exclude").write_text(PATTERNS[j % len(PATTERNS)] + "\n")
        elif kind == "global":
            (home / ".config" / "git").mkdir(parents=True, exist_ok=True)
            (home / ".config" / "git" / "ignore").write_text(PATTERNS[j % len(PATTERNS)] + "\n")
        elif kind == "symlink":
            folder = root / FOLDERS[i % len(FOLDERS)].rstrip("/")
            if folder != root and not folder.is_symlink():
                _remove(folder)
                folder.parent.mkdir(parents=True, exist_ok=True)
                folder.symlink_to(root / FOLDERS[k % len(FOLDERS)] if j % 2 else "missing")
        elif kind == "tag":
            folder = root / FOLDERS[i % len(FOLDERS)] / "target"
            folder.mkdir(parents=True, exist_ok=True)
            tag = folder / "CACHEDIR.TAG"
            if tag.exists():
                tag.unlink()
            else:
                tag.write_text(TAG)
        elif kind == "chmod":
            folder = root / FOLDERS[i % len(FOLDERS)]
            if folder.is_dir() and folder != root:
                folder.chmod(0o000 if j % 2 else 0o755)
    except OSError:
        pass  # a change that does not apply to the tree as it is (a file in the way)


KINDS = ["file", "file", "dir", "delete", "rename", "gitignore", "ignore", "unignore",
         "exclude", "global", "symlink", "tag", "chmod", "nested"]
steps = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 20), st.integers(0, 20),
                           st.integers(0, 20), st.booleans()), min_size=1, max_size=12)


def _restore(root: Path) -> None:
    for folder, dirs, _ in os.walk(root):
        for d in dirs:
            p = os.path.join(folder, d)
            if not os.path.islink(p):
                os.chmod(p, 0o755)


def _replay(base: Path, home: Path, steps: list[Step], which: int,
            warm: Callable[[Path, SearchOptions, SnapshotStore], list[str]]) -> None:
    """Apply ``steps`` to a fresh repository under ``base``; after each (and before any),
    ``warm``'s listing must equal a cold walk's."""
    root = git_repo(base / "repo")
    store = SnapshotStore(str(base / "cache"))
    options = OPTIONS[which]
    for p in ["a/x.py", "a/b/y.txt", "b/x.py", "node_modules/x.py", "target/y.txt", ".h/x.py"]:
        apply(root, home, ("file", FOLDERS.index(p.rpartition("/")[0] + "/")
                           if "/" in p else 0, NAMES.index(p.rpartition("/")[2]), 0, False))
    try:
        assert warm(root, options, store) == cold(root, options)
        settle()
        for step in steps:
            apply(root, home, step)
            assert warm(root, options, store) == cold(root, options), step
    finally:
        _restore(root)


def _replayed(test: Callable[..., None]) -> Any:
    """A property test over any ``steps`` and any of the ``OPTIONS`` (``WARM_EXAMPLES``
    examples)."""
    return settings(
        max_examples=int(os.environ.get("WARM_EXAMPLES", "25")), deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )(given(steps=steps, which=st.integers(0, len(OPTIONS) - 1))(test))


@_replayed
def test_warm_listing_equals_cold_after_any_changes(
    tmp_path_factory: pytest.TempPathFactory, git_home: Path, short_racy: None,
    steps: list[Step], which: int,
) -> None:
    _replay(tmp_path_factory.mktemp("prop"), git_home, steps, which, listing)


@_replayed
def test_the_listing_checked_aside_equals_cold_after_any_changes(
    tmp_path_factory: pytest.TempPathFactory, git_home: Path, short_racy: None,
    aside: None, steps: list[Step], which: int,
) -> None:
    """The one-shot search's listing: the snapshot's paths while a forked child checks the
    folders, then (when it found a change) the refreshed listing."""
    _replay(tmp_path_factory.mktemp("prop"), git_home, steps, which, attempted)


@_replayed
def test_the_listing_checked_split_equals_cold_after_any_changes(
    tmp_path_factory: pytest.TempPathFactory, git_home: Path, short_racy: None,
    split: None, steps: list[Step], which: int,
) -> None:
    """Every ``stat`` pass split in two, the second half checked by a forked child: changes
    in either half (or both) are found as in one pass."""
    _replay(tmp_path_factory.mktemp("prop"), git_home, steps, which, listing)


def test_an_unchanged_snapshot_checked_aside_is_one_attempt(
        tree: Path, tmp_path: Path, short_racy: None, aside: None) -> None:
    settle()  # (the tree's own times are not racy)
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    assert attempted(tree, options, store) == cold(tree, options)
    settle()
    stats = WarmStats()
    tries = list(warm_attempts(tree, options, store=store, stats=stats))
    assert len(tries) == 1  # (the generator stopped: the snapshot's paths were the listing)
    stats = WarmStats()
    got = []
    for attempt in warm_attempts(tree, options, store=store, stats=stats):
        got.append(sorted(p for b in attempt.batches for p in b))
        assert not attempt.stale()
    assert got == [cold(tree, options)]
    assert stats.mode == "warm" and stats.relisted == [] and not stats.saved


def test_a_change_found_aside_gives_a_second_attempt(
        tree: Path, tmp_path: Path, short_racy: None, aside: None) -> None:
    settle()  # (the tree's own times are not racy)
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    attempted(tree, options, store)
    settle()
    (tree / "a" / "new.py").write_text("")
    settle()
    stats = WarmStats()
    stale = []
    lists = []
    for attempt in warm_attempts(tree, options, store=store, stats=stats):
        lists.append(sorted(p for b in attempt.batches for p in b))
        stale.append(attempt.stale())
    assert stale == [True, False]
    assert lists[1] == cold(tree, options) and "a/new.py" in lists[1]
    assert stats.relisted == ["a/"] and stats.saved


@pytest.mark.parametrize("how", ["raises", "dies", "cut"])
def test_a_child_that_fails_aside(tree: Path, tmp_path: Path, short_racy: None, aside: None,
                                  monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """A snapshot the child finds bad: a cold walk; a child that dies without an answer, or
    with one cut short: the check again, in this process."""
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    attempted(tree, options, store)
    settle()
    here: list[int] = []

    def broken(self: refresh.Refresh, snap: CachedListing, limit: int,
               only: object = None, split: bool = True) -> dict[str, str]:
        if os.getpid() != parent:
            if how == "dies":
                os._exit(3)
            if how == "raises":
                raise ValueError("a bad table")
        else:
            here.append(limit)
        return checked(self, snap, limit, split=split)

    parent = os.getpid()
    checked = refresh.Refresh._changed
    monkeypatch.setattr(refresh.Refresh, "_changed", broken)
    if how == "cut":  # (the answer "nothing changed" without its last byte)
        read = refresh.Aside._read
        monkeypatch.setattr(refresh.Aside, "_read", lambda self: read(self)[:-1])
    stats = WarmStats()
    assert attempted(tree, options, store, stats) == cold(tree, options)
    assert stats.mode == ("cold" if how == "raises" else "warm")
    assert len(here) == (0 if how == "raises" else 1)


def test_a_child_only_with_a_free_cpu(tree: Path, tmp_path: Path, short_racy: None,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refresh, "ASIDE_MIN", 1)
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    attempted(tree, options, store)
    settle()
    snap = store.load(listing_key(str(tree), options))
    assert snap is not None
    run = refresh.Refresh(*_parts(tree, options, store, WarmStats()))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 1.0, 1.0))  # (half a CPU free)
    assert run.aside(snap) is None
    monkeypatch.setattr(os, "getloadavg", lambda: (0.2, 1.0, 1.0))
    child = run.aside(snap)
    assert child is not None
    assert child.result() == {}


def test_search_with_cache_checked_aside_ranks_as_without(
        tree: Path, short_racy: None, aside: None) -> None:
    for query in ("x", "py", "", "!txt", "yt"):
        cold_results = ffind.search(query, tree, SearchOptions(threads=1))
        assert ffind.search(query, tree, SearchOptions(threads=1), cache=True) == cold_results
        settle()
        assert ffind.search(query, tree, SearchOptions(threads=1), cache=True) == cold_results
        (tree / "a" / f"new{len(query)}.py").write_text("")
        settle()
        assert ffind.search(query, tree, SearchOptions(threads=1), cache=True) == ffind.search(
            query, tree, SearchOptions(threads=1))


# ---- reuse: only what changed is read again ---------------------------------------------------

def test_touching_one_folder_relists_only_that_folder(tmp_path: Path, short_racy: None) -> None:
    root = git_repo(tmp_path / "repo")
    for d in ("a/b", "a/c", "d"):
        (root / d).mkdir(parents=True)
        (root / d / "f.txt").write_text("")
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    stats = WarmStats()
    listing(root, options, store, stats)
    assert stats.mode == "cold" and stats.saved
    settle()
    stats = WarmStats()
    assert listing(root, options, store, stats) == cold(root, options)
    assert (stats.mode, stats.relisted) == ("warm", [])
    (root / "a" / "c" / "new.txt").write_text("")
    stats = WarmStats()
    assert listing(root, options, store, stats) == cold(root, options)
    assert stats.relisted == ["a/c/"]
    assert "a/c/new.txt" in cold(root, options)


def test_an_edited_gitignore_relists_its_subtree(tmp_path: Path, short_racy: None) -> None:
    root = git_repo(tmp_path / "repo")
    for p in ("a/x.py", "a/b/y.py", "c/z.py"):
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text("")
    (root / "a" / ".gitignore").write_text("nothing\n")
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    listing(root, options, store)
    settle()
    (root / "a" / ".gitignore").write_text("y.py\n")  # same folder times
    stats = WarmStats()
    assert listing(root, options, store, stats) == ["a/x.py", "c/z.py"]
    assert sorted(stats.relisted) == ["a/", "a/b/"]


def test_a_snapshot_whose_root_is_not_listed_first(tmp_path: Path, short_racy: None) -> None:
    """Regression: a root walked again whole goes to the end of the snapshot; reading it
    again later must not drop the folders listed before it."""
    root = git_repo(tmp_path / "repo")
    for p in ("a/x.py", "b/y.py", "top.py"):
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text("")
    (root / ".gitignore").write_text("nothing\n")
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    listing(root, options, store)
    (root / ".gitignore").write_text("b/\n")  # the root's ignore file: walked again whole
    settle()
    assert listing(root, options, store) == ["a/x.py", "top.py"]
    (root / "new.py").write_text("")  # the root only: read again, its sub-folders kept
    settle()
    stats = WarmStats()
    assert listing(root, options, store, stats) == ["a/x.py", "new.py", "top.py"]
    assert stats.relisted == [""]


def test_a_submodules_info_exclude_is_watched(tmp_path: Path, short_racy: None) -> None:
    """A nested repository whose ``.git`` is a file (a submodule): its info/exclude lives in
    the git folder it points to, outside the tree."""
    root = git_repo(tmp_path / "repo")
    modules = root / ".git" / "modules" / "sub"
    (modules / "info").mkdir(parents=True)
    (modules / "info" / "exclude").write_text("nothing\n")
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")
    for p in ("sub/a.py", "sub/b.txt", "sub/deep/c.txt"):
        (root / p).write_text("")
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    assert listing(root, options, store) == ["sub/a.py", "sub/b.txt", "sub/deep/c.txt"]
    (modules / "info" / "exclude").write_text("*.txt\n")
    settle()
    assert listing(root, options, store) == cold(root, options) == ["sub/a.py"]


@pytest.mark.parametrize("linked", [".ignore", "global"])
def test_an_ignore_file_behind_a_symlink_is_watched(
        tmp_path: Path, short_racy: None, git_home: Path, linked: str) -> None:
    """An ignore file (or the global excludes file) that is a link into a dotfiles folder:
    its target's changes count."""
    root = git_repo(tmp_path / "repo")
    for p in ("a/x.py", "a/b/y.txt"):
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text("")
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "ignore").write_text("nothing\n")
    if linked == "global":
        (git_home / ".config" / "git").mkdir(parents=True)
        (git_home / ".config" / "git" / "ignore").symlink_to(dotfiles / "ignore")
    else:
        (root / "a" / ".ignore").symlink_to(dotfiles / "ignore")
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    assert listing(root, options, store) == ["a/b/y.txt", "a/x.py"]
    (dotfiles / "ignore").write_text("*.txt\n")
    settle()
    assert listing(root, options, store) == cold(root, options) == ["a/x.py"]


def test_a_tag_fixed_in_place_in_an_entered_target(tmp_path: Path, short_racy: None) -> None:
    """A ``target`` entered because its CACHEDIR.TAG is not valid; the tag rewritten in place
    (its folder's times unchanged) makes it a build folder, left out."""
    root = git_repo(tmp_path / "repo")
    (root / "target").mkdir()
    (root / "target" / "out.txt").write_text("")
    tag = root / "target" / "CACHEDIR.TAG"
    tag.write_text("Signature: not the one\n")
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    assert listing(root, options, store) == ["target/CACHEDIR.TAG", "target/out.txt"]
    with open(tag, "r+") as f:  # in place: the folder's entries do not change
        f.write(TAG)
    settle()
    assert listing(root, options, store) == cold(root, options) == []


def test_a_racy_folder_is_read_again(tmp_path: Path, short_racy: None) -> None:
    root = git_repo(tmp_path / "repo")
    settle()
    (root / "f.txt").write_text("")
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    listing(root, options, store)
    stats = WarmStats()
    listing(root, options, store, stats)  # written just now: within the racy window
    assert stats.mode == "warm" and stats.relisted == [""]


# ---- bad snapshots ------------------------------------------------------------------------

@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = git_repo(tmp_path / "repo")
    for p in ("a/x.py", "b/y.txt", "ignored/z"):
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text("")
    (root / ".gitignore").write_text("ignored/\n")
    return root


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "version", "key", "json"])
def test_a_bad_snapshot_is_ignored(tree: Path, tmp_path: Path, damage: str) -> None:
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    expected = cold(tree, options)
    assert listing(tree, options, store) == expected
    path = Path(store.path(listing_key(str(tree), options)))
    data = path.read_bytes()
    header, _, body = data.partition(b"\n")
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "version":
        path.write_bytes(header.replace(b"0.", b"999.") + b"\n" + body)
    elif damage == "key":
        path.write_bytes(header + b"\n" + body.replace(b'"a/x.py"', b'"a/q.py"')
                         .replace(b'"root":"', b'"root":"/elsewhere'))
    else:  # valid JSON, wrong shape
        path.write_bytes(header + b'\n{"folders": 3, "start": "x"}')
    stats = WarmStats()
    assert listing(tree, options, store, stats) == expected
    assert stats.mode == "cold"


def test_the_snapshot_format_round_trips(tmp_path: Path) -> None:
    store = SnapshotStore(str(tmp_path / "cache"))
    big = f"1 {2 ** 64 - 1} 3 4 5 16877"  # an inode beyond 2**63
    folders = [["", "1 2 3 4 5 16877", "", [], 2],
               ["a/", "", ".gitignore=1 2 3 4 5 6", [["a/target", "7 8"]], 1],
               ["b\udcff/", big, "", [], 0], ["c/", "-1 2 -3 4 5 16877", "", [], 1]]
    paths = ["x.py", "y", "a/z", "c/w\udcfe"]  # (a name that is not UTF-8)
    assert store.save({"root": "/r"}, to_snapshot(7, "glob", folders, paths))
    back = store.load({"root": "/r"})
    assert back is not None and back.start == 7 and back.glob == "glob"
    assert folders_of(back) == [*folders[:2], ["b\udcff/", "", "", [], 0], folders[3]]
    assert back.paths() == paths
    empty = to_snapshot(1, "", [["", "1 2 3 4 5 6", "", [], 0]], [])
    assert store.save({"root": "/e"}, empty)
    back = store.load({"root": "/e"})
    assert back is not None and back.paths() == []


@pytest.mark.parametrize("damage", ["trailing", "order", "count", "unended"])
def test_a_snapshot_whose_sections_do_not_add_up_is_ignored(tmp_path: Path,
                                                           damage: str) -> None:
    import orjson

    store = SnapshotStore(str(tmp_path / "cache"))
    key = {"root": "/r"}
    folders = [["", "1 2 3 4 5 6", "", [], 1], ["a/", "1 2 3 4 5 6", "", [], 1]]
    assert store.save(key, to_snapshot(7, "g", folders, ["x", "a/y"]))
    path = Path(store.path(key))
    magic, size, rest = path.read_bytes().split(b"\n", 2)
    head, sections = orjson.loads(rest[:int(size)]), rest[int(size):]
    if damage == "trailing":
        sections += b"x"
    elif damage == "order":
        head["order"] = "big" if sys.byteorder == "little" else "little"
    elif damage == "count":
        head["folders"] = 3
    else:  # the prefixes' last NUL gone, the lengths kept
        sections = sections.replace(b"a/\0", b"a/x", 1)
    data = orjson.dumps(head)
    path.write_bytes(magic + b"\n" + b"%d\n" % len(data) + data + sections)
    assert store.load(key) is None


def test_a_bad_folder_table_in_a_big_snapshot_means_a_cold_walk(
        tree: Path, tmp_path: Path, short_racy: None, split: None) -> None:
    """The pass is split with a forked child: a failure in the child's half (a bad probe) is
    not a folder left unchecked."""
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    key = listing_key(str(tree), options)
    settle()
    assert listing(tree, options, store) == cold(tree, options)
    settle()
    snap = store.load(key)
    assert snap is not None and snap.blob is not None  # (the paths not split yet)
    n = len(snap.prefixes) * 1000
    big = CachedListing(snap.start, snap.glob, [*snap.prefixes * 1000, snap.prefixes[-1]],
                   snap.sigs * 1000 + snap.sigs[-SIG_FIELDS:],  # (an unchanged folder)
                   snap.counts * 1000 + array("q", [0]),
                   {**snap.extra, n: ("", [["x"]])},  # a bad probe, in the last thread's part
                   blob=snap.blob * 1000)
    stats = WarmStats()
    run = refresh.Refresh(*_parts(tree, options, store, stats))
    assert sorted(p for b in run.warm(big) for p in b) == cold(tree, options)
    assert stats.mode == "cold"


def _parts(tree: Path, options: SearchOptions, store: SnapshotStore,
           stats: WarmStats) -> tuple[object, ...]:
    from ffind.fs.walk import prepare_recorded

    walker, item = prepare_recorded(str(tree), options, None, [])
    return (walker, item, options, None, None, store, listing_key(str(tree), options), "",
            time.time_ns(), stats)


def test_two_processes_writing_one_snapshot(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    code = ("import sys, ffind\n"
            "from ffind.fs.warm import cached_batches\n"
            "from ffind.state.cache import SnapshotStore\n"
            "from ffind.options import SearchOptions\n"
            "s = SnapshotStore(sys.argv[2])\n"
            "for _ in range(20):\n"
            "    list(cached_batches(sys.argv[1], SearchOptions(threads=1), store=s))\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tree), str(cache)], env=env)
             for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    store = SnapshotStore(str(cache))
    options = SearchOptions(threads=1)
    assert store.load(listing_key(str(tree), options)) is not None
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == []
    assert listing(tree, options, store) == cold(tree, options)


def test_a_read_only_cache_folder_means_a_cold_walk(tree: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = SnapshotStore(str(blocker / "cache"))  # cannot be created
    stats = WarmStats()
    assert listing(tree, SearchOptions(threads=1), store, stats) == cold(
        tree, SearchOptions(threads=1))
    assert stats.mode == "cold" and not stats.saved


def test_eviction_keeps_the_folder_bounded(tmp_path: Path) -> None:
    store = SnapshotStore(str(tmp_path / "cache"), limit=3000)
    for n in range(10):
        assert store.save({"root": f"/r{n}"}, to_snapshot(
            0, "", [["", "", "", [], 1]], ["x" * 500]))
        time.sleep(0.01)
    files = list((tmp_path / "cache").iterdir())
    assert sum(f.stat().st_size for f in files) <= 3000
    assert store.load({"root": "/r9"}) is not None  # the last written stays
    assert store.load({"root": "/r0"}) is None
    assert all(oct(f.stat().st_mode & 0o777) == "0o600" for f in files)
    assert oct((tmp_path / "cache").stat().st_mode & 0o777) == "0o700"
    assert store.clear() == len(files)


def test_follow_links_is_not_cached(tree: Path, tmp_path: Path) -> None:
    store = SnapshotStore(str(tmp_path / "cache"))
    stats = WarmStats()
    options = SearchOptions(threads=1, follow_links=True)
    assert listing(tree, options, store, stats) == cold(tree, options)
    assert stats.mode == "off" and not (tmp_path / "cache").exists()


def test_untrusted_mounts() -> None:
    mounts = [("/", "ext4"), ("/net", "nfs4"), ("/net/x/local", "ext4"), ("/s", "fuse.sshfs")]
    assert not warm.trusted_fs("/net/x", mounts)
    assert not warm.trusted_fs("/", mounts)  # a network mount inside the tree
    assert warm.trusted_fs("/home", mounts)
    assert warm.trusted_fs("/net/x/local/y", mounts)
    assert not warm.trusted_fs("/s/a", mounts)


# ---- the library and the command --------------------------------------------------------

def test_search_with_cache_ranks_as_without(tree: Path, short_racy: None) -> None:
    for query in ("x", "py", "", "!txt", "yt"):
        cold_results = ffind.search(query, tree, SearchOptions(threads=1))
        assert ffind.search(query, tree, SearchOptions(threads=1), cache=True) == cold_results
        settle()
        assert ffind.search(query, tree, SearchOptions(threads=1), cache=True) == cold_results


def _ffind() -> str:
    here = Path(sys.executable).parent / "ffind"
    return str(here) if here.exists() else "ffind"


def run(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([_ffind(), *args], cwd=cwd, env={**os.environ, **env},
                          capture_output=True, timeout=60, check=False)


def test_command_caches_and_no_cache_writes_nothing(tree: Path, tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    snapshots = tmp_path / "xdg" / "ffind"
    first = run("--no-cache", "", cwd=tree, env=env)
    assert first.returncode == 0 and not snapshots.exists()
    assert run("", cwd=tree, env=env).stdout == first.stdout
    # (a first call: the server it starts writes the snapshot; then, one listing snapshot, the
    # remembered ``git status`` may sit beside it: git-*.snapshot)
    assert served_count(str(tree), {**os.environ, **env}) is not None
    assert len([p for p in snapshots.glob("*.snapshot") if not p.name.startswith("git-")]) == 1
    time.sleep(2.1)
    (tree / "b" / "new.py").write_text("")
    # (the listing is compared, not the memory's ranking: the untracked files are ranked up by
    # the memory's ``git status``, whose answer a search uses only if it came in time, else
    # the last remembered one, from before ``b/new.py``; the resident server started by the
    # search above answers before its own ``git status`` ends)
    again = run("--no-memory", "", cwd=tree, env=env)
    assert again.stdout == run("--no-cache", "--no-memory", "", cwd=tree, env=env).stdout
    assert b"b/new.py" in again.stdout
    cleared = run("--clear-cache", cwd=tree, env=env)
    assert cleared.returncode == 0 and cleared.stdout == b""
    assert list(snapshots.glob("*.snapshot")) == []


def test_command_with_a_cache_folder_it_cannot_write(tree: Path, tmp_path: Path) -> None:
    (tmp_path / "xdg").write_text("not a folder")
    out = run("x.py", cwd=tree, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert (out.returncode, out.stdout, out.stderr) == (0, b"a/x.py\n", b"")


@pytest.mark.parametrize("where", ["a=b/repo", "plain/repo"])
def test_a_second_search_through_another_spelling_of_the_root_stays_warm(
    tmp_path: Path, short_racy: None, where: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A root under a folder named with ``=``, reached as ``.`` and as its absolute path,
    with a nested repository: nothing changed, nothing is read again (the ``.git`` of each
    folder is recorded relative to it)."""
    root = git_repo(tmp_path / where)
    git_repo(root / "sub")
    (root / "sub" / "f.txt").write_text("")
    (root / "g.txt").write_text("")
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    listing(root, options, store)
    settle()
    monkeypatch.chdir(root)
    for spelling in (Path("."), root, Path(".")):
        stats = WarmStats()
        assert listing(spelling, options, store, stats) == cold(root, options)
        assert (stats.mode, stats.relisted, stats.saved) == ("warm", [], False)


def test_whole_second_mtimes_from_an_archive_still_get_a_snapshot(
    tmp_path: Path, short_racy: None,
) -> None:
    root = git_repo(tmp_path / "repo")
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_text("")
    for folder in (root, root / "d"):  # as tar restores them
        os.utime(folder, (1_700_000_000, 1_700_000_000))
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    stats = WarmStats()
    listing(root, SearchOptions(threads=1), store, stats)
    assert stats.saved


def test_a_folder_with_a_symlink_is_read_again_but_the_snapshot_not_rewritten(
    tmp_path: Path, short_racy: None,
) -> None:
    root = git_repo(tmp_path / "repo")
    (root / "a").mkdir()
    (root / "a" / "f.txt").write_text("")
    os.symlink("f.txt", root / "a" / "link.txt")
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    listing(root, options, store)
    settle()
    for _ in range(2):
        stats = WarmStats()
        assert listing(root, options, store, stats) == cold(root, options)
        assert (stats.mode, stats.relisted, stats.saved) == ("warm", ["a/"], False)


# ---- the snapshot's head (JSON, the standard library's) -------------------------------------

def test_a_root_whose_name_is_not_utf8_has_its_snapshot(
        tmp_path: Path, short_racy: None) -> None:
    """Its key (surrogate escapes) names a file and is read back as it was: no traceback, the
    warm listing is the cold one (orjson refused such a key: the search failed)."""
    root = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"\xffroot")))
    (root / "d\udcfe").mkdir(parents=True)
    (root / "d\udcfe" / "a.txt").write_text("")
    (root / "b.txt").write_text("")
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    stats = WarmStats()
    settle()
    assert listing(root, options, store) == cold(root, options) == ["b.txt", "d\udcfe/a.txt"]
    settle()
    assert listing(root, options, store, stats) == cold(root, options)
    assert stats.mode == "warm"
    assert store.load(listing_key(str(root), options)) is not None


def test_a_snapshot_written_with_orjson_is_read(tmp_path: Path) -> None:
    """The same head and the same file name as when orjson wrote them: a snapshot of an
    earlier ffind of the same version is used."""
    import orjson

    store = SnapshotStore(str(tmp_path / "cache"))
    key = {"root": "/r\u00e9", "hidden": False, "exclude": ["*.md"], "max_depth": None}
    folders = [["", "1 2 3 4 5 6", "", [], 1], ["a/", "1 2 3 4 5 6", ".ignore 1", [], 1]]
    assert store.save(key, to_snapshot(7, "g", folders, ["x", "a/y"]))
    path = Path(store.path(key))
    assert path.name == (lambda d: f"{zlib.crc32(d):08x}{zlib.adler32(d):08x}{len(d):x}"
                         )(orjson.dumps(key, option=orjson.OPT_SORT_KEYS)) + ".snapshot"
    magic, size, rest = path.read_bytes().split(b"\n", 2)
    head, sections = orjson.loads(rest[:int(size)]), rest[int(size):-8]
    data = orjson.dumps(head)
    crc = b"%08x" % zlib.crc32(sections, zlib.crc32(data))  # (the checksum of what it wrote)
    path.write_bytes(magic + b"\n" + b"%d\n" % len(data) + data + sections + crc)
    back = store.load(key)
    assert back is not None and back.paths() == ["x", "a/y"] and back.extra


def test_a_child_that_found_nothing_changed_leaves_the_listing(
        tree: Path, tmp_path: Path, short_racy: None, aside: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``warm_attempts`` with the check in a child: nothing changed, the refresh's
    ``listing`` is the snapshot (as ``Refresh.warm`` says it), for a caller that keeps it."""
    settle()
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    attempted(tree, options, store)
    settle()
    runs: list[refresh.Refresh] = []
    prepare = warm.prepare

    def kept(*args: Any, **kw: Any) -> Any:
        found = prepare(*args, **kw)
        if found is not None:
            runs.append(found[0])
        return found

    monkeypatch.setattr(warm, "prepare", kept)
    stats = WarmStats()
    assert attempted(tree, options, store, stats) == cold(tree, options)
    assert stats.mode == "warm" and len(runs) == 1
    snap = store.load(listing_key(str(tree), options))
    assert runs[0].listing is not None and snap is not None
    assert runs[0].listing.paths() == snap.paths()
