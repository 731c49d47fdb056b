"""ffind.fs.ignore: one rule kind at a time, against git's documented meaning (gitignore(5))."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffind.errors import FfindError
from ffind.fs.ignore.patterns import Rules, _git_trim, compile_globs, load_file
from ffind.fs.ignore.scope import above_root_gitignores
from ffind.fs.ignore.wildmatch import wildmatch
from ffind.state.git import default_excludes_file, excludes_file, find_repo_top


def match_path(rules: Rules, path: str, *, is_dir: bool = False) -> bool | None:
    """The decision for a whole path as a walk makes it: True if one of its folders is
    ignored, else ``rules.match`` of the entry itself."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        if rules.match("/".join(parts[:i]) + "/", parts[i - 1], True):
            return True
    return rules.match(path + "/" if is_dir else path, parts[-1], is_dir)


def ignored(lines: list[str], path: str) -> bool | None:
    """Rules(lines).match for an entry path; a trailing '/' marks a folder."""
    is_dir = path.endswith("/")
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return Rules(lines).match(path, name, is_dir)


@pytest.mark.parametrize(("lines", "path", "expected"), [
    # a name without a slash matches at any depth, files and folders
    (["foo"], "foo", True),
    (["foo"], "a/b/foo", True),
    (["foo"], "a/foo/", True),
    (["foo"], "foobar", None),
    # a leading slash anchors to the folder of the file
    (["/foo"], "foo", True),
    (["/foo"], "a/foo", None),
    # a slash in the middle anchors too
    (["a/foo"], "a/foo", True),
    (["a/foo"], "x/a/foo", None),
    # a trailing slash: folders only
    (["foo/"], "foo/", True),
    (["foo/"], "foo", None),
    (["foo/"], "a/foo/", True),
    # negation: the last matching line wins
    (["*.log", "!keep.log"], "keep.log", False),
    (["*.log", "!keep.log"], "x.log", True),
    (["!keep.log", "*.log"], "keep.log", True),
    # '*' and '?' do not cross '/'; '**' does
    (["a/*"], "a/b", True),
    (["a/*"], "a/b/c", None),
    (["a/?"], "a/b", True),
    (["a/?"], "a/bc", None),
    (["**/foo"], "x/y/foo", True),
    (["a/**/b"], "a/b", True),
    (["a/**/b"], "a/x/y/b", True),
    (["a/**"], "a/x", True),
    (["a/**"], "a/x/y/", True),
    (["a/**"], "a/", None),
    # 'dir/**/': folders strictly inside dir (pathspec collapses it to 'dir/'; see ignore.py)
    (["a/**/"], "a/", None),
    (["a/**/"], "a/x", None),
    (["a/**/"], "a/x/", True),
    (["a/**/"], "a/x/y/", True),
    # everything, every folder
    (["*"], "a/b.c", True),
    (["*/"], "a/", True),
    (["*/"], "a", None),
    (["**/"], "a/b/", True),
    # escapes
    (["\\#hash"], "#hash", True),
    (["#hash"], "#hash", None),
    (["\\!bang"], "!bang", True),
    (["\\[x\\]"], "[x]", True),
    (["q\\?"], "q?", True),
    (["q\\?"], "qx", None),
    # trailing spaces are trimmed unless escaped
    (["foo   "], "foo", True),
    (["trail\\ "], "trail ", True),
    (["trail\\  "], "trail ", True),
    (["trail\\ "], "trail", None),
    # ...but a trailing tab is kept (git trims spaces only)
    (["tab\t"], "tab\t", True),
    (["tab\t"], "tab", None),
    # character classes
    (["[abc]x"], "bx", True),
    (["[abc]x"], "dx", None),
    (["[!a]x"], "bx", True),
    (["[!a]x"], "ax", None),
    (["[a-c]*"], "b.txt", True),
    # a reversed range matches nothing, but its first byte is a member as well (git's loop)
    (["[z-a]x"], "zx", True),
    (["[z-a]x"], "ax", None),
    # lines git never matches: trailing backslash, unclosed bracket, unknown class
    (["[[:nope:]]x"], "ax", None),
    (["foo\\"], "foo", None),
    (["a["], "a[", None),
    # comments and blanks
    (["# foo", "", "   "], "foo", None),
])
def test_rule_kinds(lines: list[str], path: str, expected: bool | None) -> None:
    assert ignored(lines, path) is expected


