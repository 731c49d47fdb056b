"""ffind.fs.walk on fixed trees: every ignore source, hidden files, symlinks, hostile names,
unreadable and vanishing folders, depth, types, threads and cancellation."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ffind.errors import FfindError
from ffind.fs.walk import DEFAULT_EXCLUDES, VCS_DIRS, walk, walk_batches
from ffind.options import SearchOptions

THREADS = [1, 2]


def files(root: Path | str, **options: object) -> set[str]:
    got = list(walk(root, SearchOptions(**options)))  # type: ignore[arg-type]
    assert len(got) == len(set(got)), "a path was listed twice"
    return set(got)


def make(root: Path, *paths: str) -> Path:
    """Create empty files (a trailing '/' makes a folder)."""
    for p in paths:
        target = root / p
        if p.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("")
    return root


CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by cargo.\n")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture(autouse=True)
def _no_user_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                        ) -> None:
    """The user's global excludes must not leak into the tests."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture(autouse=True)
def _workers_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk with threads >= 2 starts its workers at once here, however small the tree, so
    that these tests reach them (the inline start is tested in its own tests)."""
    monkeypatch.setattr(sys.modules["ffind.fs.walk"], "INLINE_FIRST", 0)


AT_ONCE = "import ffind.fs.walk\nffind.fs.walk.INLINE_FIRST = 0\n"
"""The same for a script run in a fresh interpreter (prepended to it)."""


def git_init(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--template=", str(path)], check=True)
    return path


# ---------------------------------------------------------------------------------------------
# What is always or by default left out


@pytest.mark.parametrize("threads", THREADS)
def test_hidden_vcs_and_default_excludes(tmp_path: Path, threads: int) -> None:
    make(tmp_path, "a.txt", ".env", ".hidden/x", "src/main.rs", "node_modules/m/index.js",
         "target/debug/app", "src/__pycache__/m.pyc", ".git/config", ".hg/x", ".svn/x",
         ".jj/x", "src/target")  # a *file* named target is kept
    write(tmp_path / "target" / "CACHEDIR.TAG", CACHEDIR_TAG)  # a build folder (Cargo's)
    assert files(tmp_path, threads=threads) == {"a.txt", "src/main.rs", "src/target"}
    assert files(tmp_path, threads=threads, hidden=True) == {
        "a.txt", ".env", ".hidden/x", "src/main.rs", "src/target"}
    # respect_ignore=False turns off every ignore source but keeps VCS folders out
    assert files(tmp_path, threads=threads, hidden=True, respect_ignore=False) == {
        "a.txt", ".env", ".hidden/x", "src/main.rs", "node_modules/m/index.js",
        "target/debug/app", "target/CACHEDIR.TAG", "src/__pycache__/m.pyc", "src/target"}
    assert {"node_modules", "target", "__pycache__"} <= set(DEFAULT_EXCLUDES)
    assert {".git", ".hg", ".svn", ".jj"} <= VCS_DIRS


@pytest.mark.parametrize("threads", THREADS)
def test_a_source_package_named_target_is_listed(tmp_path: Path, threads: int) -> None:
    """A Java package ``.../aop/target`` is source: only a build folder (one holding a valid
    CACHEDIR.TAG, as Cargo writes) named ``target`` is left out."""
    java = "src/main/java/org/x/aop/target/"
    make(tmp_path, java + "HotSwappableTargetSource.java", java + "LazyInitTargetSource.java",
         "crate/target/debug/app", "crate/src/main.rs", "fake/target/CACHEDIR.TAG/x",
         "bad/target/a.o")
    write(tmp_path / "crate" / "target" / "CACHEDIR.TAG", CACHEDIR_TAG)
    write(tmp_path / "bad" / "target" / "CACHEDIR.TAG", "Signature: something else\n")
    os.mkfifo(tmp_path / "ghost")  # a FIFO named CACHEDIR.TAG must not block the walk
    os.makedirs(tmp_path / "pipe" / "target")
    os.rename(tmp_path / "ghost", tmp_path / "pipe" / "target" / "CACHEDIR.TAG")
    assert files(tmp_path, threads=threads) == {
        java + "HotSwappableTargetSource.java", java + "LazyInitTargetSource.java",
        "crate/src/main.rs", "fake/target/CACHEDIR.TAG/x", "bad/target/CACHEDIR.TAG",
        "bad/target/a.o"}
    assert "crate/target" not in files(tmp_path, threads=threads, types=("d",))


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("source", [".ignore", ".gitignore"])
def test_a_negation_re_includes_a_default_exclude(tmp_path: Path, threads: int,
                                                  source: str) -> None:
    git_init(tmp_path)
    make(tmp_path, "node_modules/m/index.js", "target/debug/app", "src/__pycache__/m.pyc",
         "a.txt")
    write(tmp_path / "target" / "CACHEDIR.TAG", CACHEDIR_TAG)
    assert files(tmp_path, threads=threads) == {"a.txt"}
    write(tmp_path / source, "!target/\n!node_modules/\n")
    assert files(tmp_path, threads=threads) == {
        "a.txt", "target/debug/app", "target/CACHEDIR.TAG", "node_modules/m/index.js"}
    write(tmp_path / "src" / source, "!__pycache__\n")  # also from a deeper file
    assert "src/__pycache__/m.pyc" in files(tmp_path, threads=threads)


def test_paths_are_relative_slash_separated_without_dot(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, "a/b/c.txt", "d.txt")
    monkeypatch.chdir(tmp_path)
    assert files(".") == {"a/b/c.txt", "d.txt"}
    assert files(tmp_path / "a") == {"b/c.txt"}
    assert files(Path("a")) == {"b/c.txt"}


@pytest.mark.parametrize("threads", THREADS)
def test_types_and_max_depth(tmp_path: Path, threads: int) -> None:
    make(tmp_path, "a/b/c/d.txt", "a/x.txt", "top.txt", "empty/", "node_modules/y/")
    assert files(tmp_path, threads=threads, types=("d",)) == {"a", "a/b", "a/b/c", "empty"}
    assert files(tmp_path, threads=threads, types=("f", "d")) == {
        "a", "a/b", "a/b/c", "empty", "a/b/c/d.txt", "a/x.txt", "top.txt"}
    assert files(tmp_path, threads=threads, max_depth=1) == {"top.txt"}
    assert files(tmp_path, threads=threads, max_depth=2) == {"top.txt", "a/x.txt"}
    assert files(tmp_path, threads=threads, max_depth=2, types=("d",)) == {"a", "a/b", "empty"}
    assert files(tmp_path, threads=threads, max_depth=0) == set()


@pytest.mark.parametrize("threads", THREADS)
def test_exclude_globs(tmp_path: Path, threads: int) -> None:
    make(tmp_path, "a.md", "README.md", "docs/x.md", "docs/y.txt", "build/out.o", "b/build")
    got = files(tmp_path, threads=threads, exclude=("*.md", "!README.md", "build/"))
    assert got == {"README.md", "docs/y.txt", "b/build"}
    # applied even with respect_ignore=False
    assert "a.md" not in files(tmp_path, threads=threads, exclude=("*.md",),
                               respect_ignore=False)
    # anchored to the search root
    assert files(tmp_path, threads=threads, exclude=("/docs",)) >= {"a.md", "b/build"}
    assert "docs/x.md" not in files(tmp_path, threads=threads, exclude=("/docs",))


def test_user_errors(tmp_path: Path) -> None:
    make(tmp_path, "f.txt")
    with pytest.raises(FfindError, match="invalid exclude pattern"):
        walk(tmp_path, SearchOptions(exclude=("a\\",)))
    with pytest.raises(FfindError, match=r"^cannot search '.*f\.txt': not a folder$"):
        walk(tmp_path / "f.txt")
    with pytest.raises(FfindError, match=r"^cannot search '.*missing': no such folder$"):
        walk(tmp_path / "missing")
    with pytest.raises(ValueError, match="threads"):  # refused by SearchOptions itself
        walk(tmp_path, SearchOptions(threads=0))


# ---------------------------------------------------------------------------------------------
# Ignore sources


@pytest.mark.parametrize("threads", THREADS)
def test_gitignore_at_every_depth(tmp_path: Path, threads: int) -> None:
    git_init(tmp_path)
    make(tmp_path, "keep.txt", "x.log", "a/x.log", "a/keep.log", "a/b/c.tmp", "a/b/d.txt",
         "a/b/e/f.txt", "dist/bundle.js", "a/dist/ok.js")
    write(tmp_path / ".gitignore", "*.log\n/dist/\n")
    write(tmp_path / "a" / ".gitignore", "!keep.log\n")
    write(tmp_path / "a" / "b" / ".gitignore", "*.tmp\ne/\n")
    assert files(tmp_path, threads=threads) == {
        "keep.txt", "a/keep.log", "a/b/d.txt", "a/dist/ok.js"}


def test_inside_an_excluded_folder_nothing_comes_back(tmp_path: Path) -> None:
    git_init(tmp_path)
    make(tmp_path, "build/keep.txt", "build/x.o", "out/sub/keep.txt", "out/other.txt")
    write(tmp_path / ".gitignore", "build/\n!build/keep.txt\nout/*\n!out/sub/\n")
    assert files(tmp_path) == {"out/sub/keep.txt"}


def test_only_txt_idiom(tmp_path: Path) -> None:
    """'*' then '!*/' then '!*.txt': folders come back, files only when .txt (git's rule that
    '!*/' re-includes folders, not the files in them)."""
    git_init(tmp_path)
    make(tmp_path, "a.txt", "a.c", "d/b.txt", "d/b.c", "d/e/c.txt")
    write(tmp_path / ".gitignore", "*\n!*/\n!*.txt\n")
    assert files(tmp_path) == {"a.txt", "d/b.txt", "d/e/c.txt"}


def test_search_from_a_subdirectory_sees_parent_gitignores(tmp_path: Path) -> None:
    git_init(tmp_path / "repo")
    make(tmp_path / "repo", "a/b/x.log", "a/b/y.txt", "a/b/only/z.txt", "a/b/c/w.gen")
    write(tmp_path / "repo" / ".gitignore", "*.log\n/a/b/only/\n")
    write(tmp_path / "repo" / "a" / ".gitignore", "b/c/*.gen\n")
    # never anything above the repository's top level
    write(tmp_path / ".gitignore", "*.txt\n")
    write(tmp_path / ".ignore", "")  # an empty .ignore above: no effect
    assert files(tmp_path / "repo" / "a" / "b") == {"y.txt"}


def test_gitignore_needs_a_repository_unless_require_git_false(tmp_path: Path) -> None:
    make(tmp_path, "x.log", "y.txt")
    write(tmp_path / ".gitignore", "*.log\n")
    assert files(tmp_path) == {"x.log", "y.txt"}
    assert files(tmp_path, require_git=False) == {"y.txt"}
    git_init(tmp_path)
    assert files(tmp_path) == {"y.txt"}


def test_repository_inside_the_search_folder(tmp_path: Path) -> None:
    """Outside git, a repository below the root has its own .gitignore files apply."""
    make(tmp_path, "x.log", "repo/x.log", "repo/y.txt")
    git_init(tmp_path / "repo")
    write(tmp_path / "repo" / ".gitignore", "*.log\n")
    assert files(tmp_path) == {"x.log", "repo/y.txt"}


def test_nested_repository_starts_its_own_gitignore_stack(tmp_path: Path) -> None:
    """A nested repository is a new top level (ripgrep/fd): the outer .gitignore stops there,
    and its own info/exclude applies."""
    git_init(tmp_path)
    make(tmp_path, "x.log", "inner/x.log", "inner/y.tmp", "inner/z.txt")
    write(tmp_path / ".gitignore", "*.log\n")
    git_init(tmp_path / "inner")
    write(tmp_path / "inner" / ".git" / "info" / "exclude", "*.tmp\n")
    assert files(tmp_path) == {"inner/x.log", "inner/z.txt"}


@pytest.mark.parametrize("threads", THREADS)
def test_ignore_file_takes_precedence_and_applies_everywhere(tmp_path: Path,
                                                             threads: int) -> None:
    git_init(tmp_path / "repo")
    make(tmp_path / "repo", "a.log", "b.log", "gen/x.c", "sub/c.log", "sub/d.txt", "e.bak")
    write(tmp_path / "repo" / ".gitignore", "*.log\n")
    # .ignore at the root re-includes what the deeper .gitignore would not decide otherwise
    write(tmp_path / "repo" / ".ignore", "!a.log\ngen/\n")
    write(tmp_path / "repo" / "sub" / ".gitignore", "!c.log\n")
    write(tmp_path / "repo" / "sub" / ".ignore", "d.txt\n")
    # a .ignore above the search root applies too
    write(tmp_path / ".ignore", "*.bak\n")
    got = files(tmp_path / "repo", threads=threads)
    assert got == {"a.log", "sub/c.log"}
    # .ignore applies outside git too
    assert files(tmp_path / "repo" / "sub", threads=threads) == {"c.log"}


def test_info_exclude_and_global_excludes(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo = git_init(tmp_path / "repo")
    make(repo, "a.info", "b.global", "c.xdg", "d.txt", "sub/e.info")
    write(repo / ".git" / "info" / "exclude", "*.info\n")
    home = Path(os.environ["HOME"])
    write(home / ".config" / "git" / "ignore", "*.global\n")
    assert files(repo / "sub") == set()
    assert files(repo) == {"c.xdg", "d.txt"}
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    write(tmp_path / "xdg" / "git" / "ignore", "*.xdg\n")
    assert files(repo) == {"b.global", "d.txt"}
    write(home / ".gitconfig", "[core]\n\texcludesFile = ~/mine\n")
    write(home / "mine", "d.txt\n")
    assert files(repo) == {"b.global", "c.xdg"}
    # .gitignore beats info/exclude, which beats the global file
    write(repo / ".gitignore", "!a.info\n")
    assert "a.info" in files(repo)


# ---------------------------------------------------------------------------------------------
# Symlinks


@pytest.mark.parametrize("threads", THREADS)
def test_symlinks(tmp_path: Path, threads: int) -> None:
    root = make(tmp_path / "root", "real/f.txt", "file.txt")
    make(tmp_path, "outside/o.txt")
    (root / "link-file").symlink_to(root / "file.txt")
    (root / "link-dir").symlink_to(root / "real")
    (root / "link-out").symlink_to(tmp_path / "outside")
    (root / "broken").symlink_to(root / "missing")
    (root / "real" / "loop").symlink_to(root)  # a loop back to the root
    base = {"real/f.txt", "file.txt", "link-file"}
    assert files(root, threads=threads) == base
    followed = files(root, threads=threads, follow_links=True)
    # every real folder is entered once in the walk: 'loop' points back to the root, so it is
    # never entered; 'real' is entered through 'real' or 'link-dir', whichever comes first
    assert followed - {"real/f.txt", "link-dir/f.txt"} == {"file.txt", "link-file",
                                                            "link-out/o.txt"}
    assert len(followed & {"real/f.txt", "link-dir/f.txt"}) == 1


@pytest.mark.parametrize("threads", THREADS)
def test_follow_links_enters_each_real_folder_once(tmp_path: Path, threads: int) -> None:
    """With follow_links, a real folder reached through many links (or a link to ``/``, whose
    /sys graph is a maze of links) is entered once in the whole walk, whichever worker meets
    it: ten links to a 200-folder tree used to list it eleven times."""
    shared = make(tmp_path, *(f"shared/d{i}/f{i}.txt" for i in range(200)))
    for i in range(10):
        (tmp_path / f"l{i}").mkdir()
        (tmp_path / f"l{i}" / "to-shared").symlink_to(shared / "shared")
    (tmp_path / "shared" / "up").symlink_to(tmp_path)  # and a loop back to the root
    got = list(walk(tmp_path, SearchOptions(threads=threads, follow_links=True)))
    assert len(got) == 200
    assert {p.rsplit("/", 1)[1] for p in got} == {f"f{i}.txt" for i in range(200)}


def test_symlink_loops_between_two_folders_end(tmp_path: Path) -> None:
    make(tmp_path, "a/x", "b/y")
    (tmp_path / "a" / "to-b").symlink_to(tmp_path / "b")
    (tmp_path / "b" / "to-a").symlink_to(tmp_path / "a")
    got = files(tmp_path, follow_links=True)
    assert got == {"a/x", "b/y"}  # 'a' and 'b' are each entered once, from the root


# ---------------------------------------------------------------------------------------------
# Hostile file systems


@pytest.mark.parametrize("threads", THREADS)
def test_non_utf8_and_newline_names(tmp_path: Path, threads: int) -> None:
    raw = os.fsencode(tmp_path) + b"/bad-\xff\xfe.txt"
    with open(raw, "wb"):
        pass
    os.mkdir(os.fsencode(tmp_path) + b"/dir-\xe9")
    with open(os.fsencode(tmp_path) + b"/dir-\xe9/in\nside", "wb"):
        pass
    make(tmp_path, "line\nbreak.txt", "ok.txt")
    got = files(tmp_path, threads=threads)
    assert {os.fsencode(p) for p in got} == {
        b"bad-\xff\xfe.txt", b"dir-\xe9/in\nside", b"line\nbreak.txt", b"ok.txt"}
    assert all(isinstance(p, str) for p in got)


def test_non_utf8_names_in_gitignore(tmp_path: Path) -> None:
    git_init(tmp_path)
    with open(os.fsencode(tmp_path) + b"/skip-\xff", "wb"):
        pass
    make(tmp_path, "keep")
    (tmp_path / ".gitignore").write_bytes(b"skip-\xff\n")
    assert files(tmp_path) == {"keep"}


@pytest.mark.parametrize("threads", THREADS)
def test_200_deep(tmp_path: Path, threads: int) -> None:
    deep = "/".join(["d"] * 200)
    make(tmp_path, deep + "/leaf.txt")
    assert files(tmp_path, threads=threads) == {deep + "/leaf.txt"}


@pytest.mark.skipif(os.geteuid() == 0, reason="running as root: root reads a mode-000 folder, "
                    "so a truly unreadable folder cannot be made (the warning path is tested "
                    "with a simulated PermissionError below)")
def test_unreadable_folder_is_reported_and_skipped(tmp_path: Path) -> None:
    make(tmp_path, "locked/x.txt", "ok.txt")
    (tmp_path / "locked").chmod(0)
    warnings: list[str] = []
    try:
        got = set(walk(tmp_path, on_warning=warnings.append))
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert got == {"ok.txt"}
    assert len(warnings) == 1 and "locked" in warnings[0]


def _failing_scandir(monkeypatch: pytest.MonkeyPatch, name: str, exc: OSError) -> None:
    real = os.scandir

    def scandir(path: str) -> object:  # type: ignore[misc]
        if os.path.basename(os.fspath(path)) == name:
            raise exc
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


@pytest.mark.parametrize("threads", THREADS)  # with 2, the fork carries the patch to the workers
def test_unreadable_folder_warning_simulated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             threads: int) -> None:
    make(tmp_path, "locked/x.txt", "ok.txt", "other/y.txt")
    _failing_scandir(monkeypatch, "locked", PermissionError(13, "Permission denied"))
    warnings: list[str] = []
    got = set(walk(tmp_path, SearchOptions(threads=threads), on_warning=warnings.append))
    assert got == {"ok.txt", "other/y.txt"}
    assert len(warnings) == 1
    assert "locked" in warnings[0] and "Permission denied" in warnings[0]
    assert "\n" not in warnings[0]


def test_vanishing_folder_is_skipped_silently(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, "gone/x.txt", "ok.txt", "also/y.txt")
    real = os.scandir

    def scandir(path: str) -> object:  # type: ignore[misc]
        if os.path.basename(os.fspath(path)) == "gone":  # deleted after its parent was read
            (tmp_path / "gone" / "x.txt").unlink()
            (tmp_path / "gone").rmdir()
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    warnings: list[str] = []
    got = set(walk(tmp_path, SearchOptions(threads=1), on_warning=warnings.append))
    assert got == {"ok.txt", "also/y.txt"}
    assert warnings == []


def test_vanishing_file_between_listing_and_type_check(tmp_path: Path) -> None:
    """A DirEntry whose type is unknown needs a stat; a file gone by then is skipped."""
    make(tmp_path, "a.txt")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    assert files(tmp_path) == {"a.txt"}


# ---------------------------------------------------------------------------------------------
# Threads, batches, order, cancellation


def _big_tree(root: Path) -> Path:
    """A tree where one folder holds most of the work (so the split must go below it)."""
    for i in range(4):
        make(root, f"small{i}/f.txt")
    for i in range(60):
        for j in range(8):
            make(root, f"huge/sub{i}/d{j}/f{j}.txt", f"huge/sub{i}/g{j}.py")
    git_init(root)
    write(root / ".gitignore", "*.py\n!huge/sub1*/*.py\n")
    return root


def test_threads_give_the_same_set(tmp_path: Path) -> None:
    root = _big_tree(tmp_path)
    one = files(root, threads=1)
    assert len(one) == 4 + 60 * 8 + 11 * 8
    assert files(root, threads=2) == one
    assert files(root, threads=3) == one
    assert files(root, threads=2, types=("f", "d")) == files(root, threads=1, types=("f", "d"))


def test_order_is_deterministic_with_one_thread(tmp_path: Path) -> None:
    root = _big_tree(tmp_path)
    assert list(walk(root, SearchOptions(threads=1))) == list(walk(root,
                                                                   SearchOptions(threads=1)))


@pytest.mark.parametrize("threads", THREADS)
def test_batches_stream(tmp_path: Path, threads: int) -> None:
    root = _big_tree(tmp_path)
    batches = list(walk_batches(root, SearchOptions(threads=threads)))
    assert len(batches) > 1, "the walk streams in several batches"
    assert all(batches)
    assert len(batches[0]) <= 1000, "the first batch is small, so it comes early"


def _children() -> set[int]:
    try:
        text = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text()
    except OSError:
        import multiprocessing

        return {p.pid for p in multiprocessing.active_children() if p.pid is not None}
    return {int(x) for x in text.split()}


def test_cancel_stops_the_walk_and_leaves_no_child_process(tmp_path: Path) -> None:
    root = _big_tree(tmp_path)
    before = _children()
    cancel = threading.Event()
    seen = 0
    for batch in walk_batches(root, SearchOptions(threads=2), cancel=cancel):
        seen += len(batch)
        cancel.set()
    assert seen < len(files(root, threads=1))
    assert _children() == before


def test_closing_the_iterator_early_leaves_no_child_process(tmp_path: Path) -> None:
    root = _big_tree(tmp_path)
    before = _children()
    it: Iterator[str] = walk(root, SearchOptions(threads=2))
    assert next(it)
    it.close()  # type: ignore[attr-defined]
    assert _children() == before
    batches = walk_batches(root, SearchOptions(threads=2))
    next(batches)
    del batches
    assert _children() == before


def test_cancel_before_start(tmp_path: Path) -> None:
    root = _big_tree(tmp_path)
    cancel = threading.Event()
    cancel.set()
    for threads in THREADS:
        assert list(walk(root, SearchOptions(threads=threads), cancel=cancel)) == []


def test_library_use_from_a_thread(tmp_path: Path) -> None:
    """The session walks in a background thread; forking from it must work."""
    root = _big_tree(tmp_path)
    result: list[set[str]] = []
    t = threading.Thread(target=lambda: result.append(files(root, threads=2)))
    t.start()
    t.join(60)
    assert result == [files(root, threads=1)]


def test_one_huge_folder_keeps_both_workers_busy(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """All the work sits below one folder: the workers split it by subfolder (the fork carries
    this instrumented scan into them; each folder read reports the worker's pid)."""
    import ffind.fs.walk  # noqa: F401

    walk_module = sys.modules["ffind.fs.walk"]
    for i in range(40):
        for j in range(5):
            make(tmp_path, f"only/sub{i}/d{j}/f.txt")
    real_scan = walk_module._Walker.scan

    def scan(self: object, item: tuple[str, str, int, object, object], out: list[str],
             stack: list[object], warn: object, seen: set[object]) -> None:
        real_scan(self, item, out, stack, warn, seen)
        if item[1].startswith("only/"):
            out.append(f"pid:{os.getpid()}")

    monkeypatch.setattr(walk_module._Walker, "scan", scan)
    got = list(walk(tmp_path, SearchOptions(threads=2)))
    pids = {p for p in got if p.startswith("pid:")}
    assert str(os.getpid()) not in {p[4:] for p in pids}
    assert len(pids) == 2, "both workers read folders below 'only/'"
    assert {p for p in got if not p.startswith("pid:")} == {
        f"only/sub{i}/d{j}/f.txt" for i in range(40) for j in range(5)}


def test_a_small_tree_is_read_without_workers(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Within ``INLINE_FIRST`` the walk is read in this process: no fork, the same paths."""
    make(tmp_path, "a.txt", *(f"d{i}/e/f{i}.txt" for i in range(30)))
    monkeypatch.setattr(sys.modules["ffind.fs.walk"], "INLINE_FIRST", 60.0)

    def fork() -> int:
        raise AssertionError("a worker was started")

    monkeypatch.setattr(os, "fork", fork)
    assert files(tmp_path, threads=2) == files(tmp_path, threads=1)
    assert files(tmp_path, threads=2, types=("f", "d")) == files(tmp_path, threads=1,
                                                                  types=("f", "d"))


def test_a_big_tree_is_handed_to_the_workers_after_inline_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once ``INLINE_FIRST`` is spent, the folders left go to the workers: this process read
    the first ones, the workers the rest, and together they list every path once."""
    walk_module = sys.modules["ffind.fs.walk"]
    make(tmp_path, *(f"d{i}/e{j}/f.txt" for i in range(6) for j in range(6)))
    _slow_scan(monkeypatch, 0.005, mark_pid=True)
    monkeypatch.setattr(walk_module, "INLINE_FIRST", 0.02)
    monkeypatch.setattr(walk_module.load, "cpu_idle", lambda: True)
    got = [p for batch in walk_batches(tmp_path, SearchOptions(threads=2)) for p in batch]
    pids = [p[4:] for p in got if p.startswith("pid:")]
    assert len(pids) == 1 + 6 + 36  # every folder read once
    here = pids.count(str(os.getpid()))
    assert 1 <= here < len(pids), "read first here, then by the workers"
    paths = [p for p in got if not p.startswith("pid:")]
    assert sorted(paths) == sorted(f"d{i}/e{j}/f.txt" for i in range(6) for j in range(6))


def test_without_an_idle_cpu_a_big_tree_is_read_here_to_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once ``INLINE_FIRST`` is spent, no worker is started while every CPU is busy
    (``load.cpu_idle``): they would only share this process's; the walk goes on here."""
    walk_module = sys.modules["ffind.fs.walk"]
    make(tmp_path, *(f"d{i}/e{j}/f.txt" for i in range(6) for j in range(6)))
    _slow_scan(monkeypatch, 0.002)

    def fork() -> int:
        raise AssertionError("a worker was started")

    monkeypatch.setattr(walk_module, "INLINE_FIRST", 0.01)
    monkeypatch.setattr(walk_module.load, "cpu_idle", lambda: False)
    monkeypatch.setattr(os, "fork", fork)
    got = [p for batch in walk_batches(tmp_path, SearchOptions(threads=2)) for p in batch]
    assert sorted(got) == sorted(f"d{i}/e{j}/f.txt" for i in range(6) for j in range(6))
    got = [p for batch in walk_batches(tmp_path, SearchOptions(threads=2, types=("f", "d")))
           for p in batch]
    assert sorted(got) == sorted(files(tmp_path, threads=1, types=("f", "d")))


@pytest.mark.parametrize(("line", "cpus", "idle"), [
    (b"0.50 0.40 0.30 1/120 4242\n", 2, True),
    (b"4.15 4.69 3.36 2/124 4242\n", 2, False),
    (b"4.15 4.69 3.36 5/124 4242\n", 8, True),
    (b"garbage\n", 2, True),
    (None, 2, True),
])
def test_cpu_idle_reads_the_tasks_running_now(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: bytes | None, cpus: int,
        idle: bool) -> None:
    from ffind.fs import load

    loadavg = tmp_path / "loadavg"
    if line is not None:
        loadavg.write_bytes(line)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)))
    assert load.cpu_idle(str(loadavg)) is idle


