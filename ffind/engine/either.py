"""The top ``k`` of a query of one OR group (``test | util``, ``readme | license !vendor``) from the
fast ranking of each alternative alone (``split_group``: the other terms all negated, the
alternatives positive, none at word boundaries).

Exact: such a query scores a path as its best matching alternative's term score less the path's
penalty, which is that alternative's query's score of it (one positive term: no overlap and no
folder reading, the same ``targets_hidden`` checked).  So a path's score is the best of its
alternatives' queries' scores, and one outside each of their top ``k`` ranks below the ``k``
paths above it in the query of its best alternative: each of those scores at least as much in
the whole query, and a tie there is one in score and path both, broken alike.  The union of
those top ``k`` holds the answer; it is scored and ordered as ``rank_each`` scores and orders
every match.  Each alternative is ranked without the exact-scoring budget (``Unbudgeted``),
whose cheap scores would not be exact, and without typo matches (which an OR query has none
of, and which take a path's place above its exact score): its match set is told it has none."""

from __future__ import annotations

from ffind.engine.accel import NumpyUse
from ffind.engine.bounding import Bounder
from ffind.engine.exact import ExactScorer
from ffind.engine.matchset import MatchSet
from ffind.engine.parts import Parts
from ffind.engine.prefixed import Prefixed
from ffind.engine.ranker import rank, rank_each
from ffind.engine.shortcuts import shortcut
from ffind.engine.store import PathStore
from ffind.engine.tuning import Tuning
from ffind.frozen import replace
from ffind.query import parse, split_group
from ffind.scoring.bounds import Bounds
from ffind.scoring.scorer import FileMatch
from ffind.scoring.weights import Weights


class Unbudgeted:
    """The ``Parts`` of an index but with no exact-scoring budget (``Tuning.budget`` past its
    paths' number): a ranking through it scores exactly every candidate it visits, none as its
    bound less ``slack``, so its top ``k`` is the exact top ``k``."""

    def __init__(self, ix: Parts) -> None:
        self.paths: list[str] = ix.paths
        self.weights: Weights = ix.weights
        self.bounds: Bounds = ix.bounds
        self.tuning: Tuning = replace(ix.tuning, budget=len(ix.paths) + 1)
        self.numpy: NumpyUse = ix.numpy
        self.store: PathStore = ix.store
        self.exact: ExactScorer = ix.exact
        self.bounder: Bounder = ix.bounder
        self.prefixed: Prefixed = ix.prefixed


def split_top(
    ix: Parts, ms: MatchSet, limit: int | None, ci: bool, least: int | None
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
    whole = Unbudgeted(ix)

    def top(one: MatchSet, k: int) -> list[FileMatch]:
        fast = shortcut(whole, one, k, False, least)
        return fast if fast is not None else rank(whole, one, k, False, least)

    wanted: set[str] = set()
    for p in plain:
        # (told it has no typo matches: thousands, for ``mian``, would each take a place)
        one = MatchSet(ms.index, p, ms.ranges, None, typos=[])
        wanted.update(m.path for m in top(one, limit))
    paths = ix.paths
    among = [i for i in ms.ids if paths[i] in wanted]
    return rank_each(ix, ms, limit, ci, least, among)
