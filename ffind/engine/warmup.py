"""Work ahead of a ranking: ``warm`` builds, a slice at a time, the tables a ranking would build on
first use; ``prepare`` computes the word starts a scattered term will need while a walk goes on."""

from __future__ import annotations

import gc
from collections.abc import Iterator

from ffind.engine.accel import NumpyUse
from ffind.engine.bounding import Bounder
from ffind.engine.letters import Slices
from ffind.engine.prefilter import lone_term
from ffind.engine.store import PathStore
from ffind.query import parse

COLLECTING = "collect"
"""What ``warm`` yields (instead of None) just before the step that is its full collection: a
caller with little time (``FileSearcher``: a slow key's answer not yet published) stops there."""


class WorkAhead:
    """The work ahead of one index's rankings (see the module docstring)."""

    def __init__(self, store: PathStore, numpy: NumpyUse, bounder: Bounder) -> None:
        self.store = store
        self.numpy = numpy
        self.bounder = bounder
        self._seen: dict[str, int] = {}  # per term: file names holding it (``prepare``)
        self._collected = 0  # how many paths the store held at ``warm``'s last collection

    def warm(self, step: int = 4096) -> Iterator[str | None]:
        """Build, ``step`` paths at a time, the tables a ranking builds on first use (numpy's
        import, penalties, offsets, lengths, the folded buffer, letter masks, word starts), then,
        from ``Tuning.chunk`` paths, one full collection so the first keys do not traverse the
        store's lists.  A generator: None after each step, ``COLLECTING`` before the collection."""
        store, numpy = self.store, self.numpy
        numpy.module()
        yield None
        while True:
            n = len(store)
            have = store.penalties_len()
            if have < n:
                upto = min(have + step, n)
                store.penalties(range(0), False, upto)
                store.penalties(range(0), True, upto)
                yield None
            elif numpy.module() is not None and (store.path_lengths_len() < n or any(
                    store.lengths_len(whole) < n for whole in (False, True))):
                # half a slice to two slices at a time, a sixteenth of the paths (numpy arrays
                # grow by copying: ~16 copies of each), not all at once, which a key would wait for
                np = numpy.module()
                size = store.tuning.slice
                most = max(size // 2 or 1, min(2 * size, n // 16))
                upto = min(n, most + min(store.path_lengths_len(), *(
                    store.lengths_len(whole) for whole in (False, True))))
                slices = self._slices()
                store.offsets(np, upto)  # (first: the others read ``base`` from it)
                store.lengths(False, np, upto, slices)
                store.lengths(True, np, upto, slices)
                store.path_lengths(np, upto)
                yield None
            elif numpy.module() is not None and self.bounder.buffer_len() < n:
                # before the letter masks, which are read from its bytes (after the lengths:
                # at 1M paths the first keys come before ``warm`` ends, and ask for those)
                self.bounder.build_buffer(numpy.module(), self.bounder.buffer_len() + 4 * step)
                yield None
            elif numpy.module() is not None and store.masks_len() < n:
                store.build_masks(numpy.module(), store.masks_len() + step, self._slices())
                # and the same paths' word starts: one step, not two (keys typed back to back
                # each wait for about one step, whatever its size)
                if store.initials_len() < store.masks_len():
                    store.build_initials(store.masks_len())
                if store.masks_len() >= n:  # (the slices joined now, not in a first key)
                    store.letter_masks(numpy.module())
                yield None
            elif store.initials_len() < n:
                store.build_initials(store.initials_len() + step)
                yield None
            elif n >= store.tuning.chunk and n >= 2 * self._collected and gc.isenabled():
                yield COLLECTING  # (the collection is next: a caller may leave it for later)
                self._collected = n
                gc.collect()
                yield None
            else:
                return

    def _slices(self) -> Slices | None:
        """The folded paths' buffer's slices, once it covers every path (else None: the
        tables are then built from the folded paths, ``ffind.engine.letters.texts``)."""
        buf = self.bounder.folded_buffer()
        return None if buf is None else buf.slices

    def prepare(self, query: str, start: int, limit: int | None) -> None:
        """Work ahead on the ids from ``start`` for a ranking of ``query``: a lone plain term fewer
        than ``limit`` names hold will need every candidate's word starts."""
        t = lone_term(parse(query))
        if t is None or limit is None or len(t.folded) < 2:
            return
        key = t.folded
        store = self.store
        folded, base = store.folded, store.base
        seen = self._seen.get(key, 0)
        if seen >= limit:
            return
        end = len(store)
        seen += sum(1 for j in range(start, end) if folded[j].find(key, base[j]) >= 0)
        self._seen[key] = seen
        if seen < limit:
            store.initials(list(range(start, end)), key)