def test_a_cpu_idle_later_starts_the_workers_then(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk that found every CPU busy asks again after each further ``INLINE_FIRST``: once
    one is idle, the rest of the tree goes to the workers, with the same paths."""
    walk_module = sys.modules["ffind.fs.walk"]
    make(tmp_path, *(f"d{i}/e{j}/f.txt" for i in range(10) for j in range(10)))
    _slow_scan(monkeypatch, 0.002)
    answers = iter([False, False])
    monkeypatch.setattr(walk_module, "INLINE_FIRST", 0.01)
    calls: list[bool] = []

    def idle() -> bool:
        calls.append(next(answers, True))
        return calls[-1]

    monkeypatch.setattr(walk_module.load, "cpu_idle", idle)
    handed: list[int] = []
    run = walk_module.pool.run

    def counted(walker: object, rest: list[object], *args: object) -> object:
        handed.append(len(rest))
        return run(walker, rest, *args)

    monkeypatch.setattr(walk_module.pool, "run", counted)
    got = [p for batch in walk_batches(tmp_path, SearchOptions(threads=2)) for p in batch]
    assert sorted(got) == sorted(f"d{i}/e{j}/f.txt" for i in range(10) for j in range(10))
    assert calls[:3] == [False, False, True], calls
    assert len(handed) == 1 and handed[0] > 0


def test_where_fork_is_missing_the_walk_reads_here(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``os.fork`` (Windows) a walk with threads=2 reads in its own process, with the
    same paths and the same filter."""
    from ffind.engine.index import Prefilter

    git_init(tmp_path)
    make(tmp_path, "a/x.log", "a/y.txt", "b/c/z.txt", "b/c/w.log", "keep.log", "b/keep.txt")
    write(tmp_path / ".gitignore", "*.log\n!keep.log\n")
    write(tmp_path / "b" / ".gitignore", "c/z.txt\n")
    pool = sys.modules["ffind.fs.pool"]
    monkeypatch.setattr(pool, "can_fork", lambda: False)
    monkeypatch.setattr(pool, "run", lambda *args: pytest.fail("workers started"))
    got = files(tmp_path, threads=2, exclude=("y.*",))
    assert got == {"keep.log", "b/keep.txt"}
    kept = [p for batch in walk_batches(tmp_path, SearchOptions(threads=2),
                                        keep=Prefilter("bkt")) for p in batch]
    assert kept == ["b/keep.txt"]


def test_package_attribute_stays_callable(tmp_path: Path) -> None:
    """``from ffind.fs.walk import ...`` binds the module to ``ffind.fs.walk``; it still walks."""
    import ffind
    from ffind.fs.walk import walk_batches as batches  # noqa: F401

    make(tmp_path, "a.txt")
    assert list(ffind.walk(tmp_path)) == ["a.txt"]
    assert ffind.DEFAULT_EXCLUDES == DEFAULT_EXCLUDES
    assert list(ffind.walk_batches(tmp_path)) == [["a.txt"]]


def test_symlinked_gitignore_is_not_read(tmp_path: Path) -> None:
    """git refuses to follow a symlinked .gitignore inside the work tree."""
    git_init(tmp_path)
    write(tmp_path / "rules", "x.log\n")
    (tmp_path / ".gitignore").symlink_to(tmp_path / "rules")
    make(tmp_path, "x.log", "y")
    assert files(tmp_path) == {"rules", "x.log", "y"}


# ---------------------------------------------------------------------------------------------
# Worker processes: exit, death, signals, fork from threads

_EXIT_SCRIPT = """
import os, sys, threading, time
from ffind.options import SearchOptions
from ffind.fs.walk import walk, walk_batches

root, mode = sys.argv[1], sys.argv[2]
walker = sys.modules["ffind.fs.walk"]._Walker
real_scan = walker.scan


def slow_scan(self, *args):  # the walk lasts longer than the program (fork copies the patch)
    time.sleep(0.02)
    real_scan(self, *args)


walker.scan = slow_scan


def kids():
    out = set()
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/children") as f:
            out.update(int(x) for x in f.read().split())
    return out


if mode == "open":  # a generator left un-exhausted until the interpreter exits
    it = walk(root, SearchOptions(threads=2))
    next(it)
else:  # a daemon thread still walking (slowly) when the main thread ends
    started = threading.Event()

    def run():
        for batch in walk_batches(root, SearchOptions(threads=2)):
            started.set()

    threading.Thread(target=run, daemon=True).start()
    started.wait(30)
print(" ".join(map(str, kids())), flush=True)
"""


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie is dead too


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
@pytest.mark.parametrize("mode", ["open", "thread", "thread", "thread"])
def test_exit_during_a_parallel_walk_is_clean(tmp_path: Path, mode: str) -> None:
    """A program that exits while a threads=2 walk runs: no traceback from multiprocessing's
    exit handler (which used to race the walk's clean-up: "process object is closed", or a
    "worker died" error in the walking thread), and no worker left behind."""
    root = _big_tree(tmp_path / "tree")
    done = subprocess.run([sys.executable, "-c", AT_ONCE + _EXIT_SCRIPT, str(root), mode],
                          capture_output=True, text=True, timeout=60)
    assert done.stderr == ""
    assert done.returncode == 0
    pids = [int(x) for x in done.stdout.split()]
    assert len(pids) == 2, "the walk was still running at exit"
    deadline = time.monotonic() + 5
    while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert all(_gone(p) for p in pids)


def _slow_scan(monkeypatch: pytest.MonkeyPatch, seconds: float, mark_pid: bool = False) -> None:
    """Each folder read takes ``seconds`` (the fork carries the patch into the workers);
    with ``mark_pid`` it also lists ``pid:<the reading process>``."""
    walk_module = sys.modules["ffind.fs.walk"]
    real_scan = walk_module._Walker.scan

    def scan(self: object, item: object, out: list[str], *args: object) -> None:
        time.sleep(seconds)
        real_scan(self, item, out, *args)
        if mark_pid:
            out.append(f"pid:{os.getpid()}")

    monkeypatch.setattr(walk_module._Walker, "scan", scan)


def _kill_a_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sig: int) -> str:
    """Walk a big tree with two workers, send ``sig`` to one of them as soon as it runs;
    the walk's one-line error.  No worker is left behind."""
    root = _big_tree(tmp_path)
    _slow_scan(monkeypatch, 0.01)
    before = _children()
    killed: list[int] = []
    with pytest.raises(FfindError) as info:
        for _ in walk_batches(root, SearchOptions(threads=2)):
            kids = _children() - before
            if kids and not killed:
                killed.append(min(kids))
                os.kill(killed[0], sig)
    assert killed
    assert _children() == before
    return str(info.value)


