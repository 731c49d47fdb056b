"""The compact path store (issue 17): the tables it no longer keeps (file names, stems, reversed
paths) are sliced on use exactly as they were built, and the word starts kept in blocks are the
ones ``initials_many`` gives, however they are asked for."""

from __future__ import annotations

import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from ffind.engine.prefilter import aligned_rx
from ffind.engine.store import INIT_BLOCK, PathStore, narrow_for
from ffind.query import fold
from ffind.scoring.scorer import initials_many
from ffind.scoring.weights import DEFAULT

PATHS = [
    "src/session/prompt.ts", "src/pkg/tools.rs", ".env", "a/.b.c", "x/y.", "no_ext", "top.py",
    "Ünï/Çé.TXT", "s/p/t", "src/Pkg/Tests/test_x.py", "a//b", "docs/.github/ci.yml",
    "lib/mod.rs", "FooBar/Baz9.py", "deep/er/still/file.tar.gz",
]


def _store(paths: list[str]) -> PathStore:
    st = PathStore(DEFAULT)
    st.extend(paths)
    return st


def _folded(p: str) -> str:
    return p.lower() if p.isascii() else fold(p)


def test_the_folded_path_is_the_path_itself_when_folding_changes_nothing() -> None:
    st = _store(PATHS)
    for p, f in zip(st.paths, st.folded, strict=True):
        assert f == _folded(p)
        assert (f is p) == (_folded(p) == p)
    assert isinstance(st.first["p"], array)


def test_names_and_stems_are_sliced_as_the_former_tables_held_them() -> None:
    st = _store(PATHS)
    ids = list(range(len(PATHS)))
    names = [f[b:] for f, b in zip(st.folded, st.base, strict=True)]
    stems = [nm.rpartition(".")[0] or nm for nm in names]
    assert st.names_of(ids) == names == [st.name(i) for i in ids]
    assert st.stems_of(ids) == stems == [st.stem(i) for i in ids]
    assert stems[PATHS.index(".env")] == ".env"
    assert stems[PATHS.index("deep/er/still/file.tar.gz")] == "file.tar"
    for whole, texts in ((True, names), (False, stems)):
        assert st.name_lengths(whole, ids) == [len(t) for t in texts]


def test_aligned_is_the_regex_on_the_reversed_path() -> None:
    st = _store(PATHS)
    ids = list(range(len(PATHS)))
    for fq in ["s/p/t", "s/p/", "src/p", "/", "a//b", "a/", "/b", "p/t/t", "ünï/çé", "x/y."]:
        rx = aligned_rx(fq)
        assert st.aligned(fq, ids) == [i for i in ids if rx.match(st.folded[i][::-1])], fq
    assert st.aligned("s/p/t", ids) == [PATHS.index("src/pkg/tools.rs"), PATHS.index("s/p/t")]
    assert st.aligned("p/t/t", ids) == [PATHS.index("src/Pkg/Tests/test_x.py")]


