"""Descriptions ranked by words (ffind.agent.describe): the first file for each description of a
table, through find_files; and the rules the ranking rests on."""

from __future__ import annotations

from pathlib import Path

import pytest

from ffind.agent.describe import (
    STOP_WORDS,
    Describer,
    held_words,
    reads_as_description,
    split_words,
    stem,
    weak_fuzzy,
)
from ffind.agent.tool import find_files

FILES = [
    "api/server/router/image/image_routes.go",
    "daemon/images/image_inspect.go",
    "daemon/images/image_pull.go",
    "daemon/config/config.go",
    "daemon/config/config_test.go",
    "daemon/container/restart_policy.go",
    "daemon/container/state.go",
    "libnetwork/drivers/bridge/bridge.go",
    "libnetwork/drivers/network_driver.go",
    "libnetwork/network.go",
    "integration/testdata/the_other_networking_output.golden",
    "vendor/github.com/zmap/zlint/lints/lint_cab_restricted_policy_constraints.go",
    "vendor/golang.org/x/crypto/openpgp/packet/signature_v3.go",
    "vendor/github.com/imgutil/img_inspect.go",
    "db/migrate/20240101_create_users.rb",
    "db/schema.rb",
    "app/controllers/sessions_controller.rb",
    "app/controllers/application_controller.rb",
    "activesupport/lib/active_support/cache/mem_cache_store.rb",
    "activesupport/lib/active_support/cache/file_store.rb",
    "docs/configuration.md",
    "src/auth/authentication_middleware.ts",
    "src/session/prompt.ts",
    "README.md",
    "crates/bevy_remote/Cargo.toml",
    "crates/bevy_remote/src/lib.rs",
    "crates/bevy_reflect/src/remote.rs",
    "crates/bevy_asset/src/io/wasm.rs",
    "lib/ansible/cli/pull.py",
    "bin/ansible-pull",
    "codec-http/src/main/java/io/netty/handler/codec/http/HttpUtil.java",
    "codec-quic/src/main/java/io/netty/handler/codec/quic/QuicTokenHandler.java",
    "runtime/queries/swift/highlights.scm",
    "runtime/queries/rust/highlights.scm",
]