def test_a_killed_worker_is_a_one_line_error(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    assert _kill_a_worker(tmp_path, monkeypatch, signal.SIGKILL) == (
        "a walk worker process ended unexpectedly (killed by SIGKILL)")


def _failing_in_huge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, set[int]]:
    """A big tree whose folder ``huge/`` raises (a two-line message) when a walker reads it,
    and the child processes before the walk."""
    walk_module = sys.modules["ffind.fs.walk"]
    root = _big_tree(tmp_path)
    real_scan = walk_module._Walker.scan

    def scan(self: object, item: tuple[str, str, int, object, object], *args: object) -> None:
        if item[1] == "huge/":
            raise RuntimeError("boom\nsecond line")
        real_scan(self, item, *args)

    monkeypatch.setattr(walk_module._Walker, "scan", scan)
    return root, _children()


def test_a_failing_worker_is_a_one_line_error_and_prints_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
) -> None:
    root, before = _failing_in_huge(tmp_path, monkeypatch)
    with pytest.raises(FfindError, match=r"^a walk worker process failed: "
                                         r"RuntimeError: boom second line$"):
        list(walk(root, SearchOptions(threads=2)))
    assert _children() == before
    assert capfd.readouterr().err == ""  # the child never writes a traceback


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks")
@pytest.mark.parametrize("signum", [signal.SIGINT, getattr(signal, "SIGWINCH", signal.SIGINT)])
def test_signals_to_the_process_group_never_reach_a_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int) -> None:
    """Ctrl-C (and a terminal resize) reach the whole process group, workers included, maybe
    before a worker could ignore them: a worker is born with every signal blocked, so it neither
    dies of SIGINT (it used to, with a KeyboardInterrupt traceback, and the parent reported a
    dead worker) nor runs a handler it inherited (the picker's SIGWINCH)."""
    pool_module = sys.modules["ffind.fs.pool"]
    real_loop = pool_module._worker_loop
    ran_in: list[int] = []
    report_r, report_w = os.pipe()

    def handler(signum: int, frame: object) -> None:
        os.write(report_w, b"x")  # the parent's handler, inherited by fork

    def loop(*args: object) -> None:
        os.kill(os.getpid(), signum)  # the earliest moment a patch can reach
        real_loop(*args)

    monkeypatch.setattr(pool_module, "_worker_loop", loop)
    old = signal.signal(signum, handler) if signum != signal.SIGINT else None
    try:
        root = _big_tree(tmp_path)
        assert files(root, threads=2) == files(root, threads=1)
    finally:
        if old is not None:
            signal.signal(signum, old)
        os.close(report_w)
        ran_in.extend(os.read(report_r, 100))
        os.close(report_r)
    assert ran_in == []


