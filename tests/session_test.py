"""FileSearcher: incremental matching equals a fresh match, consistency, cancel and close."""

from __future__ import annotations

import contextlib
import multiprocessing
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ffind
from ffind.engine.index import Index
from ffind.errors import FfindError
from ffind.options import SearchOptions
from ffind.query import parse
from ffind.scoring.scorer import FileMatch
from ffind.searching import idle, matchsets
from ffind.searching.feed import FEED_BATCH
from ffind.searching.session import FileSearcher, Snapshot

ALL = SearchOptions(limit=None)

PATHS = [
    "src/session/prompt.ts", "src/session/prompt_test.ts", "aider/coders/base_coder.py",
    "aider/coders/base_prompts.py", "packages/tools/mod.rs", "apart/contest.rs", "README.md",
    "src/main.rs", "src/Prompt.java", "docs/controller.md", "app/controllers/base_controller.rb",
    "lib/mod.rs", "s/p/t", "setup.py", "tests/test_prompt.py", "a/b/c/d/e.txt", "Makefile",
    "crates/core/src/mod.rs", "pkg/parser/parse.go", "web/src/components/Picker.tsx",
]


def _expected(query: str, paths: list[str], limit: int | None = None) -> list[FileMatch]:
    """What the session answers: ``ffind.match``'s ranking; with nothing to score (empty query,
    only negations), path order, as ``ffind`` lists them."""
    found = ffind.match(query, paths)
    if not parse(query).scored:
        found = sorted(found, key=lambda m: m.path)
    return found if limit is None else found[:limit]


def _ffind_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("ffind-")]


def _assert_nothing_left() -> None:
    # numpy's import (in a thread an Index starts, which runs to its end whatever becomes of
    # the index) belongs to no session: let it finish; every other ffind thread must be gone
    for t in threading.enumerate():
        if t.name == "ffind-numpy":
            t.join(30)
    assert _ffind_threads() == []
    assert multiprocessing.active_children() == []


