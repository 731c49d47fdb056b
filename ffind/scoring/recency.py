"""How the memory of opened files changes a ranking: a bounded boost from a simple prior.

A fuzzy score says how well a path matches what was typed.  The memory says how likely the
user is to want that path before typing anything.  ffind adds the two the way a likelihood and
a prior add in log space: a path's boost is ``POINTS_PER_E`` score points for every factor of
*e* by which the memory makes it likelier than a path it knows nothing about.

The prior is a mixture of three kinds of target, with shares that are stated, not fitted
to one repository (on the replayed histories of ``memory_eval.py``, about 60% of the files a
commit touches had been opened before, and most of the others sit in a folder opened within
the last day):

- ``SHARE_VISITED``: a file opened before, in proportion to its decayed visit count
  (``ffind.state.memory``: visits halve every 14 days);
- ``SHARE_NEIGHBOUR``: a file in a folder the user worked in lately, the folder in proportion
  to its recent visits (halving every six hours), each of its files getting a
  ``FOLDER_FILES``-th of the folder's share (this is what helps files never opened before);
- ``SHARE_ELSEWHERE``: any path, one ``REFERENCE_PATHS``-th each.

The last two use fixed sizes (an ordinary folder, an ordinary repository) rather than the
index's, so a path's boost depends on the memory alone: an index of the candidates of a query
(``ffind.search``) and one of the whole tree (the session) rank alike.

``boost = POINTS_PER_E * ln(P(path) / P_elsewhere)``, at most ``MAX_BOOST``.  A path the memory
knows nothing about has boost 0, so a ranking without memory is the ranking with an empty
memory.  Why it is bounded: the largest boost (``MAX_BOOST``, 48 points) is three
matched characters' worth (``MATCH`` is 16): a remembered path cannot make up for a match
that is several characters better.  With an empty query, remembered files come first (their
boost is their whole score).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

POINTS_PER_E = 5.0
"""Score points per factor of e in likelihood.  A match character is worth 16 points, so a
visited file about 25 times likelier than a stranger gains one character's worth."""
SHARE_VISITED = 0.6
SHARE_NEIGHBOUR = 0.3
SHARE_ELSEWHERE = 0.1
REFERENCE_PATHS = 10_000
"""The size of an ordinary repository: "any path" is one of this many."""
FOLDER_FILES = 10
"""The size of an ordinary folder: a recent folder's share is split this many ways."""
MAX_BOOST = 48
"""The most a remembered path can gain: three matched characters' worth (above)."""


def _folder(path: str) -> str:
    cut = path.rfind("/")
    return path[:cut] if cut >= 0 else ""


def boosts(
    visits: Mapping[str, tuple[float, float]], folders: Mapping[str, Iterable[str]],
) -> dict[str, int]:
    """``{path: boost}`` (boost > 0) for the paths the memory makes likelier.

    ``visits``: ``{path: (weight, recent)}`` for remembered paths (relative to the index's
    root; ``weight`` halves every 14 days, ``recent`` every six hours).  ``folders``:
    ``{folder: its paths in the index}`` (only the folders of ``visits`` are read): the
    neighbours that can gain.  Only paths of ``visits`` or ``folders`` appear in the answer.
    """
    if not visits:
        return {}
    elsewhere = SHARE_ELSEWHERE / REFERENCE_PATHS
    prior: dict[str, float] = {}
    by_folder: dict[str, float] = {}
    for path, (_, recent) in visits.items():
        d = _folder(path)
        by_folder[d] = by_folder.get(d, 0.0) + recent
    recent_sum = sum(by_folder.values())
    if recent_sum > 0:
        for d, recent in by_folder.items():
            share = SHARE_NEIGHBOUR * recent / recent_sum / FOLDER_FILES
            for member in folders.get(d, ()):
                prior[member] = share
    weight_sum = sum(w for w, _ in visits.values())
    if weight_sum > 0:
        for path, (weight, _) in visits.items():
            prior[path] = prior.get(path, 0.0) + SHARE_VISITED * weight / weight_sum
    out: dict[str, int] = {}
    for path, chance in prior.items():
        b = min(MAX_BOOST, round(POINTS_PER_E * math.log((chance + elsewhere) / elsewhere)))
        if b > 0:
            out[path] = b
    return out