_STDIN_SCRIPT = """
import sys, threading, time
from ffind.options import SearchOptions
from ffind.fs.walk import walk

threading.Thread(target=sys.stdin.readline, daemon=True).start()  # holds stdin's lock
time.sleep(0.1)
print(sum(1 for _ in walk(sys.argv[1], SearchOptions(threads=2))))
"""


def test_fork_while_another_thread_reads_stdin(tmp_path: Path) -> None:
    """A stdio server (``ffind mcp``) reads stdin in one thread and may walk in another.  A
    worker forked then must not touch sys.stdin (multiprocessing's child closes it, and hung on
    the lock held by the reading thread): the walk used to hang for ever."""
    root = _big_tree(tmp_path / "tree")
    stdin_r, stdin_w = os.pipe()  # kept open, nothing written: the reading thread waits
    try:
        proc = subprocess.Popen([sys.executable, "-c", AT_ONCE + _STDIN_SCRIPT, str(root)],
                                stdin=stdin_r, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=30)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # hung workers too, should it fail
            proc.wait()
    finally:
        os.close(stdin_r)
        os.close(stdin_w)
    assert err == ""
    assert int(out) == len(files(root, threads=1))


def test_unflushed_output_is_not_repeated_by_workers(tmp_path: Path) -> None:
    """A forked worker ends with os._exit: it never flushes the copy of the parent's stdout
    buffer it inherited."""
    root = _big_tree(tmp_path / "tree")
    code = ("import sys, threading; from ffind.options import SearchOptions;"
            " from ffind.fs.walk import walk;"
            " t = threading.Thread(target=lambda: [sys.stdout.write('x\\n') for _ in range(500)]);"
            " t.start(); n = sum(1 for _ in walk(sys.argv[1], SearchOptions(threads=2)));"
            " t.join(); print(n)")
    out = subprocess.run([sys.executable, "-c", AT_ONCE + code, str(root)],
                         capture_output=True,
                         text=True, timeout=60, check=True).stdout.split()
    assert out.count("x") == 500
    assert out[-1] == str(len(files(root, threads=1)))


