"""Scoring one path against one query term, and ``FileMatch``.

The scorer is fzf's (``src/algo/algo.go``, FuzzyMatchV2), adapted to file paths.  A term
matches a path when its characters appear in order; among all the ways they can be placed,
the score of the best one is kept (a Smith-Waterman style dynamic programme over the
positions where each query character occurs).  The weights, and why they are what they are,
are in ``ffind.scoring.weights``; every function here takes a ``Weights`` (``w``, the default
one unless given).  ``docs/ranking.md`` describes the whole ranking.

Per matched character: ``MATCH``, plus the bonus of the character before it (``bonus_at``:
``BONUS_SEP`` after ``/`` or at the start, ``BONUS_DELIM`` after another delimiter or for a
matched delimiter, ``BONUS_CAMEL`` at a camel hump or a digit), the first character's bonus
twice; a consecutive character follows ``Weights.consecutive``; a gap costs ``GAP_START``
then ``GAP_EXT`` per further character; a character in the file name earns ``BONUS_NAME``.
Per term, the extras (``extras``): name prefix, whole name, folder extras, contiguity.

Worked examples with the default weights (query ``prom``; 16*4 = 64 for the characters;
``tests/scoring_scorer_test.py`` checks each)::

    src/session/prompt.ts   p at a name start 2*9, r o m inherit 9 each: 45; in the name 4*6;
                            NAME_PREFIX 24, CONTIG_NAME 20 -> 177
    src/prom_x/a.ts         the same placement in a folder: 64+45, CONTIG_PATH 10,
                            PARENT_PREFIX 28 -> 147
    tests/p_r_o_m.rs        p 2*9+6, r o m after '_' 8+6 each, three gaps of one -3 each:
                            64+24+42-9 = 121
"""

from __future__ import annotations

import re
from typing import Any

from ffind.scoring.weights import DEFAULT, Weights

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass


@dataclass(frozen=True, slots=True)
class FileMatch:
    """One ranked path (``root`` set when several roots are searched).  ``indices``: the matched
    positions, when asked for; ``typo``: found by the one-edit typo pass."""

    score: int
    path: str
    indices: list[int] | None = None
    typo: bool = False
    root: str | None = None


def bonus_at(orig: str, j: int, w: Weights = DEFAULT) -> int:
    """The bonus of matching ``orig[j]``, from the character before it."""
    c = orig[j]
    if not c.isalnum():
        return w.bonus_delim
    if j == 0:
        return w.bonus_sep
    p = orig[j - 1]
    if p == "/":
        return w.bonus_sep
    if not p.isalnum():
        return w.bonus_delim
    if (p.islower() and c.isupper()) or (c.isdigit() and not p.isdigit()):
        return w.bonus_camel
    return 0


_INITIALS = re.compile(r"[\W_][^\W_]?|^[^\W_]|[A-Z0-9]", re.ASCII)


def initials(path: str) -> str:
    """A supersequence of the characters of ``path`` with a non-zero ``bonus_at``, lowercased (for
    ASCII every capital and digit: a regex without look-behinds is 2-3x faster)."""
    if path.isascii():
        return "".join(_INITIALS.findall(path)).lower()
    return "".join(c for j, c in enumerate(path) if _has_bonus(path, j)).lower()


def _has_bonus(path: str, j: int) -> bool:
    """Whether ``bonus_at(path, j)`` can be non-zero (whatever the weights)."""
    c = path[j]
    if not c.isalnum() or j == 0:
        return True
    p = path[j - 1]
    return (not p.isalnum() or (p.islower() and c.isupper())
            or (c.isdigit() and not p.isdigit()))


_NOT_INITIAL = re.compile(r"(?<=[A-Za-z0-9])[a-z]+")
"""What ``initials`` drops from an ASCII path: lower-case letters after a letter or digit."""


def initials_many(paths: list[str], np: Any = None) -> list[str]:
    """``[initials(p) for p in paths]``, ASCII paths in one regex pass (NUL-separated), or with
    numpy as array arithmetic (``_initials_ascii``)."""
    if not paths:
        return []
    joined = "\0".join(paths)
    if joined.isascii():
        if np is not None:
            return _initials_ascii(joined, np)
        return _NOT_INITIAL.sub("", joined).lower().split("\0")
    ascii_ids = [j for j, p in enumerate(paths) if p.isascii()]
    out = [initials(p) if not p.isascii() else "" for p in paths]
    if ascii_ids:
        done = initials_many([paths[j] for j in ascii_ids], np)
        for j, v in zip(ascii_ids, done, strict=True):
            out[j] = v
    return out


