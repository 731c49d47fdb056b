"""``Bounder.refine`` (the refinement of the optimistic bounds as numpy arrays) gives the bounds
the plain stages give one after the other: ``chunks``, ``tighten_gaps``, the cut at the floor,
``tighten_starts``."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffind.engine.index import Index
from ffind.query import parse
from ffind.scoring.bounds import Bounds
from ffind.scoring.weights import DEFAULT, Weights

CORPUS = Path(__file__).parent / "data" / "corpus_paths.txt"
EXTRA = ["aaa/aaa", "a_b/A-B.c", "s/p/t", "ß/éé/straße.md", "x/y", "zz", "src/main/java/App.java"]


@cache
def index() -> Index:
    return Index(CORPUS.read_text(encoding="utf-8").splitlines() + EXTRA, numpy=False)


def plain(ix: Index, q: str, ids: list[int], bounds: list[int], floor: float
          ) -> list[tuple[int, int]]:
    query = parse(q)
    b = ix.bounder
    chunks = b.chunks(query, ids)
    ob = b.tighten_gaps(bounds, chunks)
    keep = [j for j, v in enumerate(ob) if v >= floor]
    ids, ob, chunks = [ids[j] for j in keep], [ob[j] for j in keep], [chunks[j] for j in keep]
    return list(zip(ids, b.tighten_starts(query, ids, ob, chunks), strict=True))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text("aeiost/_.-pcmAS", min_size=1, max_size=7), st.data())
def test_refine_is_the_plain_stages(term: str, data: st.DataObject) -> None:
    np = pytest.importorskip("numpy")
    ix = index()
    q = term.replace(" ", "") or "a"
    ids = sorted(data.draw(st.sets(st.integers(0, len(ix.paths) - 1), max_size=80)))
    bounds = data.draw(st.lists(st.integers(0, 400), min_size=len(ids), max_size=len(ids)))
    floor = data.draw(st.one_of(st.just(float("-inf")), st.integers(0, 400)))
    a, b = ix.bounder.refine(parse(q), ids, bounds, floor, np)
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == plain(ix, q, ids, bounds, floor)


@given(st.integers(0, 12), st.integers(0, 12), st.sampled_from([DEFAULT, Weights(gap_start=7)]))
def test_the_losses_in_bulk_are_the_scalar_ones(chunks: int, on: int, w: Weights) -> None:
    np = pytest.importorskip("numpy")
    b = Bounds(w)
    c, o = np.array([chunks]), np.array([on])
    assert int(b.gaps_loss_many(c, np)[0]) == b.gaps_loss(chunks)
    assert int(b.starts_loss_many(c, o, np)[0]) == b.starts_loss(chunks, on)
