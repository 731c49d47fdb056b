"""Whether an index reads rapidfuzz's results through numpy (``NumpyUse``, one per ``Index``):
always (True: sessions), never (False), or, by default, once numpy is imported or the index ranks
a second time, so a one-shot search never pays the import.  The import runs in a thread; rankings
use the plain path until it is done."""

from __future__ import annotations

import contextlib
import sys
import threading
from array import array
from collections.abc import Sequence
from typing import Any, TypeAlias

from ffind.engine.tuning import DEFAULT

Ids: TypeAlias = "list[int] | array[int]"
"""A match set's ids, ascending: a list, or from ``Tuning.chunk`` ids with numpy an
``array('i')``."""

CHUNK = DEFAULT.chunk
"""The helpers' chunk when the caller has no index (the walk workers' ``Prefilter``)."""

def ids_of(a: Any, np: Any, chunk: int = CHUNK) -> Ids:
    """The ascending ids of the numpy array ``a`` as ``Ids``: a list below ``chunk``, else
    ``array('i')``."""
    if len(a) < chunk:
        out: list[int] = a.tolist()
        return out
    return array("i", a.astype(np.int32, copy=False).tobytes())


def compact_ids(ids: Sequence[int], np: Any, chunk: int = CHUNK) -> Ids:
    """``ids`` as ``ids_of`` keeps them: with numpy, a list of ``chunk`` or more becomes an
    ``array('i')``."""
    if np is None or not isinstance(ids, list) or len(ids) < chunk:
        return ids if isinstance(ids, (list, array)) else list(ids)
    return array("i", np.fromiter(ids, np.int32, len(ids)).tobytes())


def _load_numpy() -> None:
    # numpy is a dependency, but the matcher works without it
    with contextlib.suppress(ImportError):
        import numpy  # noqa: F401


def loaded_numpy() -> Any:
    """numpy once its import has finished (not while another thread is still importing it)."""
    np = sys.modules.get("numpy")
    if np is None or getattr(getattr(np, "__spec__", None), "_initializing", False):
        return None
    return np


class NumpyUse:
    """The numpy policy of one index (see the module docstring)."""

    def __init__(self, wanted: bool | None = None) -> None:
        if wanted is not None and not isinstance(wanted, bool):
            raise TypeError(f"numpy must be True, False or None, not {wanted!r}")
        self.wanted = wanted
        self.earned = False
        """Set once the index ranks a second time: repeated matching pays the import back."""
        self._lock = threading.Lock()
        self._loader: threading.Thread | None = None

    def module(self) -> Any:
        """The numpy module when it is to be used and loaded, else None (starting its import when
        wanted)."""
        if self.wanted is False:
            return None
        loader = self._loader
        if loader is not None:
            return None if loader.is_alive() else loaded_numpy()
        np = loaded_numpy()
        if np is not None or not (self.wanted or self.earned):
            return np
        with self._lock:
            if self._loader is None:
                self._loader = threading.Thread(target=_load_numpy, name="ffind-numpy")
                self._loader.start()
        return None

    def ready(self, timeout: float | None = None) -> bool:
        """Start numpy's import if it is wanted and wait for it; True when numpy is in use."""
        self.module()
        loader = self._loader
        if loader is not None:
            loader.join(timeout)
        return self.module() is not None

    def subsequence_hits(self, key: str, texts: Sequence[str]) -> list[int]:
        """Positions (ascending) of the ``texts`` holding ``key`` as a subsequence (``cdist`` with
        numpy, else ``extract_iter``)."""
        return subsequence_hits(key, texts, self.module())


def subsequence_hits(
    key: str, texts: Sequence[str], np: Any = None, lo: int = 0, hi: int | None = None,
    chunk: int = CHUNK,
) -> list[int]:
    """``NumpyUse.subsequence_hits`` with numpy given (or None), over ``texts[lo:hi]``."""
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq

    hi = len(texts) if hi is None else min(hi, len(texts))
    if lo >= hi:
        return []
    if np is None:
        return [r[2] + lo for r in process.extract_iter(
            key, texts[lo:hi], scorer=LCSseq.similarity, score_cutoff=len(key))]
    hits: list[int] = []
    for s in range(lo, hi, chunk):
        hits.extend((_hits_array(key, texts, s, min(s + chunk, hi), np) + s).tolist())
    return hits


def _lcs_scores(key: str, texts: Sequence[str], lo: int, hi: int, np: Any, cutoff: int) -> Any:
    """The LCS of ``key`` with each of ``texts[lo:hi]``, 0 under ``cutoff``: one ``cdist`` call."""
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq

    return process.cdist([key], texts[lo:hi], scorer=LCSseq.similarity,
                         score_cutoff=cutoff, dtype=np.int32)[0]


