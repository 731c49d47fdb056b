"""Ranking with the memory of opened files (``Index.match(memory=...)``): table tests with the
exact expected order, and the property that ``limit=k`` is the prefix of the full ranking."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffind import Index, Memory
from ffind.scoring.recency import (
    FOLDER_FILES,
    MAX_BOOST,
    POINTS_PER_E,
    REFERENCE_PATHS,
    SHARE_ELSEWHERE,
    SHARE_NEIGHBOUR,
    SHARE_TOGETHER,
    SHARE_VISITED,
    boosts,
)

ROOT = "/work/repo"
NOW = 1_700_000_000.0
HOUR = 3600.0

PATHS = [
    "src/session/prompt.ts",
    "src/session/promise.ts",
    "src/session/index.ts",
    "lib/prompt.ts",
    "lib/promote.ts",
    "docs/prompting.md",
    "tests/prompt_test.ts",
    "tools/main.go",
    "main.go",
    "README.md",
]


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    with Memory(tmp_path / "memory.sqlite3") as m:
        yield m


def ranked(index: Index, query: str, mem: Memory | None, limit: int | None = None) -> list[str]:
    return [m.path for m in index.match(query, limit=limit, memory=mem, root=ROOT, now=NOW)]


def test_without_memory_the_ranking_is_unchanged(mem: Memory) -> None:
    index = Index(PATHS)
    for q in ("", "p", "prom", "main", "s/p"):
        assert ranked(index, q, None) == [m.path for m in Index(PATHS).match(q)]
        assert ranked(index, q, mem) == ranked(index, q, None)  # an empty memory changes nothing


def test_a_recent_file_wins_over_an_equal_match(mem: Memory) -> None:
    index = Index(PATHS)
    assert ranked(index, "prompt", None)[:2] == ["lib/prompt.ts", "src/session/prompt.ts"]
    mem.record(f"{ROOT}/src/session/prompt.ts", when=NOW - HOUR)
    assert ranked(index, "prompt", mem)[:2] == ["src/session/prompt.ts", "lib/prompt.ts"]


def test_a_clearly_better_match_beats_a_weak_match_of_a_recent_file(mem: Memory) -> None:
    index = Index(PATHS)
    for _ in range(20):
        mem.record(f"{ROOT}/docs/prompting.md", when=NOW - HOUR)
    # "promot" is a prefix of promote.ts's name; prompting.md holds it only scattered
    assert ranked(index, "promot", mem)[0] == "lib/promote.ts"
    assert ranked(index, "promo", None)[0] == "lib/promote.ts"


def test_the_empty_query_puts_remembered_files_first(mem: Memory) -> None:
    index = Index(PATHS)
    mem.record(f"{ROOT}/README.md", when=NOW - 50 * 24 * HOUR)
    mem.record(f"{ROOT}/main.go", when=NOW - HOUR)
    mem.record(f"{ROOT}/main.go", when=NOW - HOUR)
    got = ranked(index, "", mem)
    assert got[:2] == ["main.go", "README.md"]
    rest = [p for p in PATHS if p not in ("main.go", "README.md")]
    # then the folder neighbours of main.go (the root folder: none left), then path order
    assert got[2:] == rest


def test_a_new_file_next_to_recent_work_gains_too(mem: Memory) -> None:
    index = Index(PATHS)
    assert ranked(index, "pro", None)[:3] == ["lib/prompt.ts", "lib/promote.ts",
                                               "docs/prompting.md"]
    mem.record(f"{ROOT}/src/session/index.ts", when=NOW - HOUR)
    got = ranked(index, "pro", mem)
    assert got[:3] == ["src/session/prompt.ts", "src/session/promise.ts", "lib/prompt.ts"]


def test_the_file_opened_with_the_one_just_opened_wins(mem: Memory) -> None:
    index = Index(PATHS)
    day = 24 * HOUR
    for _ in range(10):  # prompt.ts of the session was opened more, and more lately
        mem.record(f"{ROOT}/src/session/prompt.ts", when=NOW - day)
    mem.record(f"{ROOT}/main.go", when=NOW - 5 * day)  # opened with lib/prompt.ts, twice
    mem.record(f"{ROOT}/lib/prompt.ts", when=NOW - 5 * day + 60)
    mem.record(f"{ROOT}/main.go", when=NOW - 4 * day)
    mem.record(f"{ROOT}/lib/prompt.ts", when=NOW - 4 * day + 60)
    assert ranked(index, "prompt", mem)[:3] == ["src/session/prompt.ts", "lib/prompt.ts",
                                                 "docs/prompting.md"]
    mem.record(f"{ROOT}/main.go", when=NOW - 60)  # main.go again: its partner comes first
    assert ranked(index, "prompt", mem)[:3] == ["lib/prompt.ts", "src/session/prompt.ts",
                                                 "docs/prompting.md"]
    # before typing too: the file that goes with the one just opened, then the most opened
    assert ranked(index, "", mem)[:3] == ["lib/prompt.ts", "src/session/prompt.ts", "main.go"]


def test_remembered_paths_outside_the_root_or_index_are_never_returned(mem: Memory) -> None:
    index = Index(PATHS)
    mem.record("/elsewhere/prompt.ts", when=NOW)
    mem.record(f"{ROOT}/gone/prompt.ts", when=NOW)
    got = ranked(index, "prompt", mem)
    assert set(got) <= set(PATHS)
    assert ranked(index, "", mem) == ranked(index, "", None)


def test_the_boost_is_bounded() -> None:
    visits = {"a": (1e9, 1e9)}
    assert boosts(visits, {"": ["a", "b"]})["a"] == MAX_BOOST


def test_a_file_opened_with_the_latest_ones_gains_the_together_share() -> None:
    visits = {"a": (1.0, 1.0), "b": (1.0, 0.0)}
    folders = {"": ["a", "b", "c"]}
    total = 1 + SHARE_TOGETHER
    elsewhere = SHARE_ELSEWHERE / total / REFERENCE_PATHS
    near = SHARE_NEIGHBOUR / total / FOLDER_FILES  # every file of the recent folder ""

    def boost(chance: float) -> int:
        return min(MAX_BOOST, round(POINTS_PER_E * math.log((chance + elsewhere) / elsewhere)))

    assert boosts(visits, folders, {"b": 1.0}) == {
        "a": boost(near + SHARE_VISITED / total / 2),
        "b": boost(near + SHARE_VISITED / total / 2 + SHARE_TOGETHER / total),
        "c": boost(near)}
    # with no such files the shares are those of the other three alone
    assert boosts(visits, folders, {}) == boosts(visits, folders)
    assert boosts(visits, folders)["c"] == round(POINTS_PER_E * math.log(
        (SHARE_NEIGHBOUR / FOLDER_FILES + SHARE_ELSEWHERE / REFERENCE_PATHS)
        / (SHARE_ELSEWHERE / REFERENCE_PATHS)))


CORPUS = [f"{d}/{n}" for d in ("src", "src/core", "lib", "test", "docs")
          for n in ("main.py", "mod.rs", "prompt.ts", "base_coder.py", "index.ts", "util.go")]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    # (times within the last ten minutes too: files opened together, and opened just now)
    visits=st.lists(st.tuples(st.sampled_from(CORPUS), st.one_of(
        st.floats(0, 600), st.floats(0, 30 * 24 * HOUR))), max_size=12),
    query=st.text(alphabet="abcdeimnoprstu/._ ", max_size=5),
    k=st.integers(1, 12),
)
def test_limit_k_is_the_prefix_of_the_full_ranking_with_memory(
    tmp_path_factory: pytest.TempPathFactory, visits: list[tuple[str, float]], query: str, k: int,
) -> None:
    with Memory(tmp_path_factory.mktemp("m") / "m.db") as mem:
        for path, ago in visits:
            mem.record(f"{ROOT}/{path}", when=NOW - ago)
        index = Index(CORPUS)
        full = index.match(query, memory=mem, root=ROOT, now=NOW)
        assert index.match(query, limit=k, memory=mem, root=ROOT, now=NOW) == full[:k]
        assert sorted(m.path for m in full) == sorted(m.path for m in index.match(query))
        keys = [(-m.score, len(m.path), m.path) for m in full]
        if query.strip():
            assert keys == sorted(keys)


def test_smart_case_is_decided_over_the_whole_index_not_the_remembered_paths(
    mem: Memory,
) -> None:
    index = Index(["src/Foo.py", "lib/foo.py"])
    assert ranked(index, "Foo", None) == ["src/Foo.py"]
    mem.record(f"{ROOT}/lib/foo.py", when=NOW - HOUR)
    assert ranked(index, "Foo", mem) == ["src/Foo.py"]  # lib/foo.py does not match Foo
    assert ranked(index, "foo", mem)[0] == "lib/foo.py"


def test_the_folder_map_follows_a_growing_index_and_new_folders() -> None:
    from ffind.engine.recall import Recall

    paths = ["a/x.py", "b/y.py", "a/z.py", "top.md", "b/c/w.py"]
    recall = Recall(Index)

    def fresh(n: int, wanted: set[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for p in paths[:n]:
            d = p.rpartition("/")[0]
            if d in wanted:
                out.setdefault(d, set()).add(p)
        return out

    assert recall.folders(paths[:2], {"a"}) == fresh(2, {"a"})
    assert recall.folders(paths[:4], {"a"}) == fresh(4, {"a"})  # grown: only new paths read
    assert recall.folders(paths, {"", "b"}) == fresh(5, {"a", "b", ""})  # new folders: all
    assert recall.folders(paths, {"b/c"})["b/c"] == {"b/c/w.py"}


OVERLAY = [
    "daemon/graphdriver/overlay/overlay.go",
    "daemon/graphdriver/overlay/overlay.proto",
    "daemon/graphdriver/overlay2/check.go",
    "daemon/graphdriver/overlay2/driver.go",
    "daemon/graphdriver/overlay2/mount.go",
    "README.md",
]


def test_a_remembered_typo_match_stays_below_the_clean_matches(mem: Memory) -> None:
    index = Index(OVERLAY)
    for _ in range(5):
        mem.record(f"{ROOT}/daemon/graphdriver/overlay/overlay.go", when=NOW - HOUR)
    expected = [
        "daemon/graphdriver/overlay2/check.go",
        "daemon/graphdriver/overlay2/mount.go",
        "daemon/graphdriver/overlay2/driver.go",
        "daemon/graphdriver/overlay/overlay.go",  # a typo match (overlay2 -> overlay)
        "daemon/graphdriver/overlay/overlay.proto",
    ]
    assert ranked(index, "overlay2", None) == expected
    assert ranked(index, "overlay2", mem) == expected
    assert ranked(index, "overlay2", mem, limit=3) == expected[:3]
    # the clean match of the same remembered file is lifted as before
    assert ranked(index, "overlay", mem)[0] == "daemon/graphdriver/overlay/overlay.go"


TYPO_CORPUS = [f"{d}/{n}" for d in ("src", "src/overlay", "src/overlay2", "lib", "test")
               for n in ("overlay.go", "overlay2.go", "prompt.ts", "promtp.ts", "main.py",
                         "mian.py", "mount.go")]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    visits=st.lists(st.tuples(st.sampled_from(TYPO_CORPUS), st.floats(0, 30 * 24 * HOUR),
                              st.integers(1, 20)), max_size=10),
    query=st.sampled_from(["overlay", "overlay2", "overlay3", "prompt", "promtp", "main",
                           "mian", "mount", "mounr", "srcmain"]),
    k=st.integers(1, 40),
)
def test_the_memory_never_lifts_a_typo_match_over_a_clean_one(
    tmp_path_factory: pytest.TempPathFactory, visits: list[tuple[str, float, int]], query: str,
    k: int,
) -> None:
    """The promise as stated: whatever the memory holds, a clean match ranked above a typo match
    without memory is still above it with memory; and ``limit=k`` is still the prefix."""
    with Memory(tmp_path_factory.mktemp("m") / "m.db") as mem:
        for path, ago, times in visits:
            for _ in range(times):
                mem.record(f"{ROOT}/{path}", when=NOW - ago)
        index = Index(TYPO_CORPUS)
        plain = index.match(query)
        full = index.match(query, memory=mem, root=ROOT, now=NOW)
        assert index.match(query, limit=k, memory=mem, root=ROOT, now=NOW) == full[:k]
        where = {m.path: i for i, m in enumerate(full)}
        for i, clean in enumerate(plain):
            if clean.typo:
                continue
            for typo in plain[i + 1:]:
                if typo.typo:
                    assert where[clean.path] < where[typo.path], (clean.path, typo.path)
        score = {m.path: m.score for m in plain}
        assert all(m.score == score[m.path] for m in full if m.typo)
