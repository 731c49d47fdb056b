"""Ranking rules, each a table with the exact expected order (ffind.scoring.scorer, one call)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ffind.engine.index import match
from ffind.scoring.scorer import (
    FileMatch,
    bonus_at,
    fuzzy,
    initials,
    initials_many,
    score_positions,
    substring,
)
from ffind.scoring.weights import Weights

# A few real paths of aider (github.com/Aider-AI/aider), copied here: every path of the
# repository that contains b, a, s, e, _, c, o, d in order, plus neighbours that do not.
AIDER = [
    "aider/coders/base_coder.py",
    "aider/coders/base_prompts.py",
    "aider/coders/editblock_coder.py",
    "aider/commands.py",
    "benchmark/benchmark.py",
    "tests/basic/test_coder.py",
    "tests/basic/test_commands.py",
]


def paths(query: str, candidates: list[str], **kw: object) -> list[str]:
    return [m.path for m in match(query, candidates, **kw)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "candidates", "expected"),
    [
        # contiguous and substring matches beat scattered ones
        ("abc", ["x/a_b_c.rs", "a/b/c.rs", "x/axbxc.rs", "x/abc.rs"],
         ["x/abc.rs", "x/a_b_c.rs", "a/b/c.rs", "x/axbxc.rs"]),
        # a match in the file name beats one spread over folders (or in a folder)
        ("util", ["util/a.rs", "u/t/i/l.rs", "src/util.rs"],
         ["src/util.rs", "util/a.rs", "u/t/i/l.rs"]),
        # prefix of the file name > word start (after _ or camel hump) > inside a word
        ("bar", ["foobar.rs", "xbar/a.rs", "foo_bar.rs", "FooBar.java", "bar.rs"],
         ["bar.rs", "foo_bar.rs", "FooBar.java", "foobar.rs", "xbar/a.rs"]),
        # '/' aligns with path separators
        ("p/t", ["apart/contest", "packages/tools"], ["packages/tools", "apart/contest"]),
        ("s/p/t", ["spt/a.rs", "a/s/b/p/c/t.rs", "src/pkg/tools.rs"],
         ["src/pkg/tools.rs", "a/s/b/p/c/t.rs"]),
        # the file, not a folder, is what prom is after
        ("prom", ["programs/main.rs", "tests/p_r_o_m.rs", "src/prom_x/a.ts",
                  "src/session/prompt.ts", "docs/promo/index.md"],
         ["src/session/prompt.ts", "src/prom_x/a.ts", "docs/promo/index.md", "tests/p_r_o_m.rs",
          "programs/main.rs"]),
        ("base_cod", AIDER,
         ["aider/coders/base_coder.py", "tests/basic/test_coder.py",
          "tests/basic/test_commands.py"]),
        # among equal matches, shorter paths first; exact ties by path ascending
        ("main", ["src/deep/main.rs", "src/main.rs", "main.rs"],
         ["main.rs", "src/main.rs", "src/deep/main.rs"]),
        ("x", ["b/x.rs", "c/x.rs", "a/x.rs"], ["a/x.rs", "b/x.rs", "c/x.rs"]),
        # a whole file name or stem beats a longer one
        ("prompt", ["src/prompt_utils.ts", "src/prompts.ts", "src/prompt.ts"],
         ["src/prompt.ts", "src/prompts.ts", "src/prompt_utils.ts"]),
        # a prefix of the file's own folder beats one of a folder further up
        ("sess", ["session/x/a.ts", "src/session/b.ts"], ["src/session/b.ts", "session/x/a.ts"]),
        # a folder match adds to a match inside the file name (the whole folder > a prefix of
        # it > none), but a prefix of the file name still comes first (measured: seeds 1-6 of
        # rank_eval.py, see match.py)
        ("view", ["b/x/preview.rs", "c/viewer/preview.rs", "a/view/preview.rs", "src/view.rs"],
         ["src/view.rs", "a/view/preview.rs", "c/viewer/preview.rs", "b/x/preview.rs"]),
        # ... and to a prefix of the file name: in the folder the term names, the file that
        # starts with it comes before its siblings that only hold it
        ("includes", ["t/includes/test_includes.yml", "a/includes_x.yml",
                      "t/includes/includes_loop.yml"],
         ["t/includes/includes_loop.yml", "t/includes/test_includes.yml", "a/includes_x.yml"]),
        ("sched", ["src/schedule.rs", "ecs/schedule/mod.rs", "ecs/schedule/schedule.rs"],
         ["ecs/schedule/schedule.rs", "src/schedule.rs", "ecs/schedule/mod.rs"]),
    ],
)
def test_ranking_rules(query: str, candidates: list[str], expected: list[str]) -> None:
    assert paths(query, candidates) == expected


def test_closed_form_name_prefix_scores_equal_the_scorer() -> None:
    # the index scores file-name prefixes in closed form, folder extras included
    cands = ["t/includes/includes_loop.yml", "includes/includes.yml", "a/inc/includes_x.yml",
             "includes_x/y/includes", "x/Includes/.includes"]
    for m in match("includes", cands):
        text = m.path.lower()
        base = text.rfind("/") + 1
        scored = fuzzy("includes", text, m.path, base, False)
        assert scored is not None and m.score == scored[0] - (32 if "/." in m.path else 0)


def test_foobar_matches_across_folders_camel_case_and_words() -> None:
    found = paths("foobar", ["src/foo/bar.rs", "FooBar.java", "foo_bar_test.py", "README.md"])
    assert sorted(found) == ["FooBar.java", "foo_bar_test.py", "src/foo/bar.rs"]


def test_smart_case() -> None:
    assert paths("DB", ["database.rs", "DB.md"]) == ["DB.md"]
    assert paths("Db", ["database.rs", "Db.md", "db.md"]) == ["Db.md"]
    assert paths("db", ["database.rs", "DB.md"]) == ["DB.md", "database.rs"]


def test_smart_case_never_leaves_the_user_empty_handed() -> None:
    assert paths("DB", ["database.rs", "src/db.rs", "README"]) == ["src/db.rs", "database.rs"]


def test_smart_normalisation() -> None:
    assert sorted(paths("cafe", ["café.txt", "cafe.md", "tea.md"])) == ["cafe.md", "café.txt"]
    assert paths("café", ["café.txt", "cafe.md"]) == ["café.txt"]
    assert paths("CAFÉ", ["CAFÉ.txt", "café.txt", "CAFE.md"]) == ["CAFÉ.txt"]
    # decomposed accents keep positions in code points
    m = match("e", ["e\u0301x"], compute_indices=True)[0]
    assert m.indices == [0]


@pytest.mark.parametrize(
    ("query", "candidates", "expected"),
    [
        ("'ab", ["a_b.rs", "xab.rs", "ab.rs"], ["ab.rs", "xab.rs"]),
        ("^src", ["a/src/x.rs", "src/a.rs", "srcs.rs"], ["srcs.rs", "src/a.rs"]),
        ("rs$", ["a.rs", "a.rs.bak", "rs.md"], ["a.rs"]),
        ("^a.rs$", ["a.rs", "b/a.rs", "a.rsx"], ["a.rs"]),
        ("rs !test", ["a.rs", "test/a.rs", "a_test.rs", "b.py"], ["a.rs"]),
        ("rs !^src", ["src/a.rs", "lib/a.rs"], ["lib/a.rs"]),
        ("rs !.rs$", ["src/a.rs", "lib/rs.md"], ["lib/rs.md"]),
        ("!'x", ["x.rs", "a.rs"], ["a.rs"]),
        ("!x", ["x.rs", "a.rs"], ["a.rs"]),
        ("\\!x", ["!x.rs", "x.rs"], ["!x.rs"]),
        ("\\'x", ["'x.rs", "x.rs"], ["'x.rs"]),
        ("\\^x", ["^x.rs", "x.rs"], ["^x.rs"]),
        ("a\\$", ["a$.rs", "a.rs"], ["a$.rs"]),
        # AND, in any order
        ("rs src", ["src/a.rs", "src/a.py", "lib/a.rs"], ["src/a.rs"]),
        ("src rs", ["src/a.rs", "src/a.py", "lib/a.rs"], ["src/a.rs"]),
    ],
)
def test_query_syntax(query: str, candidates: list[str], expected: list[str]) -> None:
    assert paths(query, candidates) == expected


def test_escaped_space_is_part_of_the_term() -> None:
    found = match("foo\\ bar", ["foo bar.txt", "foo/bar.txt", "xyz.txt"])
    assert [(m.path, m.typo) for m in found] == [("foo bar.txt", False)]


def test_typo_finds_one_edit_away_and_ranks_between_clean_and_scattered() -> None:
    cands = ["src/session/prompt.ts", "p/r/o/m/t/p.rs", "x/promotion.txt"]
    found = match("promtp", cands, compute_indices=True)
    assert [(m.path, m.typo) for m in found] == [
        ("src/session/prompt.ts", True), ("p/r/o/m/t/p.rs", False)]
    assert found[0].indices == [12, 13, 14, 15, 17]
    # a clean exact match of the same term stays above the typo match
    found = match("promtp", ["src/session/prompt.ts", "docs/promtp_notes.md"])
    assert [(m.path, m.typo) for m in found] == [
        ("docs/promtp_notes.md", False), ("src/session/prompt.ts", True)]


def test_typo_of_a_whole_name_ranks_above_a_typo_of_a_stem() -> None:
    # "ivnentory" is one edit from the file "inventory" and from the stem of
    # "inventory.py": the whole name first, though its path is longer
    cands = ["cli/inventory.py", "targets/order/inventory", "targets/other.yml"]
    found = match("ivnentory", cands)
    assert [(m.path, m.typo) for m in found] == [
        ("targets/order/inventory", True), ("cli/inventory.py", True)]
    assert found[0].score == found[1].score + 1


@pytest.mark.parametrize(
    ("typed", "name"),
    [("promtp", "prompt.ts"), ("prmpt", "prompt.ts"), ("proompt", "prompt.ts"),
     ("prompz", "prompt.ts"), ("rpompt.ts", "prompt.ts")],
)
def test_each_kind_of_edit(typed: str, name: str) -> None:
    found = match(typed, ["src/" + name, "src/other.rs"])
    assert [(m.path, m.typo) for m in found][:1] == [("src/" + name, True)] or (
        found and found[0].path == "src/" + name)


def test_short_terms_get_no_typo_pass() -> None:
    assert paths("pmo", ["src/mop.rs"]) == []


def test_hidden_paths_rank_after_visible_ones_unless_targeted() -> None:
    assert paths(".env", ["src/env.rs", ".env", "config/.env.example", "environment.md"]) == [
        ".env", "config/.env.example"]
    assert paths("config", [".config/nvim/init.lua", "src/config.rs", ".github/config.yml",
                            "config.yml"]) == ["config.yml", "src/config.rs",
                                               ".github/config.yml", ".config/nvim/init.lua"]
    assert paths("init", [".config/nvim/init.lua", "src/init.lua"]) == [
        "src/init.lua", ".config/nvim/init.lua"]
    assert paths("nvim/.init", ["nvim/.init.lua", "nvim/init.lua"]) == ["nvim/.init.lua"]


def test_empty_query_matches_everything_in_path_order() -> None:
    assert paths("", ["b", "a", "c"]) == ["b", "a", "c"]
    assert paths("  ", ["b", "a"], limit=1) == ["b"]
    assert match("", ["a"], compute_indices=True) == [FileMatch(0, "a", [], False)]


def test_several_terms_prefer_folders_then_file() -> None:
    cands = ["src/util/workspace.rs", "src/workspace/workspace.rs", "src/workspace/gc.rs"]
    assert paths("workspace workspace.rs", cands)[0] == "src/workspace/workspace.rs"
    assert paths("pause t", ["plugins/pause.yml", "targets/pause/test-pause.yml"])[0] == (
        "targets/pause/test-pause.yml")


def test_indices() -> None:
    m = match("s/p", ["src/pkg.rs"], compute_indices=True)[0]
    assert m.indices == [0, 3, 4]
    assert match("'pkg", ["src/pkg.rs"], compute_indices=True)[0].indices == [4, 5, 6]
    assert match("src pk", ["src/pkg.rs"], compute_indices=True)[0].indices == [0, 1, 2, 4, 5]
    assert match("src", ["src/pkg.rs"])[0].indices is None


# ------------------------------------------------------------------ the scorer itself
def test_bonus_at() -> None:
    p = "src/fooBar_baz.9x"
    assert [bonus_at(p, j) for j in (0, 1, 3, 4, 7, 10, 11, 15, 16)] == [9, 0, 8, 9, 7, 8, 8, 8, 0]
    assert bonus_at("a9", 1) == 7


def test_fuzzy_prefers_word_starts_and_reports_positions() -> None:
    r = fuzzy("fb", "src/foo_bar.rs", "src/foo_bar.rs", 4, True)
    assert r is not None and r[1] == [4, 8]
    assert fuzzy("xyz", "abc", "abc", 0, False) is None


def test_contiguous_inherits_the_chunk_bonus() -> None:
    a = substring("prompt", "src/prompt.ts", "src/prompt.ts", 4, False)
    b = fuzzy("prompt", "src/prompt.ts", "src/prompt.ts", 4, False)
    assert a is not None and b is not None and a[0] == b[0]


@given(st.lists(st.text(alphabet="aZ9_-./ é\0\nÉxQ", max_size=12), max_size=8))
def test_initials_of_many_paths_at_once_are_each_ones_initials(paths: list[str]) -> None:
    paths = [p.replace("\0", "") for p in paths]  # a path holds no NUL
    assert initials_many(paths) == [initials(p) for p in paths]


@given(st.lists(st.text(alphabet="aZz9A0_-./ \0\nxQ`{@[:", max_size=12), max_size=8),
       st.lists(st.text(alphabet="aZ9é/É", max_size=6), max_size=3))
def test_initials_of_many_paths_through_numpy_are_the_regexs(
    paths: list[str], more: list[str]
) -> None:
    """``initials_many`` with numpy (its bytes read as arrays) gives what the regex gives:
    ASCII paths (the letters and digits at the ends of their ranges, the characters just
    outside them: ``` { @ [ :``), then some beyond ASCII among them (read one by one)."""
    np = pytest.importorskip("numpy")
    paths = [p.replace("\0", "") for p in paths]  # a path holds no NUL
    assert initials_many(paths, np) == initials_many(paths) == [initials(p) for p in paths]
    mixed = paths + more
    assert initials_many(mixed, np) == [initials(p) for p in mixed]


def test_initials_are_the_characters_with_a_bonus() -> None:
    assert initials("aider/coders/base_coder.py") == "a/c/b_c.p"
    assert initials("FooBar9") == "fb9"
    assert initials("été/Übel") == "é/ü"


@given(st.text(alphabet="aZ9_/. -é", max_size=30))
def test_initials_hold_every_character_with_a_bonus_in_order(path: str) -> None:
    with_bonus = iter(initials(path))
    assert all(c in with_bonus
               for c in (ch.lower() for j, ch in enumerate(path) if bonus_at(path, j)))


# ------------------------------------------------------------------ the docstring's worked examples
@pytest.mark.parametrize(
    ("path", "score", "why"),
    [
        # p at a name start 2*9, r o m inherit 9 each: 45; in the name 4*6; NAME_PREFIX 24,
        # CONTIG_NAME 20
        ("src/session/prompt.ts", 64 + 45 + 24 + 24 + 20, "name prefix"),
        # the same placement in a folder: 64+45, CONTIG_PATH 10, PARENT_PREFIX 28
        ("src/prom_x/a.ts", 64 + 45 + 10 + 28, "folder prefix"),
        # p 2*9+6, r o m after '_' 8+6 each, three gaps of one -3 each
        ("tests/p_r_o_m.rs", 64 + 24 + 42 - 9, "scattered over word starts"),
    ],
)
def test_worked_examples_of_the_scorer_docstring(path: str, score: int, why: str) -> None:
    text = path.lower()
    r = fuzzy("prom", text, path, text.rfind("/") + 1, False)
    assert r is not None and r[0] == score, why
    assert [m.score for m in match("prom", [path])] == [score]


def test_score_positions_is_the_dynamic_programme_for_its_placement() -> None:
    path = "tests/p_r_o_m.rs"
    r = fuzzy("prom", path, path, 6, True)
    assert r is not None and r[1] == [6, 8, 10, 12]
    assert score_positions("prom", r[1], path, 6, path) == r[0] == 121


def test_the_scorer_follows_the_weights_it_is_given() -> None:
    w = Weights(match=10, bonus_name=0)
    # "ab" at the start of "ab": 2*10, a's bonus twice (9*2), b inherits 9; name prefix 24,
    # whole name 16, contiguous 20
    assert fuzzy("ab", "ab", "ab", 0, False, w) == (20 + 18 + 9 + 24 + 16 + 20, None)
    assert bonus_at("a_b", 2, Weights(bonus_delim=5)) == 5
