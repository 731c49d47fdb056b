"""The listing key and the snapshot file's name, without the warm path's imports: the console
script asks before its imports whether a folder has a snapshot yet
(``ffind.frontends.early.first_call``).  Imports ``os``, ``zlib`` and ``_json`` only."""

from __future__ import annotations

import os
import zlib

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    from typing import Any

    from ffind.options import SearchOptions

SUFFIX = ".snapshot"


def listing_key(root: str, options: SearchOptions) -> dict[str, Any]:
    """What the listing depends on: the absolute root and the listing options (not ``limit``,
    ``threads`` nor ``compute_indices``)."""
    return {"root": os.path.abspath(root), "hidden": options.hidden,
            "respect_ignore": options.respect_ignore, "exclude": list(options.exclude),
            "follow_links": options.follow_links, "types": sorted(options.types),
            "max_depth": options.max_depth, "require_git": options.require_git}


def key_text(key: object) -> str:
    """``json.dumps(key, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` for a
    listing key (strings, booleans, integers, None, lists and dicts of these)."""
    from _json import encode_basestring

    if key is None:
        return "null"
    if key is True:
        return "true"
    if key is False:
        return "false"
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, int):
        return int.__repr__(key)
    if isinstance(key, (list, tuple)):
        return "[" + ",".join(key_text(v) for v in key) + "]"
    if isinstance(key, dict):
        items = sorted(key.items())
        return "{" + ",".join(f"{encode_basestring(k)}:{key_text(v)}" for k, v in items) + "}"
    raise TypeError(f"not a listing key's value: {type(key).__name__}")


def file_name(key: dict[str, Any]) -> str:
    """The snapshot file's name for ``key`` (in the snapshot folder)."""
    data = key_text(key).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}{SUFFIX}"


def snapshot_path(root: str, options: SearchOptions, folder: str | None = None) -> str:
    """The snapshot file of ``root`` listed with ``options`` (``SnapshotStore().path`` of its
    listing key), in ``folder`` (by default the cache folder)."""
    if folder is None:
        from ffind.state.paths import xdg_dir

        folder = xdg_dir("cache")
    return os.path.join(folder, file_name(listing_key(root, options)))
