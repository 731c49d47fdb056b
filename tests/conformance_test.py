"""The walk against git as the oracle, on generated trees.

Each case builds a small tree in a fresh repository (nothing committed) with ``.gitignore`` files
at several depths, sometimes ``.git/info/exclude`` and a global excludes file (HOME and
XDG_CONFIG_HOME point into the temporary folder), sometimes searched from a subdirectory.  The
rules mix real lines from the corpus (``../shared/corpus/ignores``) with every edge case of the
gitignore syntax.  Expected: ``git ls-files --others --exclude-standard`` run in the search
folder, minus hidden paths (unless ``hidden=True``) and paths inside the folders
``DEFAULT_EXCLUDES`` leaves out: ``node_modules`` and ``__pycache__`` unless the ignore file
that decides for the folder re-includes it (``git check-ignore -v`` names a ``!`` pattern), and
``target`` only when it holds a valid ``CACHEDIR.TAG`` (never in the generated trees).

``benchmarks/ignore_conformance.py`` runs the same generator on many more trees.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from ffind.fs.walk import DEFAULT_EXCLUDES, walk
from ffind.options import SearchOptions

CORPUS = Path(os.environ.get(
    "FFIND_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"
)) / "ignores"

# A few real lines, used when the corpus is not next to the checkout.
_FALLBACK_RULES = [
    "target/", "/autocomplete/", "**/*.rs.bk", "node_modules/", "*.pyc", "/dist/", "/doc/",
    "debug.log*", "!lib/ansible/_vendor/__init__.py", "lib/ansible/_vendor/*", "/.venv/",
    "*.egg-info/", "/test/dummy/log/*.log", ".DS_Store", "__pycache__/", "*.swp", "build/",
    "/tmp/", "!.gitignore", "*$py.class", "/sympy/polys/*.c", "# comment", "",
]


def corpus_rules() -> list[str]:
    lines: set[str] = set()
    for path in sorted(CORPUS.glob("*.json")):
        for entry in json.loads(path.read_text()):
            lines.update(entry["content"].split("\n"))
    return sorted(lines) or list(_FALLBACK_RULES)


# Names chosen to meet the rules below (and the corpus'): extensions, hidden, special chars.
DIR_NAMES = ["a", "b", "src", "lib", "doc", "build", "test", "tmp", "dist", "target",
             "node_modules", "__pycache__", ".hidden", "keep", "foo", "sp ace", "x.d", "log"]
FILE_NAMES = ["a", "b", "foo", "bar", "x.py", "y.pyc", "main.rs", "test.log", "debug.log.1",
              "README.md", ".env", ".gitignore_not", "keep.txt", "a.tar.gz", "#hash", "!bang",
              "trail ", "sp ace.txt", "[x]", "q?", "star*", "Ω.txt", "x.d", "back\\slash",
              "doc", "build", "a.o", "z.TXT", "foo.rs.bk", "tab\t", "ü.txt", "éb.md", "1.txt",
              "x]y"]
EXTS = [".py", ".pyc", ".txt", ".log", ".rs", ".md", ".o", ".gz", ".d", ".TXT"]

EDGE_RULES = [
    "{n}", "/{n}", "{d}/", "/{d}/", "*{e}", "!{n}", "!*{e}", "{d}/*", "!{d}/{n}", "{d}/**",
    "**/{n}", "{d}/**/{n}", "{d}/**/", "**/{d}/", "{d}/{n}", "/{d}/{n}", "/{d}/{d2}/",
    "*", "!*/", "**/", "*/", "/*", "!/{d}/", "!{d}/", "[abf]*", "[!ab]*", "[a-c]*", "?oo",
    "{n}   ", "trail\\ ", "trail\\  ", "\\#hash", "\\!bang", "#hash", "", "   ", "{n}\\",
    "[z-a]x", "[a-", "**/*{e}", "{d}/*/", "*{e}/", "a**", "**o", "{n}*", "*a*", "\\[x\\]",
    "q\\?", "star\\*", "{d}/**/*{e}", "!{n}/", "*.log*", "Ω*", "back\\\\slash", "sp ace*",
    "/{d}/*", "!/{d}/{n}", "{d}/[!k]*", "**/{d}/**", "*/{n}", "/**/{n}", "!**/{n}",
    "tab\t", "tab \t", "{n}\t",
    # wildcards on bytes, POSIX classes, escapes in classes
    "?.txt", "??.txt", "[!a]b.md", "[[:digit:]]*", "[[:alpha:]]*{e}", "x[\\]]y", "**/{d}/{n}",
    "{d}/[[:lower:]]*", "[[:nope:]]*", "?{n}",
    # {p}: a folder's whole path from the top, so anchored patterns with literal leading
    # folders (which the walk tries only on the way to them) meet real folders
    "{p}/{n}", "/{p}/*{e}", "{p}/**/{n}", "{p}/*/", "!{p}/{n}", "{p}/", "/{p}/**",
]


@dataclasses.dataclass
class Case:
    """One generated tree, described so that a failure can be reproduced and read."""

    seed: int
    files: list[str]
    ignore_files: dict[str, list[str]]  # path (relative to the repo) -> lines
    info_exclude: list[str] | None
    global_excludes: list[str] | None
    global_mode: str  # "xdg", "home" (XDG unset: ~/.config/git/ignore), "config" (.gitconfig)
    search: str  # search folder relative to the repo ('' for the top)
    hidden: bool
    threads: int

    def describe(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1, ensure_ascii=False)


def generate(seed: int, rules: list[str]) -> Case:
    rng = random.Random(seed)
    dirs = [""]
    files: list[str] = []

    def fill(prefix: str, depth: int) -> None:
        taken = rng.sample(FILE_NAMES, rng.randint(1, 5))
        if rng.random() < 0.3:
            taken.append("f" + rng.choice(EXTS))
        files.extend(prefix + name for name in taken)
        if depth >= 4:
            return
        free = [d for d in DIR_NAMES if d not in taken]
        for name in rng.sample(free, rng.randint(0 if depth else 2, 3)):
            dirs.append(prefix + name)
            fill(prefix + name + "/", depth + 1)

    fill("", 0)

    def rule() -> str:
        if rng.random() < 0.35:
            return rng.choice(rules)
        d, d2 = (os.path.basename(rng.choice(dirs[1:] or ["a"])) for _ in range(2))
        n = os.path.basename(rng.choice(files))
        p = rng.choice(dirs[1:] or ["a"])
        return rng.choice(EDGE_RULES).format(n=n, d=d, d2=d2, e=rng.choice(EXTS), p=p)

    ignore_files: dict[str, list[str]] = {}
    for d in rng.sample(dirs, min(len(dirs), rng.randint(1, 4))):
        path = (d + "/" if d else "") + ".gitignore"
        ignore_files[path] = [rule() for _ in range(rng.randint(1, 8))]
    info = [rule() for _ in range(rng.randint(1, 3))] if rng.random() < 0.3 else None
    glob_ = [rule() for _ in range(rng.randint(1, 3))] if rng.random() < 0.3 else None
    mode = rng.choice(["xdg", "home", "config"])
    search = rng.choice(dirs) if rng.random() < 0.4 else ""
    return Case(seed, files, ignore_files, info, glob_, mode, search,
                hidden=rng.random() < 0.25, threads=2 if rng.random() < 0.05 else 1)


def build(case: Case, tmp: Path) -> tuple[Path, dict[str, str]]:
    """Write the tree and its configuration; returns the repo and the environment to use."""
    repo = tmp / "repo"
    home = tmp / "home"
    home.mkdir()
    for f in case.files:
        p = repo / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    for path, lines in case.ignore_files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        end = "\r\n" if case.seed % 7 == 3 else "\n"  # some files with CRLF line ends
        (repo / path).write_bytes((end.join(lines) + end).encode("utf-8", "surrogateescape"))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") and k != "XDG_CONFIG_HOME"}
    env["HOME"] = str(home)
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    subprocess.run(["git", "init", "-q", "--template=", str(repo)], check=True, env=env)
    if case.info_exclude is not None:
        (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
        (repo / ".git" / "info" / "exclude").write_text("\n".join(case.info_exclude) + "\n")
    if case.global_excludes is not None:
        text = "\n".join(case.global_excludes) + "\n"
        if case.global_mode == "xdg":
            env["XDG_CONFIG_HOME"] = str(tmp / "xdg")
            (tmp / "xdg" / "git").mkdir(parents=True)
            (tmp / "xdg" / "git" / "ignore").write_text(text)
        elif case.global_mode == "home":
            (home / ".config" / "git").mkdir(parents=True)
            (home / ".config" / "git" / "ignore").write_text(text)
        else:
            (home / "my ignores").write_text(text)
            (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/my ignores\n")
    return repo, env


def git_others(cwd: Path, env: dict[str, str]) -> list[str]:
    out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"],
                         cwd=cwd, env=env, capture_output=True, check=True).stdout
    return [os.fsdecode(raw) for raw in out.split(b"\0") if raw]


ALWAYS_EXCLUDED = frozenset(DEFAULT_EXCLUDES) - {"target"}  # target: only a tagged cache


def git_reincluded(repo: Path, env: dict[str, str], folders: set[str]) -> set[str]:
    """The ``folders`` (relative to the repo) whose deciding ignore pattern is a negation."""
    if not folders:
        return set()
    out = subprocess.run(
        ["git", "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin"], cwd=repo, env=env,
        input=b"\0".join(os.fsencode(f) for f in sorted(folders)) + b"\0",
        capture_output=True, check=False).stdout.split(b"\0")
    return {os.fsdecode(out[i + 3]).rstrip("/") for i in range(0, len(out) - 3, 4)
            if out[i + 2].startswith(b"!")}


def git_expected(case: Case, repo: Path, env: dict[str, str]) -> set[str]:
    if case.search and not any(p.startswith(case.search + "/") for p in git_others(repo, env)):
        # git shows nothing inside an ignored folder, fd (and ffind) show an explicit root's
        # content: compare such cases from the top instead.
        case.search = ""
    top = case.search + "/" if case.search else ""
    listed = git_others(repo / case.search if case.search else repo, env)
    excluded = {top + "/".join(parts[:i + 1])
                for parts in (path.split("/") for path in listed)
                for i in range(len(parts) - 1) if parts[i] in ALWAYS_EXCLUDED}
    excluded -= git_reincluded(repo, env, excluded)
    expected = set()
    for path in listed:
        parts = path.split("/")
        if not case.hidden and any(p.startswith(".") for p in parts):
            continue
        if any(top + "/".join(parts[:i + 1]) in excluded for i in range(len(parts) - 1)):
            continue
        expected.add(path)
    return expected


def run_case(case: Case, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[set[str], set[str]]:
    repo, env = build(case, tmp)
    expected = git_expected(case, repo, env)
    for key in [k for k in os.environ if k.startswith("GIT_") or k == "XDG_CONFIG_HOME"]:
        monkeypatch.delenv(key)
    for key in ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM"):
        if key in env:
            monkeypatch.setenv(key, env[key])
    root = repo / case.search if case.search else repo
    got = list(walk(root, SearchOptions(hidden=case.hidden, threads=case.threads)))
    assert len(got) == len(set(got)), "a path was listed twice"
    return set(got), expected


_RULES: list[str] = []


def rules() -> list[str]:
    if not _RULES:
        _RULES.extend(corpus_rules())
    return _RULES


def check(case: Case, got: set[str], expected: set[str]) -> None:
    assert got == expected, (
        f"\nonly ffind: {sorted(got - expected)}\nonly git: {sorted(expected - got)}\n"
        f"case: {case.describe()}"
    )


def test_corpus_rules_are_real() -> None:
    lines = rules()
    assert "node_modules/" in lines or "target/" in lines


@pytest.mark.parametrize("seed", range(int(os.environ.get("FFIND_CONFORMANCE_CASES", "300"))))
def test_walk_agrees_with_git(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = generate(seed, rules())
    got, expected = run_case(case, tmp_path, monkeypatch)
    check(case, got, expected)


# Fixed cases for what the random trees meet rarely: one '.gitignore', git decides.
BYTE_CASES: list[tuple[list[str], list[str]]] = [
    (["?.txt"], ["ü.txt", "u.txt", "éé.txt"]),
    (["??.txt", "???.md"], ["ü.txt", "ab.txt", "€.md", "é.md"]),
    (["[!a]b.md", "[é]c"], ["éb.md", "cb.md", "ab.md", "éc"]),
    (["[[:digit:]].txt", "[[:upper:]]*.log", "[[:space:]]x", "[[:punct:]]y", "[[:xdigit:]]z"],
     ["1.txt", "a.txt", "Ab.log", "ab.log", " x", "-y", "ay", "fz", "gz"]),
    (["x[\\]]y", "[]a]z", "[\\!]w", "[z-a]v", "[a-]u", "[[:x]t", "[!]]s"],
     ["x]y", "x\\y", "]z", "az", "!w", "zv", "av", "-u", "[t", ":t", "xt", "]s", "as"]),
    (["d/[!é]/f", "d/?/g", "d/**/[[:digit:]]"], ["d/é/f", "d/e/f", "d/é/g", "d/x/y/7", "d/1"]),
    (["[[:nope:]]", "a[", "q\\"], ["a[", "q", "n"]),
    (["**/x/y", "!**/keep/x/y"], ["x/y", "a/x/y", "a/b/x/y", "keep/x/y", "a/keep/x/y"]),
]


def _fixed_case(rules_: list[str], files: list[str]) -> Case:
    return Case(0, files, {".gitignore": rules_}, None, None, "xdg", "", hidden=False, threads=1)


@pytest.mark.parametrize("index", range(len(BYTE_CASES)))
def test_byte_wildcards_agree_with_git(index: int, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    case = _fixed_case(*BYTE_CASES[index])
    got, expected = run_case(case, tmp_path, monkeypatch)
    check(case, got, expected)


IGNORE_CASE_RULES = ["*.TXT", "BUILD/", "Docs/*.Md", "/Out/Gen", "[A-C]x", "[[:upper:]]y",
                     "\\Q*", "keep*", "!KEEP.me", "**/Deep/F"]
IGNORE_CASE_FILES = ["a.txt", "b.TxT", "build/f", "Build/g", "x/BUILD/h", "build2/i",
                     "docs/a.md", "DOCS/b.MD", "docs/sub/c.md", "out/gen", "OUT/GEN", "x/out/gen",
                     "ax", "Bx", "dx", "ay", "Zy", "Qa", "qa", "keep.me", "KEEP.me", "keepX",
                     "a/deep/f", "z.md"]


def test_ignore_case_agrees_with_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """core.ignoreCase=true: git decides with the repository set so; ffind's rules compiled
    with ``ignore_case`` (what the walk does when ``ffind.state.git.ignore_case`` says so) agree."""
    from ignore_test import match_path

    from ffind.fs.ignore.patterns import Rules

    case = _fixed_case(IGNORE_CASE_RULES, IGNORE_CASE_FILES)
    repo, env = build(case, tmp_path)
    subprocess.run(["git", "config", "core.ignoreCase", "true"], cwd=repo, env=env, check=True)
    expected = {p for p in git_others(repo, env) if p != ".gitignore"}
    rules = Rules(IGNORE_CASE_RULES, ignore_case=True)
    got = {p for p in IGNORE_CASE_FILES if not match_path(rules, p)}
    check(case, got, expected)
    from ffind.state.git import ignore_case

    monkeypatch.setenv("HOME", env["HOME"])
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert ignore_case(str(repo / ".git")) is True
CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by cargo.\n")


def test_a_tracked_package_named_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tracked Java package ``.../aop/target`` is listed as git lists it; only the build
    folders are left out: a ``target`` holding a valid CACHEDIR.TAG (Cargo's) and
    ``node_modules``."""
    repo, env = build(Case(0, [], {}, None, None, "xdg", "", False, 1), tmp_path)
    java = "src/main/java/org/x/aop/target/"
    sources = [java + n for n in ("HotSwappableTargetSource.java", "LazyInitTargetSource.java",
                                  "package-info.java")]
    for path in [*sources, "crate/src/main.rs", "crate/target/debug/app", "tool/target/out.bin",
                 "mod/target/classes/X.class", "mod/pom.xml", "node_modules/m/index.js",
                 "notes/target/todo.txt"]:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text("")
    (repo / "crate" / ".gitignore").write_text("/target\n")  # as cargo new writes it
    (repo / "crate" / "target" / "CACHEDIR.TAG").write_text(CACHEDIR_TAG)
    (repo / "tool" / "target" / "CACHEDIR.TAG").write_text(CACHEDIR_TAG)  # not in .gitignore
    (repo / "mod" / ".gitignore").write_text("target/\n")  # Maven's, untagged
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "add", *sources], cwd=repo, env=env, check=True)
    subprocess.run([*git, "commit", "-qm", "sources"], cwd=repo, env=env, check=True)
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                         cwd=repo, env=env, capture_output=True, check=True).stdout
    listed = {os.fsdecode(raw) for raw in out.split(b"\0") if raw}
    assert set(sources) <= listed
    expected = {p for p in listed if not p.startswith(("tool/target/", "node_modules/"))
                and not any(part.startswith(".") for part in p.split("/"))}
    assert expected >= {*sources, "notes/target/todo.txt"}
    for key in ("HOME", "GIT_CONFIG_NOSYSTEM"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for threads in (1, 2):
        assert set(walk(repo, SearchOptions(threads=threads))) == expected
