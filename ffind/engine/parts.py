"""What the ranking stages (``ranker``, ``shortcuts``) read of an index: ``Parts``, which
``ffind.engine.index.Index`` is, so that they need not import it."""

from __future__ import annotations

from typing import Protocol

from ffind.engine.accel import NumpyUse
from ffind.engine.bounding import Bounder
from ffind.engine.exact import ExactScorer
from ffind.engine.prefixed import Prefixed
from ffind.engine.store import PathStore
from ffind.engine.tuning import Tuning
from ffind.scoring.bounds import Bounds
from ffind.scoring.weights import Weights


class Parts(Protocol):
    """An index's paths, weights, tuning and the components that rank over them."""

    paths: list[str]
    weights: Weights
    bounds: Bounds
    tuning: Tuning
    numpy: NumpyUse
    store: PathStore
    exact: ExactScorer
    bounder: Bounder
    prefixed: Prefixed