def test_match_agrees_with_git_check_ignore(tmp_path: Path) -> None:
    """A few of the cases above, asked of git itself (the conformance test does it at scale)."""
    lines = ["*.log", "!keep.log", "/top", "a/**/", "trail\\  ", "[!a]x", "\\#hash"]
    paths = ["x.log", "keep.log", "top", "sub/top", "a/x/y/z", "a/f", "trail ", "bx", "ax",
             "#hash"]
    subprocess.run(["git", "init", "-q", "--template=", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
    for p in paths:
        (tmp_path / p).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / p).write_text("")
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("XDG_CONFIG_HOME", None)
    out = subprocess.run(["git", "ls-files", "-o", "--exclude-standard", "-z"], cwd=tmp_path,
                         env=env, capture_output=True, check=True).stdout.decode()
    shown = {p for p in out.split("\0") if p and p != ".gitignore"}
    rules = Rules(lines)

    def visible(path: str) -> bool:
        parts = path.split("/")
        for i in range(1, len(parts) + 1):  # a folder excluded hides what is inside
            sub = "/".join(parts[:i])
            is_dir = i < len(parts)
            if rules.match(sub + "/" if is_dir else sub, parts[i - 1], is_dir):
                return False
        return True

    assert {p for p in paths if visible(p)} == shown


def test_plain_rules_skip_the_ordered_scan() -> None:
    assert Rules(["*.o", "build/"]).plain
    assert not Rules(["*.o", "!keep.o"]).plain


def test_prechecks_sort_patterns_by_kind() -> None:
    rules = Rules(["node_modules/", "*.pyc", "debug.log*", "Cargo.lock", "x[ab]", "/dist/",
                   "docs/**/*.html"])
    assert rules.dir_names == {"node_modules"}
    assert rules.names == {"Cargo.lock"}
    assert rules.suffixes == (".pyc",)
    assert rules.prefixes == ("debug.log",)
    assert rules.base_any is not None and rules.base_any("xa")
    depth1 = rules.path_any_at(1)
    assert depth1 is not None and depth1("dist/")
    assert rules.path_any_at(1) is depth1  # cached per depth
    depth3 = rules.path_any_at(3)  # '/dist/' cannot match 3 levels down; '**' can
    assert depth3 is not None and not depth3("a/dist/") and depth3("docs/x/y.html")


def test_git_trim() -> None:
    assert _git_trim("a  ") == "a"
    assert _git_trim("a\\ ") == "a\\ "
    assert _git_trim("a\\  ") == "a\\ "
    assert _git_trim("a\t") == "a\t"
    assert _git_trim("a\\") == "a\\"


@pytest.mark.parametrize("glob", ["a\\", "[z-a]", "a["])
def test_invalid_exclude_glob_is_a_user_error(glob: str) -> None:
    with pytest.raises(FfindError, match="invalid exclude pattern"):
        compile_globs([glob])


def test_exclude_globs() -> None:
    rules = compile_globs(["*.md", "#notes", "", "!README.md"])
    assert rules is not None
    assert rules.match("a/x.md", "x.md", False) is True
    assert rules.match("README.md", "README.md", False) is False
    assert rules.match("#notes", "#notes", False) is True
    assert compile_globs(["", "  "]) is None


def test_load_file_keeps_non_utf8_and_skips_bom_and_cr(tmp_path: Path) -> None:
    f = tmp_path / ".gitignore"
    f.write_bytes(b"\xef\xbb\xbffoo\r\n\xff.bin\r\nbar \r\n")
    rules = load_file(str(f))
    assert rules is not None
    assert rules.match("foo", "foo", False)
    name = os.fsdecode(b"\xff.bin")
    assert rules.match(name, name, False)
    assert rules.match("bar", "bar", False)
    assert load_file(str(tmp_path / "missing")) is None
    (tmp_path / "empty").write_text("# only a comment\n")
    assert load_file(str(tmp_path / "empty")) is None


def test_rules_pickle_by_lines() -> None:
    import pickle

    rules = Rules(["*.o", "!keep.o"], "/x/.gitignore")
    again = pickle.loads(pickle.dumps(rules))
    assert again.lines == rules.lines
    assert again.match("keep.o", "keep.o", False) is False


def test_find_repo_top_and_above_root_files(tmp_path: Path) -> None:
    (tmp_path / "r" / ".git").mkdir(parents=True)
    (tmp_path / "r" / "a" / "b").mkdir(parents=True)
    assert find_repo_top(str(tmp_path / "r" / "a" / "b")) == str(tmp_path / "r")
    assert find_repo_top(str(tmp_path / "r")) == str(tmp_path / "r")
    top = str(tmp_path / "r")
    assert above_root_gitignores(top, top) == []
    assert above_root_gitignores(top, str(tmp_path / "r" / "a" / "b")) == [
        (os.path.join(top, ".gitignore"), "a/b/"),
        (os.path.join(top, "a", ".gitignore"), "b/"),
    ]


def test_worktree_git_file(tmp_path: Path) -> None:
    from ffind.state.git import common_dir, find_git_dir

    main = tmp_path / "main" / ".git"
    (main / "worktrees" / "wt").mkdir(parents=True)
    (main / "worktrees" / "wt" / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {main / 'worktrees' / 'wt'}\n")
    git_dir = find_git_dir(str(wt))
    assert git_dir == str(main / "worktrees" / "wt")
    assert common_dir(git_dir) == str(main)
    assert find_repo_top(str(wt)) == str(wt)


def test_default_excludes_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert default_excludes_file() == str(tmp_path / "xdg" / "git" / "ignore")
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_excludes_file() == str(tmp_path / ".config" / "git" / "ignore")


def test_excludes_file_from_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "--template=", str(repo)], check=True)
    # Nothing configured: git's default, without starting git.
    assert excludes_file(str(repo), str(repo / ".git")) == str(
        tmp_path / ".config" / "git" / "ignore")
    (tmp_path / ".gitconfig").write_text("[core]\n\texcludesFile = ~/my ignores\n")
    assert excludes_file(str(repo), str(repo / ".git")) == str(tmp_path / "my ignores")
    # The repository's own config wins, a relative path is relative to the work tree.
    subprocess.run(["git", "config", "core.excludesFile", "local.ignore"], cwd=repo, check=True)
    assert excludes_file(str(repo), str(repo / ".git")) == str(repo / "local.ignore")