def _hits_array(key: str, texts: Sequence[str], lo: int, hi: int, np: Any) -> Any:
    """The positions (from 0) of ``texts[lo:hi]`` holding ``key`` as a subsequence."""
    return np.flatnonzero(_lcs_scores(key, texts, lo, hi, np, len(key)))


def subsequence_ids(key: str, texts: Sequence[str], np: Any, lo: int, hi: int,
                    chunk: int = CHUNK) -> Ids:
    """``subsequence_hits`` with numpy, as ``ids_of`` keeps them."""
    return ids_of(subsequence_array(key, texts, np, lo, hi, chunk), np, chunk)


def subsequence_array(key: str, texts: Sequence[str], np: Any, lo: int = 0,
                      hi: int | None = None, chunk: int = CHUNK) -> Any:
    """``subsequence_hits`` with numpy (not None) as an int32 numpy array."""
    hi = len(texts) if hi is None else min(hi, len(texts))
    parts = [(_hits_array(key, texts, s, min(s + chunk, hi), np) + s).astype(np.int32)
             for s in range(lo, hi, chunk)]
    if not parts:
        return np.zeros(0, np.int32)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def subsequence_near(key: str, texts: Sequence[str], np: Any, lo: int = 0,
                     hi: int | None = None, chunk: int = CHUNK) -> tuple[Any, Any]:
    """``subsequence_array`` with numpy, and from the same ``cdist`` pass (cutoff one lower) a bit
    per text (packed, little bit order) set where its LCS with ``key`` is at least its length
    less one: any text holding a part one edit from ``key``."""
    hi = len(texts) if hi is None else min(hi, len(texts))
    m = len(key)
    hits = []
    near = np.zeros(max(hi - lo, 0), dtype=bool)
    for s in range(lo, hi, chunk):
        scores = _lcs_scores(key, texts, s, min(s + chunk, hi), np, m - 1)
        hits.append((np.flatnonzero(scores == m) + s).astype(np.int32))
        np.not_equal(scores, 0, out=near[s - lo:s - lo + len(scores)])
    bits = np.packbits(near, bitorder="little")
    if not hits:
        return np.zeros(0, np.int32), bits
    return hits[0] if len(hits) == 1 else np.concatenate(hits), bits


class NearPaths:
    """The bits of ``subsequence_near`` over some id ranges.  They hold for a longer term too: if
    ``key`` is a subsequence of ``longer``, LCS(longer, p) >= len(longer) - 1 implies LCS(key, p)
    >= len(key) - 1 (``covers``).  Ids never change, so the bits stay true as the store grows."""

    __slots__ = ("key", "parts")

    def __init__(self, key: str, parts: list[tuple[int, int, Any]]) -> None:
        self.key = key
        self.parts = parts
        """``(start, end, bits)`` per range, ascending."""

    def covers(self, key: str) -> bool:
        """True when the bits hold for the term ``key`` (``self.key`` is a subsequence of it)."""
        from ffind.query import in_order

        return in_order(self.key, key)

    def add(self, parts: list[tuple[int, int, Any]]) -> bool:
        """Take the bits of more ranges (the next ``Filler`` slice); False, nothing taken, on
        overlap."""
        for s, e, _ in parts:
            if any(s < pe and ps < e for ps, pe, _ in self.parts):
                return False
        self.parts = sorted([*self.parts, *parts], key=lambda p: p[0])
        return True

    def ids(self, start: int, end: int, np: Any) -> Any | None:
        """The ids of ``[start, end)`` whose bit is set, ascending (an int64 numpy array);
        None when the ranges of the bits do not cover all of it."""
        out = []
        at = start
        for s, e, bits in self.parts:
            if e <= at or s >= end:
                continue
            if s > at:
                return None  # (a gap)
            lo, hi = at - s, min(e, end) - s
            first = lo >> 3  # (the bytes of ``[lo, hi)`` only unpacked)
            flags = np.unpackbits(bits[first:(hi + 7) >> 3], bitorder="little")
            out.append(np.flatnonzero(flags[lo - 8 * first:hi - 8 * first]) + (s + lo))
            at = s + hi
        if at < end:
            return None
        return out[0] if len(out) == 1 else np.concatenate(out) if out else np.zeros(0, np.int64)

    def near(self, ids: Any, np: Any) -> Any:
        """The ids of ``ids`` (a numpy integer array, ascending) whose bit is set or that no
        range of the bits covers."""
        keep = None
        for s, e, bits in self.parts:
            lo, hi = np.searchsorted(ids, [s, e]).tolist()
            if lo == hi:
                continue
            if keep is None:
                keep = np.ones(len(ids), dtype=bool)
            at = ids[lo:hi] - s
            keep[lo:hi] = (bits[at >> 3] >> (at & 7).astype(np.uint8)) & 1
        return ids if keep is None else ids[keep]
