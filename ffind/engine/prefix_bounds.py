"""Exact scores of a lone fuzzy term that prefixes the file name, in closed form
(``prefix_scored``): the placement at the name's start is the best one."""

from __future__ import annotations

from typing import Any

from ffind.engine.letters import bit_of
from ffind.engine.marks import Occurrences, member
from ffind.engine.tables import DOT_CAP
from ffind.query import Term
from ffind.scoring.scorer import folder_extras, name_prefix_score


class PrefixBounds(Occurrences):
    """``prefix_scored``, path by path or in numpy."""

    def prefix_scored(self, t: Term, ids: list[int], hidden_ok: bool) -> list[tuple[int, int]]:
        """The exact score of each id whose file name the lone term prefixes
        (``name_prefix_score``)."""
        if len(ids) >= self.tuning.numpy_from:
            np = self.numpy.module()
            if np is not None:
                return self._prefix_scored_array(t, ids, hidden_ok, np)
        st, w = self.store, self.weights
        key = t.key
        m = len(key)
        texts = st.term_texts(t)
        base, paths, hidden = st.base, st.paths, st.hidden
        const = self.b.name_prefix_score(m)
        whole_ok = "." not in key
        out = []
        for i in ids:
            p = paths[i]
            b = base[i]
            if not p[b].isalnum():
                s = name_prefix_score(key, texts[i], p, b, w) - st.penalty(i, hidden_ok)
            else:
                end = b + m
                s = (const - min(len(p) - b, w.len_name_cap) * w.len_name
                     - (w.hidden if hidden[i] and not hidden_ok else 0))
                if end == len(p) or (whole_ok and p[end] == "."):
                    s += w.whole_name
            out.append(s)
        at = [j for j, i in enumerate(ids) if base[i] and paths[i][base[i]].isalnum()]
        self._folder_extras(key, texts, ids, at, out)
        return list(zip(out, ids, strict=True))

    def _prefix_scored_array(
        self, t: Term, ids: list[int], hidden_ok: bool, np: Any
    ) -> list[tuple[int, int]]:
        """``prefix_scored`` as array arithmetic; only the name's first character and a dot after
        the term are read path by path, and the folder extras for the few that can have them."""
        st, w = self.store, self.weights
        key = t.key
        m = len(key)
        texts = st.term_texts(t)
        base, paths = st.base, st.paths
        a = np.array(ids, dtype=np.int64)
        base_a = st.offsets(np)[0]
        b = base_a[a].astype(np.int64)
        plen = st.path_lengths(np)[a].astype(np.int64)
        alnum, dot = st.name_heads(a, np)
        s = self.b.name_prefix_score(m) - np.minimum(plen - b, w.len_name_cap) * w.len_name
        if not hidden_ok and st.any_hidden:
            hid = np.frombuffer(st.hidden, dtype=np.uint8)
            s -= w.hidden * (hid[a] != 0)
            del hid  # (the store's bytearray grows later: no view of it may outlive this)
        end = b + m
        whole = end == plen
        if "." not in key:  # (``p[end] == "."``: where the name's first dot is ``m``, or ...)
            whole |= (dot == m) & (dot < DOT_CAP)
            # ... where a dot comes before it (the folded name starts with the key: no dot
            # there but from folding), read path by path
            odd = np.flatnonzero(((dot >= 0) & (dot < m)) | ((dot >= DOT_CAP) & (m >= DOT_CAP)))
            for j in odd.tolist():
                if paths[ids[j]].startswith(".", int(end[j])):
                    whole[j] = True
        s += w.whole_name * whole
        out = s.tolist()
        for j in np.flatnonzero(~alnum).tolist():  # (rare: the full closed form)
            i = ids[j]
            out[j] = (name_prefix_score(key, texts[i], paths[i], base[i], w)
                      - st.penalty(i, hidden_ok))
        # the folder extras, for the few whose folder starts with the term or is it
        c = key
        one = (m == 1 and texts is st.folded and c == t.folded and bit_of(c) is not None
               and int(a.max()) < st.masks_len())
        if one:
            bit = bit_of(c)
            assert bit is not None
            near = (member(st.parent_first.get(c, ()), a, len(base_a), np)
                    | member(st.one_char_folders(bit, np), a, len(base_a), np))
            for j in np.flatnonzero(near & alnum & (b > 0)).tolist():
                i = ids[j]
                out[j] += folder_extras(key, texts[i], base[i], w)
        else:
            self._folder_extras(key, texts, ids, np.flatnonzero(alnum & (b > 0)).tolist(), out)
        return list(zip(out, ids, strict=True))

    def _folder_extras(self, key: str, texts: list[str], ids: list[int], at: list[int],
                       out: list[int]) -> None:
        """``folder_extras`` of the ids at ``at`` added to ``out``, inline (a call per name was the
        median key's cost); a name in the folder of the one before takes its extras."""
        st, w = self.store, self.weights
        base = st.base
        m = len(key)
        pst = st.pstart
        mid = "/" + key + "/"
        mid1 = mid[1:]
        whole_dir, whole_parent = w.whole_dir, w.whole_parent
        pp = w.parent_prefix_for(m)
        no_sep = "/" not in key
        # the extras are those of the folder ``f[:bi]`` (the folded texts' ``pstart`` is
        # the ``parent`` below): a name in the folder of the name before takes its extras
        share = texts is st.folded
        pb, pf, pe = -1, "", 0
        for j in at:
            i = ids[j]
            f = texts[i]
            bi = base[i]
            if bi == pb and f.startswith(pf):
                out[j] += pe
                continue
            if share:
                pb, pf, pe = bi, f[:bi], 0
            at0 = f.startswith(mid1)
            inside = mid in f
            if not (inside or at0 or f.startswith(key, pst[i])):
                continue
            # ``mid in "/" + f[:bi]``: at its start, or inside ``f[:bi]``
            e = (whole_dir if (at0 and bi > m) or (inside and f.find(mid, 0, bi) >= 0)
                 else 0)
            parent = f.rfind("/", 0, bi - 1) + 1
            if no_sep and bi - 1 - parent >= m and f.startswith(key, parent):
                e += pp + (whole_parent if bi - 1 - parent == m else 0)
            out[j] += e
            if share:
                pe = e