def _initials_ascii(joined: str, np: Any) -> list[str]:
    """What ``_NOT_INITIAL`` leaves of ``joined``, lowercased and split at NUL: a lower-case letter
    is dropped exactly when a letter or digit precedes it."""
    b = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    lower = (b >= 97) & (b <= 122)
    alnum = lower | ((b >= 65) & (b <= 90)) | ((b >= 48) & (b <= 57))
    drop = lower  # (in place: ``lower`` is not read again)
    drop[1:] &= alnum[:-1]
    drop[:1] = False  # (the first has nothing before it; a path may be empty)
    kept: str = b[~drop].tobytes().decode("ascii")
    return kept.lower().split("\0")


def name_prefix_at(key: str, text: str, base: int) -> int:
    """Where ``key`` starts when it prefixes the file name (with ``/``: each part a prefix of the
    matching last components, ``s/p/t`` in ``src/pkg/tools.rs``); else -1."""
    if "/" not in key:
        return base if text.startswith(key, base) else -1
    parts = key.split("/")
    comps = text.rsplit("/", len(parts) - 1)
    if len(comps) < len(parts):
        return -1
    j = comps[0].rfind("/") + 1
    comps[0] = comps[0][j:]
    if all(c.startswith(p) for p, c in zip(parts, comps, strict=True)):
        return j
    return -1


def folder_extras(key: str, text: str, base: int, w: Weights = DEFAULT) -> int:
    """``whole_dir`` when ``key`` is a whole folder name; ``parent_prefix_for`` when it starts the
    file's folder, ``whole_parent`` more when it is all of it."""
    if not base:
        return 0
    extra = w.whole_dir if ("/" + key + "/") in ("/" + text[:base]) else 0
    parent = text.rfind("/", 0, base - 1) + 1
    if "/" not in key and base - 1 - parent >= len(key) and text.startswith(key, parent):
        extra += w.parent_prefix_for(len(key))
        if base - 1 - parent == len(key):
            extra += w.whole_parent
    return extra


def extras(key: str, text: str, base: int, w: Weights = DEFAULT) -> int:
    """What a term earns on top of its best placement: the same for every placement (name
    prefix, whole name, folder extras, contiguity)."""
    extra = 0
    if name_prefix_at(key, text, base) >= 0:
        extra += w.name_prefix
        tail = key[key.rfind("/") + 1:]
        end = base + len(tail)
        if end == len(text) or (text[end] == "." and "." not in tail):
            extra += w.whole_name
        if "/" not in key:
            extra += folder_extras(key, text, base, w)
    else:
        extra += folder_extras(key, text, base, w)
    if text.find(key, base) >= 0:
        extra += w.contig_name
    elif key in text:
        extra += w.contig_path
    return extra


def contiguous(key: str, text: str, orig: str, base: int, p: int, w: Weights = DEFAULT) -> int:
    """Score of ``key`` placed at ``text[p:p+len(key)]`` (no extras)."""
    return _chunk(orig, base, p, p + len(key), True, w)[0]


def _chunk(orig: str, base: int, p: int, end: int, first: bool, w: Weights) -> tuple[int, int]:
    """Score of the characters ``orig[p:end]`` matched as one chunk (consecutive), the first
    one's bonus twice when it starts the term; and the chunk bonus after its last one."""
    fb = bonus_at(orig, p, w)
    s = w.match + (2 * fb if first else fb) + (w.bonus_name if p >= base else 0)
    for j in range(p + 1, end):
        b, fb = w.consecutive(bonus_at(orig, j, w), fb)
        s += w.match + b + (w.bonus_name if j >= base else 0)
    return s, fb


def name_prefix_score(key: str, text: str, orig: str, base: int, w: Weights = DEFAULT) -> int:
    """Exact score of a term that is a contiguous prefix of the file name (the best placement
    there is, so no search is needed)."""
    return contiguous(key, text, orig, base, base, w) + extras(key, text, base, w)


NEVER = -(1 << 30)


def fuzzy(
    key: str, text: str, orig: str, base: int, want: bool, w: Weights = DEFAULT
) -> tuple[int, list[int] | None] | None:
    """Best placement of ``key`` as a subsequence of ``text`` (``orig`` gives the bonuses): (score,
    positions or None), or None when it is not a subsequence."""
    m = len(key)
    # Window: greedy leftmost placement of each char, and rightmost from the end.
    lo = [0] * m
    j = -1
    for i, c in enumerate(key):
        j = text.find(c, j + 1)
        if j < 0:
            return None
        lo[i] = j
    hi = [0] * m
    j = len(text)
    for i in range(m - 1, -1, -1):
        j = text.rfind(key[i], 0, j)
        hi[i] = j
    if lo == hi:  # only one placement
        pos = lo
        return score_positions(key, pos, orig, base, text, w), (pos if want else None)
    rows = _placements(key, text, orig, base, lo, hi, w)
    if rows is None:
        return None
    rows_pos, rows_sc, rows_bp = rows
    last = rows_sc[-1]
    bi = max(range(len(last)), key=last.__getitem__)
    score = last[bi] + extras(key, text, base, w)
    if not want:
        return score, None
    out = [0] * m
    for i in range(m - 1, -1, -1):
        out[i] = rows_pos[i][bi]
        bi = rows_bp[i][bi]
    return score, out


