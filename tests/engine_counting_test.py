"""The count table (``ffind.engine.counting``, issue 14): its count of any query equals
``len(Index.run(query))``, the count the picker shows."""

from __future__ import annotations

from hypo_paths import SETTINGS
from hypothesis import given
from hypothesis import strategies as st

from ffind.engine.counting import CountTable
from ffind.engine.index import Index
from ffind.query import parse

# (few letters, so that terms and names meet; capitals, accents, dots, a ligature that
# folds to two letters, and a character beyond latin-1)
component = st.text(alphabet="abcdAB_-.éﬁ中", min_size=1, max_size=7)
some_paths = st.lists(st.lists(component, min_size=1, max_size=5).map("/".join),
                      min_size=0, max_size=40)
word = st.text(alphabet="abcdAB_.éﬁ/中", min_size=1, max_size=7)
term = st.tuples(st.sampled_from(["", "!", "^", "'", "!^", "!'"]), word,
                 st.sampled_from(["", "", "", "$"])).map("".join)
query = st.lists(term, min_size=1, max_size=3).map(" ".join)


def built(paths: list[str], step: int) -> tuple[Index, CountTable]:
    index = Index(paths, numpy=True)
    index.numpy_ready()
    table = CountTable(index.store)
    for _ in table.build(step):
        pass
    return index, table


def typo_of(name: str, how: int, at: int) -> str:
    """``name`` one edit away: a neighbour swap, a letter dropped, replaced or added."""
    at = at % max(len(name), 1)
    if how == 0 and len(name) > 1:
        at = min(at, len(name) - 2)
        return name[:at] + name[at + 1] + name[at] + name[at + 2:]
    if how == 1:
        return name[:at] + name[at + 1:]
    if how == 2:
        return name[:at] + "z" + name[at + 1:]
    return name[:at] + "z" + name[at:]


@SETTINGS
@given(some_paths, query, st.integers(1, 7))
def test_the_count_is_the_match_sets(paths: list[str], q: str, step: int) -> None:
    index, table = built(paths, step)
    got = table.count(q)
    want = len(index.run(q))
    if any(not t.negate and t.kind.value == "fuzzy" and len(t.folded) <= 7
           for t in parse(q).terms):
        assert got == want  # (a fuzzy term of a few characters: always counted here)
    else:
        assert got is None or got == want


@SETTINGS
@given(some_paths, st.data(), st.integers(0, 3), st.integers(0, 9),
       st.sampled_from(["", " !b", " !^a", " !.", "", " !'é"]))
def test_typo_matches_are_counted_once(paths: list[str], data: st.DataObject, how: int,
                                      at: int, negation: str) -> None:
    """A lone term one edit from a name or stem (``TYPO_MIN`` characters or more), with or
    without negations: the typo matches that are not exact matches too are counted."""
    index, table = built(paths, 3)
    names = [p.rsplit("/", 1)[-1] for p in paths]
    name = data.draw(st.sampled_from(names)) if names else "abcd"
    stem = data.draw(st.sampled_from([name, name.split(".")[0] or name]))
    typo = typo_of((stem * 4)[:max(len(stem), 4)], how, at).replace(" ", "")
    q = typo + negation
    assert table.count(q) == len(index.run(q))


def test_counts_typo_only_matches_and_the_case_fallback() -> None:
    paths = ["src/main.py", "src/mian.rs", "docs/Readme.md", "a/readme.txt", "a/b/c/config.toml",
             "x/ﬁle.md", "x/file.md"]
    index, table = built(paths, 2)
    for q in ["mian", "maim", "Readme", "README", "readme !txt", "conf ^a/", "file",
              "ﬁle", "src main", "b/c", "e md$"]:
        want = len(index.run(q))
        assert table.count(q) == want, q
    assert table.count("maim") == 1  # (a typo match only: main.py)
    assert table.count("^src") is None  # (no fuzzy term: counted the usual way)


def test_a_table_counts_only_the_store_it_was_built_over() -> None:
    index, table = built(["a/main.py", "b/main.py"], 1)
    assert table.ready and table.count("main") == 2
    index.extend(["c/main.py"])
    assert not table.ready and table.count("main") is None
    fresh = CountTable(index.store)
    assert not fresh.ready and fresh.count("main") is None  # (not built yet)
