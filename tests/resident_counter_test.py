"""The resident server's counting helper (``ffind.resident.counter``): a count split with a
forked helper equals ``len(index.run(query))`` for every query shape (smart case, typos,
negations, anchors), and stays exact when the helper cannot be forked, dies, is too slow
or answers garbage (the server counts that part itself)."""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from resident_server_test import _threaded_server, _tree, resident

import ffind
from ffind.engine.index import Index
from ffind.options import SearchOptions
from ffind.resident import client, counter, protocol
from ffind.resident.counter import Counter, Split

__all__ = ["resident"]  # (the fixture, used by name)

QUERIES = ["main", "Main", "MAIN", "mian", "mainn", "ma", "m", "main !test", "^src", "py$",
           "'main", "src/ma", "Src/Ma", "zzzz", "test_u", "READ", "m a i n", "é"]


def _paths() -> list[str]:
    paths = []
    for i in range(400):
        d = f"src/pkg{i % 7}/{'Sub' if i % 3 else 'sub'}{i % 5}"
        paths += [f"{d}/main{i}.py", f"{d}/Main_{i}.rs", f"{d}/mian.py", f"{d}/test_util{i}.py",
                  f"docs/README{i}.md", f"lib/é{i}.txt", f"{d}/MAIN.c"]
    return paths


@pytest.fixture()
def index() -> Index:
    return Index(_paths(), numpy=True)


@pytest.fixture()
def helper(index: Index) -> Iterator[Counter]:
    started = Counter.start(index)
    assert started is not None
    try:
        _wait_free(started)  # (its warm-up answered)
        yield started
    finally:
        started.close()


