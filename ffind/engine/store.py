"""The path store of an ``Index``: the paths (id = position) and the per-path arrays matching
needs, some built on ``extend`` (folded forms, file-name offsets, first-letter tables), the
others on first use and then extended as paths arrive (``texts``, ``stems``, ``initials``,
``reversed``, ``penalties``, ``lengths``; ``ffind.engine.warmup`` builds them ahead)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ffind.query import Term, fold, variant
from ffind.scoring.scorer import initials_many
from ffind.scoring.weights import Weights


class PathStore:
    """Paths plus what matching needs: folded forms, file-name offsets, first-letter tables.

    Public arrays, one entry per path id: ``paths``, ``folded`` (lowercased, accents
    stripped), ``base`` (where the file name starts), ``names`` (folded file names),
    ``hidden`` (a component starts with ``.``), ``pstart`` (where the file's folder name
    starts, -1 for none); ``first`` and ``parent_first``: ids by the first folded letter of
    the file name and of its folder's name.
    """

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self.paths: list[str] = []
        self.folded: list[str] = []
        self.base: list[int] = []
        self.names: list[str] = []
        self.hidden = bytearray()
        self.any_hidden = False
        self.first: dict[str, list[int]] = {}
        self.parent_first: dict[str, list[int]] = {}
        self.pstart: list[int] = []
        self._variants: dict[tuple[bool, bool], list[str]] = {}
        self._stems: list[str] = []
        self._inits: list[str | None] = []
        self._rev: list[str] = []
        self._pen: dict[bool, list[int]] = {False: [], True: []}
        self._lens: dict[bool, Any] = {}
        self._plen: Any = None
        self._offsets: tuple[Any, Any] | None = None
        self._mask_parts: list[tuple[Any, Any, Any]] = []

    def __len__(self) -> int:
        return len(self.paths)

    def extend(self, new: list[str]) -> None:
        if not new:
            return
        joined = "\n".join(new)  # first: a TypeError (not a str) leaves the store as it was
        n0 = len(self.paths)
        self.paths.extend(new)
        # fold() inline when every path is ASCII (the common case): no call per path
        folded = ([p.lower() for p in new] if joined.isascii()
                  else [p.lower() if p.isascii() else fold(p) for p in new])
        self.folded.extend(folded)
        base = [p.rfind("/") + 1 for p in new]
        self.base.extend(base)
        names = [f[b:] for f, b in zip(folded, base, strict=True)]
        self.names.extend(names)
        if "/." in joined or joined.startswith(".") or "\n." in joined:
            self.hidden.extend(p[0] == "." or "/." in p for p in new)
            self.any_hidden = True
        else:  # no hidden path in the batch (the default walk skips them)
            self.hidden.extend(bytes(len(new)))
        first = self.first
        for i, nm in enumerate(names, n0):
            c = nm[:1]
            lst = first.get(c)
            if lst is None:
                first[c] = [i]
            else:
                lst.append(i)
        parent_first = self.parent_first
        pstart = self.pstart
        for i, (f, b) in enumerate(zip(folded, base, strict=True), n0):
            if b:
                ps = f.rfind("/", 0, b - 1) + 1
                pstart.append(ps)
                c = f[ps]
                lst = parent_first.get(c)
                if lst is None:
                    parent_first[c] = [i]
                else:
                    lst.append(i)
            else:
                pstart.append(-1)

    # --- built on first use

    def texts(self, lower: bool, strip: bool) -> list[str]:
        """The paths lowercased and/or with accents stripped."""
        if lower and strip:
            return self.folded
        if not lower and not strip:
            return self.paths
        lst = self._variants.setdefault((lower, strip), [])
        if len(lst) < len(self.paths):
            lst.extend(variant(p, lower, strip) for p in self.paths[len(lst):])
        return lst

    def term_texts(self, t: Term) -> list[str]:
        """The paths as the term ``t`` compares with them (its case and accent rules)."""
        return self.texts(not t.case_sensitive, not t.accent_sensitive)

    def stems(self, upto: int | None = None) -> list[str]:
        """The folded file names up to their last dot, unless it starts the name (``.env``)."""
        st = self._stems
        n = len(self.paths) if upto is None else upto
        if len(st) < n:
            names = self.names[len(st):n]
            parts = map(str.rpartition, names, ["."] * len(names))
            st.extend(h or nm for nm, (h, _, _) in zip(names, parts, strict=True))
        return st

    def reversed(self, upto: int | None = None) -> list[str]:
        """The folded paths reversed (for terms with ``/``)."""
        rev = self._rev
        n = len(self.paths) if upto is None else upto
        if len(rev) < n:
            rev.extend(f[::-1] for f in self.folded[len(rev):n])
        return rev

    def initials(self, ids: list[int]) -> list[str]:
        """Per id, the folded characters that can earn a word-start bonus (cached)."""
        cache = self._inits
        if len(cache) < len(self.paths):
            cache.extend([None] * (len(self.paths) - len(cache)))
        paths = self.paths
        missing = [i for i in ids if cache[i] is None]
        if missing:
            for i, v in zip(missing, initials_many([paths[i] for i in missing]), strict=True):
                cache[i] = v if v.isascii() else fold(v)
        return [cache[i] for i in ids]  # type: ignore[misc]

    def penalty(self, i: int, hidden_ok: bool) -> int:
        """The per-path part of a score, subtracted: the file name's length, a hidden path."""
        w = self.weights
        p = w.len_name * min(len(self.paths[i]) - self.base[i], w.len_name_cap)
        if self.hidden[i] and not hidden_ok:
            p += w.hidden
        return p

    def penalties(
        self, ids: Sequence[int], hidden_ok: bool, upto: int | None = None
    ) -> list[int]:
        """``penalty`` of each id (cached per path)."""
        w = self.weights
        if not w.len_name and (hidden_ok or not self.any_hidden):
            return [0] * len(ids)
        pen = self._pen[hidden_ok]
        n = len(self.paths) if upto is None else upto
        if len(pen) < n:
            base, paths, hidden = self.base, self.paths, self.hidden
            if w.len_name:
                pen.extend(w.len_name * min(len(paths[i]) - base[i], w.len_name_cap)
                           + (w.hidden if hidden[i] and not hidden_ok else 0)
                           for i in range(len(pen), n))
            elif hidden_ok or not any(hidden[len(pen):n]):
                pen.extend([0] * (n - len(pen)))
            else:
                pen.extend([w.hidden * h for h in hidden[len(pen):n]])
        if isinstance(ids, range) and ids.step == 1:
            return pen[ids.start:ids.stop]
        return [pen[i] for i in ids]

    def lengths(self, whole: bool, np: Any) -> Any:
        """The length of every file name (``whole``) or stem, as a numpy array (cached)."""
        arr = self._lens.get(whole)
        n = len(self.paths)
        if arr is None or len(arr) < n:
            texts = self.names if whole else self.stems(n)
            have = 0 if arr is None else len(arr)
            more = np.fromiter(map(len, texts[have:n]), dtype=np.int32, count=n - have)
            arr = more if arr is None else np.concatenate([arr, more])
            self._lens[whole] = arr
        return arr

    def path_lengths(self, np: Any) -> Any:
        """The length of every path, as a numpy int32 array by id (cached; the selections of
        ``ffind.engine.rank`` cut large groups with it)."""
        arr = self._plen
        n = len(self.paths)
        if arr is None or len(arr) < n:
            have = 0 if arr is None else len(arr)
            more = np.fromiter(map(len, self.paths[have:n]), dtype=np.int32, count=n - have)
            arr = more if arr is None else np.concatenate([arr, more])
            self._plen = arr
        return arr

    def offsets(self, np: Any) -> tuple[Any, Any]:
        """``base`` and ``pstart`` as numpy int32 arrays by id (cached)."""
        n = min(len(self.base), len(self.pstart))
        have = 0 if self._offsets is None else len(self._offsets[0])
        if have < n:
            b = np.array(self.base[have:n], dtype=np.int32)
            p = np.array(self.pstart[have:n], dtype=np.int32)
            if self._offsets is not None:
                b = np.concatenate([self._offsets[0], b])
                p = np.concatenate([self._offsets[1], p])
            self._offsets = (b, p)
        assert self._offsets is not None
        return self._offsets

    def build_masks(self, np: Any, upto: int) -> None:
        """Build the letter masks of the paths up to ``upto`` (``warm``, a slice at a time)."""
        from ffind.engine.letters import masks

        upto = min(upto, len(self.folded), len(self.base))
        have = self.masks_len()
        if have < upto:
            self._mask_parts.append(masks(self.folded[have:upto], self.base[have:upto], np))

    def letter_masks(self, np: Any) -> tuple[Any, Any, Any]:
        """``ffind.engine.letters.masks`` of the paths ``build_masks`` covered, as three
        arrays (the slices joined once)."""
        parts = self._mask_parts
        if not parts:
            self.build_masks(np, 0)
            empty = np.zeros(0, dtype=np.uint64)
            return empty, empty, empty
        if len(parts) > 1:
            d, nm, w = (np.concatenate([p[k] for p in parts]) for k in range(3))
            parts[:] = [(d, nm, w)]
        return parts[0]

    def masks_len(self) -> int:
        """How many paths the letter masks cover so far."""
        return sum(len(p[0]) for p in self._mask_parts)

    def reversed_len(self) -> int:
        """How many paths ``reversed`` covers so far."""
        return len(self._rev)

    def lengths_len(self, whole: bool) -> int:
        """How many paths ``lengths(whole)`` covers so far."""
        return len(self._lens.get(whole, ()))

    def path_lengths_len(self) -> int:
        """How many paths ``path_lengths`` covers so far."""
        return 0 if self._plen is None else len(self._plen)

    def built(self) -> dict[str, int]:
        """How many paths each table built on first use covers (``warm`` reports, tests)."""
        return {
            "stems": len(self._stems), "reversed": len(self._rev),
            "initials": sum(v is not None for v in self._inits),
            "lengths": min((len(a) for a in self._lens.values()), default=0)
            if len(self._lens) == 2 else 0,
        }