def test_parallel_walks_from_several_threads_at_once(tmp_path: Path) -> None:
    """Each worker closes the pipes of every walk in flight, so walks started together in
    different threads neither mix up nor keep each other's pipes open."""
    root = _big_tree(tmp_path)
    expected = files(root, threads=1)
    results: list[set[str]] = []
    threads = [threading.Thread(target=lambda: results.append(files(root, threads=2)))
               for _ in range(3)]
    before = _children()
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [expected] * 3
    assert _children() == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_failing_fork_is_a_one_line_error(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    make(tmp_path, "a/b.txt")

    def fork() -> int:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    fds = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()
    monkeypatch.setattr(os, "fork", fork)
    with pytest.raises(FfindError, match=r"^cannot start the walk's workers: .*Resource"):
        list(walk(tmp_path, SearchOptions(threads=2)))
    if fds:
        assert set(os.listdir("/proc/self/fd")) <= fds, "a pipe was left open"


def test_a_process_with_more_than_1024_open_files_still_walks(tmp_path: Path) -> None:
    """The parent waits on its workers' pipes with poll(): select() refuses a descriptor
    above FD_SETSIZE (1024), which a long-lived process (a server) can have."""
    make(tmp_path, "a/x.txt", "b/y.txt", "c/z.txt")
    code = (
        "import os, resource, sys\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "if hard != resource.RLIM_INFINITY and hard < 1200:\n"
        "    sys.exit(f'cannot open 1200 files here: the limit is {hard}')\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))\n"
        "held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]\n"
        "from ffind.options import SearchOptions\n"
        "from ffind.fs.walk import walk\n"
        "print(sorted(walk(sys.argv[1], SearchOptions(threads=2))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", AT_ONCE + code, str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['a/x.txt', 'b/y.txt', 'c/z.txt']"


_SIGTERM_SCRIPT = """
import sys, time
from ffind.options import SearchOptions
from ffind.fs.walk import walk
walker = sys.modules["ffind.fs.walk"]._Walker
real_scan = walker.scan


def stuck_scan(self, item, *args):  # a worker busy for a long time, writing nothing
    if item[1]:
        time.sleep(120)
    real_scan(self, item, *args)


walker.scan = stuck_scan
it = walk(sys.argv[1], SearchOptions(threads=2))
print(next(it).startswith("f"), flush=True)  # the root's 100 files come in one batch at once
time.sleep(120)
"""


def _worker_pids(parent: int) -> set[int]:
    out: set[int] = set()
    for tid in os.listdir(f"/proc/{parent}/task"):
        with contextlib.suppress(OSError):
            out.update(int(x) for x in Path(f"/proc/{parent}/task/{tid}/children").read_text()
                       .split())
    return out


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_workers_die_with_a_parent_killed_by_sigterm(tmp_path: Path) -> None:
    """``timeout 30 ffind ...`` sends SIGTERM to ffind alone: its workers, busy in a long
    folder read, used to run on (every signal blocked) holding the output pipe."""
    root = make(tmp_path / "tree", *(f"f{i}.txt" for i in range(100)),
                *(f"d{i}/f.txt" for i in range(8)))
    proc = subprocess.Popen([sys.executable, "-c", AT_ONCE + _SIGTERM_SCRIPT, str(root)],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    pids: set[int] = set()
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "True"
        pids = _worker_pids(proc.pid)
        assert len(pids) == 2
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        deadline = time.monotonic() + 5
        while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert all(_gone(p) for p in pids), "a worker outlived its parent"
        assert proc.stdout.read() == ""  # no worker holds the output pipe: end of file
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the workers too, should it fail
        proc.wait()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_worker_honours_sigterm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _kill_a_worker(tmp_path, monkeypatch, signal.SIGTERM) == (
        "a walk worker process ended unexpectedly (killed by SIGTERM)")


_THREADS_SCRIPT = """
import os, sys
from ffind.options import SearchOptions
from ffind.fs.walk import walk
real_fork, forks = os.fork, []


def fork():  # a bound, so that the test fails fast instead of exhausting the machine
    forks.append(1)
    if len(forks) > 64:
        raise OSError(11, "more than 64 workers")
    return real_fork()


os.fork = fork
notes = []
got = sorted(walk(sys.argv[1], SearchOptions(threads=10000), on_warning=notes.append))
print(len(got), len(forks), notes)
"""


def test_threads_are_capped(tmp_path: Path) -> None:
    """``--threads 10000`` ran the machine out of memory: at most 4 workers per CPU, 64 in
    all, with a note."""
    make(tmp_path, "a.txt", *(f"d{i}/f.txt" for i in range(20)))
    done = subprocess.run([sys.executable, "-c", AT_ONCE + _THREADS_SCRIPT, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    cap = min(64, (os.cpu_count() or 1) * 4)
    assert done.stdout.strip() == (
        f"21 {cap} ['threads=10000 is more than this machine can use: walking with {cap}']")
    # without on_warning, the note goes to stderr, once
    code = ("import sys; from ffind.fs.walk import walk; from ffind.options import SearchOptions;"
            " print(len(list(walk(sys.argv[1], SearchOptions(threads=10000)))))")
    done = subprocess.run([sys.executable, "-c", AT_ONCE + code, str(tmp_path)],
                          capture_output=True,
                          text=True, timeout=120)
    assert (done.stdout, done.stderr) == (
        "21\n", f"ffind: threads=10000 is more than this machine can use: walking with {cap}\n")


def _deep(root: Path, depth: int, width: int) -> str:
    """``depth`` nested folders of ``width`` characters each (far beyond PATH_MAX), made
    relative to descriptors; returns their relative path.  The deepest holds ``deep.txt``,
    ``skip.txt`` and an ``.ignore`` naming ``skip.txt``."""
    names = [f"{i:03d}".ljust(width, "x") for i in range(depth)]
    fd = os.open(root, os.O_RDONLY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            new = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        for name, text in (("deep.txt", b""), ("skip.txt", b""), (".ignore", b"skip.txt\n")):
            out = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(out, text)
            os.close(out)
    finally:
        os.close(fd)
    return "/".join(names)


@pytest.mark.skipif(os.scandir not in os.supports_fd, reason="needs scandir on a descriptor")
@pytest.mark.parametrize("threads", THREADS)
def test_paths_longer_than_path_max(tmp_path: Path, threads: int) -> None:
    """500 nested 30-character folders: read relative to an open folder descriptor (the walk
    used to warn "File name too long" and miss the file, which find reaches)."""
    deep = _deep(tmp_path, 500, 30)
    assert len(os.fsencode(str(tmp_path / deep))) > 4096
    notes: list[str] = []
    got = list(walk(tmp_path, SearchOptions(threads=threads), on_warning=notes.append))
    assert notes == []
    assert f"{deep}/deep.txt" in got
    if os.path.isdir("/proc/self/fd"):  # the deepest folder's .ignore is read there too
        assert got == [f"{deep}/deep.txt"]
    dirs = set(walk(tmp_path, SearchOptions(threads=threads, types=("d",))))
    assert len(dirs) == 500


def test_a_parallel_walk_with_standard_descriptors_closed(tmp_path: Path) -> None:
    """With stdin and stdout closed (``ffind x <&- >&-``) a worker's pipe can land on
    descriptor 0 or 1: pointing the worker's standard descriptors to /dev/null must not
    clobber it."""
    make(tmp_path, *(f"d{i}/f{i}.txt" for i in range(30)))
    code = ("import os, sys\n"
            "os.close(0); os.close(1)\n"
            "from ffind.options import SearchOptions\n"
            "from ffind.fs.walk import walk\n"
            "sys.stderr.write(str(len(list(walk(sys.argv[1], SearchOptions(threads=2))))))\n")
    done = subprocess.run([sys.executable, "-c", AT_ONCE + code, str(tmp_path)],
                          capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "30")


@pytest.mark.parametrize("first", [0, 0.001, 60.0])
def test_a_recording_walk_records_the_same_in_workers_and_inline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: float) -> None:
    """The warm index's recording walk (a marker per folder among the paths) gives the same
    records, in this process or in the workers, however the walk is split between them."""
    from ffind.fs.walk import prepare_recorded, walk_prepared

    make(tmp_path, "a.txt", ".gitignore", *(f"d{i}/e{j}/f.txt" for i in range(5) for j in range(4)))
    write(tmp_path / ".gitignore", "d1/\n")
    monkeypatch.setattr(sys.modules["ffind.fs.walk"], "INLINE_FIRST", first)

    def records(threads: int) -> list[str]:
        options = SearchOptions(threads=threads)
        walker, item = prepare_recorded(str(tmp_path), options, None, [])
        return sorted(s for b in walk_prepared(walker, item, options) for s in b)

    assert records(2) == records(1)
    assert any(s.startswith("/D") for s in records(1))


# ---------------------------------------------------------------------------------------------
# walk_ahead: the one-shot search's walk, started in a forked child before the search's imports


def _ahead(root: Path, monkeypatch: pytest.MonkeyPatch, *, probe: float, first: float,
           idle: bool = True, keep: object = None, share: bool = False,
           **options: object) -> list[str]:
    """``walk_ahead``'s paths; without ``share`` this process never asks the child for a
    share of its folders (the order of ``threads=1`` when the child reads them all)."""
    walk_module = sys.modules["ffind.fs.walk"]
    if not share:
        monkeypatch.setattr(walk_module.Ahead, "_share", lambda self, proc: None)
    monkeypatch.setattr(walk_module, "INLINE_FIRST", 0.02)
    monkeypatch.setattr(walk_module, "AHEAD_PROBE", probe)
    monkeypatch.setattr(walk_module, "AHEAD_FIRST", first)
    monkeypatch.setattr(walk_module.load, "cpu_idle", lambda: idle)
    ahead = walk_module.walk_ahead(root, SearchOptions(**options),  # type: ignore[arg-type]
                                   keep=lambda: keep)
    try:
        return [p for batch in ahead for p in batch]
    finally:
        ahead.close()


@pytest.mark.parametrize(("probe", "first", "idle"), [
    (60.0, 60.0, True),  # read within the probe: no child
    (0.0, 60.0, True),  # the child reads it all
    (0.0, 0.0, True),  # the child hands every folder back: the workers read them
    (0.0, 0.0, False),  # ... or this process, when no CPU is idle
    (0.0, 60.0, False),  # no CPU idle at the start: no child
])
@pytest.mark.parametrize("types", [("f",), ("f", "d")])
def test_walk_ahead_lists_what_walk_batches_lists(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, probe: float, first: float,
        idle: bool, types: tuple[str, ...]) -> None:
    root = _big_tree(tmp_path)
    one = list(walk(root, SearchOptions(threads=1, types=types)))
    got = _ahead(root, monkeypatch, probe=probe, first=first, idle=idle, threads=2,
                 types=types)
    assert sorted(got) == sorted(one)
    if first:  # read depth first by one process: the order of threads=1
        assert got == one

    def keep(paths: list[str]) -> list[str]:
        return [p for p in paths if "1" in p]

    kept = _ahead(root, monkeypatch, probe=probe, first=first, idle=idle, keep=keep,
                  threads=2, types=types)
    assert sorted(kept) == sorted(keep(one))


@pytest.mark.parametrize("first", [60.0, 0.05])
def test_walk_ahead_child_shares_its_folders_with_this_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: float) -> None:
    # this process asks (SIGUSR1) once it is ready, and again after each share it has read:
    # the same paths, some read here (``pid:``), the rest by the child; with a short budget
    # the child hands the rest back (its share's leftovers too, to the workers)
    root = _big_tree(tmp_path)
    one = list(walk(root, SearchOptions(threads=1)))
    _slow_scan(monkeypatch, 0.002, mark_pid=True)
    got = _ahead(root, monkeypatch, probe=0.0, first=first, share=True, threads=2)
    readers = {p for p in got if p.startswith("pid:")}
    assert sorted(p for p in got if not p.startswith("pid:")) == sorted(one)
    assert f"pid:{os.getpid()}" in readers, "this process read a share"
    assert len(readers) >= 2, "the child read the rest"

    def keep(paths: list[str]) -> list[str]:
        return [p for p in paths if "1" in p or p.startswith("pid:")]

    kept = _ahead(root, monkeypatch, probe=0.0, first=first, share=True, keep=keep,
                  threads=2)
    assert sorted(p for p in kept if not p.startswith("pid:")) == sorted(keep(one))


def test_walk_ahead_share_asked_after_the_child_ended_is_harmless(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a tree the child reads before it is asked: the signal finds it done (or gone)
    make(tmp_path, "a.txt", *(f"d{i}/f{i}.txt" for i in range(5)))
    walk_module = sys.modules["ffind.fs.walk"]
    real_run = walk_module.Ahead._run

    def late(self: object) -> object:
        time.sleep(0.3)
        return real_run(self)

    monkeypatch.setattr(walk_module.Ahead, "_run", late)
    before = _children()
    got = _ahead(tmp_path, monkeypatch, probe=0.0, first=60.0, share=True, threads=2)
    assert sorted(got) == sorted(files(tmp_path, threads=1))
    assert _children() == before


def test_walk_ahead_forks_nothing_for_a_tree_read_within_the_probe(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, "a.txt", *(f"d{i}/e/f{i}.txt" for i in range(30)))

    def fork() -> int:
        raise AssertionError("a child was started")

    monkeypatch.setattr(os, "fork", fork)
    got = _ahead(tmp_path, monkeypatch, probe=60.0, first=60.0, threads=2)
    assert sorted(got) == sorted(files(tmp_path, threads=1))


def test_walk_ahead_child_reports_warnings_in_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, "locked/x.txt", "ok.txt", "other/y.txt")
    _failing_scandir(monkeypatch, "locked", PermissionError(13, "Permission denied"))
    walk_module = sys.modules["ffind.fs.walk"]
    monkeypatch.setattr(walk_module, "INLINE_FIRST", 0.02)
    monkeypatch.setattr(walk_module, "AHEAD_PROBE", 0.0)
    monkeypatch.setattr(walk_module.load, "cpu_idle", lambda: True)
    warnings: list[str] = []
    ahead = walk_module.walk_ahead(tmp_path, SearchOptions(threads=2),
                                   on_warning=warnings.append)
    assert ahead._child is not None, "read by the child"
    assert warnings == [], "the child's warnings come with its batches"
    got = {p for batch in ahead for p in batch}
    ahead.close()
    assert got == {"ok.txt", "other/y.txt"}
    assert len(warnings) == 1 and "locked" in warnings[0] and "Permission denied" in warnings[0]


def test_walk_ahead_closed_before_or_while_iterating_leaves_no_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _big_tree(tmp_path)
    walk_module = sys.modules["ffind.fs.walk"]
    monkeypatch.setattr(walk_module, "INLINE_FIRST", 0.02)
    monkeypatch.setattr(walk_module, "AHEAD_PROBE", 0.0)
    monkeypatch.setattr(walk_module.load, "cpu_idle", lambda: True)
    _slow_scan(monkeypatch, 0.001)
    before = _children()
    ahead = walk_module.walk_ahead(root, SearchOptions(threads=2))
    assert _children() - before, "a child walks"
    ahead.close()
    assert _children() == before
    ahead = walk_module.walk_ahead(root, SearchOptions(threads=2))
    next(iter(ahead))
    ahead.close()
    assert _children() == before


def test_walk_ahead_failing_child_is_a_one_line_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
) -> None:
    root, before = _failing_in_huge(tmp_path, monkeypatch)
    with pytest.raises(FfindError, match=r"^a walk worker process failed: "
                                         r"RuntimeError: boom second line$"):
        _ahead(root, monkeypatch, probe=0.0, first=60.0, threads=2)
    assert _children() == before
    assert capfd.readouterr().err == ""  # the child never writes a traceback


def test_walk_ahead_killed_child_is_a_one_line_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    walk_module = sys.modules["ffind.fs.walk"]
    root = _big_tree(tmp_path)
    monkeypatch.setattr(walk_module, "INLINE_FIRST", 0.02)
    monkeypatch.setattr(walk_module, "AHEAD_PROBE", 0.0)
    monkeypatch.setattr(walk_module.load, "cpu_idle", lambda: True)
    _slow_scan(monkeypatch, 0.01)
    before = _children()
    ahead = walk_module.walk_ahead(root, SearchOptions(threads=2))
    assert ahead._child is not None
    os.kill(ahead._child[0].pid, signal.SIGKILL)
    with pytest.raises(FfindError, match=r"^a walk worker process ended unexpectedly "
                                         r"\(killed by SIGKILL\)$"):
        list(ahead)
    ahead.close()
    assert _children() == before


def test_walk_ahead_max_depth_zero_lists_nothing(tmp_path: Path) -> None:
    from ffind.fs.walk import walk_ahead

    make(tmp_path, "a.txt")
    ahead = walk_ahead(tmp_path, SearchOptions(threads=2, max_depth=0))
    assert list(ahead) == []
    ahead.close()


def _burn_scan(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Each folder read costs ``seconds`` of CPU time (the budgets of ``walk_ahead``'s child
    are CPU time)."""
    walk_module = sys.modules["ffind.fs.walk"]
    real_scan = walk_module._Walker.scan

    def scan(self: object, *args: object) -> None:
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass
        real_scan(self, *args)

    monkeypatch.setattr(walk_module._Walker, "scan", scan)


@pytest.mark.parametrize("first", [60.0, 0.005])
def test_started_walk_lists_what_walk_batches_lists(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: float) -> None:
    # the walk the console script forks before its imports (``early_child``), taken over
    # with ``started_walk``: its shares (two big folders: one each), and with a short budget
    # the folders handed back (with the walker: this process never prepared one), after a
    # share, and what is left of this process's share
    from ffind.fs import pool
    from ffind.fs.walk import early_child, started_walk

    walk_module = sys.modules["ffind.fs.walk"]
    root = tmp_path
    make(root, *(f"{top}/d{i}/f{i}.txt" for top in "ab" for i in range(60)))
    options = SearchOptions(threads=2)
    one = list(walk(root, SearchOptions(threads=1)))
    monkeypatch.setattr(walk_module, "AHEAD_FIRST", first)
    monkeypatch.setattr(walk_module.load, "cpu_idle", lambda: False)  # (the rest: here)
    _burn_scan(monkeypatch, 0.0003)
    before = _children()
    tags: list[str] = []
    real_recv = pool.Pipe.recv_bytes

    def recv(self: pool.Pipe) -> bytes:
        message = real_recv(self)
        tags.append(chr(message[0]))
        return message

    monkeypatch.setattr(pool.Pipe, "recv_bytes", recv)
    for keep in (None, lambda paths: [p for p in paths if "1" in p]):
        child = pool.fork_stream(lambda send: early_child(str(root), options, send))
        assert child is not None
        ahead = started_walk(child[0], child[1].fileno(), options,
                             keep=lambda keep=keep: keep)  # type: ignore[misc]
        got = [p for batch in ahead for p in batch]
        ahead.close()
        assert sorted(got) == sorted(one if keep is None else keep(one))
    assert _children() == before
    assert "S" in tags
    if first < 1:
        assert "W" in tags


def test_started_walk_gives_the_root_error_of_the_child(tmp_path: Path) -> None:
    from ffind.fs import pool
    from ffind.fs.walk import early_child, started_walk

    options = SearchOptions(threads=2, exclude=("[",))
    child = pool.fork_stream(lambda send: early_child(str(tmp_path), options, send))
    assert child is not None
    ahead = started_walk(child[0], child[1].fileno(), options)
    with pytest.raises(FfindError) as info:
        list(ahead)
    ahead.close()
    with pytest.raises(FfindError) as same:
        list(walk(tmp_path, options))
    assert str(info.value) == str(same.value)


def test_walk_ahead_joins_the_batches_waiting_in_the_pipe(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a child that read the whole tree before this process reads: one batch (each costs a
    # search a match of its own), the same paths in the same order
    walk_module = sys.modules["ffind.fs.walk"]
    root = _big_tree(tmp_path)
    one = list(walk(root, SearchOptions(threads=1)))
    monkeypatch.setattr(walk_module.Ahead, "_share", lambda self, proc: None)
    monkeypatch.setattr(walk_module, "INLINE_FIRST", 0.02)
    monkeypatch.setattr(walk_module, "AHEAD_PROBE", 0.0)
    monkeypatch.setattr(walk_module.load, "cpu_idle", lambda: True)
    ahead = walk_module.walk_ahead(root, SearchOptions(threads=2))
    assert ahead._child is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _ended(ahead._child[0].pid):
        time.sleep(0.01)  # (the child has sent everything: it ended)
    batches = list(ahead)
    ahead.close()
    assert len(batches) == 1
    assert batches[0] == one


def _ended(pid: int) -> bool:
    """Whether the child ``pid`` has ended (not reaped: a zombie)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rpartition(")")[2].split()[0] == "Z"