def _wait_free(helper: Counter, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not helper.free():
        assert time.monotonic() < end, "the helper's answer did not come"
        time.sleep(0.01)


def _split_total(helper: Counter, index: Index, query: str) -> int:
    """The count of ``query`` with the helper's part (waited for)."""
    _wait_free(helper)
    split = Split.begin(helper, index, query)
    assert split is not None, "the helper is free"
    total = split.total(index.run(query), steal=False)
    assert split.helped
    return total


def test_a_split_count_is_the_whole_sets_count(index: Index, helper: Counter) -> None:
    for query in QUERIES:
        assert _split_total(helper, index, query) == len(index.run(query)), query
    assert helper.fits(index) and not helper.dead


def test_a_set_the_ranking_computed_is_counted_whole(index: Index, helper: Counter) -> None:
    _wait_free(helper)
    split = Split.begin(helper, index, "main")
    assert split is not None
    whole = index.run("main")
    assert whole.ids  # (computed, as a ranking without a shortcut does)
    assert split.total(whole) == len(index.run("main"))
    assert helper.busy, "its answer is left, read and dropped by the next question"
    assert _split_total(helper, index, "mian") == len(index.run("mian"))


def test_a_helper_fits_only_its_own_index(index: Index, helper: Counter) -> None:
    other = Index(_paths(), numpy=True)
    assert not helper.fits(other) and Split.begin(helper, other, "main") is None
    index.extend(["src/main_new.py"])
    assert not helper.fits(index), "an index that grew is not the helper's any more"


def test_no_fork_means_no_helper(index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(child: object) -> int:
        raise OSError("EAGAIN")

    monkeypatch.setattr(counter, "_fork", broken)
    assert Counter.start(index) is None
    assert Split.begin(None, index, "main") is None


def test_a_helper_that_died_is_counted_for(index: Index, helper: Counter) -> None:
    os.kill(helper.pid, signal.SIGKILL)
    select.select([helper.sock], [], [], 10)  # (its end closed: it is gone)
    split = Split.begin(helper, index, "Main")
    if split is not None:  # (the question may still be written: the answer fails)
        assert split.total(index.run("Main"), steal=False) == len(index.run("Main"))
    assert helper.dead
    assert Split.begin(helper, index, "main") is None


def test_a_helper_killed_while_counting_is_counted_for(index: Index, helper: Counter) -> None:
    os.kill(helper.pid, signal.SIGSTOP)  # (it cannot answer before it is killed)
    split = Split.begin(helper, index, "mian")
    assert split is not None
    os.kill(helper.pid, signal.SIGKILL)
    assert split.total(index.run("mian"), steal=False) == len(index.run("mian"))
    assert not split.helped and helper.dead


def test_a_stopped_helper_is_counted_for_then_drained(
        index: Index, helper: Counter, monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper that gets no CPU: the server counts its part, a chunk at a time."""
    monkeypatch.setattr(counter, "CHUNK", 97)
    assert _split_total(helper, index, "main") == len(index.run("main"))  # (warmed up)
    os.kill(helper.pid, signal.SIGSTOP)
    try:
        split = Split.begin(helper, index, "test_u")
        assert split is not None
        assert split.total(index.run("test_u")) == len(index.run("test_u"))
        assert not split.helped, "counted here, chunk by chunk"
        assert helper.busy and not helper.free(), "its answer has not come"
    finally:
        os.kill(helper.pid, signal.SIGCONT)
    _wait_free(helper)  # (the late answer drained)
    assert _split_total(helper, index, "READ") == len(index.run("READ"))


def test_an_answer_after_chunks_counted_here_counts_each_id_once(
        index: Index, helper: Counter, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server counted some of the helper's ids before its answer came: the answer
    replaces them (each id counted once)."""
    monkeypatch.setattr(counter, "CHUNK", 101)
    polls: list[bool] = []
    monkeypatch.setattr(Counter, "answered", lambda self: polls.pop() if polls else True)
    for query in ("main", "Main", "mian", "m"):
        while helper.busy:  # (its last answer read and dropped)
            helper.answer(None, 0, 0)
        split = Split.begin(helper, index, query)
        assert split is not None
        polls[:] = [False, False, False]  # (three chunks counted here, then its answer)
        assert split.total(index.run(query)) == len(index.run(query)), query
        assert split.helped and not polls


@pytest.mark.parametrize("reply", [("X", "boom"), ("K", [1], None), "garbage",
                                   ("K", "ids", None, None, [])])
def test_a_reply_that_is_not_a_whole_answer_is_not_used(index: Index, reply: object) -> None:
    assert counter._match_set(index, "main", 0, len(index), reply) is None


def test_a_question_the_helper_cannot_answer_is_counted_here(
        index: Index, helper: Counter) -> None:
    assert helper.ask("main", 0, 1)
    assert helper.ask("!", 0, 1) is False, "one question at a time"
    helper.answer(None, 0, 0)
    helper.sock.sendall(protocol.encode(("main", "not an id", 1)))  # (answered "X")
    helper.busy = True
    assert helper.answer("main", 0, 1) is None and not helper.dead
    assert _split_total(helper, index, "main") == len(index.run("main"))


def test_the_server_counts_with_a_helper_and_replaces_it_after_a_change(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(counter, "SPLIT_MIN", 1)
    monkeypatch.setattr(counter, "cpus", lambda: 2)
    root = _tree(tmp_path)
    options = SearchOptions(limit=2, compute_indices=True)
    with _threaded_server(root, budget=0) as srv:
        for query in ("main", "Main", "mian", "a"):
            got = ffind.search(query, root, options, cache=True)
            assert got == ffind.search(query, root, options), query
        pids = _counters(root)
        assert len(pids) == 1, "a helper beside the index"
        provisional = client.ask("main", str(root), options, memory=False, count=True,
                                 provisional=True)
        assert provisional is not None
        assert provisional.total == ffind.search("main", root, options).total_match_count
        (root / "src" / "main_new.py").write_text("x")
        got = ffind.search("main", root, options, cache=True)
        assert got == ffind.search("main", root, options) and got.total_match_count == 4
        assert _counters(root) not in ([], pids), "the new index's own helper"
        assert _gone(pids[0])
        last = _counters(root)
    assert srv.stopping and _gone(last[0]), "the server's helpers end with it"


def test_no_helper_until_a_count_is_asked(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server whose clients never ask for a count (scripts, a piped command) makes no
    helper (it costs memory)."""
    monkeypatch.setattr(counter, "SPLIT_MIN", 1)
    monkeypatch.setattr(counter, "cpus", lambda: 2)
    root = _tree(tmp_path)
    with _threaded_server(root):
        for query in ("main", "io"):
            got = client.ask(query, str(root), SearchOptions(limit=1), memory=False,
                             count=False)
            assert got is not None and got.total == -1
        assert _counters(root) == []
        assert ffind.search("main", root, cache=True).total_match_count == 3  # (counted)
        assert len(_counters(root)) == 1


def test_the_server_counts_alone_when_the_helper_cannot_fork(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(child: object) -> int:
        raise OSError("EAGAIN")

    monkeypatch.setattr(counter, "SPLIT_MIN", 1)
    monkeypatch.setattr(counter, "cpus", lambda: 2)
    monkeypatch.setattr(counter, "_fork", broken)
    root = _tree(tmp_path)
    options = SearchOptions(limit=1)
    with _threaded_server(root):
        for query in ("main", "main", "Main"):
            got = ffind.search(query, root, options, cache=True)
            assert got == ffind.search(query, root, options), query
        assert _counters(root) == []


def test_a_split_that_fails_is_counted_whole_by_the_server(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the split (or in the helper's start) never loses an answer: the server
    counts alone."""
    calls: list[str] = []

    def broken(self: object, *args: object, **kwargs: object) -> int:
        calls.append(type(self).__name__)
        raise RuntimeError("a bug")

    monkeypatch.setattr(counter, "SPLIT_MIN", 1)
    monkeypatch.setattr(counter, "cpus", lambda: 2)
    monkeypatch.setattr(Split, "total", broken)
    root = _tree(tmp_path)
    options = SearchOptions(limit=1)
    with _threaded_server(root) as srv:
        for query in ["main", "mai", "Main", "ma", "m", "MAIN", "io", "i"] * 5:
            got = ffind.search(query, root, options, cache=True)
            assert got == ffind.search(query, root, options), query
            if calls:
                break
            time.sleep(0.05)  # (the helper's warm-up, or last answer, comes meanwhile)
        assert calls == ["Split"], "a split was tried, and failed"
        monkeypatch.setattr(Counter, "touch", broken)
        (root / "src" / "main_new.py").write_text("x")  # (a new index, a new helper)
        answered = srv.answered
        got = ffind.search("main", root, options, cache=True)
        assert got == ffind.search("main", root, options)
        assert _counters(root) == []  # (asked once the server is done after the reply)
        assert srv.answered == answered + 1 and calls[-1] == "Counter"


def _counters(root: Path) -> list[int]:
    found = client.where(str(root))
    assert found is not None
    stats = client.request(found[0], {"op": "stats"})
    assert stats is not None
    pids = stats["counters"]
    assert isinstance(pids, list)
    return [int(p) for p in pids]


def _gone(pid: int, timeout: float = 10.0) -> bool:
    """Whether ``pid`` (a helper, reaped by the server) no longer runs."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False
