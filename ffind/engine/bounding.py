"""Upper bounds of each candidate's exact score, in bulk (``Bounder``), from the arithmetic of
``ffind.scoring.bounds``: the first bounds (``first_bounds``), the closed-form scores of name
prefixes (``prefix_bounds``) and the refinements of loose bounds (``tighten``), over the
occurrences they share (``marks``).  Every stage gives what its path-by-path form gives."""

from __future__ import annotations

from ffind.engine.first_bounds import FirstBounds
from ffind.engine.marks import UNKNOWN
from ffind.engine.prefix_bounds import PrefixBounds
from ffind.engine.tighten import Tighten

__all__ = ["UNKNOWN", "Bounder"]


class Bounder(FirstBounds, PrefixBounds, Tighten):
    """Bounds of the paths of one ``PathStore``: the first bounds, the closed-form prefix
    scores and the refinements, over the occurrences they share."""
