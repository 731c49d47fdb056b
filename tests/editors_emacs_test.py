"""The Emacs package (editors/emacs/ffind.el), run in ``emacs --batch``.

In batch mode the minibuffer reads its input from standard input, so ``M-x ffind`` runs for
real: the typed line is the query.  Each run has a temporary HOME and an ``ffind`` on PATH
that runs this checkout's code.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need

CHECKOUT = Path(__file__).resolve().parent.parent
PACKAGE = CHECKOUT / "editors" / "emacs"
FILES = ["docs/guide.md", "src/base_code.py", "src/other_code.py", "src/code.txt",
         "odd 'name' \"here\".txt", ".hidden/secret_notes.txt", "build/ignored_output.txt"]
WRAPPER = """#!/bin/sh
printf '%s\\n' "$*" >> {calls}
if [ -n "$FAKE_REMEMBER" ]; then
  case "$1" in
    --remember) exit 0 ;;
    --help) echo '  --remember PATH  Record a visit.'; exit 0 ;;
  esac
fi
if [ -z "$FAKE_REMEMBER" ] && [ "$1" = --help ]; then  # an ffind from before --remember
  PYTHONPATH={checkout} {python} -m ffind --help | grep -v -e --remember; exit 0
fi
PYTHONPATH={checkout} exec {python} -m ffind "$@"
"""


@pytest.fixture
def emacs() -> str:
    return need("emacs")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"{rel}\n")
    (root / ".gitignore").write_text("build/\n")
    subprocess.run([need("git"), "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    wrapper = bindir / "ffind"
    wrapper.write_text(WRAPPER.format(calls=shlex.quote(str(tmp_path / "calls")),
                                      python=shlex.quote(sys.executable),
                                      checkout=shlex.quote(str(CHECKOUT))))
    wrapper.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    return {**os.environ, "HOME": str(home), "PATH": f"{bindir}:{os.environ['PATH']}",
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".data"),
            "XDG_STATE_HOME": str(home / ".state"), "XDG_CACHE_HOME": str(home / ".cache")}


def run(emacs: str, env: dict[str, str], cwd: Path, form: str, typed: str = "",
        ok: bool = True) -> subprocess.CompletedProcess[str]:
    """Evaluate ``form`` in ``emacs --batch`` with ffind.el loaded, ``typed`` on stdin."""
    got = subprocess.run(
        [emacs, "--batch", "-Q", "-L", str(PACKAGE), "-l", "ffind", "--eval", form],
        input=typed, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)
    if ok:
        assert got.returncode == 0, got.stderr
    return got


def el(path: Path) -> str:
    """``path`` as an Emacs Lisp string (JSON's escapes are Lisp's for these names)."""
    return json.dumps(str(path))


def lisp_lines(text: str) -> list[str]:
    """The value printed by ``(princ (mapconcat #'identity LIST "\\n"))``."""
    return text.split("\n") if text else []


def cli(tree: Path, *args: str) -> list[str]:
    got = subprocess.run([sys.executable, "-m", "ffind", *args], cwd=tree, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(CHECKOUT)}, timeout=60)
    return got.stdout.splitlines()


def test_the_command_line(emacs: str, env: dict[str, str], tree: Path) -> None:
    form = """(progn
      (prin1 (list (ffind-command "base cod" t) (ffind-command "" nil) (ffind-command "-x")
                   (let ((ffind-program "/opt/ffind") (ffind-limit 5)
                         (ffind-extra-args '("-e" "*.md")))
                     (ffind-command "q")))))"""
    assert run(emacs, env, tree, form).stdout == (
        '(("ffind" "-l" "200" "-0" "-H" "-I" "--" "base cod") ("ffind" "-l" "200" "-0") '
        '("ffind" "-l" "200" "-0" "--" "-x") ("/opt/ffind" "-l" "5" "-0" "-e" "*.md" "--" "q"))')


def test_candidates_and_completions_keep_ffinds_order(
    emacs: str, env: dict[str, str], tree: Path,
) -> None:
    want = cli(tree, "code")
    assert len(want) == 3 and want != sorted(want), "a query whose ranking is not sorted"
    form = f"""(let* ((table (ffind-completion-table {el(tree)}))
                     (md (completion-metadata "code" table nil)))
      (princ (mapconcat #'identity
        (append (ffind-candidates "code" {el(tree)})
                (list "--")
                (let ((all (completion-all-completions "code" table nil 4 md)))
                  (funcall (completion-metadata-get md 'display-sort-function)
                           (seq-take all (safe-length all))))
                (list "--" (format "%s" (completion-metadata-get md 'category))))
        "\\n")))"""
    got = lisp_lines(run(emacs, env, tree, form).stdout)
    assert got == [*want, "--", *want, "--", "ffind"]


def test_m_x_ffind_visits_the_best_match_of_the_typed_query(
    emacs: str, env: dict[str, str], tree: Path,
) -> None:
    form = "(progn (call-interactively #'ffind) (princ (format \"\\n%s\" buffer-file-name)))"
    # started in a subfolder: the search runs from the project's root
    got = run(emacs, env, tree / "src", form, typed="guide\n")
    assert got.stdout.splitlines()[-1] == str(tree / "docs/guide.md")
    got = run(emacs, env, tree, form, typed="src/other_code.py\n")
    assert got.stdout.splitlines()[-1] == str(tree / "src/other_code.py")


def test_prefix_argument_searches_hidden_and_ignored_files(
    emacs: str, env: dict[str, str], tree: Path,
) -> None:
    form = ("(progn (let ((current-prefix-arg '(4))) (call-interactively #'ffind))"
            " (princ (format \"\\n%s\" buffer-file-name)))")
    got = run(emacs, env, tree, form, typed="secret_notes\n")
    assert got.stdout.splitlines()[-1] == str(tree / ".hidden/secret_notes.txt")
    got = run(emacs, env, tree, form, typed="ignored_output\n")
    assert got.stdout.splitlines()[-1] == str(tree / "build/ignored_output.txt")
    plain = "(call-interactively #'ffind)"
    got = run(emacs, env, tree, plain, typed="secret_notes\n", ok=False)
    assert got.returncode != 0 and "ffind: nothing matches secret_notes" in got.stderr


def test_open_file_with_an_odd_name(emacs: str, env: dict[str, str], tree: Path) -> None:
    name = "odd 'name' \"here\".txt"
    form = f"""(with-current-buffer (ffind-open-file (car (ffind-candidates "odd here"))
                                                  {el(tree)})
      (princ (format "%s\\n%s" buffer-file-name (buffer-string))))"""
    got = run(emacs, env, tree, form).stdout
    assert got == f"{tree / name}\n{name}\n"


def test_errors_are_user_errors(emacs: str, env: dict[str, str], tree: Path) -> None:
    form = "(let ((ffind-program \"/nonexistent/ffind\")) (ffind-candidates \"x\"))"
    got = run(emacs, env, tree, form, ok=False)
    assert got.returncode != 0 and "ffind: cannot run /nonexistent/ffind" in got.stderr
    form = "(let ((ffind-extra-args '(\"--no-such-flag\"))) (ffind-candidates \"x\"))"
    got = run(emacs, env, tree, form, ok=False)
    assert got.returncode != 0 and "no-such-flag" in got.stderr


REMEMBER = """(let ((root default-directory))
  (ffind-remember-mode 1)
  (find-file (expand-file-name "docs/guide.md" root))
  (find-file (expand-file-name "src/new_file.py" root))  ; not on disk: not recorded
  (find-file (expand-file-name "src/other_code.py" root))
  (let ((deadline (+ (float-time) 60)))
    (while (and (< (float-time) deadline)
                (or (not (memq ffind--remember-state '(yes no)))
                    (seq-some #'process-live-p (process-list))))
      (accept-process-output nil 0.05)))
  (princ ffind--remember-state))"""


def test_remember_mode_records_visits_when_ffind_has_it(
    emacs: str, env: dict[str, str], tree: Path, tmp_path: Path,
) -> None:
    got = run(emacs, {**env, "FAKE_REMEMBER": "1"}, tree, REMEMBER)
    assert got.stdout == "yes", got.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    # (each visit is its own background process, never waited for: two may end in either order)
    assert calls[0] == "--help"
    assert sorted(calls[1:]) == [f"--remember {tree / 'docs/guide.md'}",
                                 f"--remember {tree / 'src/other_code.py'}"]


def test_remember_mode_records_nothing_without_it(
    emacs: str, env: dict[str, str], tree: Path, tmp_path: Path,
) -> None:
    assert run(emacs, env, tree, REMEMBER).stdout == "no"
    assert (tmp_path / "calls").read_text().splitlines() == ["--help"]