# --- wildcards on bytes, POSIX classes, escapes, case folding (issue 12.2) ---------------------


@pytest.mark.parametrize(("lines", "path", "expected"), [
    (["?.txt"], "ü.txt", None),  # '?' is one byte, 'ü' two
    (["??.txt"], "ü.txt", True),
    (["?.txt"], "u.txt", True),
    (["[!a]b.md"], "éb.md", None),
    (["[!a]b.md"], "cb.md", True),
    (["[[:digit:]].txt"], "1.txt", True),
    (["[[:digit:]].txt"], "x.txt", None),
    (["[[:alpha:][:digit:]]x"], "7x", True),
    (["x[\\]]y"], "x]y", True),
    (["x[\\]]y"], "x\\y", None),
    (["d/[[:upper:]]*"], "d/Abc", True),
    (["d/[[:upper:]]*"], "d/abc", None),
    # '**/x/y' matches at any depth (it was tried at depth 2 only)
    (["**/x/y"], "a/b/x/y", True),
    (["**/x/y"], "x/y", True),
])
def test_byte_wildcards(lines: list[str], path: str, expected: bool | None) -> None:
    assert ignored(lines, path) is expected


def test_prechecks_send_non_ascii_names_to_the_exact_decision() -> None:
    """The walk's regex pre-checks see names as str: a name that is not ASCII always reaches
    the byte-exact decision when a pattern has '?' or a class, never slips through."""
    rules = Rules(["??.txt", "d/?x"])
    assert rules.base_any is not None and rules.base_any("ü.txt") is not None
    at2 = rules.path_any_at(2)
    assert at2 is not None and at2("d/éx") is not None
    assert rules.match("d/éx", "éx", False) is None  # 'é' is two bytes
    assert rules.base_any("abc") is None


def test_posix_class_prints_no_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Rules(["[[:digit:]].txt"]).match("1.txt", "1.txt", False) is True


