"""``batch.fuzzy_many`` gives exactly ``scorer.fuzzy``'s scores, candidate by candidate."""

from __future__ import annotations

import glob
import os
import random
from collections.abc import Sequence
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.query import fold
from ffind.scoring.batch import BLOCK_CELLS, fuzzy_many
from ffind.scoring.scorer import fuzzy

CORPUS = "/work/shared/corpus/paths"


def expected(key: str, texts: Sequence[str], origs: Sequence[str],
             bases: Sequence[int]) -> list[int | None]:
    out: list[int | None] = []
    for t, o, b in zip(texts, origs, bases, strict=True):
        r = fuzzy(key, t, o, b, False)
        out.append(None if r is None else r[0])
    return out


def check(key: str, origs: list[str], folded: bool = True) -> list[int | None]:
    texts = [fold(p) for p in origs] if folded else list(origs)
    bases = [p.rfind("/") + 1 for p in origs]
    got = fuzzy_many(key, texts, origs, bases)
    assert got == expected(key, texts, origs, bases)
    return got


@lru_cache(maxsize=1)
def real_paths() -> tuple[str, ...]:
    """Paths of real repositories: the benchmark corpus when present, else this checkout."""
    files = sorted(glob.glob(os.path.join(CORPUS, "*.txt")))
    out: list[str] = []
    for name in files:
        with open(name, encoding="utf-8") as f:
            out.extend(line for line in f.read().splitlines() if line)
    if not out:
        top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for d, dirs, fs in os.walk(top):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            out.extend(os.path.relpath(os.path.join(d, f), top) for f in fs)
    return tuple(sorted(out))


PATH_CHARS = "abAB9_-./ é É\u00df"
paths_st = st.lists(st.text(alphabet=PATH_CHARS, min_size=1, max_size=24), min_size=1,
                    max_size=12)
key_st = st.text(alphabet="ab9_-./ éB", min_size=1, max_size=6)


@settings(max_examples=400, deadline=None)
@given(paths_st, key_st)
def test_random_paths_folded(paths: list[str], key: str) -> None:
    check(fold(key), paths)


@settings(max_examples=200, deadline=None)
@given(paths_st, key_st)
def test_random_paths_case_sensitive(paths: list[str], key: str) -> None:
    # a case-sensitive term is compared with the path as it is
    check(key, paths, folded=False)


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 7), st.integers(0, 2))
def test_real_paths(rng: random.Random, m: int, noise: int) -> None:
    """A query drawn from one real path (a subsequence, plus a few random characters), scored
    over a sample that holds that path."""
    pool = real_paths()
    sample = [rng.choice(pool) for _ in range(40)]
    src = fold(rng.choice(sample))
    picks = sorted(rng.sample(range(len(src)), min(m, len(src))))
    key = list("".join(src[j] for j in picks))
    for _ in range(noise):
        key.insert(rng.randrange(len(key) + 1), rng.choice("aeirst_/."))
    got = check("".join(key), sample)
    if noise == 0:
        assert got[sample.index(next(p for p in sample if fold(p) == src))] is not None


def test_many_blocks_and_long_paths() -> None:
    """More candidates than one block holds, of very different lengths."""
    rng = random.Random(17)
    pool = real_paths()
    sample = [rng.choice(pool) for _ in range(3000)]
    sample += ["a/" * 300 + "base_coder.py", "x" * 900, "Base/Coder/Test.java"]
    assert sum(map(len, sample)) > 2 * BLOCK_CELLS
    for key in ["base", "s/p/t", "test", "c", "bc", "ab/"]:
        check(key, sample)


def test_edges() -> None:
    assert fuzzy_many("ab", [], [], []) == []
    check("a", ["", "a", "A", "/a", "b/a"])
    check("", ["a", "b/c"])
    check("ab", ["aXb/ab", "a/b", "ab.ab", "x/ab/ab", "AB"], folded=False)
    # a file name that is not UTF-8 (surrogate escapes) and characters outside the BMP
    check("ab", ["x\udcff/ab", "\udcffa\udcffb", "\U0001f600a/b\U0001f600b"])
    check("\udcff", ["x\udcff/ab", "\udcffa"])
