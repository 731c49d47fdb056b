"""Upper bounds of the score, derived from the weights: the engine stops once ``k`` exact scores
beat every remaining bound, which is exact only while each bound is one.  Each method says which
case of the scorer it bounds; all rely on what ``Weights`` checks."""

from __future__ import annotations

from ffind.scoring.weights import DEFAULT, Weights

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from dataclasses import dataclass
    from typing import Any
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass


@dataclass(frozen=True, slots=True)
class Tiers:
    """The bounds of an ``m``-character term before the folder extras and the path's penalty,
    by where it occurs as it is (contiguous)."""

    top: int
    """a prefix of the file name: ``Bounds.term_max``"""
    in_name: int
    """inside the file name, not a prefix: no ``name_prefix``, no ``whole_name``"""
    in_path: int
    """Only in the folders: ``contig_path`` instead of ``contig_name``, and no ``bonus_name`` (a
    caller adds it back when only some characters are known to be outside the name)."""
    rest: int
    """nowhere as it is: no contiguity extra, no ``bonus_name`` (idem)"""


@dataclass(frozen=True, slots=True)
class Shells:
    """The bounds the one-term shortcut compares its shells with: the best a path can score without
    the term starting its file name, before the folder extras, less the least penalty."""

    in_name: int
    """the term as it is in the file name"""
    in_path: int
    """the term as it is only in the folders (its characters possibly in the name)"""
    scattered: int
    """the term nowhere as it is (a typo match scores ``typo_score`` at most)"""


class Bounds:
    """The bounds of one ``Weights``: ``Bounds(w).term_max(m)`` and so on."""

    __slots__ = ("w",)

    def __init__(self, w: Weights = DEFAULT) -> None:
        self.w = w

    def char_max(self) -> int:
        """The most one matched character earns."""
        w = self.w
        return w.match + w.bonus_name + w.bonus_sep

    def term_max(self, m: int) -> int:
        """The highest score an ``m``-character term can get before the folder extras and per-path
        terms: every character at ``char_max``, the first bonus twice, every name-prefix extra."""
        w = self.w
        return self.char_max() * m + w.bonus_sep + w.name_prefix + w.whole_name + w.contig_name

    def name_prefix_score(self, m: int) -> int:
        """The exact score of an ``m``-character prefix of a file name starting on a letter or
        digit, before ``whole_name``, folder extras and penalty: ``term_max`` less
        ``whole_name``."""
        return self.term_max(m) - self.w.whole_name

    def dir_extras_max(self, m: int) -> int:
        """The most a term of ``m`` characters gets from the folder extras."""
        w = self.w
        return w.whole_dir + w.parent_prefix_for(m) + w.whole_parent

    def typo_score(self, m: int) -> int:
        """The score of a typo match of an ``m``-character term: its name-prefix score less
        ``whole_name`` and ``typo_cost``."""
        return self.term_max(m) - self.w.whole_name - self.w.typo_cost

    def tiers(self, m: int) -> Tiers:
        w = self.w
        top = self.term_max(m)
        in_name = top - w.name_prefix - w.whole_name
        rest = in_name - w.contig_name - w.bonus_name * m
        return Tiers(top, in_name, rest + w.contig_path, rest)

    def name_bonus(self, chars: int) -> int:
        """What ``chars`` characters earn for being in the file name (``bonus_name`` each):
        a bound that assumed them there drops it for each one that cannot be."""
        return self.w.bonus_name * chars

    def gaps_loss(self, chunks: int) -> int:
        """A term split into ``chunks`` chunks has a gap before each but the first, each
        costing at least ``gap_start``."""
        return self.w.gap_start * (chunks - 1) if chunks > 1 else 0

    def starts_loss(self, chunks: int, on_starts: int) -> int:
        """Of ``chunks`` chunks at most ``on_starts`` start on a character with a bonus; each
        other one starts on a character without (bonus 0 where the bound gave ``bonus_sep``)."""
        return self.w.bonus_sep * max(0, chunks - on_starts)

    def gaps_loss_many(self, chunks: Any, np: Any) -> Any:
        """``gaps_loss`` of each entry of the numpy array ``chunks``."""
        return self.w.gap_start * np.maximum(chunks - 1, 0)

    def starts_loss_many(self, chunks: Any, on_starts: Any, np: Any) -> Any:
        """``starts_loss`` of each pair of entries of the numpy arrays ``chunks`` and
        ``on_starts``."""
        return self.w.bonus_sep * np.maximum(chunks - on_starts, 0)

    def least_penalty(self) -> int:
        """The least penalty a path pays: its file name has one character at least."""
        return self.w.len_name

    def shells(self, m: int, typo_m: int | None) -> Shells:
        """For an ``m``-character term; ``typo_m``: the length of its folded form when it gets
        a typo pass, else None."""
        w = self.w
        in_name = self.tiers(m).in_name - self.least_penalty()
        in_path = in_name - w.contig_name + w.contig_path
        scattered = in_name - w.contig_name
        if typo_m is not None:
            scattered = max(scattered, self.typo_score(typo_m) - 1)
        return Shells(in_name, in_path, scattered)

    def unaligned(self, m: int) -> tuple[int, int]:
        """For a term with ``/``, the bounds of a path it does not align with: as it is somewhere,
        and nowhere as it is; its characters possibly all in the file name."""
        t = self.tiers(m)
        bonus = self.name_bonus(m)
        return t.in_path + self.w.whole_dir + bonus, t.rest + bonus
