"""The public entry points of the engine refuse wrong arguments, naming them (``ffind.match``,
``Index``), instead of iterating a string's characters or answering ``[]``."""

from __future__ import annotations

import pytest

import ffind
from ffind.engine.index import Index
from ffind.engine.tuning import Tuning
from ffind.scoring.weights import Weights


def test_match_refuses_a_string_of_candidates() -> None:
    with pytest.raises(TypeError, match="candidates"):
        ffind.match("a", "src/a.py")  # type: ignore[arg-type]


def test_extend_refuses_a_string() -> None:
    ix = Index()
    with pytest.raises(TypeError, match="paths"):
        ix.extend("abc")
    with pytest.raises(TypeError, match="paths"):
        Index("abc")
    assert len(ix) == 0


def test_extend_refuses_what_is_not_a_str_and_keeps_the_index_whole() -> None:
    ix = Index(["a/b.py"])
    with pytest.raises(TypeError, match="paths"):
        ix.extend(["c.py", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="paths"):
        ix.extend([b"c.py"])  # type: ignore[list-item]
    assert ix.paths == ["a/b.py"] and ix.match("b")[0].path == "a/b.py"


def test_extend_a_slice_at_a_time_makes_the_same_index() -> None:
    """``Index.extend`` gives its store a ``Tuning.chunk`` of paths at a time: the same tables
    and answers as one batch (hidden and non-ASCII paths in later slices too), and a path
    that is not a str in any slice leaves the index as it was."""
    paths = ["src/a.py", "src/B.py", ".hidden/c.py", "docs/Ünï.md", "d/e/f.txt", "x.py", "README"]
    whole = Index(paths)
    sliced = Index(paths, tuning=Tuning(chunk=2))
    st_w, st_s = whole.store, sliced.store
    assert (st_s.paths, st_s.folded, st_s.base, st_s.pstart, bytes(st_s.hidden)) == (
        st_w.paths, st_w.folded, st_w.base, st_w.pstart, bytes(st_w.hidden))
    assert st_s.first == st_w.first and st_s.parent_first == st_w.parent_first
    for q in ["a", "un", ".hid", "readme", "ef"]:
        assert sliced.match(q) == whole.match(q), q
    with pytest.raises(TypeError, match="paths"):
        sliced.extend(["y.py", "z.py", "w.py", 3])  # type: ignore[list-item]
    assert sliced.paths == paths


@pytest.mark.parametrize("limit", [-5, -1])
def test_a_negative_limit_is_refused(limit: int) -> None:
    with pytest.raises(ValueError, match="limit"):
        ffind.match("a", ["a.py"], limit=limit)
    ix = Index(["a.py"])
    with pytest.raises(ValueError, match="limit"):
        ix.match("a", limit=limit)
    with pytest.raises(ValueError, match="limit"):
        ix.top(ix.run("a"), limit)


def test_a_limit_that_is_not_an_int_is_refused() -> None:
    with pytest.raises(TypeError, match="limit"):
        ffind.match("a", ["a.py"], limit="3")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="limit"):
        ffind.match("a", ["a.py"], limit=True)


def test_a_query_that_is_not_a_str_is_refused() -> None:
    with pytest.raises(TypeError, match="query"):
        ffind.match(None, ["a.py"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="query"):
        Index(["a.py"]).run(None)  # type: ignore[arg-type]


def test_limit_zero_is_every_match_as_the_command_and_generators_still_work() -> None:
    """0 is every match (as the command's ``-l 0``), like ``None``; a negative limit is
    refused."""
    paths = ["a.py", "b.a", "c"]
    assert [m.path for m in ffind.match("a", paths, limit=0)] == ["a.py", "b.a"]
    assert [m.path for m in Index(paths).match("a", limit=0)] == ["a.py", "b.a"]
    assert ffind.SearchOptions(limit=0).limit is None
    for call in (lambda: ffind.match("a", paths, limit=-1),
                 lambda: Index(paths).match("a", limit=-1)):
        with pytest.raises(ValueError, match=r"at least 0, not -1 \(0 or None: every match\)"):
            call()
    with pytest.raises(ValueError, match=r"at least 0, not -1 \(0 or None: every match\)"):
        ffind.SearchOptions(limit=-1)
    assert [m.path for m in ffind.match("a", paths, limit=None)] == ["a.py", "b.a"]
    assert [m.path for m in ffind.match("a", (p for p in ["a.py", "b.py"]))] == ["a.py"]


def test_weights_and_numpy_are_per_index() -> None:
    plain = Index(["src/prompt.ts"], numpy=False)
    other = Index(["src/prompt.ts"], weights=Weights(name_prefix=0))
    assert plain.match("prom")[0].score - other.match("prom")[0].score == 24
    assert not plain.numpy_ready(0)  # numpy=False: never used by this index
    with pytest.raises(TypeError, match="weights"):
        Index(weights={"match": 3})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="numpy"):
        Index(numpy="yes")  # type: ignore[arg-type]


def test_an_undecodable_name_does_not_stop_the_warm_up() -> None:
    """A name with an invalid byte reaches the index surrogate-escaped (``\\udcff``); building
    the tables ahead of the keystrokes (letter masks included) must take it."""
    import numpy  # noqa: F401  (the warm-up builds its numpy tables only once numpy is in)

    paths = [f"d{i % 50}/f{i}.txt" for i in range(6000)] + ["bad\udcff.txt"]
    index = Index(paths, numpy=True)
    for _ in index.warm():
        pass
    assert [m.path for m in index.match("bad", limit=1)] == ["bad\udcff.txt"]
