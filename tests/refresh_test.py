"""The refresh of a cached listing (ffind.fs.refresh) beyond what tests/warm_test.py covers:
a validation limited to some folders (``only``, the inotify hint's), in one process or split
with a forked child;
the snapshot written after the answer (``defer_write``); the arrays copied around the
folders read again keep the other folders' ignore files."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from snapshot_helpers import coarse, folders_of, to_snapshot
from warm_test import cold, split_every_pass
from warm_test import settle as after_racy_window

from ffind.fs import refresh, warm
from ffind.fs.refresh import Refresh
from ffind.options import SearchOptions
from ffind.state.cache import CachedListing, SnapshotStore

pytestmark = pytest.mark.usefixtures("git_home", "short_racy")  # (conftest.py)


def _tree(root: Path, folders: int = 6) -> Path:
    for i in range(folders):
        (root / f"d{i}" / "sub").mkdir(parents=True)
        (root / f"d{i}" / "f.txt").write_text("x")
        (root / f"d{i}" / "sub" / "g.py").write_text("x")
    return root


def test_only_given_to_the_refresh_trusts_the_other_folders(tmp_path: Path) -> None:
    """``Refresh.warm(snap, only)``: the folders not in ``only`` are not even ``stat``-ed
    (what the hint is for), the others as without it."""
    root = _tree(tmp_path / "repo")
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    found = warm.prepare(root, options, store=store)
    assert found is not None
    run: Refresh = found[0]
    list(run.cold())
    after_racy_window()
    for name in ("d0", "d1"):
        (root / name / "sub" / "new.py").write_text("x")
    found = warm.prepare(root, options, store=store)
    assert found is not None and found[1] is not None
    run, snap = found
    at = snap.prefixes.index("d1/sub/")
    got = sorted(p for batch in run.warm(snap, [at]) for p in batch)
    assert "d1/sub/new.py" in got and "d0/sub/new.py" not in got
    assert run.stats.relisted == ["d1/sub/"]


@pytest.mark.parametrize("split_min", [1 << 30, 1])
def test_only_checks_the_same_folders_split_or_not(tmp_path: Path, split_min: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``stat`` pass of a subset, in one process or split with a forked child (changes in
    both halves): the changed folders among ``only``, and those only."""
    monkeypatch.setattr(refresh, "SPLIT_MIN", split_min)
    monkeypatch.setattr(refresh, "cpus", lambda: 2)
    run, snap, _ = _changed_twice(tmp_path)
    only = sorted(snap.prefixes.index(f"d{i}/") for i in (0, 1, 2, 3, 6))
    bad = run._changed(snap, snap.start - refresh.RACY_NS, only)
    assert bad == {"d1/": "read", "d2/": "read", "d6/": "read"}


def _changed_twice(tmp_path: Path) -> tuple[Refresh, CachedListing, list[int]]:
    """A snapshot of 8 folders, then files created in 4 of them (2 in each half)."""
    root = _tree(tmp_path / "repo", folders=8)
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    after_racy_window()
    found = warm.prepare(root, options, store=store)
    assert found is not None
    list(found[0].cold())
    for i in (1, 2, 5, 6):
        (root / f"d{i}" / "new.txt").write_text("x")
    found = warm.prepare(root, options, store=store)
    assert found is not None and found[1] is not None
    run, snap = found
    return run, snap, sorted(snap.prefixes.index(f"d{i}/") for i in range(8))