def test_word_starts_from_blocks_loose_ids_and_both() -> None:
    rng = random.Random(7)
    paths = [f"{rng.choice(['src', 'Lib', 'ünï'])}/{rng.choice(['fooBar', 'x_y', 'a.b'])}{k}"
             f"/{rng.choice(['Mod', 'test_it', 'ÇA'])}{k % 7}.py" for k in range(3 * INIT_BLOCK)]
    want = [v if v.isascii() else fold(v) for v in initials_many(paths)]
    st = _store(paths[:INIT_BLOCK + 100])
    asks = 0
    for step in range(30):
        n = len(st)
        ids = sorted(rng.sample(range(n), rng.choice([1, 50, 700, n // 2])))
        if step % 3 == 0:
            rng.shuffle(ids)
        assert st.initials(ids) == [want[i] for i in ids]
        asks += 1
        if step == 5:
            st.build_initials(INIT_BLOCK // 2)  # takes the loose ids asked for already
        if step == 12:
            st.extend(paths[len(st):])
            st.build_initials(2 * INIT_BLOCK + 5)
        if step == 20:
            st.build_initials(len(st))
    assert asks == 30
    assert st.initials_len() == len(paths)
    assert st.built()["initials"] == len(paths)
    assert st.initials(list(range(len(paths)))) == want


@given(st_.lists(st_.text(st_.sampled_from("aZ/_.9é日\x7fk"), min_size=1, max_size=12),
                 min_size=1, max_size=40),
       st_.text(st_.sampled_from("az/_.9é日\x7fk"), min_size=1, max_size=4))
@settings(max_examples=150, deadline=None)
def test_word_start_blocks_stay_ascii_and_score_an_ascii_term_as_the_exact_ones(
    paths: list[str], term: str
) -> None:
    """A character beyond ASCII is ``NARROW`` in the blocks (one byte a character): asked with
    no term, or with one ``narrow_for`` refuses, the word starts are the exact ones; with an
    ASCII term without ``NARROW``, their longest common subsequence with it is the same."""
    from rapidfuzz.distance import LCSseq

    store = _store(paths)
    want = [v if v.isascii() else fold(v) for v in initials_many(paths)]
    store.build_initials(len(paths) // 2)  # (the rest loose, computed on demand)
    ids = list(range(len(paths)))
    assert store.initials(ids) == want
    assert store.initials_block(0)[:len(want)] == want[:store.initials_len()]
    got = store.initials(ids, term)
    block = store.initials_block(0, term)
    if not narrow_for(term):
        assert got == want and block == want[:store.initials_len()]
    assert [LCSseq.similarity(term, v) for v in got] == [
        LCSseq.similarity(term, v) for v in want]
    assert [LCSseq.similarity(term, v) for v in block] == [
        LCSseq.similarity(term, v) for v in want[:len(block)]]
    store.build_initials(len(paths))
    assert all(b.isascii() for b in store._iblocks)
    assert store.initials(ids) == want


def test_warm_ends_when_no_penalty_table_is_needed() -> None:
    from ffind.engine.index import Index

    ix = Index(["a/b.py", "c/d/e.rs"])  # no hidden path, and the default weights
    assert DEFAULT.len_name == 0  # (so neither penalty table is built)
    assert sum(1 for _ in ix.warm(step=1)) < 20
    assert ix.store.built()["penalties"] == 2


def test_aligned_on_a_first_letter_table_is_kept_until_the_table_grows() -> None:
    st = _store(PATHS)
    table = st.first["t"]
    first = st.aligned("s/p/t", table)
    assert first == st.aligned("s/p/t", table) == [PATHS.index("src/pkg/tools.rs"),
                                                    PATHS.index("s/p/t")]
    assert st.aligned("p/t/t", st.first["t"]) == [PATHS.index("src/Pkg/Tests/test_x.py")]
    st.extend(["sub/py/tests.py", "sub/py/other.py"])
    assert st.aligned("s/p/t", st.first["t"]) == [*first, len(PATHS)]
    assert st.aligned("s/p/t", list(st.first["t"])) == [*first, len(PATHS)]


def test_names_kept_while_small_and_sliced_past_it() -> None:
    from ffind.engine.store import PathStore
    from ffind.engine.tuning import Tuning

    kept = _store(PATHS)
    small = PathStore(DEFAULT, Tuning(names_upto=10))
    small.extend(PATHS[:8])
    ids = list(range(8))
    assert small._names is not None and small.names_of(ids) == kept.names_of(ids)
    assert small.stems_of(ids) == kept.stems_of(ids)
    small.extend(PATHS[8:])  # past 10 paths: no longer kept
    assert small._names is None and small._stems is None
    ids = list(range(len(PATHS)))
    assert small.names_of(ids) == kept.names_of(ids) == [kept.name(i) for i in ids]
    assert small.stems_of(ids) == kept.stems_of(ids) == [kept.stem(i) for i in ids]


def _narrowest(np: object, values: list[int]) -> str:
    """The narrowest of uint8, int16 and int32 that holds every value of ``values``."""
    if all(0 <= v <= 255 for v in values):
        return "uint8"
    return "int16" if all(-32768 <= v <= 32767 for v in values) else "int32"


@pytest.mark.parametrize("long_at", [None, 0, 3])
@pytest.mark.parametrize("longest", [40, 300, 40000])
def test_numpy_tables_are_at_their_narrowest_until_a_value_needs_more(
        long_at: int | None, longest: int) -> None:
    """``offsets``, ``lengths`` and ``path_lengths`` (issue 17): uint8 while every value is
    0-255, int16 while it fits, int32 once a path of 32,768 characters or more arrives (at
    the start, or grown into: ``np.concatenate`` widens), the same values either way."""
    np = pytest.importorskip("numpy")
    paths = list(PATHS)
    if long_at == 0:
        paths.insert(0, "d" * longest + "/f.py")
    st = _store(paths)

    def tables() -> list[object]:
        return [*st.offsets(np), st.path_lengths(np), st.lengths(True, np),
                st.lengths(False, np)]

    def want() -> list[list[int]]:
        ids = range(len(st.paths))
        return [st.base, st.pstart, [len(x) for x in st.paths], st.name_lengths(True, ids),
                st.name_lengths(False, ids)]

    for arr, values in zip(tables(), want(), strict=True):
        assert arr.tolist() == values  # type: ignore[attr-defined]
        assert str(arr.dtype) == _narrowest(np, values)  # type: ignore[attr-defined]
    if long_at == 3:  # grown: a part that needs a wider type widens the table
        st.extend(["e" * longest + "/g.py", "h/i.py"])
    for arr, values in zip(tables(), want(), strict=True):
        assert arr.tolist() == values  # type: ignore[attr-defined]
        assert str(arr.dtype) == _narrowest(np, values)  # type: ignore[attr-defined]


@settings(max_examples=100, deadline=None)
@given(st_.lists(st_.sampled_from([0, 1, 5, 254, 255, 256, 300, 32767, 32768, 40000]),
                 min_size=1, max_size=6), st_.lists(st_.integers(1, 8), max_size=3))
def test_tables_grown_in_parts_hold_every_value_at_their_narrowest(
        dirs: list[int], cuts: list[int]) -> None:
    """Built up to each cut and then to the end, the tables hold the per-path values in the
    narrowest type of the whole (``narrow``: each part narrowed, joined by promotion)."""
    import numpy as np

    paths = [("d" * k + "/" if k else "") + "n" * (1 + j % 3) + ".py"
             for j, k in enumerate(dirs)]
    paths += ["a/b/c.py", "x"]
    st = _store(paths)
    for c in sorted(cuts):
        st.offsets(np, c)
        st.path_lengths(np, c)
        st.lengths(True, np, c)
    ids = range(len(paths))
    for arr, values in ((st.offsets(np)[0], st.base), (st.offsets(np)[1], st.pstart),
                        (st.path_lengths(np), [len(p) for p in paths]),
                        (st.lengths(True, np), st.name_lengths(True, ids))):
        assert arr.tolist() == values
        assert str(arr.dtype) == _narrowest(np, values)


@pytest.mark.parametrize("len_name", [0, 2])
def test_penalties_of_some_ids_are_those_of_every_id_taken_there(len_name: int) -> None:
    np = pytest.importorskip("numpy")
    import dataclasses

    st = PathStore(dataclasses.replace(DEFAULT, len_name=len_name))
    st.extend(PATHS)
    at = np.array([3, 0, 9, 9, len(PATHS) - 1], dtype=np.int64)
    for hidden_ok in (False, True):
        every = st.penalties_array(hidden_ok, np)
        assert every.tolist() == [st.penalty(i, hidden_ok) for i in range(len(PATHS))]
        got = st.penalties_array(hidden_ok, np, at)
        assert got.dtype == np.int64 and got.tolist() == every[at].tolist()
    assert st.penalties_array(False, np).tolist() != [0] * len(PATHS)  # (".env" is hidden)


def _a_name(p: str) -> bool:
    """A path with a file name (not ending with ``/``)."""
    return not p.endswith("/")


@settings(max_examples=80, deadline=None)
@given(st_.lists(st_.text("ab./_éA-", min_size=1, max_size=12).filter(_a_name), min_size=1,
                 max_size=30),
       st_.lists(st_.text("ab./_", min_size=1, max_size=12).filter(_a_name), max_size=10),
       st_.sampled_from([1, 3, 16000]), st_.randoms(use_true_random=False))
def test_name_heads_are_read_from_the_paths(
    paths: list[str], more: list[str], cap: int, rng: random.Random
) -> None:
    """``name_heads``: per id asked (in any order, again, after the store grew), whether the
    path's file name starts with a letter or digit and where its first dot is (-1 none,
    ``DOT_CAP`` that far or farther), as read from the path itself."""
    np = pytest.importorskip("numpy")
    from ffind.engine import tables

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tables, "DOT_CAP", cap)
        st = _store(paths)
        for batch in range(4):
            if batch == 2:
                st.extend(more)
            ids = [rng.randrange(len(st.paths)) for _ in range(rng.randrange(1, 20))]
            alnum, dot = st.name_heads(np.array(ids, dtype=np.int64), np)
            for i, a, d in zip(ids, alnum.tolist(), dot.tolist(), strict=True):
                p, b = st.paths[i], st.base[i]
                assert a == p[b].isalnum()
                at = p.find(".", b)
                assert d == (-1 if at < 0 else min(at - b, cap)), (p, cap)


@settings(max_examples=200, deadline=None)
@given(st_.lists(st_.text(st_.sampled_from("aZ/_..9éßÉ\u0301ﬁ\udcffİ\n"), min_size=1,
                          max_size=12), min_size=0, max_size=40),
       st_.lists(st_.integers(0, 45), max_size=4))
def test_lengths_in_arrays_equal_the_per_path_lengths(paths: list[str], cuts: list[int]) -> None:
    """``lengths`` (built in whole-array arithmetic, up to each cut and then to the end)
    equals the per-path ``name_lengths``, value for value and in its narrowed dtype: paths
    whose folded form is longer or shorter than the path (``ß``, a combining accent), dots
    first, last or none in the name, empty names."""
    import numpy as np

    from ffind.engine.tables import narrow

    st = _store(paths)
    for whole in (False, True):
        for c in sorted(cuts):
            st.lengths(whole, np, c)
        got = st.lengths(whole, np)
        want = st.name_lengths(whole, range(len(paths)))
        assert got.tolist() == want
        assert got.dtype == narrow(np, np.array(want, dtype=np.int32)).dtype


@settings(max_examples=200, deadline=None)
@given(st_.lists(st_.text(st_.sampled_from("aZ/_..9éßÉ\u0301ﬁ\udcffİ\n"), min_size=1,
                          max_size=12), min_size=1, max_size=40),
       st_.integers(1, 7), st_.data())
def test_lengths_read_from_the_buffer_equal_the_per_path_lengths(
        paths: list[str], size: int, data: st_.DataObject) -> None:
    """``lengths`` read from the folded paths' buffer (slices of any size, built up to any
    id, the rest computed from the strings), grown in steps, equals ``name_lengths``."""
    import numpy as np

    from ffind.engine.occur import FoldedBuffer

    st = _store(paths)
    n = len(paths)
    buf = FoldedBuffer(np, size)
    assert buf.sync(st.folded, data.draw(st_.integers(0, n)))
    cuts = sorted(data.draw(st_.lists(st_.integers(0, n), max_size=3)))
    for whole in (False, True):
        for c in cuts:
            st.lengths(whole, np, c, buf.slices)
        got = st.lengths(whole, np, None, buf.slices)
        assert got.tolist() == st.name_lengths(whole, range(n))


def _old_build_initials(store: PathStore, upto: int) -> None:
    """``PathStore.build_initials`` as it was (a Python step a path): the reference."""
    import re

    from ffind.engine.store import _INIT_MASK, INIT_SHIFT, NARROW

    upto = min(upto, len(store.paths))
    ends, blocks, loose = store._iends, store._iblocks, store._iloose
    while len(ends) < upto:
        s = len(ends)
        e = min((s | _INIT_MASK) + 1, upto)
        if loose:
            need = [i for i in range(s, e) if i not in loose]
            if need:
                store._add_loose(need)
            vals = [loose.pop(i) for i in range(s, e)]
        else:
            vals = [v if v.isascii() else fold(v) for v in initials_many(store.paths[s:e])]
        k = s >> INIT_SHIFT
        off = ends[s - 1] + 1 if s & _INIT_MASK else 0
        for v in vals:
            off += len(v)
            ends.append(off)
            off += 1
        text = "\0".join(vals) + "\0"
        if not text.isascii():
            for j, (i, v) in enumerate(zip(range(s, e), vals, strict=True)):
                if not v.isascii():
                    store._iwide[i] = v
                    vals[j] = re.sub("[^\x00-\x7f]", NARROW, v)
            text = "\0".join(vals) + "\0"
        if k < len(blocks):
            blocks[k] += text
        else:
            blocks.append(text)


@settings(max_examples=200, deadline=None)
@given(numpy=st_.booleans(),
       paths=st_.lists(st_.text(st_.sampled_from("aZ/_.9é日\x7fkB-"), min_size=1, max_size=10),
                       min_size=1, max_size=60),
       cuts=st_.lists(st_.integers(0, 60), max_size=4),
       asked=st_.lists(st_.integers(0, 59), max_size=5))
def test_word_start_blocks_equal_the_former_build(
    numpy: bool, paths: list[str], cuts: list[int], asked: list[int]
) -> None:
    """The blocks, their ends and the wide word starts built in steps (``cuts``, with some ids
    computed ahead, loose: ``asked``), with numpy or without, equal the former build's, in
    blocks of 16 ids."""
    from ffind.engine import store as store_mod

    saved = {k: getattr(store_mod, k)
             for k in ("INIT_SHIFT", "INIT_BLOCK", "_INIT_MASK", "loaded_numpy")}
    store_mod.INIT_SHIFT, store_mod.INIT_BLOCK, store_mod._INIT_MASK = 4, 16, 15
    if not numpy:
        store_mod.loaded_numpy = lambda: None
    try:
        if numpy:
            import numpy as np

            assert store_mod.loaded_numpy() is np
        new, old = _store(paths), _store(paths)
        ids = sorted({i for i in asked if i < len(paths)})
        if ids:
            assert new.initials(ids) == old.initials(ids)
        for c in [*sorted(cuts), len(paths)]:
            new.build_initials(c)
            _old_build_initials(old, c)
            assert new._iblocks == old._iblocks
            assert new._iends == old._iends
            assert new._iwide == old._iwide
    finally:
        for k, v in saved.items():
            setattr(store_mod, k, v)
