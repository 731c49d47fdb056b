"""Whether an index reads rapidfuzz's ``cdist`` results through numpy: one ``NumpyUse`` per
``Index`` (no process-wide switch, so one session never changes another index).

``wanted``: True, always (a session or the MCP server: numpy makes unselective terms 2-4x cheaper
per keystroke); None, the default: once something has imported numpy, or once the index ranks for
the second time (a long-lived index pays the import once; a one-shot search, which ranks once, never
pays it: it costs more than it saves in one match); False: never (``process.extract_iter`` instead;
the same results).

The import never holds a ranking up: it runs in a thread of its own, and rankings use the plain
path until it is done (``ready`` waits for it)."""

from __future__ import annotations

import contextlib
import sys
import threading
from array import array
from collections.abc import Sequence
from typing import Any, TypeAlias

from ffind.engine.tuning import DEFAULT

Ids: TypeAlias = "list[int] | array[int]"
"""A match set's ids, ascending: a list of ints, or, from ``Tuning.chunk`` ids with numpy, an
``array('i')``."""

CHUNK = DEFAULT.chunk
"""The chunk of the helpers below when their caller has no index's ``Tuning`` (the walk
workers' ``Prefilter``); an index passes its own."""

def ids_of(a: Any, np: Any, chunk: int = CHUNK) -> Ids:
    """The ascending ids of the numpy integer array ``a`` as ``Ids``: a list below ``chunk``
    ids, else ``array('i')`` (one copy of the buffer, no int objects)."""
    if len(a) < chunk:
        out: list[int] = a.tolist()
        return out
    return array("i", a.astype(np.int32, copy=False).tobytes())


def compact_ids(ids: Sequence[int], np: Any, chunk: int = CHUNK) -> Ids:
    """``ids`` (a list, or ``Ids`` already) as ``ids_of`` keeps them: a list of ``chunk`` ints
    or more becomes an ``array('i')`` when numpy is given; anything else is returned as it
    is."""
    if np is None or not isinstance(ids, list) or len(ids) < chunk:
        return ids if isinstance(ids, (list, array)) else list(ids)
    return array("i", np.fromiter(ids, np.int32, len(ids)).tobytes())


def _load_numpy() -> None:
    # numpy is a dependency, but the matcher works without it
    with contextlib.suppress(ImportError):
        import numpy  # noqa: F401


def loaded_numpy() -> Any:
    """numpy when its import has finished (another index's thread may still be importing it:
    the module is then in ``sys.modules`` half made, its spec marked as initialising)."""
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
        """The numpy module when it is to be used and loaded, else None (starting its import
        in the background when it is wanted)."""
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
        """Positions (ascending) of the ``texts`` that hold ``key`` as a subsequence: their
        longest common subsequence with it is all of it.  rapidfuzz's ``cdist`` into a numpy
        array when numpy is in use, else ``process.extract_iter`` (in order, no sorting)."""
        return subsequence_hits(key, texts, self.module())


def subsequence_hits(
    key: str, texts: Sequence[str], np: Any = None, lo: int = 0, hi: int | None = None,
    chunk: int = CHUNK,
) -> list[int]:
    """``NumpyUse.subsequence_hits`` with the numpy module (or None) given; over ``texts[lo:hi]``
    only, the positions still counted in ``texts``; ``chunk`` texts a ``cdist`` call."""
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
    """The LCS of ``key`` with each of ``texts[lo:hi]``, 0 where under ``cutoff``, as an int32
    numpy array: one ``cdist`` call."""
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq

    return process.cdist([key], texts[lo:hi], scorer=LCSseq.similarity,
                         score_cutoff=cutoff, dtype=np.int32)[0]


def _hits_array(key: str, texts: Sequence[str], lo: int, hi: int, np: Any) -> Any:
    """The positions (from 0) of ``texts[lo:hi]`` that hold ``key`` as a subsequence, as a
    numpy array: one ``cdist`` call."""
    return np.flatnonzero(_lcs_scores(key, texts, lo, hi, np, len(key)))


def subsequence_ids(key: str, texts: Sequence[str], np: Any, lo: int, hi: int,
                    chunk: int = CHUNK) -> Ids:
    """``subsequence_hits`` over ``texts[lo:hi]`` with numpy (not None), as ``ids_of`` keeps
    them (the parts joined as int32 arrays: no list of ints made)."""
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
    """``subsequence_array`` over ``texts[lo:hi]`` with numpy (not None), and from the same
    ``cdist`` pass (its cutoff one lower: as fast) a bit per text, set where its LCS with ``key``
    (two characters or more) is at least its length less one (``numpy.packbits``, little bit
    order, text ``lo + j`` at bit ``j``; ``NearPaths``): an int32 array and a uint8 one.  A text
    holding a part one edit (``OSA``) from ``key`` has its bit set."""
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
    """For the term ``key`` over some id ranges of a store, a bit per id
    (``subsequence_near``'s): set where the folded path's LCS with ``key`` is at least its
    length less one.  It holds for a longer term too: where ``key`` is a subsequence of
    ``longer``, LCS(``longer``, p) >= len(``longer``) - 1 implies LCS(``key``, p) >= len(``key``)
    - 1 (the common subsequence less the characters ``longer`` adds), so the bits set for
    ``key`` cover the paths near ``longer`` (``covers``).  An eighth of a byte a path (125 KB
    at 1M paths).  A store only grows (an id's path never changes), so bits stay true as it
    does."""

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
        """Take the bits of more ranges (disjoint from these): the same term over the next
        slice (``Filler``'s); False, nothing taken, when they overlap these."""
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
