"""Scoring many paths against one term at once: ``fuzzy_many`` gives, per candidate, exactly
``scorer.fuzzy(key, text, orig, base, False)[0]``.  Candidates sorted by length are cut into
blocks of about ``BLOCK_CELLS`` characters, and the scalar scorer's dynamic programme runs over a
block row by row (one per query character), each operation on the whole block: a gap's best is a
running maximum, a consecutive step the scalar's rule element-wise.  Scoring every position, not
only the scalar's window, gives the same best."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ffind.scoring.scorer import folder_extras, name_prefix_at
from ffind.scoring.weights import (
    BONUS_CAMEL,
    BONUS_CONSEC,
    BONUS_DELIM,
    BONUS_NAME,
    BONUS_SEP,
    CONTIG_NAME,
    CONTIG_PATH,
    GAP_EXT,
    GAP_START,
    MATCH,
    NAME_PREFIX,
    WHOLE_NAME,
)

BLOCK_CELLS = 1 << 16
"""Characters (rows x padded length) per block: small enough for the cache, large enough that
numpy's per-call overhead is spread over many candidates."""
NEG = -(1 << 28)
"""No placement (far below any score, far above int32's floor after a few additions)."""

_ALNUM, _UPPER, _LOWER, _DIGIT = 1, 2, 4, 8


def term_extras(key: str, text: str, base: int) -> int:
    """What ``fuzzy`` adds to the best placement (``scorer._extras``, from its public parts)."""
    extra = 0
    if name_prefix_at(key, text, base) >= 0:
        extra += NAME_PREFIX
        tail = key[key.rfind("/") + 1:]
        end = base + len(tail)
        if end == len(text) or (text[end] == "." and "." not in tail):
            extra += WHOLE_NAME
        if "/" not in key:
            extra += folder_extras(key, text, base)
    else:
        extra += folder_extras(key, text, base)
    if text.find(key, base) >= 0:
        extra += CONTIG_NAME
    elif key in text:
        extra += CONTIG_PATH
    return extra


@lru_cache(maxsize=1)
def _ascii_flags() -> Any:
    """``_flags`` of every ASCII code point (read-only)."""
    table = np.fromiter((_flags(chr(cp)) for cp in range(128)), dtype=np.uint8, count=128)
    table.flags.writeable = False
    return table


def _flags(c: str) -> int:
    return ((_ALNUM if c.isalnum() else 0) | (_UPPER if c.isupper() else 0)
            | (_LOWER if c.islower() else 0) | (_DIGIT if c.isdigit() else 0))


def _classes(codes: Any, ascii_table: Any) -> Any:
    """Per code point: the ``_ALNUM | _UPPER | _LOWER | _DIGIT`` flags of ``str``'s tests."""
    if not len(codes) or int(codes.max()) < 128:
        return ascii_table[codes]
    uniq, inv = np.unique(codes, return_inverse=True)
    flags = np.fromiter((_flags(chr(cp)) for cp in uniq.tolist()), dtype=np.uint8,
                        count=len(uniq))
    return flags[inv].reshape(codes.shape)


def _codes(strings: Sequence[str], width: int) -> Any:
    """``strings`` as an ``(n, width)`` uint32 array of code points, NUL-padded (a lone
    surrogate, from a file name that is not UTF-8, is kept as its code point)."""
    joined = "".join(s.ljust(width, "\0") for s in strings).encode("utf-32-le", "surrogatepass")
    return np.frombuffer(joined, dtype=np.uint32).reshape(len(strings), width)


def _bonuses(cur: Any, prev: Any, first: Any, ascii_table: Any) -> Any:
    """``bonus_at`` from the code points of the characters (``cur``) and of those before them
    (``prev``; ``first``: at the start of the path), all 1-d."""
    fc = _classes(cur, ascii_table)
    fp = _classes(prev, ascii_table)
    c_al = (fc & _ALNUM) != 0
    p_al = (fp & _ALNUM) != 0
    camel = (((fp & _LOWER) != 0) & ((fc & _UPPER) != 0)) | (
        ((fc & _DIGIT) != 0) & ((fp & _DIGIT) == 0))
    b = np.where(camel, BONUS_CAMEL, 0)
    b = np.where(p_al, b, BONUS_DELIM)
    b = np.where(first | (prev == ord("/")), BONUS_SEP, b)
    return np.where(c_al, b, BONUS_DELIM).astype(np.int32)