DESCRIBED = [
    ("image inspect size", "daemon/images/image_inspect.go"),
    ("container restart policy", "daemon/container/restart_policy.go"),
    ("the networking driver", "libnetwork/drivers/network_driver.go"),
    ("where is the database migration file", "db/migrate/20240101_create_users.rb"),
    ("Fix `MemCacheStore` for `connection_pool` >= 3",
     "activesupport/lib/active_support/cache/mem_cache_store.rb"),
    ("controller for user sessions", "app/controllers/sessions_controller.rb"),
    ("the configuraton docs page", "docs/configuration.md"),
    ("auth middleware for requests", "src/auth/authentication_middleware.ts"),
    ("images: pulling an image", "daemon/images/image_pull.go"),
    ("session promtp", "src/session/prompt.ts"),
    ("database migration", "db/migrate/20240101_create_users.rb"),
    # An identifier that is a folder or a name, written any way, outranks its words elsewhere.
    ("Fix bevy_remote not compiling on wasm", "crates/bevy_remote/src/lib.rs"),
    ("Precalculate TOKEN_CHARS_HIGH and TOKEN_CHARS_LOW in HttpUtil",
     "codec-http/src/main/java/io/netty/handler/codec/http/HttpUtil.java"),
    ("Update pull.py", "lib/ansible/cli/pull.py"),
    # Quoted words read as fzf's 'exact: the fuzzy match finds nothing, the words rank.
    ("swift highlights for 'await'", "runtime/queries/swift/highlights.scm"),
    # Two words the fuzzy match finds as scattered letters only: the word that matches wins.
    ("README improvement", "README.md"),
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("describe") / "repo"
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return root


@pytest.mark.parametrize(("description", "first"), DESCRIBED)
def test_description_finds_its_file_first(tree: Path, description: str, first: str) -> None:
    lines = find_files(description, root=tree, limit=5).splitlines()
    assert lines[0].startswith(f'Ranked by words for "{description}" (the first matched ')
    assert lines[2] == first


def test_the_answer_says_how_it_matched(tree: Path) -> None:
    out = find_files("image inspect size", root=tree, limit=2)
    assert out.splitlines()[0] == (
        'Ranked by words for "image inspect size" (the first matched 2 of 3 words: image, '
        "inspect):"
    )
    assert out.splitlines()[-1].startswith("(showing 2 of ")


@pytest.mark.parametrize(("query", "first"), [
    ("daemon config", "daemon/config/config.go"),
    ("config", "daemon/config/config.go"),
    ("base_cod", None),
    ("^daemon .go$", "daemon/config/config.go"),
])
def test_good_fuzzy_queries_keep_the_fuzzy_answer(tree: Path, query: str,
                                                  first: str | None) -> None:
    out = find_files(query, root=tree).splitlines()
    assert not out[0].startswith("Ranked by words")
    if first:
        assert out[2] == first


def test_stop_words_never_match_on_their_own() -> None:
    d = Describer(["where/is/the.py", "fix/file.py", "src/main.py"])
    assert d.rank("where is the file fix", 10).matches == []
    assert [m.path for m in d.rank("the main file", 10).matches] == ["src/main.py"]


def test_a_word_never_matches_scattered_letters() -> None:
    d = Describer(["src/c_o_n_f_i_g.py", "src/cargo/nightly/fig.py"])
    assert d.rank("config loader settings", 10).matches == []


def test_name_above_folder_and_rare_above_common() -> None:
    d = Describer(["cache/store.py", "store/cache.py", "src/a/util.py", "src/b/util.py",
                   "src/c/util.py", "src/d/parser.py"])
    assert d.rank("cache helpers", 1).matches[0].path == "store/cache.py"
    assert d.rank("util parser code", 1).matches[0].path == "src/d/parser.py"


def test_words_and_stems() -> None:
    assert split_words("MemCacheStore/HTTPServer-v2_x.rb") == [
        "mem", "cache", "store", "http", "server", "v2", "x", "rb"]
    assert stem("migrations") == stem("migration") == stem("migrate") == "migr"
    assert stem("caching") == stem("caches") == stem("cache")
    assert {"the", "where", "is", "file", "fix"} <= STOP_WORDS


def test_which_queries_are_descriptions() -> None:
    assert reads_as_description("image inspect size")
    assert not reads_as_description("daemon config")
    assert not reads_as_description("^src session .py$")
    assert weak_fuzzy("restart policy", None)
    assert weak_fuzzy("restart policy", "vendor/certs/rsa_tls_policy.go")
    assert not weak_fuzzy("restart policy", "daemon/restart_policy.go")
    assert not weak_fuzzy("daemon config", "daemon/config/config.go")
    assert not weak_fuzzy("prompt", None)
    assert not weak_fuzzy("!test prompt", None)


def test_top_level_files_follow_the_word_matches() -> None:
    # Fewer paths than the limit match a word: top-level files follow (the shortest first,
    # hidden ones last), and the summary says so; a version points at the package manifests.
    d = Describer(["src/lib.rs", "src/zlint.rs", "Cargo.toml", "Cargo.lock", "README.md",
                   "docs/zlint.md", ".gitignore", "Makefile"])
    ranked = d.rank("zlint checks", 10)
    assert [m.path for m in ranked.matches] == [
        "src/zlint.rs", "docs/zlint.md", "Makefile", "README.md", "Cargo.lock", "Cargo.toml",
        ".gitignore"]
    assert ranked.summary() == "the first matched 1 of 2 words: zlint; then top-level files"
    assert [m.path for m in d.rank("Update zlint to 3.6.0", 4).matches] == [
        "src/zlint.rs", "docs/zlint.md", "Cargo.lock", "Cargo.toml"]
    assert d.rank("zzqxj qqxzy", 10).matches == []


def test_a_generic_name_is_named_by_its_folder() -> None:
    # mod.rs is in three folders of four paths: its folder weighs as a name would, above
    # the same folder holding a file of another name.
    d = Describer(["src/entity/mod.rs", "src/query/mod.rs", "src/world/mod.rs",
                   "src/entity/spawn.rs"])
    assert [m.path for m in d.rank("entity construction ergonomics", 10).matches] == [
        "src/entity/mod.rs", "src/entity/spawn.rs"]


def test_words_held_count_the_words_that_count() -> None:
    assert held_words("the restart policy", "daemon/restart_policy.go") == 2
    assert held_words("restart policy", "vendor/certs/rsa_tls_policy.go") == 1
    assert held_words("README improvement", "its/mng-4199/repo/maven-metadata.xml") == 0


def test_sentences_with_quoted_words_are_descriptions() -> None:
    assert not reads_as_description("remove 'any' as valid option")
    assert weak_fuzzy("remove 'any' as valid option", None)
    assert not weak_fuzzy("remove 'any' as valid option", "src/options/any.py")
