"""Scoring one path against one query term, and ``FileMatch``.

The scorer is fzf's (``src/algo/algo.go``, FuzzyMatchV2), adapted to file paths.  A term
matches a path when its characters appear in order; among all the ways they can be placed,
the score of the best one is kept (a Smith-Waterman style dynamic programme over the
positions where each query character occurs).  Per matched character:

- ``MATCH`` (16) points, plus a *bonus* that depends on the character before it:
  ``/`` or the start of the path ``BONUS_SEP`` (9); another delimiter (``_ - . `` space, any
  non-alphanumeric) ``BONUS_DELIM`` (8); a lower-to-upper or letter-to-digit change
  ``BONUS_CAMEL`` (7); a matched non-word character itself (``/``, ``.``) ``BONUS_DELIM``;
- the first query character's bonus counts twice (where a match starts matters most);
- a character right after the previous one (consecutive) gets at least ``BONUS_CONSEC`` (4)
  and inherits the bonus of the chunk's first character, so ``prompt`` at the start of a word
  is worth as much as six word starts;
- a gap costs ``GAP_START`` (3) for its first skipped character and ``GAP_EXT`` (1) for each
  further one;
- a character inside the file name (after the last ``/``) earns ``BONUS_NAME`` (6) more: a
  match in the file name beats one spread over folders.

Per term, on top of the best placement: ``CONTIG_NAME`` (20) when the term occurs as it is
(contiguous) in the file name, else ``CONTIG_PATH`` (10) when it occurs as it is in the path
(contiguous and substring matches beat scattered ones); ``NAME_PREFIX`` (24) when it is a
prefix of the file name (for a term with ``/``: each part a prefix of the matching one of the
last components, so ``s/p/t`` aligns with ``src/pkg/tools.rs``); ``WHOLE_NAME`` (16) more
when it is the whole file name or its whole stem (``prompt`` for ``prompt.ts``);
``WHOLE_DIR`` (8) when it is a whole folder name; ``PARENT_PREFIX`` (28; 20 for a single
character, which must not beat a file-name prefix) when it is a prefix of the file's own folder
(``printing`` for ``sympy/printing/c.py``), ``WHOLE_PARENT`` (16) more when it is all of it.
The folder extras add to any match in the file name, a prefix of it included (for a term
without ``/``): ``view`` in ``a/view/preview.rs`` scores the folder too, and ``includes``
ranks ``t/includes/includes_loop.yml`` above its sibling ``t/includes/test_includes.yml``
(before, a name prefix earned no folder extras and lost to the sibling; giving them helped
``name`` and ``dirname`` on all six seeds of ``rank_eval.py`` and ``words`` on five, by
-0.06, -0.09 and -0.08 keys@1 on the mean).  A short term inside a name can still pass a name
prefix with the folder's help (``ve`` ranks ``vendor/rpg-vendor.png`` above ``vertex.rs``).
Checked on held-out seeds (``rank_eval.py`` seeds 1-6, the constants were fitted on 1-3;
measured before name prefixes earned the folder extras): dropping the folder extras when the
term is in the name helps ``name`` on all six seeds (-0.01) but hurts ``dirname``/``words``
on five (+0.05); ``PARENT_PREFIX`` 22 or 36 trades ``name`` against ``dirname`` the same way
(36: ``dirname`` -0.05 on five seeds, ``name`` +0.05 on five), so 28 stays: the loss to the
best peer on a seed is mostly tie luck among same-score paths (files of one folder, or one
name repeated in many folders).
Per path: ``-HIDDEN`` (32) when a component starts with ``.`` and the query does not target
hidden files; ``-LEN_NAME`` per character of the file name (0: measured over three seeds of
``rank_eval.py``, letting ties fall to the shorter path ranks better than preferring the
shorter name).

Worked examples (query ``prom``; 16*4 = 64 for the characters)::

    src/session/prompt.ts   p at a name start 2*9, r o m inherit 9 each: 45; in the name 4*6;
                            NAME_PREFIX 24, CONTIG_NAME 20 -> 177
    src/prom_x/a.ts         the same placement in a folder: 64+45, CONTIG_PATH 10,
                            PARENT_PREFIX 28 -> 147
    tests/p_r_o_m.rs        p 2*9+6, r o m after '_' 8+6 each, three gaps of one -3 each:
                            64+24+42-9 = 121

Typo matches (see ``ffind.engine.index``) score what the term would score as a prefix of the file
name, less ``TYPO_COST`` (56): above matches scattered across folders, below clean matches in
the file name (``typo_score``).  A term without ``.`` is compared with the stems too; one edit
from the stem of a longer name (``ivnentory`` for ``inventory.py``) costs ``TYPO_STEM`` (1)
more than one edit from a whole name (the file ``inventory``): the closer reading wins over
the path-length tie-break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MATCH = 16
GAP_START = 3
GAP_EXT = 1
BONUS_SEP = 9
BONUS_DELIM = 8
BONUS_CAMEL = 7
BONUS_CONSEC = 4
BONUS_NAME = 6
NAME_PREFIX = 24
WHOLE_NAME = 16
WHOLE_DIR = 8
PARENT_PREFIX = 28
PARENT_STEP = 20
WHOLE_PARENT = 16


def parent_prefix(m: int) -> int:
    """PARENT_PREFIX for a term of ``m`` characters: PARENT_STEP per character up to it."""
    return min(PARENT_PREFIX, PARENT_STEP * m)
CONTIG_NAME = 20
CONTIG_PATH = 10
LEN_NAME = 0
LEN_NAME_CAP = 40
HIDDEN = 32
TYPO_COST = 56
TYPO_STEM = 1


@dataclass(frozen=True, slots=True)
class FileMatch:
    """One ranked path.  ``root`` is set by ``ffind.search`` when several roots are searched.

    ``indices``: sorted, unique positions (code points) of ``path`` that matched, only when
    asked for.  ``typo``: found by the one-edit typo pass rather than as a subsequence.
    """

    score: int
    path: str
    indices: list[int] | None = None
    typo: bool = False
    root: str | None = None


def bonus_at(orig: str, j: int) -> int:
    """The bonus of matching ``orig[j]``, from the character before it."""
    c = orig[j]
    if not c.isalnum():
        return BONUS_DELIM
    if j == 0:
        return BONUS_SEP
    p = orig[j - 1]
    if p == "/":
        return BONUS_SEP
    if not p.isalnum():
        return BONUS_DELIM
    if (p.islower() and c.isupper()) or (c.isdigit() and not p.isdigit()):
        return BONUS_CAMEL
    return 0


_INITIALS = re.compile(r"[\W_][^\W_]?|^[^\W_]|[A-Z0-9]", re.ASCII)


def initials(path: str) -> str:
    """A supersequence of the characters of ``path`` whose ``bonus_at`` is non-zero,
    lowercased (a term can only start a chunk with a bonus on one of these).  For ASCII paths
    every capital and digit is kept (not only those after a lower-case letter or a letter):
    a regex without look-behinds is 2-3x faster, and a supersequence keeps the bound valid."""
    if path.isascii():
        return "".join(_INITIALS.findall(path)).lower()
    return "".join(c for j, c in enumerate(path) if bonus_at(path, j)).lower()


_NOT_INITIAL = re.compile(r"(?<=[A-Za-z0-9])[a-z]+")
"""What ``initials`` drops from an ASCII path: lower-case letters after a letter or digit."""


def initials_many(paths: list[str]) -> list[str]:
    """``[initials(p) for p in paths]``, for ASCII paths in one regex pass over them all (a
    path holds no NUL, so NUL separates them and counts as a separator, like the start)."""
    if not paths:
        return []
    joined = "\0".join(paths)
    if joined.isascii():
        return _NOT_INITIAL.sub("", joined).lower().split("\0")
    ascii_ids = [j for j, p in enumerate(paths) if p.isascii()]
    out = [initials(p) if not p.isascii() else "" for p in paths]
    if ascii_ids:
        done = initials_many([paths[j] for j in ascii_ids])
        for j, v in zip(ascii_ids, done, strict=True):
            out[j] = v
    return out


def dir_extras_max(m: int) -> int:
    """The most a term of ``m`` characters can get from the folder extras."""
    return WHOLE_DIR + parent_prefix(m) + WHOLE_PARENT


def term_max(m: int) -> int:
    """The highest score a term of ``m`` characters can get (before the per-path terms)."""
    return (MATCH + BONUS_NAME + BONUS_SEP) * m + BONUS_SEP + NAME_PREFIX + WHOLE_NAME + CONTIG_NAME


def typo_score(m: int) -> int:
    """The score of a typo match of an ``m``-character term (before the per-path terms)."""
    return term_max(m) - WHOLE_NAME - TYPO_COST


def path_penalty(name_len: int, hidden: bool) -> int:
    return LEN_NAME * min(name_len, LEN_NAME_CAP) + (HIDDEN if hidden else 0)


def name_prefix_at(key: str, text: str, base: int) -> int:
    """Where ``key`` starts when it is a prefix of the file name; for a term with ``/``, when
    each of its parts is a prefix of the matching one of the last path components
    (``s/p/t`` in ``src/pkg/tools.rs``).  Else -1."""
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


def folder_extras(key: str, text: str, base: int) -> int:
    """``WHOLE_DIR`` when ``key`` is a whole folder name of ``text``; ``parent_prefix`` when it
    starts the file's own folder (without ``/``), ``WHOLE_PARENT`` more when it is all of it."""
    if not base:
        return 0
    extra = WHOLE_DIR if ("/" + key + "/") in ("/" + text[:base]) else 0
    parent = text.rfind("/", 0, base - 1) + 1
    if "/" not in key and base - 1 - parent >= len(key) and text.startswith(key, parent):
        extra += parent_prefix(len(key))
        if base - 1 - parent == len(key):
            extra += WHOLE_PARENT
    return extra