def _tree(root: Path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        rel = f"d{i % 7}/sub{i % 13}/file_{i}.{'py' if i % 3 else 'rs'}"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
        paths.append(rel)
    return paths


# Typing (letters of the paths, '/', '.', '_', a capital, a space between terms, fzf's
# operators: ' | ', quotes, anchors, negation) and backspacing, with or without waiting
# between keystrokes.
KEYS = st.lists(
    st.one_of(st.sampled_from([*"proamtsc/._PdeB ", " | ", "'", "^", "$", "!"]),
              st.just("\b"), st.just("wait")),
    min_size=1, max_size=25,
)


@contextlib.contextmanager
def chunked(on: bool) -> Iterator[None]:
    """Match in chunks of 3 ids (preemptible), or in one ``run`` per range."""
    saved = matchsets.CHUNK
    matchsets.CHUNK = 3 if on else sys.maxsize
    try:
        yield
    finally:
        matchsets.CHUNK = saved


@pytest.mark.parametrize("in_chunks", [False, True], ids=["whole", "chunks"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=KEYS)
def test_incremental_typing_equals_a_fresh_match(in_chunks: bool, keys: list[str]) -> None:
    with chunked(in_chunks), FileSearcher(options=ALL, paths=PATHS) as fs:
        assert (matchsets.CHUNK == 3) == in_chunks
        query = ""
        for key in keys:
            if key == "wait":
                assert fs.wait(10)
                assert fs.results() == _expected(query, PATHS)
                continue
            query = query[:-1] if key == "\b" else query + key
            fs.set_query(query)
        assert fs.wait(10)
        assert fs.snapshot().query == query
        assert fs.results() == _expected(query, PATHS)
        assert fs.results(3) == _expected(query, PATHS, limit=3)
    _assert_nothing_left()


def test_results_zero_is_every_match_as_the_command() -> None:
    with FileSearcher(options=SearchOptions(limit=2), paths=PATHS) as fs:
        fs.set_query("s | p")
        assert fs.wait(10)
        assert len(_expected("s | p", PATHS)) > 2
        assert fs.results() == _expected("s | p", PATHS, limit=2)
        assert fs.results(0) == _expected("s | p", PATHS)
        with pytest.raises(ValueError, match="at least 0"):
            fs.results(-1)
    _assert_nothing_left()


def test_walked_tree_matches_like_a_fresh_match(tmp_path: Path) -> None:
    paths = _tree(tmp_path, 300)
    with FileSearcher(tmp_path, ALL) as fs:
        for query in ["f", "fi", "file_1", "file_1.", "file_1.r", "file_", "rs", "d3/s", ""]:
            fs.set_query(query)
            assert fs.wait(30)
            walked = fs._index.paths  # the walk's order (parallel: not fixed), what "" keeps
            assert sorted(walked) == sorted(paths)
            assert fs.results() == _expected(query, walked)
            snap = fs.snapshot()
            assert snap.walk_complete
            assert snap.scanned_file_count == len(paths)
            assert snap.total_match_count == len(ffind.match(query, paths))


def test_an_idle_session_warms_its_index_after_the_walk(tmp_path: Path) -> None:
    paths = _tree(tmp_path, 300)
    with FileSearcher(tmp_path, ALL) as fs:
        assert fs.wait(30)
        deadline = time.monotonic() + 10
        while fs._work.warmed != len(paths) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert fs._work.warmed == len(paths)  # Index.warm ran to its end while nothing was asked
        index = fs._index
        built = index.store.built()
        assert built["penalties"] == len(index.store.pstart) == len(paths)
        assert built["initials"] == len(paths)
        fs.set_query("file_1")
        assert fs.wait(30)
        assert fs.results() == _expected("file_1", index.paths)


def test_several_roots_set_root_on_each_match(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    _tree(tmp_path / "one", 20)
    _tree(tmp_path / "two", 5)
    roots = [str(tmp_path / "one"), str(tmp_path / "two")]
    with FileSearcher(roots, ALL) as fs:
        fs.set_query("file_1")
        assert fs.wait(30)
        found = {(m.root, m.path) for m in fs.results()}
    expected = {(roots[0], m.path) for m in ffind.match("file_1", _paths_of(tmp_path / "one"))}
    expected |= {(roots[1], m.path) for m in ffind.match("file_1", _paths_of(tmp_path / "two"))}
    assert found == expected
    assert (roots[1], "d1/sub1/file_1.py") in found
    assert (roots[0], "d1/sub1/file_1.py") in found


def _paths_of(root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]


def _slow_feed(paths: list[str], pause: float) -> Iterator[str]:
    for i, p in enumerate(paths):
        if i and i % FEED_BATCH == 0:
            time.sleep(pause)
        yield p


def test_results_during_the_walk_belong_to_one_query() -> None:
    paths = [f"{d}/{name}" for d in ("src", "lib/core", "tests/unit")
             for name in (f"mod_{i}.rs" for i in range(1500))]
    paths += [f"pkg/{i}/prompt.py" for i in range(400)]
    # The consistent views: every match of some query among the first k paths, k a batch edge.
    edges = [*range(0, len(paths), FEED_BATCH), len(paths)]
    queries = ["mod", "prompt", "src/m", "p", "zz"]
    seen: list[Snapshot] = []
    with FileSearcher(options=SearchOptions(limit=10), paths=_slow_feed(paths, 0.02)) as fs:
        for i in range(60):
            fs.set_query(queries[i % len(queries)])
            time.sleep(0.003)
            seen.append(fs.snapshot())
        assert fs.wait(30)
        seen.append(fs.snapshot())
    for snap in seen:
        assert any(
            snap.matches == _expected(snap.query, paths[:k], limit=10)
            and snap.total_match_count == len(ffind.match(snap.query, paths[:k]))
            for k in edges
        ), snap.query
    assert seen[-1].walk_complete
    assert seen[-1].scanned_file_count == len(paths)


def test_set_query_from_another_thread_while_walking(tmp_path: Path) -> None:
    paths = _tree(tmp_path, 400)
    with FileSearcher(tmp_path, ALL) as fs:
        typer = threading.Thread(target=lambda: [fs.set_query("file_3"[:i]) for i in range(7)])
        typer.start()
        typer.join()
        assert fs.wait(30)
        assert fs.snapshot().query == "file_3"
        assert fs.results() == _expected("file_3", paths)


class Recorder:
    def __init__(self) -> None:
        self.updates: list[Snapshot] = []
        self.completed: list[Snapshot] = []
        self.done = threading.Event()
        self.updated = threading.Event()

    def on_update(self, snapshot: Snapshot) -> None:
        self.updates.append(snapshot)
        self.updated.set()

    def on_complete(self, snapshot: Snapshot) -> None:
        self.completed.append(snapshot)
        self.done.set()


def test_reporter_sees_updates_and_one_completion_per_query() -> None:
    paths = [f"dir{i % 50}/file{i}.txt" for i in range(3 * FEED_BATCH)]
    rec = Recorder()

    def feed() -> Iterator[str]:  # the walk goes on only once an update came
        yield from paths[:FEED_BATCH]
        assert rec.updated.wait(30)
        yield from paths[FEED_BATCH:]

    with FileSearcher(options=SearchOptions(limit=5), reporter=rec, paths=feed()) as fs:
        fs.set_query("file1")
        assert rec.done.wait(30)
        assert fs.wait(30)
        rec.done.clear()
        fs.set_query("file12")
        assert rec.done.wait(30)
    assert not rec.updates[0].walk_complete
    assert rec.updates[0].scanned_file_count == FEED_BATCH
    # The session starts on the empty query; when its matching (and the fed walk) gets ahead
    # of the first set_query, that query's completion is reported too, first.
    assert [s.query for s in rec.completed] in (["file1", "file12"], ["", "file1", "file12"])
    final = rec.completed[-1]
    assert final.walk_complete and final.scanned_file_count == len(paths)
    assert final.matches == _expected("file12", paths, limit=5)
    assert final.total_match_count == len(ffind.match("file12", paths))


def test_a_reporter_can_take_the_matches_before_their_count() -> None:
    """``on_ranked(query, matches)`` comes before ``on_complete`` with the same matches (a
    picker draws them while the count, a pass over the candidates, is computed)."""
    paths = [f"dir{i % 50}/file{i}.txt" for i in range(2 * FEED_BATCH)]
    events: list[tuple[str, str, list[FileMatch], int]] = []
    done = threading.Event()

    class Early(Recorder):
        def on_ranked(self, query: str, matches: list[FileMatch]) -> None:
            events.append(("ranked", query, matches, -1))

        def on_complete(self, snapshot: Snapshot) -> None:
            events.append(("complete", snapshot.query, snapshot.matches,
                           snapshot.total_match_count))
            if snapshot.query == "file12":
                done.set()

    with FileSearcher(options=SearchOptions(limit=5), reporter=Early(), paths=iter(paths)) as fs:
        assert fs.wait(30)
        fs.set_query("file12")
        assert done.wait(30)
    i = max(j for j, e in enumerate(events) if e[:2] == ("complete", "file12"))
    assert events[i - 1][:2] == ("ranked", "file12")
    assert events[i - 1][2] == events[i][2] == _expected("file12", paths, limit=5)
    assert events[i][3] == len(ffind.match("file12", paths))


def _endless() -> Iterator[str]:
    i = 0
    while True:
        i += 1
        yield f"folder{i % 100}/file{i}.txt"


def test_cancel_stops_an_endless_walk_and_close_leaves_nothing() -> None:
    fs = FileSearcher(options=SearchOptions(limit=5), paths=_endless())
    fs.set_query("file1")
    deadline = time.monotonic() + 30
    while fs.snapshot().scanned_file_count < 3 * FEED_BATCH and time.monotonic() < deadline:
        time.sleep(0.01)
    fs.cancel()
    assert not fs.wait(5)
    assert fs.close(timeout=30)
    _assert_nothing_left()
    snap = fs.snapshot()
    assert not snap.walk_complete
    assert snap.scanned_file_count >= 3 * FEED_BATCH
    fed = [f"folder{i % 100}/file{i}.txt" for i in range(1, snap.scanned_file_count + 1)]
    assert any(snap.matches == _expected(snap.query, fed[:k], limit=5)
               for k in range(0, len(fed) + 1, FEED_BATCH))


def test_close_during_a_real_walk_leaves_no_thread_or_worker(tmp_path: Path) -> None:
    _tree(tmp_path, 2000)
    with FileSearcher(tmp_path, SearchOptions(threads=2)) as fs:
        fs.set_query("file")
    _assert_nothing_left()
    with FileSearcher(tmp_path, SearchOptions(threads=2)) as fs:
        assert fs.wait(30)
    _assert_nothing_left()


def test_missing_root_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(FfindError, match="no such folder"):
        FileSearcher(tmp_path / "nope")


def test_exported_lazily_from_the_package() -> None:
    assert ffind.FileSearcher is FileSearcher
    assert ffind.Snapshot is Snapshot
    assert Index  # the session matches through the public Index


def test_a_searcher_never_closed_lets_the_program_exit_cleanly(tmp_path: Path) -> None:
    _tree(tmp_path, 3000)
    code = ("import sys; from ffind.searching.session import FileSearcher; "
            "from ffind import SearchOptions;"
            " fs = FileSearcher(sys.argv[1], SearchOptions(threads=2)); fs.set_query('file')")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0
    assert done.stderr == ""


def test_set_query_none_raises_and_the_session_keeps_working() -> None:
    # It used to reach the match thread and kill it: every wait() raised afterwards.
    with FileSearcher(paths=["src/a.py", "b.txt"]) as fs:
        with pytest.raises(TypeError, match="text"):
            fs.set_query(None)  # type: ignore[arg-type]
        fs.set_query("apy")
        assert fs.wait(10)
        assert [m.path for m in fs.results()] == ["src/a.py"]


def test_constructor_arguments_are_checked() -> None:
    with pytest.raises(TypeError, match="options"):
        FileSearcher(paths=[], options={"limit": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="paths"):
        FileSearcher(paths="src/a.py")
def test_the_empty_query_lists_paths_in_path_order_as_the_command_does() -> None:
    """The picker's empty query shows what ``ffind`` without a pattern prints, in that order,
    also while the (fed) walk grows and when scrolling asks for more."""
    import random

    paths = [f"d{i % 37}/f{i}.txt" for i in range(3 * FEED_BATCH)]
    random.Random(1).shuffle(paths)
    with FileSearcher(options=SearchOptions(limit=7), paths=iter(paths)) as fs:
        seen: list[list[str]] = []
        while not fs.wait(0.001):
            seen.append([m.path for m in fs.results()])
        for shown in seen:
            assert shown == sorted(shown)
        assert [m.path for m in fs.results()] == sorted(paths)[:7]
        assert [m.path for m in fs.results(100)] == sorted(paths)[:100]
        assert [m.path for m in fs.results(3)] == sorted(paths)[:3]
    with FileSearcher(options=SearchOptions(limit=None), paths=iter(paths)) as fs:
        assert fs.wait(30)
        assert [m.path for m in fs.results()] == sorted(paths)
    with FileSearcher(options=SearchOptions(limit=4), paths=iter(paths)) as fs:
        fs.set_query("!f1")
        assert fs.wait(30)
        assert [m.path for m in fs.results()] == sorted(p for p in paths if "f1" not in p)[:4]


def test_idle_cached_sets_are_compacted_and_restored_on_use() -> None:
    """Issue 17: the cached sets off the typing path are kept as arrays; typing on from one,
    or backspacing to it, answers as a fresh match."""
    with FileSearcher(options=ALL, paths=PATHS) as fs:
        previous, compacted, seen = "", 0, set()
        for query in ["s", "src", "x", "pro", "prom", "src", "srcm"]:
            fs.set_query(query)
            assert fs.wait(10)
            assert fs.results() == _expected(query, PATHS)
            assert fs.snapshot().total_match_count == len(_expected(query, PATHS))
            # before a ranking only: a query seen before (a hit, ``src`` again) has its own
            for st in fs._sets.states.values():  # ("" narrows to anything: any key's base)
                if (st.query not in ("", query, previous) and st.ms and st.ms.computed
                        and query not in seen):
                    assert st.ms.compacted, (query, st.query)
                    compacted += 1
            previous = query
            seen.add(query)
        assert compacted >= 5
        fs.set_query("pro")  # compacted meanwhile: restored on use
        assert fs.wait(10)
        assert fs.results() == _expected("pro", PATHS)
        fs.set_query("prot")
        assert fs.wait(10)
        assert fs.results() == _expected("prot", PATHS)
    _assert_nothing_left()


MANY = PATHS + [f"src/d{i % 5}/m{i % 3}/prom_{i}.{'py' if i % 2 else 'rs'}" for i in range(90)]


@contextlib.contextmanager
def idle_slice(size: int) -> Iterator[None]:
    saved = idle.IDLE_SLICE
    idle.IDLE_SLICE = size
    try:
        yield
    finally:
        idle.IDLE_SLICE = saved


class _Rationed(FileSearcher):
    """A session whose idle fill steps (the set's slices, then its new term's greedy ends)
    are rationed (``budget``, set by the test), so the set of a published query is left
    computed up to a chosen slice when the next key comes."""

    budget = 0

    def __enter__(self) -> _Rationed:
        self._real = (idle.IdleWork._fill, idle.IdleWork._ends)

        def rationed(real: Any) -> Any:
            def step(work: idle.IdleWork, state: Any) -> bool:
                if self.budget <= 0:
                    return False
                did = bool(real(work, state))
                if did:
                    self.budget -= 1
                return did
            return step

        idle.IdleWork._fill = rationed(self._real[0])  # type: ignore[method-assign]
        idle.IdleWork._ends = rationed(self._real[1])  # type: ignore[method-assign]
        super().__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            super().__exit__(*exc)
        finally:
            idle.IdleWork._fill, idle.IdleWork._ends = self._real  # type: ignore[method-assign]


def _let_fill(fs: _Rationed, steps: int, query: str) -> None:
    """Allow ``steps`` idle fill steps and wait until they are spent, or there is nothing
    left to fill."""
    fs.budget = steps
    deadline = time.monotonic() + 10
    while fs.budget > 0 and time.monotonic() < deadline:
        st_ = fs._state
        if st_.ms is None or not parse(query).positive:
            break
        ender = fs._work.ender
        if st_.ms.computed and (st_.ms.greedy is not None
                                or (ender is not None and ender.ms is st_.ms and ender.finished)):
            break
        time.sleep(0.001)


def _typed(fs: FileSearcher, index: Index, query: str) -> list[FileMatch]:
    """Type ``query`` with no idle work allowed; its results must be a fresh ``Index.match``'s
    (for a query without positive terms, the first paths in order); returns them."""
    fs.budget = 0
    fs.set_query(query)
    assert fs.wait(10)
    want = index.match(query, limit=4)
    if not parse(query).positive:
        want = sorted(_expected(query, MANY), key=lambda m: m.path)[:4]
    assert fs.results() == want, query
    return want


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=st.lists(st.tuples(st.sampled_from(list("proamtsc/._PdeB \b")), st.integers(0, 20)),
                     min_size=1, max_size=16),
       size=st.integers(1, 40))
def test_idle_fills_interrupted_anywhere_answer_as_a_fresh_match(
    keys: list[tuple[str, int]], size: int,
) -> None:
    """Issue 17: a key answered by a shortcut leaves its set to compute in idle time, a slice
    at a time; whatever the point the next key interrupts it at (``steps`` slices done), every
    key answers what a fresh ``Index.match`` does."""
    index = Index(MANY)
    with idle_slice(size), _Rationed(options=SearchOptions(limit=4), paths=MANY) as fs:
        assert fs.wait(10)
        query = ""
        for key, steps in keys:
            query = query[:-1] if key == "\b" else query + key
            want = _typed(fs, index, query)
            _let_fill(fs, steps, query)
        assert fs.results(2) == want[:2]
        assert fs.snapshot().total_match_count == len(_expected(query, MANY))
    _assert_nothing_left()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=st.lists(st.tuples(st.sampled_from(list("prom s_d\b")), st.integers(0, 6)),
                     min_size=1, max_size=12),
       size=st.integers(1, 40))
@example(keys=[*((c, 0) for c in "prom "), ("s", 6), ("s", 0)], size=40)
def test_new_terms_greedy_ends_found_when_idle_answer_as_a_fresh_match(
    keys: list[tuple[str, int]], size: int,
) -> None:
    """A computed set whose new last term is one character (``prom s``) has that term's
    greedy ends found in idle slices; wherever the next key interrupts that, each key
    answers what a fresh ``Index.match`` does (the next key of the term follows the ends)."""
    index = Index(MANY)
    # (numpy imported first: a warm-up done before it builds no folded buffer)
    assert Index(MANY, numpy=True).numpy_ready(60)
    with idle_slice(size), _Rationed(options=SearchOptions(limit=4), paths=MANY) as fs:
        assert fs.wait(10)
        fs.budget = 10_000  # (the warm-up first: the folded buffer the ends are found in)
        deadline = time.monotonic() + 20
        while fs._index.bounder.folded_buffer() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert fs._index.bounder.folded_buffer() is not None
        query = ""
        for key, steps in keys:
            query = query[:-1] if key == "\b" else query + key
            _typed(fs, index, query)
            # (every key's whole set: computed now, from the last key's ends when kept)
            assert fs.snapshot().total_match_count == len(_expected(query, MANY)), query
            _let_fill(fs, steps, query)
    _assert_nothing_left()


def test_a_new_one_character_term_has_its_greedy_ends_found_when_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``prom s``'s set, computed for its key, gets the greedy ends of ``s`` in idle slices
    (``matchset.Ender``); ``prom sr`` then narrows from them."""
    monkeypatch.setattr(idle, "IDLE_SLICE", 7)
    assert Index(MANY, numpy=True).numpy_ready(60)  # (before the warm-up: its buffer)
    with FileSearcher(options=SearchOptions(limit=3), paths=MANY) as fs:
        assert fs.wait(10)
        deadline = time.monotonic() + 20
        while fs._index.bounder.folded_buffer() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert fs._index.bounder.folded_buffer() is not None
        for q in ["prom", "prom s"]:
            fs.set_query(q)
            assert fs.wait(10)
        ms = fs._state.ms
        assert ms is not None
        while ms.greedy is None and time.monotonic() < deadline:
            time.sleep(0.005)
        greedy = ms.greedy
        assert greedy is not None
        fresh = Index(MANY).run("prom s")
        assert greedy[0].tolist() == fresh.superset
        folded = [p.lower() for p in MANY]
        assert greedy[1].tolist() == [folded[i].index("s") + 1 for i in fresh.superset]
        fs.set_query("prom sr")
        assert fs.wait(10)
        assert fs.results() == Index(MANY).match("prom sr", limit=3)
    _assert_nothing_left()


def test_a_key_answered_by_a_shortcut_has_its_set_computed_when_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The published set is computed in idle slices, and the next key narrows it."""
    monkeypatch.setattr(idle, "IDLE_SLICE", 7)
    with FileSearcher(options=SearchOptions(limit=3), paths=MANY) as fs:
        fs.set_query("prom")
        assert fs.wait(10)
        ms = fs._state.ms
        assert ms is not None
        deadline = time.monotonic() + 10
        while not ms.computed and time.monotonic() < deadline:
            time.sleep(0.005)
        assert ms.computed  # (the one-term shortcut answered ``prom`` without it)
        assert ms.superset == Index(MANY).run("prom").superset
        fs.set_query("prom_1")
        assert fs.wait(10)
        assert fs.results() == Index(MANY).match("prom_1", limit=3)
        new = fs._state.ms
        assert new is not None and (new.computed or new.nearest_computed() is ms)
    _assert_nothing_left()
