"""Tighter bounds for the loose candidates, each stage only for the paths still in reach: the term's
LCS with the file name (``tighten_name``), the chunks a scattered term splits into (``chunks``,
``tighten_gaps``), how many start on a word start (``tighten_starts``); ``refine`` does the last
two in numpy."""

from __future__ import annotations

from typing import Any

from ffind.engine.letters import bit_of
from ffind.engine.marks import Occurrences
from ffind.engine.occur import findable
from ffind.engine.store import INIT_SHIFT
from ffind.query import Query


class Tighten(Occurrences):
    """The refinements of ``FirstBounds.bounds`` (see the module docstring)."""

    def tighten_name(self, q: Query, ids: list[int], bounds: list[int]) -> list[int]:
        """Loose ``bounds`` made precise on the file name: only the term's LCS with it can be
        there."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        np = self.numpy.module()
        if np is not None and ids:
            arr = self.tighten_name_array(q, np.asarray(ids, dtype=np.int64),
                                          np.asarray(bounds, dtype=np.int64), np)
            out: list[int] = arr.tolist()
            return out
        fq = q.positive[-1].folded
        m = len(fq)
        texts = self.store.names_of(ids)
        out = [b - self.b.name_bonus(m) for b in bounds]
        res = process.extract_iter(fq, texts, scorer=LCSseq.similarity, score_cutoff=1)
        for _, v, j in res:
            out[j] += self.b.name_bonus(v)
        return out

    def tighten_name_array(self, q: Query, ids: Any, bounds: Any, np: Any) -> Any:
        """``tighten_name`` over int64 arrays."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        fq = q.positive[-1].folded
        names_of = self.store.names_of
        if not len(ids):
            return np.array(bounds, dtype=np.int64)
        v = np.concatenate([
            process.cdist([fq], names_of(ids[s:s + self.tuning.chunk].tolist()),
                          scorer=LCSseq.similarity, dtype=np.int64)[0]
            for s in range(0, len(ids), self.tuning.chunk)])
        return bounds + self.weights.bonus_name * (v - len(fq))

    def tighten_name_upper(self, q: Query, ids: Any, bounds: Any, np: Any) -> Any:
        """An upper bound of ``tighten_name_array``'s from the names' letter masks
        (``name_lcs_upper``); None while the masks do not cover every id."""
        fq = q.positive[-1].folded
        most = self.name_lcs_upper(fq, ids, np)
        if most is None:
            return None
        out = most.astype(np.int64)
        out -= len(fq)
        out *= self.weights.bonus_name
        out += bounds
        return out

    def name_lcs_upper(self, fq: str, ids: Any, np: Any) -> Any:
        """Per id, at least the LCS of ``fq`` with the folded file name: each character as often as
        in ``fq`` when the name's letter mask holds it, ``/`` never, a character without a bit
        always; None while the masks do not cover every id."""
        st = self.store
        if not len(ids) or int(ids.max()) >= st.masks_len():
            return None
        names = st.letter_masks(np)[1]
        most = np.zeros(len(ids), dtype=np.int16 if len(fq) < 1 << 14 else np.int64)
        always = sum(fq.count(c) for c in set(fq) if c != "/" and bit_of(c) is None)
        bits = [(np.uint64(1) << np.uint64(j), most.dtype.type(fq.count(c)))
                for c in sorted(set(fq)) if c != "/" and (j := bit_of(c)) is not None]
        for s in range(0, len(ids), self.tuning.chunk):  # (the masks' temporaries a part at a time)
            part = names[ids[s:s + self.tuning.chunk]]
            held = np.empty(len(part), dtype=np.uint64)
            got = most[s:s + self.tuning.chunk]
            for bit, times in bits:
                np.bitwise_and(part, bit, out=held)
                got += (held != 0) * times
        most += always
        return most

    def chunks(self, q: Query, ids: list[int]) -> list[int]:
        """Per id, how many chunks the last term must split into (``m - bigrams`` found), 0 when it
        is contiguous somewhere or one character."""
        fq = q.positive[-1].folded
        m = len(fq)
        folded = self.store.folded
        if m < 2:
            return [0] * len(ids)
        texts = [folded[i] for i in ids]
        chunks = [0 if fq in f else m for f in texts]
        for k in range(m - 1):
            g = fq[k:k + 2]
            chunks = [c - (g in f) if c else 0 for c, f in zip(chunks, texts, strict=True)]
        return chunks

    def tighten_gaps(self, bounds: list[int], chunks: list[int]) -> list[int]:
        """Each chunk after the first starts after a gap (``Bounds.gaps_loss``)."""
        loss = self.b.gaps_loss
        return [b - loss(c) for b, c in zip(bounds, chunks, strict=True)]

    def tighten_starts(
        self, q: Query, ids: list[int], bounds: list[int], chunks: list[int]
    ) -> list[int]:
        """Of ``c`` chunks at most ``w`` (the term's LCS with the word starts) start on a
        boundary."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        fq = q.positive[-1].folded
        out = list(bounds)
        scat = [j for j, c in enumerate(chunks) if c]
        if scat:
            inits = self.store.initials([ids[j] for j in scat], fq)
            on = [0] * len(scat)
            for _, v, j in process.extract_iter(fq, inits, scorer=LCSseq.similarity,
                                                score_cutoff=1):
                on[j] = v
            loss = self.b.starts_loss
            for j, wj in zip(scat, on, strict=True):
                out[j] -= loss(chunks[j], wj)
        return out

    def refine(
        self, q: Query, ids: Any, bounds: Any, floor: float, np: Any
    ) -> tuple[Any, Any]:
        """``chunks``, ``tighten_gaps``, the cut at ``floor`` and ``tighten_starts`` in numpy: the
        same bounds, one pass per bigram (over the buffer when wide) and ``cdist`` for the word
        starts."""
        a = np.array(ids, dtype=np.int64)
        b = np.array(bounds, dtype=np.int64)
        fq = q.positive[-1].folded
        m = len(fq)
        if m < 2:
            keep = b >= floor
            return a[keep], b[keep]
        buf = self.folded_buffer() if self.wide(a) and findable(fq) else None
        if buf is None:
            chunks = np.array(self.chunks(q, a.tolist()), dtype=np.int64)
        else:  # each bigram found takes a chunk off (as often as the term holds it)
            grams: dict[str, int] = {}
            for k in range(m - 1):
                grams[fq[k:k + 2]] = grams.get(fq[k:k + 2], 0) + 1
            chunks = np.full(len(a), m, dtype=np.int64)
            for g, times in grams.items():
                chunks -= times * buf.has(g)[a]
            # (contiguous only where every bigram is: those few tested one by one)
            folded = self.store.folded
            every = np.flatnonzero(chunks == 1)
            whole = [fq in folded[i] for i in a[every].tolist()]
            chunks[every[np.array(whole, dtype=bool)]] = 0
        b -= self.b.gaps_loss_many(chunks, np)
        keep = b >= floor
        a, b, chunks = a[keep], b[keep], chunks[keep]
        scat = np.flatnonzero(chunks)
        if len(scat):
            on = self.starts_lcs(fq, a[scat], np)
            b[scat] -= self.b.starts_loss_many(chunks[scat], on, np)
        return a, b

    def starts_lcs(self, fq: str, ids: Any, np: Any) -> Any:
        """Per id, the LCS of ``fq`` with its word starts (int64).  A block of word starts holding
        ``Tuning.numpy_from`` ids or more is scored whole and read by position; the rest per id."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        st = self.store
        out = np.zeros(len(ids), dtype=np.int64)
        order = np.argsort(ids, kind="stable")
        s_ids = ids[order]
        blk = s_ids >> INIT_SHIFT
        cuts = np.flatnonzero(blk[1:] != blk[:-1]) + 1
        done = st.initials_len()
        rest = []
        for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(s_ids)], strict=True):
            if hi - lo < self.tuning.numpy_from or int(s_ids[hi - 1]) >= done:
                rest.append(order[lo:hi])
                continue
            k = int(blk[lo])
            v = process.cdist([fq], st.initials_block(k, fq), scorer=LCSseq.similarity,
                              dtype=np.int64)[0]
            out[order[lo:hi]] = v[s_ids[lo:hi] - (k << INIT_SHIFT)]
        if rest:
            at = np.concatenate(rest)
            out[at] = process.cdist([fq], st.initials(ids[at].tolist(), fq),
                                    scorer=LCSseq.similarity, dtype=np.int64)[0]
        return out
