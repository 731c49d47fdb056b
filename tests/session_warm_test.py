"""FileSearcher's warm-up typed back to back: a slow key takes ``Index.warm``'s steps before
its answer is published (``_warm_within``), the full collection only when it fits, else in
idle time (issue 17, docs/speed.md, nineteenth pass)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

import ffind
from ffind.engine import tuning, warmup
from ffind.options import SearchOptions
from ffind.searching import idle
from ffind.searching.session import FileSearcher

PATHS = [f"src/pkg{i % 13}/mod{i % 7}/file_{i}.py" for i in range(400)] + [
    "src/session/prompt.ts", "aider/coders/base_coder.py", "lib/mod.rs", "README.md"]
ALL = SearchOptions(limit=None)


class _Collector:
    """A stand-in for ``warmup``'s ``gc``: counts the full collections."""

    def __init__(self) -> None:
        self.full = 0

    def isenabled(self) -> bool:
        return True

    def collect(self, generation: int = 2) -> int:
        self.full += 1
        return 0


@pytest.fixture
def idle_gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The sessions' idle ``warm`` steps run only once the event is set (so what a key did
    is seen alone)."""
    gate = threading.Event()
    step = idle.IdleWork.warm_up
    monkeypatch.setattr(idle.IdleWork, "warm_up",
                        lambda self, idle, settled: gate.is_set() and step(self, idle, settled))
    yield gate
    gate.set()


def _walked(fs: FileSearcher) -> FileSearcher:
    assert fs.wait(30)
    assert fs._index.numpy_ready(60)
    assert fs._work.warmed == -1  # (no idle step ran)
    return fs


def _key(fs: FileSearcher, query: str) -> None:
    fs.set_query(query)
    assert fs.wait(30)
    assert fs.results() == ffind.match(query, PATHS)


def test_a_slow_key_takes_the_warm_up_before_its_answer(
    monkeypatch: pytest.MonkeyPatch, idle_gate: threading.Event
) -> None:
    monkeypatch.setattr(idle, "SLOW_KEY", 0.0)  # every key is slow
    monkeypatch.setattr(idle, "WARM_WITHIN", 60.0)
    with FileSearcher(paths=PATHS, options=ALL) as fs:
        _walked(fs)
        _key(fs, "mod")
        assert fs._work.warmed == len(PATHS)  # every step taken before the answer was published
        built = fs._index.store.built()
        assert built["initials"] == built["penalties"] == len(PATHS)


def test_a_fast_key_takes_no_warm_up_step(
    monkeypatch: pytest.MonkeyPatch, idle_gate: threading.Event
) -> None:
    monkeypatch.setattr(idle, "SLOW_KEY", 60.0)  # no key is slow
    monkeypatch.setattr(idle, "WARM_WITHIN", 120.0)
    with FileSearcher(paths=PATHS, options=ALL) as fs:
        _walked(fs)
        _key(fs, "mod")
        assert fs._work.warmed == -1
        idle_gate.set()  # then idle time warms (the next key wakes the match thread)
        _key(fs, "mod.")
        deadline = time.monotonic() + 30
        while fs._work.warmed != len(PATHS) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert fs._work.warmed == len(PATHS)


def test_a_large_index_takes_no_warm_up_step_in_its_keys(
    monkeypatch: pytest.MonkeyPatch, idle_gate: threading.Event
) -> None:
    monkeypatch.setattr(idle, "SLOW_KEY", 0.0)
    monkeypatch.setattr(idle, "WARM_WITHIN", 60.0)
    monkeypatch.setattr(idle, "WARM_WITHIN_MOST", len(PATHS))  # (1M paths: too many)
    with FileSearcher(paths=PATHS, options=ALL) as fs:
        _walked(fs)
        _key(fs, "mod")
        assert fs._work.warmed == -1


@pytest.mark.parametrize("fits", [True, False])
def test_a_slow_key_takes_the_collection_only_when_it_fits(
    monkeypatch: pytest.MonkeyPatch, idle_gate: threading.Event, fits: bool
) -> None:
    fake = _Collector()
    monkeypatch.setattr(warmup, "gc", fake)
    monkeypatch.setattr(tuning, "DEFAULT", tuning.Tuning(chunk=100))
    monkeypatch.setattr(idle, "SLOW_KEY", 0.0)
    monkeypatch.setattr(idle, "WARM_WITHIN", 60.0)
    monkeypatch.setattr(idle, "COLLECT_PER_PATH", 0.0 if fits else 1.0)  # (1 s a path)
    with FileSearcher(paths=PATHS, options=ALL) as fs:
        _walked(fs)
        _key(fs, "mod")
        if fits:
            assert fake.full == 1 and fs._work.warmed == len(PATHS)
            return
        # every other step taken, the collection left for idle time
        assert fake.full == 0 and fs._work.warm_next == warmup.COLLECTING
        assert fs._work.warmed == -1
        idle_gate.set()
        _key(fs, "mod.")  # (wakes the match thread; its idle time collects)
        deadline = time.monotonic() + 30
        while fake.full == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert fake.full == 1