def test_ignore_case_rules() -> None:
    rules = Rules(["*.TXT", "BUILD/", "Docs/*.MD", "/Out/Gen", "[A-C]x", "keep*"],
                  ignore_case=True)
    assert rules.match("a.txt", "a.txt", False) is True
    assert rules.match("x/build/", "build", True) is True
    assert rules.match("x/build", "build", False) is None
    assert rules.match("docs/read.md", "read.md", False) is True
    assert rules.match("out/gen", "gen", False) is True
    assert rules.match("bx", "bx", False) is True  # a range matches the lower case too
    assert rules.match("KEEP.me", "KEEP.me", False) is True
    assert Rules(["*.TXT"]).match("a.txt", "a.txt", False) is None
    # The walk's set pre-checks compare names as they are: with case folding they are empty,
    # and the matchers fold.
    assert not rules.names and not rules.suffixes and not rules.dir_names
    assert rules.base_any is not None
    assert rules.base_any("A.Txt") is not None and rules.base_any("Build/") is not None
    assert rules.base_any("notes.md") is None
    at2 = rules.path_any_at(2)
    assert at2 is not None and at2("DOCS/x.md") is not None and at2("OUT/GEN") is not None
    assert rules.path_leads_at(2) is None


def test_many_suffixes_are_looked_up_not_tried() -> None:
    rules = Rules([f"*.e{i}" for i in range(100)] + ["*.tmp"])
    assert len(rules.suffixes) == 0  # the walk would try 101 endswith per name
    assert rules.base_any is not None
    assert rules.base_any("x.e57") is not None and rules.base_any("x.e100") is None
    assert rules.match("x.e57", "x.e57", False) is True


def test_negation_is_an_explicit_decision() -> None:
    """``!target/`` re-includes: match says False (not None), so the walk can tell it from
    "no pattern" and let it override a fixed exclusion."""
    rules = Rules(["!target/", "!node_modules"])
    assert rules.match("target/", "target", True) is False
    assert rules.match("a/node_modules/", "node_modules", True) is False
    assert rules.match("src/", "src", True) is None
    assert rules.match("target", "target", False) is None  # a file: the folder rule is silent


def test_compile_globs_is_the_one_glob_compiler() -> None:
    rules = compile_globs(["src/", "*.py", "!keep.py", "docs/**/*.MD"], ignore_case=True)
    assert rules is not None
    assert match_path(rules, "src/a/b.rs") is True  # inside an excluded folder
    assert match_path(rules, "lib/x.py") is True
    assert match_path(rules, "lib/keep.py") is False
    assert match_path(rules, "docs/a/b/c.md") is True
    assert match_path(rules, "lib/x.rs") is None
    with pytest.raises(TypeError):
        compile_globs("*.txt")  # type: ignore[arg-type]


def test_reversed_range_on_the_command_line_is_an_error() -> None:
    with pytest.raises(FfindError, match="reversed range"):
        compile_globs(["[z-a]"])
    with pytest.raises(FfindError, match="unknown class"):
        compile_globs(["[[:nope:]]"])


# --- core.ignoreCase ---------------------------------------------------------------------------


def test_core_ignore_case_parsing() -> None:
    from ffind.state.git import core_ignore_case

    assert core_ignore_case("[core]\n\tignorecase = true\n") is True
    assert core_ignore_case("[Core]\n\tIgnoreCase\n") is True  # a key alone means true
    assert core_ignore_case("[core]\nignoreCase = yes ; comment\n[core]\nignorecase=0\n") is False
    assert core_ignore_case('[core "x"]\nignorecase = true\n') is None
    assert core_ignore_case("[user]\nignorecase = true\n[core] ignorecase = on\n") is True
    assert core_ignore_case("") is None


def test_ignore_case_from_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from ffind.state.git import ignore_case

    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "--template=", str(repo)], check=True)
    git_dir = str(repo / ".git")
    subprocess.run(["git", "config", "core.ignoreCase", "false"], cwd=repo, check=True)
    assert ignore_case(git_dir) is False
    (tmp_path / ".gitconfig").write_text("[core]\n\tignoreCase = true\n")
    assert ignore_case(git_dir) is False  # the repository's own setting wins
    assert ignore_case(None) is True
    subprocess.run(["git", "config", "core.ignoreCase", "true"], cwd=repo, check=True)
    assert ignore_case(git_dir) is True
    # An include: git itself is asked.
    (tmp_path / ".gitconfig").write_text(f"[include]\n\tpath = {tmp_path / 'more'}\n")
    (tmp_path / "more").write_text("[core]\n\tignoreCase = true\n")
    assert ignore_case(None) is True