def test_a_split_pass_forks_one_child_for_its_second_half(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Split: one child, which checks the second half (its answer merged with the first's);
    not split (fewer than ``SPLIT_MIN`` folders, one CPU, ``split=False``): no child."""
    from ffind.fs import pool

    forks: list[int] = []
    real = pool.fork_stream

    def counted(fn: Callable[[Callable[[bytes], None]], None]) -> tuple[int, pool.Pipe] | None:
        forks.append(1)
        return real(fn)

    monkeypatch.setattr(pool, "fork_stream", counted)
    run, snap, only = _changed_twice(tmp_path)
    want = {"d1/": "read", "d2/": "read", "d5/": "read", "d6/": "read"}
    limit = snap.start - refresh.RACY_NS
    monkeypatch.setattr(refresh, "SPLIT_MIN", 1)
    monkeypatch.setattr(refresh, "cpus", lambda: 2)
    assert run._changed(snap, limit, only) == want
    assert len(forks) == 1
    assert run._changed(snap, limit, only, split=False) == want
    monkeypatch.setattr(refresh, "cpus", lambda: 1)
    assert run._changed(snap, limit, only) == want
    monkeypatch.setattr(refresh, "cpus", lambda: 2)
    monkeypatch.setattr(refresh, "SPLIT_MIN", len(only) + 1)
    assert run._changed(snap, limit, only) == want
    assert len(forks) == 1


@pytest.mark.parametrize("how", ["no fork", "child dies"])
def test_a_split_pass_whose_child_fails_checks_its_half_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """A child that cannot be forked, or that dies before a whole answer: its half is checked
    by the caller, with the same answer."""
    from ffind.fs import pool

    run, snap, only = _changed_twice(tmp_path)
    split_every_pass(monkeypatch)
    if how == "no fork":
        monkeypatch.setattr(pool, "fork_stream", lambda fn: None)
    else:
        monkeypatch.setattr(refresh, "_encoded", lambda bad: os._exit(3))
    limit = snap.start - refresh.RACY_NS
    got = run._changed(snap, limit, only)
    assert got == {"d1/": "read", "d2/": "read", "d5/": "read", "d6/": "read"}


def test_a_refresh_can_write_its_snapshot_after_answering(tmp_path: Path) -> None:
    """``Refresh.defer_write``: the listing is answered, the snapshot written by
    ``write()`` only (a process that replies first)."""
    root = _tree(tmp_path / "repo")
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    found = warm.prepare(root, options, store=store)
    assert found is not None
    run = found[0]
    run.defer_write = True
    got = sorted(p for batch in run.cold() for p in batch)
    assert got == cold(root, options)
    key = warm.listing_key(str(root), options)
    assert store.load(key) is None and run.unwritten is run.listing
    assert run.write() and not run.write()
    back = store.load(key)
    assert back is not None and sorted(back.paths()) == got


def test_a_refresh_keeps_the_ignore_files_of_the_folders_it_copies(tmp_path: Path) -> None:
    """After a refresh that read one folder again, the others keep their ignore files'
    signatures: an ignore file edited in place later (its folder's times unchanged) is
    still seen."""
    root = tmp_path / "repo"
    names = "abcdefgh"
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "x.log").write_text("x")
        (root / name / "y.txt").write_text("x")
    ignored = names[1::2]
    for name in ignored:
        (root / name / ".ignore").write_text("*.log\n")
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)

    def listing() -> list[str]:
        return sorted(p for batch in warm.cached_batches(root, options, store=store)
                      for p in batch)

    after_racy_window()
    assert listing() == cold(root, options)
    for n, name in enumerate(names[::2]):  # (a folder without one read again, in turn)
        (root / name / f"new-{name}.txt").write_text("x")
        after_racy_window()
        assert listing() == cold(root, options)
        for other in ignored:  # (in place: the folder's times do not change)
            (root / other / ".ignore").write_text("*.txt\n" if n % 2 == 0 else "*.log\n")
        after_racy_window()
        assert listing() == cold(root, options), name


def _recorded_tree(root: Path) -> Path:
    """Ignore files, an entered ``target`` (a probe), names not ASCII and not UTF-8, empty
    folders, many folders (several batches)."""
    from warm_test import git_repo

    git_repo(root)
    (root / ".gitignore").write_text("*.log\n")
    (root / "target").mkdir()
    (root / "target" / "CACHEDIR.TAG").write_text("Signature: not the one\n")
    (root / "é" / "ü").mkdir(parents=True)
    (root / "é" / "ü" / "日本.txt").write_text("x")
    (root / "b\udcff").mkdir()
    (root / "b\udcff" / "w\udcfe").write_text("x")
    (root / "b\udcff" / ".ignore").write_text("w*\n")
    (root / "empty").mkdir()
    for i in range(40):
        (root / "many" / f"d{i}").mkdir(parents=True)
        (root / "many" / f"d{i}" / "f.py").write_text("x")
        (root / "many" / f"d{i}" / "x.log").write_text("x")
    return root


@pytest.mark.parametrize("threads", [1, 3])
def test_the_recording_walk_and_the_folders_read_again_agree(
        tmp_path: Path, threads: int) -> None:
    """``Refresh.cold``'s compact tables (``_Recording``) hold the folders ``Refresh.scan``
    reads again one by one, and the file it writes is the one ``to_snapshot`` makes of those,
    byte for byte."""
    from ffind.fs.walk import walk_prepared

    root = _recorded_tree(tmp_path / "repo")
    options = SearchOptions(threads=threads)
    after_racy_window()
    found = warm.prepare(root, options, store=SnapshotStore(str(tmp_path / "unused")))
    assert found is not None
    run: Refresh = found[0]
    batches = list(walk_prepared(run.walker, run.item, options))
    assert len(batches) > 1
    rec = refresh._Recording()
    assert [p for batch in batches for p in rec.add(batch)] == rec.paths
    assert rec.good
    new = rec.listing(5, "g")
    assert new.prefix_blob is not None  # (split on first use)
    read = {f[0]: f for f in run.walk_whole(run.item)}
    folders = [read.pop(prefix) for prefix in new.prefixes]
    assert not read
    every = [p for f in folders for p in f[4]]
    for f in folders:
        f[4] = len(f[4])
    assert rec.paths == every
    assert rec.coarse() == coarse(folders) is False
    old = to_snapshot(5, "g", folders, every)
    assert any(old.extra[i][1] for i in old.extra)  # (the probe)
    files = []
    for name, snap in (("old", old), ("new", new)):
        store = SnapshotStore(str(tmp_path / name))
        assert store.save({"root": "/r"}, snap)
        files.append(Path(store.path({"root": "/r"})).read_bytes())
    assert files[0] == files[1]
    assert new.prefixes == old.prefixes and list(new.counts) == list(old.counts)
    assert new.extra == old.extra and new.sigs == old.sigs
    assert folders_of(new) == folders


def test_the_recording_walk_writes_nothing_for_a_bad_signature_or_whole_seconds() -> None:
    """Whole-second change times (an untrustworthy clock), or a signature that does not
    parse, and no snapshot is made."""
    sep = refresh.SEP

    def recorded(*sigs: str) -> refresh._Recording:
        rec = refresh._Recording()
        rec.add([x for i, sig in enumerate(sigs) for x in (f"/D{sig}{sep}{sep}d{i}/", f"d{i}/f")])
        return rec

    fine = recorded("1 2 3 4 5 6", "", "1 2 3 5000000000 5 6")
    assert fine.good and not fine.coarse()
    whole = recorded("1 2 3 4000000000 5 6", "", "1 2 3 5000000000 5 6")
    assert whole.good and whole.coarse()
    assert not recorded("", "").coarse()  # (no signature at all: nothing to tell)
    bad = recorded("1 2 3 4 5 6", "1 2 x")
    assert not bad.good and len(bad.sigs) == 2 * refresh.SIG_FIELDS
    huge = recorded(f"1 {2 ** 64} 3 4 5 6")  # (an inode beyond 2**63: no signature)
    assert huge.good and list(huge.sigs) == [refresh.NO_SIG] * refresh.SIG_FIELDS
    with pytest.raises(ValueError, match="before any folder"):
        refresh._Recording().add(["x"])
    with pytest.raises(ValueError, match="before any folder"):
        refresh._Recording().add([f"/T1 2{sep}t"])


def test_a_cold_walk_with_whole_second_times_writes_no_snapshot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "repo")
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    monkeypatch.setattr(refresh._Recording, "coarse", lambda self: True)
    found = warm.prepare(root, options, store=store)
    assert found is not None
    got = sorted(p for batch in found[0].cold() for p in batch)
    assert got == cold(root, options)
    assert not found[0].stats.saved and found[0].listing is None
