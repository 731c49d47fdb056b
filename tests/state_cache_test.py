"""The snapshot file (ffind.state.cache) written a chunk at a time: the same bytes as the
sections made whole, its head's lengths included, for any chunk size, with names that are
not ASCII or not UTF-8; the prefixes given as their section (a recording walk's) as given as
a list.  (Its format's round trip and its damage: tests/warm_test.py.)"""

from __future__ import annotations

import os
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.state import cache
from ffind.state.cache import SIG_FIELDS, CachedListing, SnapshotStore

PREFIXES = ["", "a/", "é/", "b\udcff/", "日本/"]
PATHS = ["x.py", "y", "a/z", "é/ü.txt", "b\udcff/w\udcfe", "日本/語", "a/q"]
COUNTS = [2, 2, 1, 1, 1]


def _listing(paths: list[str] = PATHS, prefixes: list[str] | bytes = PREFIXES,
             counts: list[int] = COUNTS) -> CachedListing:
    n = len(counts)
    sigs = array("q", [i for k in range(n) for i in (1, k, 3, 4, 5, 16877)])
    extra = {1: (".gitignore=1 2 3 4 5 6", [["a/target", "7 8"]])}
    return CachedListing(7, "glob", prefixes, sigs, array("q", counts), extra, paths=paths)


def _whole(strings: list[str]) -> bytes:
    """A section as it was written before it was chunked: one string, then its bytes."""
    return "".join(s + "\0" for s in strings).encode("utf-8", "surrogateescape")


def _file(tmp_path: Path, snap: CachedListing, name: str) -> bytes:
    store = SnapshotStore(str(tmp_path / name))
    assert store.save({"root": "/r"}, snap)
    return Path(store.path({"root": "/r"})).read_bytes()


@pytest.mark.parametrize("chunk", [1, 2, 3, 1 << 20])
def test_a_snapshot_written_in_chunks_is_the_one_written_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(cache, "CHUNK", chunk)
    snap = _listing()
    sizes, parts = snap.sections()
    data = b"".join(parts)
    whole = [_whole(PREFIXES), snap.sigs.tobytes(), snap.counts.tobytes(), _whole(PATHS)]
    assert sizes == [len(s) for s in whole]
    assert data == b"".join(whole)
    written = _file(tmp_path, snap, f"c{chunk}")
    assert written[:-8].endswith(data)  # (then the CRC-32)
    back = SnapshotStore(str(tmp_path / f"c{chunk}")).load({"root": "/r"})
    assert back is not None and back.paths() == PATHS and back.prefixes == PREFIXES
    assert back.extra == snap.extra and list(back.counts) == COUNTS
    # read back, unsplit, and written again: the same file
    again = SnapshotStore(str(tmp_path / f"c{chunk}")).load({"root": "/r"})
    assert again is not None and again.blob is not None
    assert _file(tmp_path, again, f"again{chunk}") == written


def test_prefixes_given_as_their_section_write_the_same_file(tmp_path: Path) -> None:
    as_list = _file(tmp_path, _listing(), "list")
    snap = _listing(prefixes=_whole(PREFIXES))
    assert _file(tmp_path, snap, "blob") == as_list
    assert snap.prefixes == PREFIXES and snap.prefix_blob is None  # (split once asked)
    assert _file(tmp_path, snap, "split") == as_list


def test_prefixes_section_whose_count_differs_is_not_written(tmp_path: Path) -> None:
    store = SnapshotStore(str(tmp_path / "c"))
    assert not store.save({"root": "/r"}, _listing(prefixes=_whole(PREFIXES[:-1])))
    assert not store.save({"root": "/r"}, _listing(prefixes=PREFIXES[:-1]))
    assert store.load({"root": "/r"}) is None


def test_a_path_that_cannot_be_encoded_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone surrogate that is no escaped byte: no snapshot (and no temporary file left),
    wherever it is among the chunks."""
    monkeypatch.setattr(cache, "CHUNK", 2)
    for at in (0, 3, len(PATHS)):
        paths = [*PATHS[:at], "bad\ud800", *PATHS[at:]]
        counts = [*COUNTS[:-1], COUNTS[-1] + 1]
        store = SnapshotStore(str(tmp_path / f"c{at}"))
        assert not store.save({"root": "/r"}, _listing(paths, counts=counts))
        assert store.load({"root": "/r"}) is None
        assert not list((tmp_path / f"c{at}").glob("*"))  # (a missing folder: none)


def _paths_section(snap: cache.CachedListing) -> bytes:
    """The paths' section of ``snap`` as ``sections`` writes it (the last one)."""
    sizes, parts = snap.sections()
    data = b"".join(bytes(p) for p in parts)
    return data[len(data) - sizes[3]:]


