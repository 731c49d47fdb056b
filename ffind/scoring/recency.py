"""How the memory of opened files changes a ranking: ``boost = POINTS_PER_E * ln(P(path) /
P_elsewhere)``, at most ``MAX_BOOST`` (three matched characters), added to the fuzzy score. The
prior mixes a file opened before (``SHARE_VISITED``, by decayed visits), a file in a folder
worked in lately (``SHARE_NEIGHBOUR``), a file opened together with the ones opened just now
(``SHARE_TOGETHER``, when there are such) and any path (``SHARE_ELSEWHERE``), with fixed sizes so
a boost depends on the memory alone.  An unknown path's boost is 0."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass

POINTS_PER_E = 5.0
"""Score points per factor of e in likelihood.  A match character is worth 16 points, so a
visited file about 25 times likelier than a stranger gains one character's worth."""
SHARE_VISITED = 0.6
SHARE_NEIGHBOUR = 0.3
SHARE_ELSEWHERE = 0.1
SHARE_TOGETHER = 0.8
"""Against the three above (which sum to 1): when files were opened together with the latest
ones, the prior's shares are 0.6, 0.3, 0.8 and 0.1 out of 1.8.  Chosen by leave-one-repository-
out over the commit-history replay (``benchmarks/memory_tune.py``)."""
REFERENCE_PATHS = 10_000
"""The size of an ordinary repository: "any path" is one of this many."""
FOLDER_FILES = 10
"""The size of an ordinary folder: a recent folder's share is split this many ways."""
MAX_BOOST = 48
"""The most a remembered path can gain: three matched characters' worth (above)."""


@dataclass(frozen=True, slots=True)
class Prior:
    """The prior's values as one record (the constants above by default), so that a tuning
    run (``benchmarks/memory_tune.py``) ranks with other values through this same code."""

    points_per_e: float = POINTS_PER_E
    share_visited: float = SHARE_VISITED
    share_neighbour: float = SHARE_NEIGHBOUR
    share_together: float = SHARE_TOGETHER
    share_elsewhere: float = SHARE_ELSEWHERE
    folder_files: float = FOLDER_FILES
    max_boost: int = MAX_BOOST


SHIPPED = Prior()


def _folder(path: str) -> str:
    cut = path.rfind("/")
    return path[:cut] if cut >= 0 else ""


def boosts(
    visits: Mapping[str, tuple[float, float]], folders: Mapping[str, Iterable[str]],
    together: Mapping[str, float] | None = None, prior: Prior = SHIPPED,
) -> dict[str, int]:
    """``{path: boost}`` (boost > 0) for the paths the memory makes likelier.  ``visits``: ``{path:
    (weight, recent)}`` relative to the index's root; ``folders``: ``{folder: its paths}`` for
    the folders of ``visits``; ``together``: ``{path: share}`` of the files opened together
    with the latest ones (``Memory.together``, shares summing to 1)."""
    if not visits:
        return {}
    v = prior
    total = (v.share_visited + v.share_neighbour + v.share_elsewhere
             + (v.share_together if together else 0.0))
    elsewhere = v.share_elsewhere / total / REFERENCE_PATHS
    chances: dict[str, float] = {}
    by_folder: dict[str, float] = {}
    for path, (_, recent) in visits.items():
        d = _folder(path)
        by_folder[d] = by_folder.get(d, 0.0) + recent
    recent_sum = sum(by_folder.values())
    if recent_sum > 0:
        for d, recent in by_folder.items():
            share = v.share_neighbour / total * recent / recent_sum / v.folder_files
            for member in folders.get(d, ()):
                chances[member] = share
    weight_sum = sum(w for w, _ in visits.values())
    if weight_sum > 0:
        for path, (weight, _) in visits.items():
            chances[path] = chances.get(path, 0.0) + v.share_visited / total * weight / weight_sum
    for path, share in (together or {}).items():
        chances[path] = chances.get(path, 0.0) + v.share_together / total * share
    out: dict[str, int] = {}
    for path, chance in chances.items():
        b = min(v.max_boost, round(v.points_per_e * math.log((chance + elsewhere) / elsewhere)))
        if b > 0:
            out[path] = b
    return out