def _extras(key: str, text: str, base: int) -> int:
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


def contiguous(key: str, text: str, orig: str, base: int, p: int) -> int:
    """Score of ``key`` placed at ``text[p:p+len(key)]`` (no extras)."""
    fb = bonus_at(orig, p)
    s = MATCH + 2 * fb + (BONUS_NAME if p >= base else 0)
    for j in range(p + 1, p + len(key)):
        b = bonus_at(orig, j)
        if b >= BONUS_DELIM and b > fb:
            fb = b
        s += MATCH + max(b, fb, BONUS_CONSEC) + (BONUS_NAME if j >= base else 0)
    return s


def name_prefix_score(key: str, text: str, orig: str, base: int) -> int:
    """Exact score of a term that is a contiguous prefix of the file name (the best placement
    there is, so no search is needed)."""
    return contiguous(key, text, orig, base, base) + _extras(key, text, base)


def fuzzy(
    key: str, text: str, orig: str, base: int, want: bool
) -> tuple[int, list[int] | None] | None:
    """Best placement of ``key`` as a subsequence of ``text`` (``orig`` gives the bonuses).

    Returns (score, positions or None) or None when ``key`` is not a subsequence.
    """
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
        return _score_positions(key, pos, orig, base, text), (pos if want else None)

    # rows[i] = (positions, scores, chunk bonus, back pointer index)
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
        b = bonus_at(orig, j)
        pos0.append(j)
        sc0.append(MATCH + 2 * b + (BONUS_NAME if j >= base else 0))
        fb0.append(b)
        j = text.find(c0, j + 1)
    rows_pos.append(pos0)
    rows_sc.append(sc0)
    rows_fb.append(fb0)
    rows_bp.append([-1] * len(pos0))
    for i in range(1, m):
        c = key[i]
        ppos, psc, pfb = rows_pos[-1], rows_sc[-1], rows_fb[-1]
        npp = len(ppos)
        cur_pos: list[int] = []
        cur_sc: list[int] = []
        cur_fb: list[int] = []
        cur_bp: list[int] = []
        k = 0
        best = -(1 << 30)
        best_k = -1
        j = text.find(c, max(lo[i], ppos[0] + 1))
        h = hi[i]
        while 0 <= j <= h:
            # fold in every previous position < j - 1 (gap placements)
            while k < npp and ppos[k] < j - 1:
                v = psc[k] + ppos[k]
                if v > best:
                    best, best_k = v, k
                k += 1
            b = bonus_at(orig, j)
            nb = BONUS_NAME if j >= base else 0
            s_gap = -(1 << 30)
            if best_k >= 0:
                s_gap = best - j - (GAP_START - 2 * GAP_EXT) + MATCH + b + nb
            s_con = -(1 << 30)
            fbc = b
            if k < npp and ppos[k] == j - 1:
                fb = pfb[k]
                s_con = psc[k] + MATCH + max(b, fb, BONUS_CONSEC) + nb
                fbc = b if (b >= BONUS_DELIM and b > fb) else fb
            if s_con >= s_gap and s_con > -(1 << 30):
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
    last = rows_sc[-1]
    bi = max(range(len(last)), key=last.__getitem__)
    score = last[bi] + _extras(key, text, base)
    if not want:
        return score, None
    out = [0] * m
    for i in range(m - 1, -1, -1):
        out[i] = rows_pos[i][bi]
        bi = rows_bp[i][bi]
    return score, out


def _score_positions(key: str, pos: list[int], orig: str, base: int, text: str) -> int:
    s = 0
    fb = 0
    prev = -2
    for i, j in enumerate(pos):
        b = bonus_at(orig, j)
        nb = BONUS_NAME if j >= base else 0
        if i == 0:
            s += MATCH + 2 * b + nb
            fb = b
        elif j == prev + 1:
            s += MATCH + max(b, fb, BONUS_CONSEC) + nb
            if b >= BONUS_DELIM and b > fb:
                fb = b
        else:
            s += MATCH + b + nb - GAP_START - GAP_EXT * (j - prev - 2)
            fb = b
        prev = j
    return s + _extras(key, text, base)


def substring(
    key: str, text: str, orig: str, base: int, want: bool, at: int | None = None
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
    best, bp = max((contiguous(key, text, orig, base, p), p) for p in starts)
    best += _extras(key, text, base)
    return best, (list(range(bp, bp + m)) if want else None)