def test_the_paths_section_is_the_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "CHUNK", 3)
    assert _paths_section(_listing()) == _whole(PATHS)
    assert _paths_section(_listing([], counts=[0] * len(COUNTS))) == b""


NAMES = st.text(st.sampled_from("ab/.éü日\udcff\udc80 -"), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(paths=st.lists(NAMES, max_size=30), chunk=st.integers(1, 8))
def test_any_paths_any_chunk_read_back_as_written(tmp_path_factory: pytest.TempPathFactory,
                                                 paths: list[str], chunk: int) -> None:
    old = cache.CHUNK
    cache.CHUNK = chunk
    try:
        snap = CachedListing(1, "", [""], array("q", [1, 2, 3, 4, 5, 6]),
                             array("q", [len(paths)]), {}, paths=paths)
        sizes, parts = snap.sections()
        data = b"".join(parts)
        assert sizes[3] == len(_whole(paths)) and data.endswith(_whole(paths))
        folder = tmp_path_factory.mktemp("c")
        store = SnapshotStore(str(folder))
        assert store.save({"root": "/r"}, snap)
        back = store.load({"root": "/r"})
        assert back is not None and back.paths() == paths
        assert len(back.sigs) == SIG_FIELDS
    finally:
        cache.CHUNK = old


# ---- damage, paths leaving the root, state that is not the user's own ----------------------

KEY = {"root": "/r"}


def _saved(folder: Path, paths: list[str] = PATHS) -> tuple[SnapshotStore, Path]:
    store = SnapshotStore(str(folder))
    counts = [len(paths)] + [0] * (len(COUNTS) - 1)
    assert store.save(KEY, _listing(paths, counts=counts))
    return store, Path(store.path(KEY))


@settings(max_examples=150, deadline=None)
@given(where=st.floats(0, 1, exclude_max=True), flip=st.integers(1, 255))
def test_any_changed_byte_makes_the_snapshot_unused(tmp_path_factory: pytest.TempPathFactory,
                                                   where: float, flip: int) -> None:
    """A damaged snapshot is never read as a listing (the CRC-32 over the head and the
    sections): a changed letter in a path would otherwise come back as a file that does not
    exist."""
    store, path = _saved(tmp_path_factory.mktemp("c"))
    data = bytearray(path.read_bytes())
    data[int(where * len(data))] ^= flip
    path.write_bytes(bytes(data))
    assert store.load(KEY) is None


def test_a_snapshot_others_may_write_is_unused(tmp_path: Path) -> None:
    store, path = _saved(tmp_path / "c")
    path.chmod(0o622)
    assert store.load(KEY) is None
    path.chmod(0o644)  # (others may read: still the user's own)
    assert store.load(KEY) is not None
    (tmp_path / "c").chmod(0o777)  # the folder: anyone may plant or edit files in it
    assert store.load(KEY) is None
    assert not store.save(KEY, _listing())


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_another_users_snapshot_or_folder_is_unused(tmp_path: Path) -> None:
    store, path = _saved(tmp_path / "c")
    os.chown(path, 65534, 65534)
    assert store.load(KEY) is None
    assert store.clear() == 0 and path.exists()  # (never removes another's file)
    os.chown(path, 0, 0)
    os.chown(tmp_path / "c", 65534, 65534)
    assert store.load(KEY) is None and not store.save(KEY, _listing())


def test_a_planted_link_as_the_cache_folder_is_not_followed(tmp_path: Path) -> None:
    """A link at the cache folder: nothing read, written or removed where it points."""
    victim = tmp_path / "victim"
    store, _ = _saved(victim)
    old = victim / "notes.snapshot.tmp"
    old.write_text("mine")
    os.utime(old, (1, 1))  # (older than a dead writer's temporary file)
    planted = tmp_path / "cache-link"
    planted.symlink_to(victim)
    linked = SnapshotStore(str(planted))
    assert linked.load(KEY) is None
    assert not linked.save(KEY, _listing())
    assert linked.clear() == 0
    linked.evict()
    assert old.exists() and store.load(KEY) is not None


def test_a_link_at_the_snapshot_is_not_followed(tmp_path: Path) -> None:
    store, path = _saved(tmp_path / "c")
    real = tmp_path / "elsewhere.snapshot"
    path.rename(real)
    path.symlink_to(real)
    assert store.load(KEY) is None
