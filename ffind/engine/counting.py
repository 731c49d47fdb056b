"""The match count of a query over a whole index without a pass over every path (``CountTable``,
built once between keys): ``count(query) == len(Index.run(query))``.  Each folded path is a
folder part ``D`` and a name ``N``, both shared by many paths.  A fuzzy term ``k`` is a
subsequence of ``D + N`` exactly when its greedy match over ``D`` reaches ``p(D) >= need(N)``
(the start of the longest suffix of ``k`` that ``N`` holds), and ``p(P + C) = p(P) + adv(C,
p(P))``: one ``cdist`` over the distinct components and names, one array step per folder depth.
Other terms refine the ids as ``Index.compute`` does; ``count`` gives None for a query the table
cannot count."""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from ffind.engine.accel import Ids
from ffind.engine.prefilter import select, typo_term
from ffind.engine.store import PathStore
from ffind.engine.typos import refine
from ffind.query import Kind, parse

MAX_PAIRS = 4_000_000
"""Most (substring, component) comparisons one term's ``adv`` may take."""


class CountTable:
    """Folder and name ids per path of ``store`` (see the module docstring); usable once
    ``build`` has run to its end, over the paths the store held when it started (``ready``)."""

    def __init__(self, store: PathStore) -> None:
        self.store = store
        self.size = len(store.paths)
        self.done = False
        self._names: list[str] = []
        self._comps: list[str] = []
        self._dir_of = array("i")
        self._name_of = array("i")
        self._parent = array("i", [0])  # (folder 0: the empty folder part)
        self._comp = array("i", [0])
        self._depth = array("i", [0])
        self._arrays: dict[str, Any] = {}

    @property
    def ready(self) -> bool:
        """Built, over every path the store holds (a store that grew since is not)."""
        return self.done and len(self.store.paths) == self.size

    def build(self, step: int | None = None) -> Iterator[None]:
        """Build the table ``step`` paths at a time (``Tuning.slice`` when None; a generator)."""
        import numpy as np

        step = self.store.tuning.slice if step is None else step
        folded, base = self.store.folded, self.store.base
        names: dict[str, int] = {}
        comps: dict[str, int] = {}
        dirs: dict[str, int] = {"": 0}
        parent, comp, depth = self._parent, self._comp, self._depth

        def folder(d: str) -> int:
            chain = []  # (the folder and its ancestors not met yet, deepest first)
            at = dirs.get(d)
            while at is None:
                j = d.rfind("/", 0, len(d) - 1) + 1
                chain.append((d, j))
                d = d[:j]
                at = dirs.get(d)
            for d, j in reversed(chain):
                parent.append(at)
                comp.append(comps.setdefault(d[j:], len(comps)))
                depth.append(depth[at] + 1)
                at = dirs[d] = len(parent) - 1
            return at

        for s in range(0, self.size, step):
            e = min(s + step, self.size)
            fs, bs = folded[s:e], base[s:e]
            get = dirs.get
            ids = [get(f[:b]) for f, b in zip(fs, bs, strict=True)]
            for k, v in enumerate(ids):
                if v is None:  # (new in this slice; its other paths find it registered)
                    part = fs[k][:bs[k]]
                    v = get(part)
                    ids[k] = folder(part) if v is None else v
            self._dir_of.extend(ids)  # type: ignore[arg-type]  # (no None left)
            find = names.get  # (most names are met before: a lookup, then the new ones)
            nids = [find(f[b:]) for f, b in zip(fs, bs, strict=True)]
            for k, v in enumerate(nids):
                if v is None:
                    nm = fs[k][bs[k]:]
                    v = find(nm)
                    if v is None:
                        v = names[nm] = len(names)
                    nids[k] = v
            self._name_of.extend(nids)  # type: ignore[arg-type]
            yield
        self._names = list(names)
        self._comps = list(comps)
        names.clear()
        comps.clear()
        dirs.clear()
        # the folders renumbered by depth (the empty folder part first, alone at depth 0):
        # each depth's folders one run of ids, their parents all in the runs before
        d = np.frombuffer(self._depth, dtype=np.int32)
        order = np.argsort(d, kind="stable").astype(np.int32)
        new = np.empty(len(order), dtype=np.int32)
        new[order] = np.arange(len(order), dtype=np.int32)
        cuts = [*(np.flatnonzero(np.diff(d[order])) + 1).tolist(), len(order)]
        stems = [nm[:k] if (k := nm.rfind(".")) > 0 else nm for nm in self._names]
        self._arrays = {
            "dir_of": new[np.frombuffer(self._dir_of, dtype=np.int32)],
            "name_of": np.frombuffer(self._name_of, dtype=np.int32),
            "parent": new[np.frombuffer(self._parent, dtype=np.int32)[order]],
            "comp": np.frombuffer(self._comp, dtype=np.int32)[order],
            "levels": list(pairwise(cuts)),
            "name_len": np.fromiter(map(len, self._names), np.int32, len(self._names)),
            "stem_len": np.fromiter(map(len, stems), np.int32, len(stems)),
        }
        self._dir_of, self._parent, self._comp, self._depth = (
            array("i"), array("i"), array("i"), array("i"))
        self.done = True

    # --- counting

    def count(self, query: str) -> int | None:
        """``len(Index.run(query))`` over the store's paths, or None when this table does not
        count ``query`` (not ``ready``, no fuzzy term, a term too long: ``MAX_PAIRS``)."""
        if not self.ready:
            return None
        q = parse(query)
        fuzzy = [t for t in q.positive if t.kind is Kind.FUZZY]
        if not fuzzy:
            return None
        import numpy as np

        typo = typo_term(q)
        near = self.typo_names(typo.folded, np) if typo is not None else None
        # plain: the superset is every match, the typo matches are refined by nothing, so a
        # path whose name is one edit away counts whatever its folders (its need is 0; a typo
        # term is the query's only positive term)
        plain = (not q.negative and not q.groups and len(fuzzy) == len(q.positive)
                 and not any(t.case_sensitive or t.accent_sensitive for t in q.positive))
        ok = None
        for t in fuzzy:
            hold = self.holds(t.folded, np, near if plain else None)
            if hold is None:
                return None
            ok = hold if ok is None else ok & hold
        assert ok is not None
        if plain:
            return int(np.count_nonzero(ok))
        store = self.store
        superset: Ids = np.flatnonzero(ok).tolist()
        for t in q.positive:
            if t.kind is not Kind.FUZZY:
                superset = select(t.kind, t.folded, store.folded, superset, np=np,
                                  chunk=store.tuning.chunk)
        strict = refine(store, superset, q, np)
        loose = refine(store, superset, q.insensitive(), np) if q.case_sensitive else strict
        ids = loose if not strict and strict is not loose and loose else strict
        n = len(ids)
        if near is not None:
            typos = refine(store, np.flatnonzero(near[self._arrays["name_of"]]).tolist(),
                           q.insensitive(), np)
            if typos:
                n += len(set(typos).difference(ids))
        return n

    def holds(self, key: str, np: Any, also: Any = None) -> Any | None:
        """Per path, whether ``key`` is a subsequence of its folded form (bool array), None when too
        long; with ``also`` (a bool per name), every path of those names too."""
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        a = self._arrays
        m = len(key)
        if m == 0:
            return np.ones(self.size, dtype=bool)
        if m * (m + 1) // 2 * max(len(self._comps), 1) > MAX_PAIRS:
            return None
        width = m + 1
        small = np.uint8 if m < 255 else np.int32  # (a byte a folder and a name: less to read)
        # adv[c, s]: the longest prefix of key[s:] that component c holds as a subsequence
        # (each substring key[s:s + l] held or not; for one s, held up to some l, not after)
        adv = np.zeros((len(self._comps), width), dtype=small)
        if self._comps:
            subs = [key[s:s + n] for s in range(m) for n in range(1, m - s + 1)]
            lens = np.fromiter(map(len, subs), np.int32, len(subs))
            held = process.cdist(subs, self._comps, scorer=LCSseq.similarity,
                                 dtype=np.int32) == lens[:, None]
            starts = np.cumsum([0] + [m - s for s in range(m - 1)])
            adv[:, :m] = np.add.reduceat(held.astype(np.int32), starts, axis=0).T
        step = adv.ravel()
        comp, parent = a["comp"], a["parent"]
        p = np.zeros(len(parent), dtype=small)
        for lo, hi in a["levels"]:  # (parents first: one folder depth at a time)
            pp = p[parent[lo:hi]]
            p[lo:hi] = pp + step[comp[lo:hi] * width + pp]
        # need[n]: where the longest suffix of key that name n holds starts
        suffixes = [key[s:] for s in range(m)]
        got = process.cdist(suffixes, self._names, scorer=LCSseq.similarity, dtype=np.int32)
        need = (m - np.count_nonzero(
            got == np.arange(m, 0, -1, dtype=np.int32)[:, None], axis=0)).astype(small)
        if also is not None:
            need[also] = 0
        return p[a["dir_of"]] >= need[a["name_of"]]

    def typo_names(self, key: str, np: Any) -> Any:
        """Per name, whether it (``key`` with a ``.``) or its stem is one edit from ``key``."""
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        a = self._arrays
        whole = "." in key
        m = len(key)
        lens = a["name_len"] if whole else a["stem_len"]
        near = np.flatnonzero((lens >= m - 1) & (lens <= m + 1)).tolist()
        hit = np.zeros(len(self._names), dtype=bool)
        if near:
            if whole:
                texts = [self._names[i] for i in near]
            else:
                texts = [nm[:k] if (k := nm.rfind(".")) > 0 else nm
                         for nm in map(self._names.__getitem__, near)]
            d = process.cdist([key], texts, scorer=OSA.distance, score_cutoff=1,
                              dtype=np.int32)
            hit[np.asarray(near, dtype=np.int64)[d[0] == 1]] = True
        return hit
