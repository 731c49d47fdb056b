"""Reference forms of a snapshot's tables for the tests: a snapshot made from ``Folder``
lists (``[prefix, signature, specials, probes, count]``) and back, as ``ffind.fs.refresh``
made them before it recorded into arrays (``_Recording`` must give the same bytes)."""

from __future__ import annotations

from array import array

from ffind.fs.refresh import Folder, _put_sig
from ffind.state.cache import NO_SIG, SIG_FIELDS, CachedListing


def coarse(folders: list[Folder]) -> bool:
    """Whether every folder's ctime is a whole second: a file system whose clock cannot be
    trusted (mtimes are no test: tar and rsync set them to whole seconds)."""
    times = [f[1].split()[3] for f in folders if f[1]]
    return bool(times) and all(t.endswith("000000000") for t in times)


def to_snapshot(start: int, glob: str, folders: list[Folder], paths: list[str]) -> CachedListing:
    """The snapshot of ``folders`` (with counts) and their ``paths``."""
    sigs: array[int] = array("q")
    counts: array[int] = array("q", [f[4] for f in folders])
    extra: dict[int, tuple[str, list[list[str]]]] = {}
    for i, f in enumerate(folders):
        _put_sig(sigs, f[1])
        if f[2] or f[3]:
            extra[i] = (f[2], f[3])
    return CachedListing(start, glob, [f[0] for f in folders], sigs, counts, extra, paths=paths)


def folders_of(snap: CachedListing) -> list[Folder]:
    """Every folder of ``snap``, with its count (``refresh.folder_at`` for each, in one pass)."""
    extra = snap.extra
    fmt = " ".join(["%d"] * SIG_FIELDS)
    it = iter(snap.sigs)
    rows = zip(*[it] * SIG_FIELDS, strict=True)
    out: list[Folder] = []
    for i, (prefix, count, row) in enumerate(zip(snap.prefixes, snap.counts, rows, strict=True)):
        sig = "" if row[-1] == NO_SIG else fmt % row
        if i in extra:
            out.append([prefix, sig, *extra[i], count])
        else:
            out.append([prefix, sig, "", [], count])
    return out
