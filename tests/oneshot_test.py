"""ffind.search / FileSearchResults: the library's one-shot search."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import ffind
from ffind import FfindError, SearchOptions
from ffind.searching.oneshot import FileSearchResults, search, search_paths


def _touch(root: Path, *rels: str) -> None:
    for rel in rels:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    _touch(a, "src/prompt.ts", "src/main.py", "docs/guide.md")
    _touch(b, "lib/prompt.rs", "lib/other.rs")
    return a, b


def test_public_api_is_lazy_and_exported() -> None:
    assert ffind.search is search
    assert ffind.FileSearchResults is FileSearchResults


def test_search_one_root(roots: tuple[Path, Path]) -> None:
    a, _ = roots
    r = search("prompt", a)
    assert isinstance(r, FileSearchResults)
    assert r.walk_complete
    assert r.matches[0].path == "src/prompt.ts"
    assert r.total_match_count == len(r.matches) >= 1
    assert all(m.root is None for m in r.matches)


def test_search_default_root_is_cwd(roots: tuple[Path, Path],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(roots[0])
    assert [m.path for m in search("").matches] == ["docs/guide.md", "src/main.py",
                                                    "src/prompt.ts"]


def test_empty_query_lists_in_path_order_with_limit(roots: tuple[Path, Path]) -> None:
    a, _ = roots
    r = search("", a, SearchOptions(limit=2))
    assert [m.path for m in r.matches] == ["docs/guide.md", "src/main.py"]
    assert r.total_match_count == 3
    assert all(m.score == 0 for m in r.matches)


def test_several_roots_carry_their_root(roots: tuple[Path, Path]) -> None:
    a, b = roots
    r = search("prompt", [a, str(b)])
    got = {(m.root, m.path) for m in r.matches}
    assert got >= {(str(a), "src/prompt.ts"), (str(b), "lib/prompt.rs")}
    assert r.total_match_count == len(r.matches)
    scores = [m.score for m in r.matches]
    assert scores == sorted(scores, reverse=True)
    listed = search("", [a, b], SearchOptions(limit=None)).matches
    assert [(m.root, m.path) for m in listed] == sorted(
        [(str(a), p) for p in ["docs/guide.md", "src/main.py", "src/prompt.ts"]]
        + [(str(b), p) for p in ["lib/other.rs", "lib/prompt.rs"]])


def test_limit_cuts_but_counts_all(roots: tuple[Path, Path]) -> None:
    a, b = roots
    r = search("r", [a, b], SearchOptions(limit=1))
    assert len(r.matches) == 1
    assert r.total_match_count > 1


def test_compute_indices(roots: tuple[Path, Path]) -> None:
    m = search("prompt", roots[0], SearchOptions(compute_indices=True)).matches[0]
    assert m.indices is not None
    assert "".join(m.path[i] for i in m.indices) == "prompt"


def test_cancelled_search_reports_incomplete(roots: tuple[Path, Path]) -> None:
    cancel = threading.Event()
    cancel.set()
    r = search("prompt", roots[0], cancel=cancel)
    assert not r.walk_complete


def test_missing_root_and_file_root(tmp_path: Path) -> None:
    with pytest.raises(FfindError, match="no such folder"):
        search("x", tmp_path / "nope")
    _touch(tmp_path, "f.txt")
    with pytest.raises(FfindError, match="not a folder"):
        search("x", tmp_path / "f.txt")
    with pytest.raises(FfindError):
        search("x", [])


def test_search_paths() -> None:
    paths = iter(["a/prompt.ts", "b/other.py", "c/prompt.md"])
    r = search_paths("prompt", paths, batch_size=1)
    assert {m.path for m in r.matches} == {"a/prompt.ts", "c/prompt.md"}
    assert r.total_match_count == 2 and r.walk_complete
    assert [m.path for m in search_paths("", ["b", "a"]).matches] == ["a", "b"]


def test_lazy_and_eager_counts_agree(roots: tuple[Path, Path]) -> None:
    a, b = roots
    for query in ["prompt", "promtp", "r", ""]:
        lazy = search(query, [a, b], SearchOptions(limit=1), eager_count=False)
        eager = search(query, [a, b], SearchOptions(limit=1))
        assert lazy == eager
        matches, total, complete = lazy
        assert (matches, total, complete) == (eager.matches, eager.total_match_count, True)
        assert lazy == (eager.matches, eager.total_match_count, True)
        assert "total_match_count=" in repr(lazy)


def test_arguments_are_checked(roots: tuple[Path, Path]) -> None:
    a, _ = roots
    with pytest.raises(TypeError, match="query"):
        search(None, a)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="options"):
        search("x", a, {"limit": 3})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="paths"):
        search_paths("x", "src/a.py")
    with pytest.raises(ValueError, match="limit"):
        search("x", a, SearchOptions(limit=-5))


def test_multi_root_ties_follow_the_one_rule(tmp_path: Path) -> None:
    # Equal scores: the shorter path first whatever root it is in, then the first root given
    # (search used to keep root order only; FileSearcher ranked by path length).
    a, b = tmp_path / "a", tmp_path / "b"
    _touch(a, "longer/x.py", "same.py")
    _touch(b, "lo/x.py", "same.py")
    opts = SearchOptions(threads=1)
    expected = [(str(b), "lo/x.py"), (str(a), "longer/x.py")]
    assert [(m.root, m.path) for m in search("x.py", [a, b], opts).matches][:2] == expected
    with ffind.FileSearcher([a, b], opts) as fs:
        fs.set_query("x.py")
        assert fs.wait(10)
        assert [(m.root, m.path) for m in fs.results()][:2] == expected
    same = [(str(b), "same.py"), (str(a), "same.py")]
    assert [(m.root, m.path) for m in search("same", [b, a], opts).matches] == same
    with ffind.FileSearcher([b, a], opts) as fs:
        fs.set_query("same")
        assert fs.wait(10)
        assert [(m.root, m.path) for m in fs.results()] == same


def test_the_empty_querys_listing_with_the_memory_is_the_full_listings_prefix(
        tmp_path: Path) -> None:
    """``Recalling.listing``: the remembered first, then path order; with a limit, the first
    of the others are taken without sorting every path, and a kept ``Recalling`` renewed for
    each request (the resident server's, its folders mapped once) gives the same answer."""
    from ffind.searching.catalog import Recalling
    from ffind.state.memory import Memory

    root = tmp_path / "root"
    paths = [f"d{i % 7}/f{(i * 37) % 101:03d}.py" for i in range(101)]
    _touch(root, *paths)
    memory = Memory(tmp_path / "memory.db")
    visited = {paths[10], paths[40], paths[77]}
    for rel in visited:
        memory.record(root / rel)
    shuffled = paths[50:] + paths[:50]
    every = Recalling(memory, str(root)).listing(shuffled, None)
    boosted = [m for m in every if m.score > 0]
    assert visited <= {m.path for m in boosted}
    assert every[:len(boosted)] == sorted(boosted, key=lambda m: (-m.score, m.path))
    rest = every[len(boosted):]
    assert rest and [m.path for m in rest] == sorted(set(paths) - {m.path for m in boosted})
    kept = Recalling(memory, str(root))
    for limit in (0, 1, len(boosted), len(boosted) + 1, len(boosted) + 7, 101, 200):
        got = Recalling(memory, str(root)).listing(shuffled, limit)
        assert got == every[:limit], limit
        kept.renew(memory)  # (as the resident server does at each request)
        assert kept.listing(shuffled, limit) == got


def test_the_one_shot_search_ranks_with_the_memory_as_an_index_of_every_path(
        tmp_path: Path) -> None:
    """(Found by benchmarks/exactness_sweep.py.)  The walk of a one-shot search drops what
    the query cannot match, but not the remembered paths: the memory's prior is shared among
    the remembered files the index holds (``Recall.boosts``), so without them the cold
    answer gave the other remembered files bigger boosts and a remembered file's neighbours
    none, unlike the resident server and the session, which index every path
    (``test_a_new_file_next_to_recent_work_gains_too``).  Cold and warm; the count is the
    matches' alone."""
    from ffind.state.memory import Memory

    root = tmp_path / "root"
    paths = ["src/session/prompt.ts", "src/session/promise.ts", "src/session/index.ts",
             "lib/prompt.ts", "lib/promote.ts", "docs/prompting.md", "tools/main.go",
             "README.md"]
    _touch(root, *paths)
    with Memory(tmp_path / "memory.sqlite3") as memory:
        memory.record(root / "src/session/index.ts")  # (no match for "pro")
        memory.record(root / "README.md")
        opts = SearchOptions(limit=None)
        for q in ("pro", "prompt", "ts$", "pro !lib"):
            every = ffind.Index(sorted(paths)).match(q, memory=memory, root=str(root))
            for cache in (False, True, True):  # (cold, the snapshot written, then read)
                got = search(q, root, opts, memory=memory, cache=cache, server=False)
                assert [(m.score, m.path) for m in got.matches] == [
                    (m.score, m.path) for m in every], (q, cache)
                assert got.total_match_count == len(every) == search(q, root).total_match_count
