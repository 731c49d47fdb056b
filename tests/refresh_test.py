"""The refresh of a cached listing (ffind.fs.refresh) beyond what tests/warm_test.py covers:
a validation limited to some folders (``only``, the inotify hint's), in one thread or several;
the snapshot written after the answer (``defer_write``); the arrays copied around the
folders read again keep the other folders' ignore files."""

from __future__ import annotations

from pathlib import Path

import pytest
from warm_test import RACY_TEST_NS, cold
from warm_test import settle as after_racy_window

from ffind.fs import refresh, warm
from ffind.fs.refresh import Refresh
from ffind.options import SearchOptions
from ffind.state.cache import SnapshotStore

pytestmark = pytest.mark.usefixtures("git_home")  # (conftest.py)



@pytest.fixture(autouse=True)
def short_racy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refresh, "RACY_NS", RACY_TEST_NS)


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
    found = warm._prepare(str(root), options, None, None, store, None)
    assert found is not None
    run: Refresh = found[0]
    list(run.cold())
    after_racy_window()
    for name in ("d0", "d1"):
        (root / name / "sub" / "new.py").write_text("x")
    found = warm._prepare(str(root), options, None, None, store, None)
    assert found is not None and found[1] is not None
    run, snap = found
    at = snap.prefixes.index("d1/sub/")
    got = sorted(p for batch in run.warm(snap, [at]) for p in batch)
    assert "d1/sub/new.py" in got and "d0/sub/new.py" not in got
    assert run.stats.relisted == ["d1/sub/"]


@pytest.mark.parametrize("threads", [1, 3])
def test_only_checks_the_same_folders_in_threads(tmp_path: Path, threads: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``stat`` pass of a subset, in one thread or split between several: the changed
    folders among ``only``, and those only."""
    monkeypatch.setattr(refresh, "STAT_THREADS", threads)
    monkeypatch.setattr(refresh, "_CHUNK", 1)
    root = _tree(tmp_path / "repo", folders=8)
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    after_racy_window()  # (before the snapshot: no folder of it is racy)
    found = warm._prepare(str(root), options, None, None, store, None)
    assert found is not None
    list(found[0].cold())
    for i in (1, 2, 5, 6):
        (root / f"d{i}" / "new.txt").write_text("x")
    found = warm._prepare(str(root), options, None, None, store, None)
    assert found is not None and found[1] is not None
    run, snap = found
    only = sorted(snap.prefixes.index(f"d{i}/") for i in (0, 1, 2, 3, 6))
    bad = run._changed(snap, snap.start - refresh.RACY_NS, only)
    assert bad == {"d1/": "read", "d2/": "read", "d6/": "read"}


def test_a_refresh_can_write_its_snapshot_after_answering(tmp_path: Path) -> None:
    """``Refresh.defer_write``: the listing is answered, the snapshot written by
    ``write()`` only (a process that replies first)."""
    root = _tree(tmp_path / "repo")
    store = SnapshotStore(str(tmp_path / "cache"))
    options = SearchOptions(threads=1)
    found = warm._prepare(str(root), options, None, None, store, None)
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
