"""find_files and glob for agents: output shape, secrets, path safety, the server's cache."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ffind.agent.glob import GlobMatcher, expand_braces
from ffind.agent.loose import loose_queries, stem
from ffind.agent.schema import FIND_FILES_SCHEMA, GLOB_SCHEMA
from ffind.agent.secrets import secret_kind, wants_secrets
from ffind.agent.server import CachedTree, ToolServer
from ffind.agent.tool import (
    TreeSnapshot,
    find_files,
    glob_files,
    resolve_dir,
    search_snapshot,
    tool_walk,
)
from ffind.engine.index import Index
from ffind.errors import FfindError
from ffind.scoring.scorer import FileMatch

FILES = [
    "src/session/prompt.ts",
    "src/session/prompt_test.ts",
    "packages/opencode/src/session/prompt.ts",
    "db/migrate/20240101_create_users.rb",
    "db/schema.rb",
    "README.md",
    ".github/workflows/ci.yml",
    "config/server.py",
    "config/server.pem",
    "keys/id_rsa",
    "keys/api.key",
    ".env",
    ".env.local",
    ".env.example",
    "build/prompt.js",
    "debug.log",
]


def make_tree(root: Path) -> Path:
    for rel in FILES:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(rel + "\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    # Give every file a distinct modification time: db/schema.rb newest, then the rest.
    base = time.time() - 10_000
    for i, rel in enumerate(sorted(FILES)):
        os.utime(root / rel, (base + i, base + i))
    os.utime(root / ".gitignore", (base - 1, base - 1))
    os.utime(root / "db/schema.rb", (base + 5_000, base + 5_000))
    return root


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tree(tmp_path_factory.mktemp("tool") / "repo")


# --- the output shape, byte for byte -----------------------------------------------------------


def test_found_output_byte_for_byte(tree: Path) -> None:
    # The matcher puts whole-name matches (prompt.ts) above prompt_test.ts.
    assert find_files("prompt", root=tree) == (
        'Found 3 files matching "prompt":\n'
        "\n"
        "src/session/prompt.ts\n"
        "packages/opencode/src/session/prompt.ts\n"
        "src/session/prompt_test.ts"
    )


def test_truncation_line_counts_every_match(tree: Path) -> None:
    assert find_files("prompt", limit=2, root=tree) == (
        'Found 3 files matching "prompt":\n'
        "\n"
        "src/session/prompt.ts\n"
        "packages/opencode/src/session/prompt.ts\n"
        "\n"
        "(showing 2 of 3 matches; narrow the query or raise limit)"
    )


def test_one_match_is_singular(tree: Path) -> None:
    assert find_files("schema", root=tree) == 'Found 1 file matching "schema":\n\ndb/schema.rb'


def test_nothing_found(tree: Path) -> None:
    assert find_files("zzqxj", root=tree) == 'No files found matching "zzqxj".'


def test_typo_suggestions_from_the_matcher(tree: Path) -> None:
    out = find_files("schmea", root=tree)
    assert out == 'No files found matching "schmea".\n\nDid you mean:\ndb/schema.rb'


def test_typo_in_one_word_of_several(tree: Path) -> None:
    # Two words the fuzzy matcher cannot match as words go to the word ranking, which forgives
    # a typo (a swap of two letters included) in each word.
    assert find_files("session promtp", root=tree) == (
        'Ranked by words for "session promtp" (the first matched 2 of 2 words: session, '
        "promtp; then top-level files):\n\n"
        "src/session/prompt.ts\n"
        "src/session/prompt_test.ts\n"
        "packages/opencode/src/session/prompt.ts\n"
        "README.md\n"
        ".gitignore\n"
        ".env.example"
    )
    assert find_files("db schmea", root=tree).splitlines()[2] == "db/schema.rb"
    assert find_files("zzqxj qqxzy", root=tree) == 'No files found matching "zzqxj qqxzy".'


def test_paths_are_relative_to_path(tree: Path) -> None:
    out = find_files("prompt", path="src", root=tree)
    assert out.splitlines()[2:] == ["session/prompt.ts", "session/prompt_test.ts"]
    # Absolute paths inside the root are fine too.
    assert find_files("prompt", path=str(tree / "src"), root=tree) == out


def test_root_defaults_to_the_working_directory(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree / "db")
    assert find_files("schema") == 'Found 1 file matching "schema":\n\nschema.rb'


def test_multi_word_query_is_and_of_terms(tree: Path) -> None:
    assert find_files("session test", root=tree).splitlines()[2:] == [
        "src/session/prompt_test.ts"
    ]
    assert find_files("test session", root=tree).splitlines()[2:] == [
        "src/session/prompt_test.ts"
    ]


def test_database_migration_finds_the_migration(tree: Path) -> None:
    # Neither word is in the path (database -> db, migration -> migrate): the word ranking
    # matches both through the abbreviation and the stem, and says so.
    assert find_files("database migration", root=tree) == (
        'Ranked by words for "database migration" (the first matched 2 of 2 words: database, '
        "migration; then top-level files):\n"
        "\n"
        "db/migrate/20240101_create_users.rb\n"
        "db/schema.rb\n"
        "README.md\n"
        ".gitignore\n"
        ".env.example"
    )


def test_loose_queries() -> None:
    assert loose_queries("database migration") == ["db migrat", "database migrat", "db migration"]
    assert loose_queries("controllers") == ["ctrl", "controll"]
    assert loose_queries("promtp") == []
    assert loose_queries("Database") == ["db"]
    assert loose_queries("^data !base .py$") == []
    assert [stem(w) for w in ("files", "testing", "users", "migrations", "user", "css")] == [
        "file", "test", "user", "migrat", None, None
    ]


# --- what is searched --------------------------------------------------------------------------


def test_hidden_files_are_searched_git_folder_never(tree: Path) -> None:
    assert find_files("workflows ci", root=tree).splitlines()[2:] == [".github/workflows/ci.yml"]
    every = find_files("", limit=200, root=tree).splitlines()[2:]
    assert ".gitignore" in every
    assert not [p for p in every if p.startswith(".git/")]


def test_gitignore_is_honoured(tree: Path) -> None:
    every = find_files("", limit=200, root=tree).splitlines()[2:]
    assert "build/prompt.js" not in every
    assert "debug.log" not in every


def test_secrets_are_hidden_unless_asked_for(tree: Path) -> None:
    every = find_files("", limit=200, root=tree).splitlines()[2:]
    for secret in (".env", ".env.local", "config/server.pem", "keys/id_rsa", "keys/api.key"):
        assert secret not in every
    assert ".env.example" in every  # a template, not a secret
    assert "config/server.pem" not in find_files("server", root=tree)


def test_secrets_asked_for_are_listed_last(tree: Path) -> None:
    lines = find_files(".env", root=tree).splitlines()
    assert lines[0] == 'Found 3 files matching ".env":'
    assert lines[2] == ".env.example"
    assert sorted(lines[3:]) == [".env", ".env.local"]
    assert find_files("pem", root=tree).splitlines()[-1] == "config/server.pem"
    assert find_files("server.pem", root=tree).splitlines()[2:] == ["config/server.pem"]
    assert find_files("id_rsa", root=tree).splitlines()[-1] == "keys/id_rsa"
    assert "keys/api.key" in find_files("api.key", root=tree).splitlines()


def test_secret_kinds() -> None:
    assert secret_kind(".env") == "env"
    assert secret_kind("app/.env.production") == "env"
    assert secret_kind(".env.example") is None
    assert secret_kind("certs/server.pem") == "pem"
    assert secret_kind("tls.key") == "key"
    assert secret_kind("keyboard.py") is None
    assert secret_kind("home/.ssh/id_ed25519") == "ssh"
    assert secret_kind("environment.ts") is None


def test_queries_that_ask_for_secrets() -> None:
    assert wants_secrets(".env") == {"env"}
    assert wants_secrets("app/.env.local") == {"env"}
    assert wants_secrets("^.env") == {"env"}
    assert wants_secrets("server pem") == {"pem"}
    assert wants_secrets("tls.key$") == {"key"}
    assert wants_secrets("id_rsa") == {"ssh"}
    assert wants_secrets("env") == frozenset()
    assert wants_secrets("secret key") == frozenset()
    assert wants_secrets("config !.env") == frozenset()


def test_asked_for_secrets_keep_half_the_slots() -> None:
    plain = [f"docs/pem/chapter{i}.md" for i in range(10)]
    keys = [f"certs/k{i}.pem" for i in range(10)]
    snap = TreeSnapshot.build([plain + keys])
    lines = search_snapshot(snap, "pem", limit=4).splitlines()
    assert lines[0] == 'Found 20 files matching "pem":'
    shown = lines[2:6]
    assert [p.startswith("docs/") for p in shown] == [True, True, False, False]
    assert lines[-1] == "(showing 4 of 20 matches; narrow the query or raise limit)"


# --- the answer's shape around typo matches (a stand-in index pins it exactly) ------------------


class FakeIndex(Index):
    """Returns fixed matches, to pin how find_files words typo-only answers."""

    def __init__(self, matches: list[FileMatch]) -> None:
        super().__init__([m.path for m in matches])
        self.fixed = matches

    def run(self, query: str, *, within: object = None, start: int = 0) -> object:  # type: ignore[override]
        return self.fixed

    def top(self, ms: object, limit: int | None = None,
            compute_indices: bool = False) -> list[FileMatch]:
        return self.fixed[:limit]


def _snap(matches: list[FileMatch]) -> TreeSnapshot:
    return TreeSnapshot([m.path for m in matches], FakeIndex(matches), FakeIndex([]))


def test_typo_only_answers_are_suggestions_at_most_five() -> None:
    typos = [FileMatch(100 - i, f"src/prompt{i}.ts", typo=True) for i in range(7)]
    assert search_snapshot(_snap(typos), "promtp", limit=20) == (
        'No files found matching "promtp".\n\nDid you mean:\n'
        + "\n".join(f"src/prompt{i}.ts" for i in range(5))
    )


def test_typo_matches_beside_exact_ones_are_results() -> None:
    matches = [FileMatch(100, "src/prompt.ts", typo=True), FileMatch(50, "p/r/o/m/t/p.txt")]
    assert search_snapshot(_snap(matches), "promtp", limit=1) == (
        'Found 2 files matching "promtp":\n\nsrc/prompt.ts\n\n'
        "(showing 1 of 2 matches; narrow the query or raise limit)"
    )


# --- path safety -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["..", "../", "src/../..", "../repo2", "/", "/etc", "~"])
def test_paths_outside_the_root_are_refused(tree: Path, path: str) -> None:
    with pytest.raises(FfindError, match="outside the search root"):
        find_files("prompt", path=path, root=tree)


def test_symlink_leading_out_is_refused(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "prompt.ts").write_text("x")
    link = tree / "escape"
    link.symlink_to(outside, target_is_directory=True)
    try:
        with pytest.raises(FfindError, match="outside the search root"):
            find_files("prompt", path="escape", root=tree)
        with pytest.raises(FfindError, match="outside the search root"):
            glob_files("*.ts", path="escape/", root=tree)
        # The walk does not follow the link either: nothing from outside is listed.
        assert "escape/prompt.ts" not in find_files("prompt", root=tree)
    finally:
        link.unlink()


def test_symlinked_root_is_fine(tree: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(tree, target_is_directory=True)
    assert find_files("schema", path="db", root=alias) == (
        'Found 1 file matching "schema":\n\nschema.rb'
    )


def test_missing_path_and_file_path_are_clear_errors(tree: Path) -> None:
    with pytest.raises(FfindError, match="does not exist"):
        find_files("x", path="nope", root=tree)
    with pytest.raises(FfindError, match="is a file, not a folder"):
        find_files("x", path="README.md", root=tree)


@pytest.mark.parametrize("limit", [0, -1, 201, True])
def test_limit_out_of_range(tree: Path, limit: int) -> None:
    with pytest.raises(FfindError, match="limit must be an integer from 1 to 200"):
        find_files("x", limit=limit, root=tree)


def test_resolve_dir_returns_the_real_folder(tree: Path) -> None:
    assert resolve_dir(tree, "src/session/..") == os.path.realpath(tree / "src")
    assert resolve_dir(tree, None) == os.path.realpath(tree)


def test_answers_keep_one_line_of_utf8_per_path(tmp_path: Path) -> None:
    # Control characters escaped, bytes that are not UTF-8 shown as \\xNN, as on a terminal.
    for name in (b"a\nb\tc\x1b.txt", b"caf\xe9.txt", "café.txt".encode()):
        (tmp_path / os.fsdecode(name)).write_bytes(b"x")
    lines = find_files("txt", root=tmp_path).splitlines()[2:]
    assert sorted(lines) == ["a\\nb\\tc\\x1b.txt", "caf\\xe9.txt", "café.txt"]


# --- schemas -----------------------------------------------------------------------------------


def test_find_files_schema() -> None:
    props = FIND_FILES_SCHEMA["properties"]
    assert FIND_FILES_SCHEMA["required"] == ["query"]
    assert props["query"]["type"] == "string"
    assert props["path"]["type"] == "string"
    assert {k: props["limit"][k] for k in ("type", "minimum", "maximum", "default")} == {
        "type": "integer", "minimum": 1, "maximum": 200, "default": 20
    }
    text = props["query"]["description"]
    for idea in ("fuzzy", "in any order", "typo", "^prefix", "suffix$", "!word"):
        assert idea in text
    assert GLOB_SCHEMA["required"] == ["pattern"]


# --- glob --------------------------------------------------------------------------------------


def test_glob_newest_first(tree: Path) -> None:
    assert glob_files("*.rb", root=tree) == (
        'Found 2 files matching "*.rb" (newest first):\n\n'
        "db/schema.rb\n"
        "db/migrate/20240101_create_users.rb"
    )


def test_glob_anchoring_braces_and_path(tree: Path) -> None:
    assert glob_files("src/**/*.ts", root=tree).splitlines()[2:] == [
        "src/session/prompt_test.ts", "src/session/prompt.ts"
    ]
    out = glob_files("**/*.{yml,md}", root=tree).splitlines()[2:]
    assert sorted(out) == [".github/workflows/ci.yml", "README.md"]
    assert glob_files("*.ts", path="packages", root=tree).splitlines()[2:] == [
        "opencode/src/session/prompt.ts"
    ]
    assert glob_files("*.js", root=tree) == 'No files found matching glob "*.js".'


def test_glob_secrets_only_when_named(tree: Path) -> None:
    every = glob_files("*", root=tree, limit=100).splitlines()
    assert ".env" not in every and "config/server.pem" not in every
    assert glob_files("*.pem", root=tree).splitlines()[2:] == ["config/server.pem"]
    assert sorted(glob_files(".env*", root=tree).splitlines()[2:]) == [
        ".env", ".env.example", ".env.local"
    ]


def test_glob_truncation(tree: Path) -> None:
    out = glob_files("*", root=tree, limit=2).splitlines()
    assert out[2] == "db/schema.rb"
    assert out[-1].startswith("(showing 2 of ")
    assert out[-1].endswith(" matches; narrow the pattern or path)")


def test_glob_bad_patterns() -> None:
    with pytest.raises(FfindError, match="empty"):
        GlobMatcher("  ")
    with pytest.raises(FfindError, match="negation"):
        GlobMatcher("!*.py")
    assert expand_braces("a/{b,c{d,e}}.x") == ["a/b.x", "a/cd.x", "a/ce.x"]
    with pytest.raises(FfindError, match="more than 64"):
        expand_braces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")


# --- the server's cache ------------------------------------------------------------------------


def test_cached_tree_serves_the_last_walk_and_sees_new_files(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "repo")
    state = ToolServer(root, refresh_interval=0)
    try:
        assert "No files found" in state.find_files("brandnew")
        (root / "src" / "brandnew.py").write_text("x")
        state.tree(None).wait_refresh(10)  # the refresh kicked by the first call
        state.find_files("brandnew")  # served from a walk; kicks another refresh
        state.tree(None).wait_refresh(10)
        assert state.find_files("brandnew") == (
            'Found 1 file matching "brandnew":\n\nsrc/brandnew.py'
        )
        assert state.glob("**/brandnew.py").splitlines()[2:] == ["src/brandnew.py"]
        with pytest.raises(FfindError, match="outside the search root"):
            state.find_files("x", path="..")
    finally:
        state.close()


def test_refresh_without_changes_keeps_the_snapshot(tmp_path: Path) -> None:
    calls: list[str] = []

    def walker(directory: str, cancel: object = None) -> list[list[str]]:
        calls.append(directory)
        return [["a/b.py", "c/d.py"][:: (-1) ** len(calls)]]  # same paths, another order

    cached = CachedTree(str(tmp_path), walker, min_interval=0)
    first = cached.get()
    assert search_snapshot(first, "b") == 'Found 1 file matching "b":\n\na/b.py'
    assert ("b", 20, None) in first.answers  # answers are kept with the walk they came from
    cached.kick()
    cached.wait_refresh(5)
    assert len(calls) == 2
    assert cached.get() is first  # same paths: same snapshot, no rebuild
    cached.close()


def test_refreshes_are_throttled(tmp_path: Path) -> None:
    calls: list[str] = []

    def walker(directory: str, cancel: object = None) -> list[list[str]]:
        calls.append(directory)
        return [[f"f{len(calls)}.py"]]

    cached = CachedTree(str(tmp_path), walker, min_interval=60)
    first = cached.get()
    for _ in range(3):
        assert cached.get() is first
        cached.kick()
    cached.wait_refresh(5)
    assert len(calls) == 1  # the first walk ended less than 60 s ago: no re-walk yet
    cached.min_interval = 0
    cached.kick()
    cached.wait_refresh(5)
    assert len(calls) == 2
    assert cached.get().paths == ["f2.py"]
    cached.close()


def test_narrowing_a_recent_query_answers_like_a_fresh_search(tree: Path) -> None:
    paths = [p for batch in tool_walk(str(tree)) for p in batch]
    warm = TreeSnapshot.build([paths])
    for query in ("s", "se", "ses", "session", "session test", "session test ts", "p", "pr",
                  "prompt", "prompt !test", "d", "db", "db mig"):
        assert search_snapshot(warm, query) == search_snapshot(TreeSnapshot.build([paths]), query)
    assert "db mig" in warm.matchsets and len(warm.matchsets) == 8  # the 8 latest


def test_warm_walks_the_root_before_the_first_call(tree: Path) -> None:
    state = ToolServer(tree)
    try:
        state.warm().join(30)
        snap = state.tree(None).get()
        assert "db/schema.rb" in snap.paths
        assert state.find_files("schema") == 'Found 1 file matching "schema":\n\ndb/schema.rb'
        assert state.tree(None).get() is snap  # served from the warm walk
    finally:
        state.close()


# --- version-control folders -------------------------------------------------------------------


@pytest.mark.parametrize("path", [".git", ".git/", ".git/hooks", "./.git", "src/../.git"])
def test_vcs_folder_is_never_searched_whatever_the_path(tree: Path, path: str) -> None:
    with pytest.raises(FfindError, match=r"inside a version-control folder \(\.git\)"):
        find_files("config", path=path, root=tree)
    with pytest.raises(FfindError, match="version-control folder"):
        glob_files("**", path=path, root=tree)
    with pytest.raises(FfindError, match="version-control folder"):
        find_files("config", path=str(tree / path))  # trusted, and still not


def test_every_vcs_folder_is_left_out(tmp_path: Path) -> None:
    for rel in ("CVS/Entries", "src/CVS/Root", ".bzr/branch-format", "_darcs/format",
                ".hg/hgrc", ".svn/entries", "src/main.c", "src/cvs/notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    every = find_files("", limit=200, root=tmp_path).splitlines()[2:]
    assert sorted(every) == ["src/cvs/notes.txt", "src/main.c"]
    assert sorted(glob_files("**", root=tmp_path).splitlines()[2:]) == sorted(every)
    for path in ("CVS", "src/CVS", ".bzr", "_darcs", ".hg", ".svn"):
        with pytest.raises(FfindError, match="version-control folder"):
            find_files("e", path=path, root=tmp_path)


# --- the Python caller is trusted without a root -----------------------------------------------


def test_without_root_an_absolute_path_is_the_root(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the tree is not under the working directory
    assert find_files("schema", path=str(tree)) == (
        'Found 1 file matching "schema":\n\ndb/schema.rb'
    )
    assert find_files("schema", path=str(tree / "db")) == (
        'Found 1 file matching "schema":\n\nschema.rb'
    )
    assert glob_files("*.rb", path=str(tree)) == glob_files("*.rb", root=tree)
    monkeypatch.chdir(tree / "db")
    assert find_files("prompt", path="../src").splitlines()[2:] == [
        "session/prompt.ts", "session/prompt_test.ts"
    ]
    # An explicit root still confines.
    with pytest.raises(FfindError, match="outside the search root"):
        find_files("schema", path=str(tree), root=tree / "db")


# --- the answer repeats a long query only in part ----------------------------------------------


def test_a_long_query_is_cut_in_the_echo(tree: Path) -> None:
    query = "q" * 100_000
    out = find_files(query, root=tree)
    assert out == 'No files found matching "' + "q" * 200 + '…".'
    long_glob = "z" * 5_000 + "*"
    assert glob_files(long_glob, root=tree) == (
        'No files found matching glob "' + "z" * 200 + '…".'
    )


def test_many_word_queries_are_not_loosened_exponentially(tree: Path) -> None:
    # Each word has several looser forms: their product used to be built whole.  Read as a
    # description, it is ranked by words.
    query = " ".join(["configuration database"] * 20)
    code = (
        "import sys\nfrom ffind.agent.tool import find_files\n"
        f"print(find_files({query!r}, root=sys.argv[1]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tree)], capture_output=True,
                          text=True, timeout=30, cwd=Path(__file__).resolve().parent.parent)
    assert done.stdout.startswith('Ranked by words for "configuration database')


# --- secrets, case-insensitive and wider -------------------------------------------------------


def test_credential_files_are_hidden_whatever_their_case(tmp_path: Path) -> None:
    secret = ["config/.ENV", "cert.PEM", "prod.env", "credentials.json", ".npmrc", ".netrc",
              "key.p12", "server.key", "store.pfx", ".pgpass", "id_ed25519"]
    plain = ["config/app.py", ".env.example", "README.md"]
    for rel in secret + plain:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    every = find_files("", limit=200, root=tmp_path).splitlines()[2:]
    assert sorted(every) == sorted(plain)
    assert sorted(glob_files("**", root=tmp_path).splitlines()[2:]) == sorted(plain)
    assert find_files("config", root=tmp_path).splitlines()[2:] == ["config/app.py"]
    assert find_files(".npmrc", root=tmp_path).splitlines()[2:] == [".npmrc"]
    assert find_files("credentials", root=tmp_path).splitlines()[2:] == ["credentials.json"]


def test_glob_lists_each_secret_kind_it_names(tmp_path: Path) -> None:
    for rel in ("certs/server.pem", "certs/server.key", "certs/server.crt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert sorted(glob_files("**/*.{pem,key}", root=tmp_path).splitlines()[2:]) == [
        "certs/server.key", "certs/server.pem"
    ]
    assert glob_files("certs/*", root=tmp_path).splitlines()[2:] == ["certs/server.crt"]


def test_the_servers_cached_build_equals_a_walk_with_the_check_aside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cached_tool_build`` (the MCP server's walk): the snapshot's paths indexed while a
    forked child checks its folders, built again after a change; always the walk's answer."""
    from ffind.agent.tool import cached_tool_build
    from ffind.fs import refresh

    monkeypatch.setattr(refresh, "RACY_NS", 50_000_000)
    monkeypatch.setattr(refresh, "ASIDE_MIN", 1)  # (every snapshot checked aside)
    monkeypatch.setattr(refresh, "free_cpus", lambda: 2.0)
    root = make_tree(tmp_path / "t")

    def same(query: str) -> None:
        time.sleep(0.1)  # past the racy window
        built = cached_tool_build(str(root))
        walked = TreeSnapshot.build(tool_walk(str(root)))
        assert sorted(built.paths) == sorted(walked.paths)
        assert search_snapshot(built, query) == search_snapshot(walked, query)

    same("prompt")  # cold: the snapshot written
    same("prompt")  # warm, unchanged: one attempt
    (root / "src" / "session" / "prompt_new.ts").write_text("")
    os.unlink(root / "db" / "schema.rb")
    same("prompt")  # warm, changed: built again from the refreshed listing
    same("schema")
