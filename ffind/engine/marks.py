"""The state the bounds of one ``PathStore`` share (``Occurrences``): the folded paths' buffer,
where a term occurs in every path (kept for the last ``Tuning.kept`` terms), and the paths
holding the last term searched."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import Any

from ffind.engine.accel import NumpyUse
from ffind.engine.occur import FoldedBuffer
from ffind.engine.store import PathStore
from ffind.scoring.bounds import Bounds

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass

UNKNOWN = -(1 << 31)
"""A kept bound not computed yet (``Bounder.early_bounds``)."""


@dataclass(frozen=True, slots=True)
class Marks:
    """Where a term occurs in each of some ids, as arrays by position: anywhere, in the folders, in
    the name, at the name's start, at the start of the file's folder name, inside it, as a whole
    folder name."""

    at: Any
    base: Any
    pstart: Any
    found: Any
    in_dirs: Any
    in_name: Any
    name_start: Any
    parent: Any
    in_parent: Any
    whole_dir: Any


class Occurrences:
    """The buffer and the occurrence marks of one ``PathStore``."""

    def __init__(self, store: PathStore, numpy: NumpyUse) -> None:
        self.store = store
        self.weights = store.weights
        self.b = Bounds(store.weights)
        self.numpy = numpy
        self.tuning = store.tuning
        self._buffer: FoldedBuffer | None = None
        self.early_bounds: dict[str, array[int]] = {}
        """Per earlier term: its bound per id (``UNKNOWN`` until computed), kept between
        rankings."""
        self._kept_holders: tuple[str, int, Any] | None = None
        """``has``' last term, the paths it covered, and the ids holding it when few
        (``few_share``)."""
        self._kept_marks: dict[str, tuple[int, Any]] = {}
        """``every_marks``' last answers: per term, the paths covered and the seven marks as
        bits."""

    def aligned_bucket(self, fq: str) -> Sequence[int] | None:
        """Every id ``aligned_rx(fq)`` can match, from the first-letter tables; None when no
        letter."""
        parts = fq.split("/")
        if parts[-1]:
            return self.store.first.get(parts[-1][0], ())
        if len(parts) >= 2 and parts[-2]:
            return self.store.parent_first.get(parts[-2][0], ())
        return None

    def folded_buffer(self) -> FoldedBuffer | None:
        """The folded paths' buffer once ``warm`` has built it over every path, else None (a key
        never waits for it)."""
        buf = self._buffer
        if buf is None or buf.broken or buf.covered < len(self.store.paths):
            return None
        return buf

    def build_buffer(self, np: Any, upto: int) -> None:
        """Extend the buffer to the paths up to ``upto``; past ``Tuning.buffer_upto`` paths, drop
        it."""
        if self._buffer is None:
            self._buffer = FoldedBuffer(np, self.tuning.slice)
        if len(self.store.paths) > self.tuning.buffer_upto:
            self._buffer.drop()
            return
        self._buffer.sync(self.store.folded, upto)

    def buffer_len(self) -> int:
        """How many paths the buffer covers so far (all once a NUL made it give up)."""
        if self._buffer is None:
            return 0
        return len(self.store.paths) if self._buffer.broken else self._buffer.covered

    def has(self, fq: str, buf: FoldedBuffer, np: Any) -> Any:
        """Per path covered, whether ``fq`` occurs in it; when the last term's holders were few
        (``few_share``) and inside ``fq``, only they are tested (``s/p/t`` after ``s/p/``)."""
        n = buf.covered
        kept = self._kept_holders
        if kept is not None and kept[1] == n and kept[0] in fq:
            holders = kept[2]
            folded = self.store.folded
            hit = np.array([fq in folded[i] for i in holders.tolist()], dtype=bool)
            out = np.zeros(n, dtype=bool)
            out[holders[hit]] = True
        else:
            out = buf.has(fq)
        ids = np.flatnonzero(out)
        self._kept_holders = (
            (fq, n, ids.astype(np.int32)) if len(ids) * self.tuning.few_share <= n else None)
        return out

    def wide(self, ids: Sequence[int], share: int | None = None) -> bool:
        """Whether ``ids`` are enough of the index (``numpy_from``, one ``share``-th) for a pass
        over the whole buffer to beat one per candidate."""
        share = self.tuning.joined_share if share is None else share
        return len(ids) >= self.tuning.numpy_from and len(ids) * share >= len(self.store.paths)

    def marks(self, fq: str, ids: Sequence[int], np: Any) -> Iterator[Marks] | None:
        """Where ``fq`` (findable, no ``/``) occurs in each of ``ids``, a ``Tuning.chunk`` at a
        time; None without the buffer.  Folding keeps positions, so ``base`` and ``pstart`` hold
        in folded paths."""
        got = self.every_marks(fq, np)
        if got is None:
            return None
        every, base_a, pst_a = got
        at = np.asarray(ids, dtype=np.int64)

        def parts() -> Iterator[Marks]:
            for s in range(0, len(at), self.tuning.chunk):
                a = at[s:s + self.tuning.chunk]
                found, in_dirs, in_name, name_start, parent, in_parent, whole_dir = every[:, a]
                yield Marks(
                    at=a, base=base_a[a].astype(np.int64), pstart=pst_a[a].astype(np.int64),
                    found=found, in_dirs=in_dirs, in_name=in_name, name_start=name_start,
                    parent=parent, in_parent=in_parent, whole_dir=whole_dir)

        return parts()

    def every_marks(self, fq: str, np: Any) -> tuple[Any, Any, Any] | None:
        """The seven marks of every path (kept for the last ``Tuning.kept`` terms) and the ``base``
        and ``pstart`` arrays; None without the buffer."""
        buf = self.folded_buffer()
        if buf is None:
            return None
        base_a, pst_a = self.store.offsets(np)
        n_all = buf.covered
        kept = self._kept_marks.pop(fq, None)
        if kept is not None and kept[0] == n_all:
            every = np.unpackbits(kept[1], axis=1, count=n_all).view(bool)
        else:
            every = self._every_mark(fq, buf, base_a, pst_a, np)
            kept = (n_all, np.packbits(every, axis=1))
        self._kept_marks[fq] = kept  # (last: the most recent)
        while len(self._kept_marks) > self.tuning.kept:
            del self._kept_marks[next(iter(self._kept_marks))]
        return every, base_a, pst_a

    @staticmethod
    def _every_mark(fq: str, buf: FoldedBuffer, base_a: Any, pst_a: Any, np: Any) -> Any:
        """The seven marks of every covered path, as a (7, paths) bool array."""
        slash = ord("/")
        every = np.zeros((7, buf.covered), dtype=bool)
        for t, r, before, after in buf.find_parts(fq):  # (a slice's occurrences at a time)
            tb, tp = base_a[t].astype(np.int64), pst_a[t].astype(np.int64)
            for row, sel in enumerate((
                    slice(None), r < tb, r >= tb, r == tb, r == tp,
                    (r >= tp) & (r < tb - 1) & (tp >= 0),
                    ((r == 0) | (before == slash)) & (after == slash))):
                every[row, t[sel]] = True
        return every


def member(table: Sequence[int], a: Any, n: int, np: Any) -> Any:
    """Per id of ``a``: whether it is in ``table`` (ids below ``n``)."""
    return marks_of(table, n, np)[a]


def marks_of(table: Sequence[int], n: int, np: Any) -> Any:
    """Per id below ``n``: whether it is in ``table``."""
    t = np.array(table, dtype=np.int64)
    mark = np.zeros(n, dtype=bool)
    mark[t[t < n]] = True
    return mark