def _placements(
    key: str, text: str, orig: str, base: int, lo: list[int], hi: list[int], w: Weights
) -> tuple[list[list[int]], list[list[int]], list[list[int]]] | None:
    """The dynamic programme: per query character, its possible positions, the best score up to
    each, and back pointers (None when it cannot be placed)."""
    match, bonus_name, gap_ext = w.match, w.bonus_name, w.gap_ext
    # a gap from p to j costs gap_start + gap_ext * (j - p - 2): folded so that the best
    # previous position is one running maximum of ``score + gap_ext * p``
    gap_fold = w.gap_start - 2 * gap_ext
    consecutive = w.consecutive
    rows_pos: list[list[int]] = []
    rows_sc: list[list[int]] = []
    rows_fb: list[list[int]] = []
    rows_bp: list[list[int]] = []
    c0 = key[0]
    pos0: list[int] = []
    sc0: list[int] = []
    fb0: list[int] = []
    j = lo[0]
    h = hi[0]
    while 0 <= j <= h:
        b = bonus_at(orig, j, w)
        pos0.append(j)
        sc0.append(match + 2 * b + (bonus_name if j >= base else 0))
        fb0.append(b)
        j = text.find(c0, j + 1)
    rows_pos.append(pos0)
    rows_sc.append(sc0)
    rows_fb.append(fb0)
    rows_bp.append([-1] * len(pos0))
    for i in range(1, len(key)):
        c = key[i]
        ppos, psc, pfb = rows_pos[-1], rows_sc[-1], rows_fb[-1]
        npp = len(ppos)
        cur_pos: list[int] = []
        cur_sc: list[int] = []
        cur_fb: list[int] = []
        cur_bp: list[int] = []
        k = 0
        best = NEVER
        best_k = -1
        j = text.find(c, max(lo[i], ppos[0] + 1))
        h = hi[i]
        while 0 <= j <= h:
            # fold in every previous position < j - 1 (gap placements)
            while k < npp and ppos[k] < j - 1:
                v = psc[k] + gap_ext * ppos[k]
                if v > best:
                    best, best_k = v, k
                k += 1
            b = bonus_at(orig, j, w)
            nb = bonus_name if j >= base else 0
            s_gap = NEVER
            if best_k >= 0:
                s_gap = best - gap_ext * j - gap_fold + match + b + nb
            s_con = NEVER
            fbc = b
            if k < npp and ppos[k] == j - 1:
                cb, fbc = consecutive(b, pfb[k])
                s_con = psc[k] + match + cb + nb
            if s_con >= s_gap and s_con > NEVER:
                cur_pos.append(j)
                cur_sc.append(s_con)
                cur_fb.append(fbc)
                cur_bp.append(k)
            elif best_k >= 0:
                cur_pos.append(j)
                cur_sc.append(s_gap)
                cur_fb.append(b)
                cur_bp.append(best_k)
            j = text.find(c, j + 1)
        if not cur_pos:
            return None
        rows_pos.append(cur_pos)
        rows_sc.append(cur_sc)
        rows_fb.append(cur_fb)
        rows_bp.append(cur_bp)
    return rows_pos, rows_sc, rows_bp


def score_positions(
    key: str, pos: list[int], orig: str, base: int, text: str, w: Weights = DEFAULT
) -> int:
    """The score of ``key`` placed at ``pos`` (sorted positions of ``text``), extras included:
    chunks of consecutive positions, a gap before each chunk after the first."""
    s = 0
    prev = -2
    n = len(pos)
    i = 0
    while i < n:
        e = i + 1
        while e < n and pos[e] == pos[e - 1] + 1:
            e += 1
        start = pos[i]
        if i:
            s -= w.gap_start + w.gap_ext * (start - prev - 2)
        s += _chunk(orig, base, start, pos[e - 1] + 1, i == 0, w)[0]
        prev = pos[e - 1]
        i = e
    return s + extras(key, text, base, w)


def substring(
    key: str, text: str, orig: str, base: int, want: bool, at: int | None = None,
    w: Weights = DEFAULT,
) -> tuple[int, list[int] | None] | None:
    """Best contiguous placement of ``key`` (at ``at`` only, when given)."""
    m = len(key)
    if at is not None:
        if not text.startswith(key, at):
            return None
        starts = [at]
    else:
        starts = []
        p = text.find(key)
        while p >= 0:
            starts.append(p)
            p = text.find(key, p + 1)
        if not starts:
            return None
    best, bp = max((contiguous(key, text, orig, base, p, w), p) for p in starts)
    best += extras(key, text, base, w)
    return best, (list(range(bp, bp + m)) if want else None)
