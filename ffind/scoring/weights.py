"""The scoring weights: one frozen ``Weights``, its default ``DEFAULT``, and the assumptions
every bound of the engine relies on, checked when a ``Weights`` is made.

Like fzf's ``algo.go`` header, the per-character weights are derived from two numbers, the
score of a matched character and the cost of a gap:

- ``MATCH`` (16): a matched character.
- ``GAP_START`` (3), ``GAP_EXT`` (1): the first skipped character of a gap, each further one.
- ``BONUS_DELIM = MATCH // 2`` (8): a character after a delimiter (``_ - . `` space, any
  non-alphanumeric), or a matched non-word character itself.  Half a character, as fzf's
  ``bonusBoundary``: a word start is worth a lot, never as much as a character.
- ``BONUS_SEP = BONUS_DELIM + GAP_EXT`` (9): after ``/`` or at the start of the path.  The
  strongest boundary, one gap step above a delimiter.  Every bound assumes it is the largest
  per-character bonus (a chunk's characters inherit at most it).
- ``BONUS_CAMEL = BONUS_DELIM - GAP_EXT`` (7): a lower-to-upper or letter-to-digit change,
  one gap step below a delimiter (fzf: ``bonusCamel123``).
- ``BONUS_CONSEC = GAP_START + GAP_EXT`` (4): the least a character right after the previous
  one gets: what the two-character gap it avoids would cost (fzf: ``bonusConsecutive``).
- ``BONUS_NAME`` (6): a character inside the file name (after the last ``/``).

The extras per term and per path were fitted with ``rank_eval.py`` (seeds 1-3, checked on
held-out seeds 4-6); ``docs/ranking.md`` says what each one is for.  Those that are the same
reward twice are written so:

- ``WHOLE_PARENT = WHOLE_NAME`` (16): a term that is the whole file name or stem, or the whole
  name of the file's folder, earns the same.
- ``CONTIG_PATH = CONTIG_NAME // 2`` (10): the term as it is, in the folders, is worth half
  of it as it is in the file name.

What the bounds need (``Weights.__post_init__`` raises ``ValueError`` otherwise, so a weights
object the engine runs with always satisfies them):

- every weight is a non-negative integer, ``LEN_NAME_CAP`` at least 1 (scores are integers;
  bonuses reward, gaps and penalties cost: no bound adds a negative weight);
- ``BONUS_SEP`` is the largest per-character bonus (``BONUS_DELIM``, ``BONUS_CAMEL`` and
  ``BONUS_CONSEC`` are at most it): ``term_max``, the closed-form score of a name prefix and
  the word-start bound all give a character at most ``BONUS_SEP``;
- ``CONTIG_NAME >= CONTIG_PATH``: the shells of the one-term shortcut are nested by it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass


MATCH = 16
GAP_START = 3
GAP_EXT = 1
BONUS_DELIM = MATCH // 2
BONUS_SEP = BONUS_DELIM + GAP_EXT
BONUS_CAMEL = BONUS_DELIM - GAP_EXT
BONUS_CONSEC = GAP_START + GAP_EXT
BONUS_NAME = 6
NAME_PREFIX = 24
WHOLE_NAME = 16
WHOLE_DIR = 8
PARENT_PREFIX = 28
PARENT_STEP = 20
WHOLE_PARENT = WHOLE_NAME
CONTIG_NAME = 20
CONTIG_PATH = CONTIG_NAME // 2
LEN_NAME = 0
LEN_NAME_CAP = 40
HIDDEN = 32
TYPO_COST = 56
TYPO_STEM = 1
OVERLAP = 120


@dataclass(frozen=True, slots=True)
class Weights:
    """Every weight of the score.

    Frozen: the engine (``ffind.Index(weights=...)``) and the bounds derived from it
    (``ffind.scoring.bounds.Bounds``) read one object for their whole life."""

    match: int = MATCH
    gap_start: int = GAP_START
    gap_ext: int = GAP_EXT
    bonus_sep: int = BONUS_SEP
    bonus_delim: int = BONUS_DELIM
    bonus_camel: int = BONUS_CAMEL
    bonus_consec: int = BONUS_CONSEC
    bonus_name: int = BONUS_NAME
    name_prefix: int = NAME_PREFIX
    """the term is a prefix of the file name (each part of a term with ``/`` a prefix of the
    matching one of the last components)"""
    whole_name: int = WHOLE_NAME
    """more when it is the whole file name or its whole stem"""
    whole_dir: int = WHOLE_DIR
    """the term is a whole folder name"""
    parent_prefix: int = PARENT_PREFIX
    """the term starts the file's own folder (``parent_prefix_for``: ``PARENT_STEP`` per
    character up to it, so one character does not beat a file-name prefix)"""
    parent_step: int = PARENT_STEP
    whole_parent: int = WHOLE_PARENT
    """more when it is all of that folder's name"""
    contig_name: int = CONTIG_NAME
    """the term occurs as it is in the file name"""
    contig_path: int = CONTIG_PATH
    """else, as it is somewhere in the path"""
    len_name: int = LEN_NAME
    """per character of the file name, up to ``LEN_NAME_CAP`` (a penalty)"""
    len_name_cap: int = LEN_NAME_CAP
    hidden: int = HIDDEN
    """a component starts with ``.`` and the query does not target hidden files (a penalty)"""
    typo_cost: int = TYPO_COST
    """a typo match scores a name prefix's best less ``WHOLE_NAME`` and this"""
    typo_stem: int = TYPO_STEM
    """more for a typo of a longer name's stem than of a whole name"""
    overlap: int = OVERLAP
    """a several-term query whose terms' best placements share characters loses this"""

    def __post_init__(self) -> None:
        for name in self.__match_args__:  # (every field)
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"weight {name} must be a non-negative int, not {v!r}")
        if self.len_name_cap < 1:
            raise ValueError("weight len_name_cap must be at least 1")
        largest = max(self.bonus_delim, self.bonus_camel, self.bonus_consec)
        if self.bonus_sep < largest:
            raise ValueError(
                f"bonus_sep ({self.bonus_sep}) must be the largest per-character bonus "
                f"(bonus_delim, bonus_camel, bonus_consec: up to {largest})")
        if self.contig_name < self.contig_path:
            raise ValueError("contig_name must be at least contig_path")

    def parent_prefix_for(self, m: int) -> int:
        """``parent_prefix`` for a term of ``m`` characters: ``parent_step`` per character up
        to it."""
        return min(self.parent_prefix, self.parent_step * m)

    def consecutive(self, b: int, fb: int) -> tuple[int, int]:
        """The consecutive/boundary rule, the one place it is written.

        A character matched right after the previous one, with its own bonus ``b``, in a
        chunk whose bonus is ``fb`` (its first character's), earns ``max(b, fb,
        bonus_consec)``: ``prompt`` at a word start is worth six word starts.  When ``b`` is
        a delimiter's or a separator's and above ``fb``, the rest of the chunk inherits ``b``
        instead (a chunk that crosses a boundary counts from it).  Returns (the bonus, the
        chunk bonus after this character)."""
        return (max(b, fb, self.bonus_consec),
                b if b >= self.bonus_delim and b > fb else fb)


DEFAULT = Weights()
"""The weights ffind ranks with."""
