"""fzf's extended query syntax, case by case from fzf's own tests (``src/pattern_test.go``,
``src/algo/algo_test.go``, ``test/test_filter.rb`` in junegunn/fzf), through the command
(``--stdin``), the library (``ffind.match``) and, for a folder, the resident server.

Each case gives the lines, the query, the matches fzf's test expects (fzf's order) and
ffind's exact order of the same matches (ffind ranks by its own scores: ties by length, then
path)."""

from __future__ import annotations

from pathlib import Path

import pytest
from both_ways import ffind, ffind_both

import ffind as lib

SEQ10 = [str(i) for i in range(1, 11)]
BOUNDARY = ["xxyzx", "-xxyz", "xyzx-", "_xyz_", "_xyz-", "-xyz_", "[xyz]", "-xyz-", " xyz ",
            "/xyz/"]
"""test_filter.rb's test_boundary_match input."""

CASES: list[tuple[str, list[str], str, list[str], list[str]]] = [
    # (name, lines, query, fzf's expected matches, ffind's order)
    ("or", SEQ10, "1 | 5", ["1", "5", "10"], ["1", "5", "10"]),
    ("or with its own negation", SEQ10, "1 | !1",
     ["1", "10", "2", "3", "4", "5", "6", "7", "8", "9"],
     ["1", "10", "2", "3", "4", "5", "6", "7", "8", "9"]),
    ("and of a term and an or group", ["core/a.go", "core/b.rb", "core/c.py", "core/d.js",
                                       "lib/e.go"],
     "^core go$ | rb$ | py$", ["core/a.go", "core/b.rb", "core/c.py"],
     ["core/a.go", "core/b.rb", "core/c.py"]),
    ("or of mixed kinds", ["hhh", "iii", "iiihhh", "abc"], "!hhh$ | ^iii$", ["iii", "abc"],
     ["iii", "abc"]),
    ("a trailing bar is ignored", ["foo", "bar"], "foo |", ["foo"], ["foo"]),
    ("exact boundary", BOUNDARY, "'xyz'",
     [" xyz ", "/xyz/", "[xyz]", "-xyz-", "-xyz_", "_xyz-", "_xyz_"],
     ["/xyz/", " xyz ", "-xyz-", "-xyz_", "[xyz]", "_xyz-", "_xyz_"]),
    ("prefix skips leading whitespace", [" fooBar", "fooBarbaz ", "barfoo"], "^foo",
     [" fooBar", "fooBarbaz "], ["fooBarbaz ", " fooBar"]),
    ("suffix skips trailing whitespace", [" fooBar", "fooBarbaz ", "bazfoo"], "baz$",
     ["fooBarbaz "], ["fooBarbaz "]),
    ("equal skips both", ["ABC", "AbC", "AbC  ", " AbC ", "  AbC", "xAbC"], "^AbC$",
     ["AbC", "AbC  ", " AbC ", "  AbC"], ["AbC", "AbC  ", "  AbC", " AbC "]),
    ("inverse fuzzy", ["foo", "f_o_o", "bar"], "!'foo", ["bar"], ["bar"]),
    ("inverse exact", ["foo", "f_o_o", "bar"], "!foo", ["f_o_o", "bar"], ["f_o_o", "bar"]),
]
IDS = [c[0] for c in CASES]


def test_each_case_finds_what_fzf_finds() -> None:
    for name, _, _, fzf, ours in CASES:
        assert sorted(ours) == sorted(fzf), name


@pytest.mark.parametrize(("name", "lines", "query", "fzf", "ours"), CASES, ids=IDS)
def test_library(name: str, lines: list[str], query: str, fzf: list[str],
                 ours: list[str]) -> None:
    assert [m.path for m in lib.match(query, lines)] == ours
    assert [m.path for m in lib.match(query, lines, limit=0)] == ours


@pytest.mark.parametrize(("name", "lines", "query", "fzf", "ours"), CASES, ids=IDS)
def test_command_stdin(name: str, lines: list[str], query: str, fzf: list[str],
                       ours: list[str]) -> None:
    proc = ffind("--stdin", "-l", "0", "--", query, input="".join(f"{x}\n" for x in lines)
                 .encode())
    assert proc.returncode == 0, proc.stderr
    # (with nothing to score, only negations, the command lists in path order)
    unscored = all(w[0] == "!" for w in query.split())
    assert proc.stdout.decode().splitlines() == (sorted(ours) if unscored else ours)


@pytest.mark.parametrize(("query", "indices"), [
    ("^foo", [1, 2, 3]),  # algo_test.go: PrefixMatch " fooBar" "foo" -> 1..4
    ("baz$", [6, 7, 8]),  # SuffixMatch "fooBarbaz " "baz" -> 6..9
])
def test_anchored_positions_skip_the_whitespace(query: str, indices: list[int]) -> None:
    lines = [" fooBar"] if query == "^foo" else ["fooBarbaz "]
    assert lib.match(query, lines, compute_indices=True)[0].indices == indices


def test_equal_positions_skip_the_whitespace() -> None:
    """pattern_test.go's TestEqual: ``^AbC$`` on ``  AbC`` is 2..5, on `` AbC `` 1..4."""
    got = {m.path: m.indices for m in lib.match("^AbC$", ["  AbC", " AbC ", "AbC  ", "ABC"],
                                                compute_indices=True)}
    assert got == {"  AbC": [2, 3, 4], " AbC ": [1, 2, 3], "AbC  ": [0, 1, 2]}


def test_a_group_highlights_its_best_alternative() -> None:
    [m] = lib.match("zz | prom", ["src/prompt.ts"], compute_indices=True)
    assert m.indices == [4, 5, 6, 7]


def test_a_folder_searched_through_the_server_and_without(tmp_path: Path) -> None:
    files = ["core/a.go", "core/b.rb", "core/c.py", "core/d.js", "lib/e.go", "src/app.rs",
             "xsrc/main.rs", "src_old/lib.rs"]
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    proc = ffind_both("^core go$ | rb$ | py$", cwd=tmp_path)
    assert proc.stdout.decode().splitlines() == ["core/a.go", "core/b.rb", "core/c.py"]
    proc = ffind_both("'src' rs$", cwd=tmp_path)
    assert proc.stdout.decode().splitlines() == ["src/app.rs", "src_old/lib.rs"]
