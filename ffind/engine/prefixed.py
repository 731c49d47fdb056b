"""The ids of a first-letter table whose name (or folder) starts with a key, kept from key to key
(``Prefixed``), and their test in the folded buffer (``prefix_scan``)."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from ffind.engine.bounding import Bounder
from ffind.engine.occur import findable
from ffind.engine.store import PathStore
from ffind.engine.tuning import DEFAULT


class Prefixed:
    """The ids of a first-letter table whose folded name (or folder) starts with a key, for the last
    ``kept`` keys of each kind: a longer key tests only the kept ids of a key it extends, then
    the ids the table gained since (tables only grow)."""

    def __init__(self, kept: int = DEFAULT.kept) -> None:
        self.most = kept
        self._kept: dict[tuple[bool, str], tuple[int, array[int]]] = {}

    def ids(
        self, table: Sequence[int], key: str, texts: list[str], at: list[int], folders: bool,
        kept_only: bool = False, scan: Scan | None = None,
    ) -> list[int] | None:
        """The ids of ``table`` whose text starts with ``key`` at ``at[i]``, in the table's order;
        ``kept_only``: None when no key it extends is kept; ``scan`` tests many at once."""
        if len(key) == 1:  # (a table holds the ids whose text starts with its letter)
            return list(table)
        kept = self._kept
        best: tuple[int, array[int]] | None = None
        for k in range(len(key), 1, -1):
            best = kept.get((folders, key[:k]))
            if best is not None:
                break
        if best is None and kept_only:
            return None
        if best is None:
            covered, found = 0, []
        else:
            covered = best[0]
            found = _starting(best[1], key, texts, at, scan)
        n = len(table)
        if covered < n:
            found += _starting(table[covered:n], key, texts, at, scan)
        kept.pop((folders, key), None)
        kept[(folders, key)] = (n, array("i", found))
        mine = [k for k in kept if k[0] == folders]
        if len(mine) > self.most:
            del kept[mine[0]]
        return found


Scan = Callable[[Sequence[int], str], "list[int] | None"]
"""The ids given (ascending) whose text starts with the key at their offset, or None when unsure."""


def _starting(
    ids: Sequence[int], key: str, texts: list[str], at: list[int], scan: Scan | None
) -> list[int]:
    """The ids whose text starts with ``key`` at ``at[i]``, in order."""
    got = None if scan is None else scan(ids, key)
    return [i for i in ids if texts[i].startswith(key, at[i])] if got is None else got


def prefix_scan(st: PathStore, bounder: Bounder, np: Any, folders: bool) -> Scan | None:
    """``Prefixed.ids``' bulk test, the key's bytes read at each offset in the folded buffer; None
    without numpy or the buffer, or when a folded path changed length."""
    buf = bounder.folded_buffer()
    if np is None or buf is None or st._resized:
        return None
    offsets = st.offsets(np, buf.covered)[1 if folders else 0]  # (built by then: ``warm``)

    def scan(ids: Sequence[int], key: str) -> list[int] | None:
        if len(ids) < st.tuning.numpy_from or not findable(key):
            return None
        a = (np.frombuffer(ids, dtype=f"i{ids.itemsize}").astype(np.int64)
             if isinstance(ids, array) else np.asarray(ids, dtype=np.int64))
        if (int(a[-1]) >= min(buf.covered, len(offsets)) or int(a[0]) < 0
                or (len(a) > 1 and not bool((a[1:] > a[:-1]).all()))):
            return None
        where = offsets[a].astype(np.int64)
        if int(where.min()) < 0:  # (no folder)
            return None
        got: list[int] = a[buf.starts_with(a, where, key)].tolist()
        return got

    return scan