def test_path_pre_checks_split_by_lead_and_filtered_by_name_miss_nothing() -> None:
    """A depth's path patterns with a literal leading folder are tried only on the way to it
    even when another may match anywhere (``**/x``), and patterns that all end with a literal
    name are tried only on entries of those names: every entry a pattern matches still
    passes a pre-check (the pre-checks only spare the regular expressions)."""
    import itertools

    rules = Rules(["**/.claude/settings.local.json", "!**/keep/settings.local.json",
                   "/tests/certs/index.txt*", "/tests/napi/build", "**/cache/", "a/**/b.txt",
                   "/*.svg"])
    parts = ["tests", "certs", "napi", "build", ".claude", "keep", "cache", "a", "x",
             "settings.local.json", "index.txt", "index.txt.1", "b.txt", "f.svg"]
    seen = 0
    for depth in range(1, 5):
        for segs in itertools.product(parts, repeat=depth):
            path = "/".join(segs)
            for is_dir in (False, True):
                if rules.match(path + ("/" if is_dir else ""), segs[-1], is_dir) is None:
                    continue
                seen += 1
                text = path + ("/" if is_dir else "")
                name = segs[-1]
                if (name in (rules.dir_names if is_dir else rules.names)
                        or name.endswith(rules.dir_suffixes if is_dir else rules.suffixes)
                        or name.startswith(rules.dir_prefixes if is_dir else rules.prefixes)
                        or (rules.base_any is not None
                            and rules.base_any(name + ("/" if is_dir else "")) is not None)):
                    continue  # (a name pre-check catches it)
                prefix = "/".join(segs[:-1]) + ("/" if depth > 1 else "")
                checks = []
                for part in ("", "led", "free"):
                    fm = rules.path_any_at(depth, part)
                    leads = rules.path_leads_at(depth, part)
                    names = rules.path_names_at(depth, part)
                    if fm is not None and (leads is None or prefix in leads[1]
                                           or prefix.startswith(leads[0])):
                        checks.append((part, fm(text) is not None
                                       and (names is None or name in names)))
                whole = dict(checks).get("")
                split = [hit for part, hit in checks if part]
                assert whole or any(split), (text, checks)
                assert rules.path_any_at(depth) is None or whole is not None
    assert seen > 100
    free = rules.path_any_at(2, "free")
    assert free is not None and free(".claude/settings.local.json")
    assert free("keep/settings.local.json") and not free(".claude/other.json")
    assert rules.path_names_at(2, "free") == {"settings.local.json"}
    assert rules.path_names_at(3, "led") is None  # (index.txt* ends with a wildcard)
    assert rules.path_leads_at(3) is None and rules.path_leads_at(3, "led") is not None


HEADED = [f"{neg}{head}*{tail}" for neg in ("", "!") for head in ("p", "p1", "p1_", "pq", "q")
          for tail in ("x", ".x", "1", "*.x")]
HEADED_NAMES = ["p1_a.x", "p.x", "pq1", "q", "qx", "p1x", "p11", "p1_.x", "pq.x", "x", "p"]


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.sampled_from(HEADED), min_size=40, max_size=80),
       name=st.sampled_from(HEADED_NAMES), is_dir=st.booleans())
def test_many_patterns_found_by_their_head_decide_as_line_by_line(
        lines: list[str], name: str, is_dir: bool) -> None:
    """Past ``_MANY`` name globs with a literal head, they are looked up by it: the decision
    is still the last matching line's (git's wildmatch, line by line), and the pre-check
    never says no where a line ignores."""
    rules = Rules(lines)
    expected = None
    for line in lines:
        negated = line.startswith("!")
        if wildmatch(line.removeprefix("!"), name):
            expected = not negated
    assert rules.match(name + "/" if is_dir else name, name, is_dir) is expected
    if expected:
        assert rules.base_any is not None
        assert rules.base_any(name + "/" if is_dir else name) is not None


def test_a_hundred_thousand_name_globs_decide_by_their_head() -> None:
    rules = Rules([f"pattern_{i}_*.x" for i in range(100_000)])
    assert rules.match("pattern_5000_k.x", "pattern_5000_k.x", False) is True
    assert rules.match("pattern_5000.x", "pattern_5000.x", False) is None