def _block(key: str, texts: Sequence[str], origs: Sequence[str], bases: Sequence[int],
           ascii_table: Any) -> Any:
    """The best placement's score per candidate of one block (below ``NEG // 2``: none).  The block
    is first compressed to the positions holding a key character; an impossible state is ``NEG``
    give or take a few thousand, so no validity masks are needed."""
    width = max(1, max(map(len, texts)))
    t = _codes(texts, width)
    mask = np.zeros(t.shape, dtype=bool)
    for c in set(key):
        mask |= t == ord(c)
    cnt = mask.sum(axis=1)
    n, w = len(texts), max(1, int(cnt.max()))
    rows, cols = np.nonzero(mask)
    rank = np.arange(len(rows)) - np.repeat(np.cumsum(cnt) - cnt, cnt) + 2
    # padding columns: past every path, never next to a real one, never matching
    pos = np.broadcast_to(np.arange(width, width + w + 2, dtype=np.int32), (n, w + 2)).copy()
    pos[:, :2] = 0
    pos[rows, rank] = cols
    ch = np.zeros((n, w + 2), dtype=np.uint32)
    ch[rows, rank] = t[rows, cols]
    o = _codes(origs, width)
    bon = np.zeros((n, w + 2), dtype=np.int32)
    bon[rows, rank] = _bonuses(o[rows, cols], o[rows, np.maximum(cols - 1, 0)], cols == 0,
                               ascii_table)
    bon = bon[:, 2:]
    cur = pos[:, 2:]
    nb = np.where(cur >= np.asarray(bases, dtype=np.int32)[:, None], BONUS_NAME, 0)
    gap_add = (MATCH + bon + nb - (GAP_START - 2 * GAP_EXT) - cur).astype(np.int32)
    con_add = (MATCH + nb).astype(np.int32)
    con_bon = np.maximum(bon, BONUS_CONSEC).astype(np.int32)
    delim = bon >= BONUS_DELIM
    adj = cur == pos[:, 1:-1] + 1  # the previous column holds the previous character
    not_adj = np.where(adj, 0, NEG).astype(np.int32)
    s = np.full((n, w + 2), NEG, dtype=np.int32)
    s[:, 2:] = np.where(ch[:, 2:] == ord(key[0]), MATCH + 2 * bon + nb, NEG)
    fb = np.zeros((n, w + 2), dtype=np.int32)
    fb[:, 2:] = bon
    run = np.empty_like(s)
    for c in key[1:]:
        # gap: the best s[p] + p over positions p < j - 1 (a running maximum, shifted)
        np.maximum.accumulate(s + pos, axis=1, out=run)
        s_gap = np.where(adj, run[:, :-2], run[:, 1:-1]) + gap_add
        # consecutive: from the previous column when it is the previous character
        fp = fb[:, 1:-1]
        s_con = s[:, 1:-1] + not_adj + con_add + np.maximum(con_bon, fp)
        take_con = s_con >= s_gap
        fb[:, 2:] = np.where(take_con, np.where(delim, np.maximum(bon, fp), fp), bon)
        s[:, 2:] = np.where(ch[:, 2:] == ord(c), np.maximum(s_con, s_gap), NEG)
    return s.max(axis=1)


def fuzzy_many(
    key: str, texts: Sequence[str], origs: Sequence[str], bases: Sequence[int]
) -> list[int | None]:
    """Per candidate, ``fuzzy(key, text, orig, base, False)``'s score, or None where that is
    None (``key`` is not a subsequence of ``text``)."""
    n = len(texts)
    out: list[int | None] = [None] * n
    if not n:
        return out
    if not key:
        return [term_extras(key, t, b) for t, b in zip(texts, bases, strict=True)]
    ascii_table = _ascii_flags()
    order = sorted(range(n), key=lambda j: len(texts[j]))
    start = 0
    while start < n:
        end = start + 1
        # grow the block while it stays within BLOCK_CELLS at its longest member's width
        while end < n and (end - start + 1) * max(1, len(texts[order[end]])) <= BLOCK_CELLS:
            end += 1
        ids = order[start:end]
        best = _block(key, [texts[j] for j in ids], [origs[j] for j in ids],
                      [bases[j] for j in ids], ascii_table).tolist()
        for j, v in zip(ids, best, strict=True):
            if v > NEG // 2:
                out[j] = v + term_extras(key, texts[j], bases[j])
        start = end
    return out
