"""``WorkAhead.warm`` ends with one full garbage collection over a large store (in idle time,
so that a first key does not pay it), then again only once the store has doubled."""

from __future__ import annotations

import pytest

from ffind.engine import warmup
from ffind.engine.index import Index
from ffind.engine.tuning import Tuning


class _Collector:
    """A stand-in for the ``gc`` module: counts the full collections asked for."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.full = 0

    def isenabled(self) -> bool:
        return self.enabled

    def collect(self, generation: int = 2) -> int:
        assert generation == 2
        self.full += 1
        return 0


def _warm(ix: Index) -> int:
    """Run ``warm`` to its end; how many steps it took."""
    return sum(1 for _ in ix.warm(step=64))


@pytest.mark.parametrize("enabled", [True, False])
def test_warm_collects_once_per_doubling_of_a_large_store(
    monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    fake = _Collector(enabled)
    monkeypatch.setattr(warmup, "gc", fake)
    paths = [f"src/d{i % 7}/file{i}.py" for i in range(400)]
    ix = Index(paths[:60], tuning=Tuning(chunk=100))
    _warm(ix)
    assert fake.full == 0  # below a chunk of paths
    ix.extend(paths[60:120])
    _warm(ix)
    want = 1 if enabled else 0
    assert fake.full == want  # 120 paths: the first collection
    assert _warm(ix) == 1 and fake.full == want  # nothing new: only the numpy step
    ix.extend(paths[120:200])
    _warm(ix)
    assert fake.full == want  # 200 < 2 * 120: not yet
    ix.extend(paths[200:240])
    _warm(ix)
    assert fake.full == 2 * want  # 240 = 2 * 120
    assert ix.match("file1", limit=5) == Index(paths[:240]).match("file1", limit=5)


def test_warm_says_when_its_collection_is_next(monkeypatch: pytest.MonkeyPatch) -> None:
    """``warm`` yields ``COLLECTING`` (a step doing nothing) just before the step that is its
    full collection, and None after every other step: a caller with little time (a slow key
    of the session) can leave the collection for later."""
    fake = _Collector()
    monkeypatch.setattr(warmup, "gc", fake)
    ix = Index([f"src/d{i % 7}/file{i}.py" for i in range(120)], tuning=Tuning(chunk=100))
    seen = [(what, fake.full) for what in ix.warm(step=64)]
    at = [what for what, _ in seen].index(warmup.COLLECTING)
    assert seen[at] == (warmup.COLLECTING, 0)  # nothing collected yet
    assert seen[at + 1:] == [(None, 1)]  # the next step collects, and is the last
    assert all(what is None for what, _ in seen[:at])
    ix.extend(["src/late.py"])
    assert warmup.COLLECTING not in list(ix.warm(step=64))  # 121 < 2 * 120: no collection
