"""The listing key and the snapshot file's name computed without ``json``
(``ffind.state.snapkey``): the same bytes as ``json.dumps``, the same file as the store's."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ffind.options import SearchOptions
from ffind.state.cache import SnapshotStore
from ffind.state.snapkey import file_name, key_text, listing_key, snapshot_path

_text = st.text(st.characters(codec="utf-8") | st.sampled_from(
    ['"', "\\", "\n", "\x00", "\x1f", "\x7f", "\u2028", "\udcff", "é", "😀"]))


@given(root=_text, exclude=st.lists(_text, max_size=3), hidden=st.booleans(),
       depth=st.none() | st.integers(-(2**70), 2**70), types=st.lists(_text, max_size=3))
def test_the_key_text_is_jsons(root: str, exclude: list[str], hidden: bool,
                               depth: int | None, types: list[str]) -> None:
    key = {"root": root, "hidden": hidden, "exclude": exclude, "max_depth": depth,
           "types": types, "require_git": not hidden}
    want = json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert key_text(key) == want
    data = want.encode("utf-8", "surrogateescape")
    assert file_name(key) == (f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"
                              f"{len(data):x}.snapshot")


def test_the_snapshot_path_is_the_stores(tmp_path: Path) -> None:
    for options in (SearchOptions(), SearchOptions(hidden=True, exclude=("*.c", "é\n"),
                                                   types=("d", "f"), max_depth=3)):
        key = listing_key(str(tmp_path), options)
        assert snapshot_path(str(tmp_path), options) == SnapshotStore().path(key)
        assert snapshot_path(str(tmp_path), options, "/x") == os.path.join(
            "/x", os.path.basename(SnapshotStore().path(key)))
