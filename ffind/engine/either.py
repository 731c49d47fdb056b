"""The top ``k`` of a query of one OR group (``test | util``, ``readme | license !vendor``) from the
fast ranking of each alternative alone (``split_group``: the other terms all negated, the
alternatives positive, none at word boundaries).

Exact: such a query scores a path as its best matching alternative's term score less the path's
penalty, which is that alternative's query's score of it (one positive term: no overlap and no
folder reading, the same ``targets_hidden`` checked).  So a path's score is the best of its
alternatives' queries' scores, and one outside each of their top ``k`` ranks below the ``k``
paths above it in the query of its best alternative: each of those scores at least as much in
the whole query, and a tie there is one in score and path both, broken alike.  The union of
those top ``k`` (without typo matches, which an OR query has none of) holds the answer; it is
scored and ordered as ``rank_each`` scores and orders every match."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ffind.engine.parts import Parts
from ffind.engine.ranker import rank_each
from ffind.query import parse, split_group
from ffind.scoring.scorer import FileMatch

if TYPE_CHECKING:
    from ffind.engine.matchset import MatchSet

Top = Callable[["MatchSet", int], list[FileMatch]]
"""The best ``k`` of a match set (typo matches among them), as ``Index.top`` gives them."""


def split_top(
    ix: Parts, ms: MatchSet, limit: int | None, ci: bool, least: int | None,
    run: Callable[[str], MatchSet], top: Top,
) -> list[FileMatch] | None:
    """The best ``limit`` matches of ``ms`` (a query of one OR group over the whole index), or
    None when it does not split (``split_group``) or is asked for every match."""
    if limit is None or limit <= 0:
        return None
    q = parse(ms.query)
    plain = split_group(ms.query, ix.tuning.or_split) if q.groups else None
    if plain is None or any(parse(p).targets_hidden is not q.targets_hidden for p in plain):
        return None
    if ms.fallback:  # (its alternatives would not be what each query of one has)
        return None
    wanted: set[str] = set()
    for p in plain:
        wanted.update(m.path for m in exact_top(run(p), limit, top))
    paths = ix.paths
    among = [i for i in ms.ids if paths[i] in wanted]
    return rank_each(ix, ms, limit, ci, least, among)


def exact_top(ms: MatchSet, limit: int, top: Top) -> list[FileMatch]:
    """The best ``limit`` matches of ``ms`` without its typo matches: asked again for as many more
    as the typo matches took."""
    want = limit
    while True:
        got = top(ms, want)
        real = [m for m in got if not m.typo]
        if len(got) < want or len(real) >= limit:
            return real[:limit]
        want += limit - len(real)
