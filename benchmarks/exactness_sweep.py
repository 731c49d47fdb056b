"""Exactness sweep: the warm index and the resident server against a cold walk, on real trees.

    python benchmarks/exactness_sweep.py TREE [TREE...] [--ffind CMD] [--mutate TREE]...
        [--stress TREE] [--phases static,mutate,stress] [--user UID] [--quick] [--out DIR]

The contract (docs/cache.md): a search answered warm, by the root's resident server or from
the snapshot (``--no-server``), writes the same bytes to stdout and stderr and exits with the
same status as ``--no-cache``.  This script runs the installed command (``--ffind``, by
default the ``ffind`` next to this interpreter, else on ``PATH``: use a regular, non-editable
install) and compares, byte for byte:

- **static** (each TREE, untouched): for every query of ``QUERIES`` and option set of
  ``OPTION_SETS`` (and a few places to search from: ``-C SUB``, from ``SUB`` with ``-C ..``,
  from ``SUB`` itself, through a symbolic link to the tree), the default command run twice
  (a folder's first call, answered cold, then usually served), ``--no-server`` (the
  snapshot) and ``--no-cache``.  One option set runs with standard output and error on
  terminals (escaping, colour, the "showing N of M" note).
- **mutate** (each ``--mutate`` TREE, copied first with ``cp -a`` to a temporary folder: the
  given tree is never changed): real edits between searches (``git checkout`` of another
  commit, files and folders created, deleted and renamed, a ``.gitignore`` line in a
  sub-folder, ``.git/info/exclude``, ``git stash``, a file created within the same second as
  the search before, a folder made unreadable, a folder replaced by a symbolic link...);
  after each step a few queries and option sets, served, ``--no-server`` and ``--no-cache``.
- **stress** (``--stress`` TREE, a copy too): two first calls at once, the server killed
  with SIGKILL (between calls and during one), a truncated snapshot, a read-only cache
  folder.

Every run uses private ``XDG_CACHE_HOME``, ``XDG_STATE_HOME`` and ``XDG_RUNTIME_DIR`` in a
temporary folder (removed at the end, after ``ffind --clear-cache`` stopped the servers).
Run as root, the mutate and stress phases run every command as an unprivileged user
(``--user``, default 65534, through ``setpriv``; the copies are given to that user), so that
an unreadable folder and a read-only cache folder mean something.

With the memory on (the default; ``--no-memory`` sets ``FFIND_NO_MEMORY=1`` for every
command), a difference that goes away with ``--no-memory`` in a work tree with uncommitted
changes is counted apart ("memory only"): those files count as visits only when ``git
status`` answered in time, which a search does not wait for (docs/memory.md).  Elsewhere
(a clean tree, no repository) such a difference is the visits' own and counts as a
divergence.  The static phase also remembers a few files (``--remember``) and forgets them.

Prints one line per tree and phase (command lines compared, divergences) and each
divergence with a reproduction (the folder, the command lines, the first lines of the
difference); ``--out DIR`` also writes them there.  Exit status 1 if any diverged.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import pty
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

QUERIES = ["", "a", "z", "main", "test", "s/p/t", "base_cod", "modls", "^src", "^d", ".py$",
           ".md$", "'init", "'test_", "!test", "init !test", "test util", "Test", "README",
           "é", "Ü", "naïve", "zzzqqqxj"]
"""Single letters, words, path parts, typos, anchors, exact, negation, two terms, smart
case, non-ASCII, the empty query (every path), no match."""

OPTION_SETS: list[list[str]] = [
    [], ["-l", "20"], ["-l", "0"], ["-l", "1"], ["-H"], ["-I"], ["-H", "-I"], ["-t", "d"],
    ["-t", "f", "-t", "d"], ["-d", "1"], ["-d", "2"], ["-e", "*.md"], ["-e", "*.py", "-e", "docs/"],
    ["--json"], ["--json", "--compute-indices"], ["--json", "-l", "0"], ["-0"],
    ["--color", "always"], ["--threads", "1"], ["--no-require-git"], ["-L"], ["--no-memory"],
]
TTY = ["-l", "5"]
"""The option set run with stdout and stderr on terminals."""
PLACES_OPTIONS: list[list[str]] = [[], ["-l", "0"], ["--json", "--compute-indices"], ["-t", "d"]]
"""The option sets run from the other places (``places``)."""
PLACES_QUERIES = ["", "a", "main", "test", "!test", "init"]

BAD_INPUT: list[list[str]] = [
    ["-C", "", "main"], ["-C", "/nonexistent-qa", "main"], ["-C", "README", "main"],
    ["-t", "x", "main"], ["-l", "-1", "main"], ["-d", "x", "main"], ["--bogus", "main"],
    ["-e", "[", "main"], ["--json", "-0", "main"], ["main", "extra"], ["--threads", "0", "x"],
    ["--color", "bogus", "main"], ["-l", "2", "--", "-main"],
]
"""Command lines that are errors (exit 2, one line) or look like them."""

MUTATE_QUERIES = ["", "main", "test", "new", "a", "!py"]
MUTATE_OPTIONS: list[list[str]] = [[], ["-l", "0"], ["-H"], ["-I"], ["-t", "d"],
                                   ["-t", "f", "-t", "d", "-d", "2"], ["-e", "*.md"],
                                   ["--json", "--compute-indices", "-l", "10"]]


@dataclass(frozen=True)
class Outcome:
    code: int
    out: bytes
    err: bytes


@dataclass
class Divergence:
    tree: str
    phase: str
    step: str
    mode: str
    cwd: str
    args: list[str]
    ref: Outcome
    got: Outcome
    kind: str = "listing"

    def describe(self, ffind: str) -> str:
        lines = [f"DIVERGENCE ({self.kind}) [{self.phase}/{self.step}] {self.mode} in {self.tree}",
                 f"  cd {shlex.quote(self.cwd)}",
                 f"  {ffind} --no-cache {shlex.join(self.args)}   # exit {self.ref.code}",
                 f"  {ffind} {'--no-server ' if self.mode == 'no-server' else ''}"
                 f"{shlex.join(self.args)}   # exit {self.got.code}"]
        for name, a, b in (("stdout", self.ref.out, self.got.out),
                           ("stderr", self.ref.err, self.got.err)):
            if a != b:
                diff = list(difflib.unified_diff(
                    a.decode("utf-8", "backslashreplace").splitlines(),
                    b.decode("utf-8", "backslashreplace").splitlines(),
                    "--no-cache", self.mode, lineterm="", n=1))
                lines.append(f"  {name} differs ({len(a)} / {len(b)} bytes):")
                lines += ["    " + d for d in diff[:24]]
        return "\n".join(lines)


@dataclass
class Tally:
    compared: dict[tuple[str, str], int] = field(default_factory=dict)
    divergences: list[Divergence] = field(default_factory=list)
    memory: list[Divergence] = field(default_factory=list)
    """Differences that vanish with ``--no-memory`` (``Sweep.memory_only``)."""

    def count(self, tree: str, phase: str, n: int = 1) -> None:
        self.compared[(tree, phase)] = self.compared.get((tree, phase), 0) + n


class Runner:
    """Runs the command with the private environment (as ``user`` when given)."""

    def __init__(self, ffind: str, env: dict[str, str], user: tuple[int, int] | None) -> None:
        self.ffind = ffind
        self.env = env
        self.user = user

    def prefix(self) -> list[str]:
        if self.user is None:
            return []
        uid, gid = self.user
        return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]

    def sh(self, script: str, cwd: str) -> None:
        """Run a shell step (a mutation) as the user the command runs as (a step that fails
        is said, and the comparisons go on)."""
        p = subprocess.run([*self.prefix(), "sh", "-ec", script], cwd=cwd, env=self.env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            print(f"  NOTE: the step {script!r} failed: {p.stderr.strip()}", flush=True)

    def usable(self) -> str | None:
        """Why the command cannot run as this runner's user (its interpreter, which the
        resident server is spawned with, must be executable by that user), or None."""
        python = os.path.realpath(interpreter_of(self.ffind))
        p = subprocess.run([*self.prefix(), "test", "-x", python], env=self.env, check=False)
        if p.returncode:
            return (f"{python} (the interpreter of {self.ffind}) cannot be run as user "
                    f"{self.user}: install ffind in a venv made with a Python that user can "
                    "run (e.g. /usr/bin/python3 -m venv ...), or give --user")
        return None

    def run(self, args: Sequence[str], cwd: str, tty: bool = False,
            timeout: float = 120.0) -> Outcome:
        argv = [*self.prefix(), self.ffind, *args]
        if not tty:
            p = subprocess.run(argv, cwd=cwd, env=self.env, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=timeout)
            return Outcome(p.returncode, p.stdout, p.stderr)
        return self._run_tty(argv, cwd, timeout)

    def _run_tty(self, argv: list[str], cwd: str, timeout: float) -> Outcome:
        masters, slaves = [], []
        for _ in range(2):
            m, s = pty.openpty()
            if self.user is not None:
                os.fchown(s, *self.user)
            masters.append(m)
            slaves.append(s)
        got: list[bytearray] = [bytearray(), bytearray()]

        def drain(i: int) -> None:
            while True:
                try:
                    chunk = os.read(masters[i], 65536)
                except OSError:
                    return
                if not chunk:
                    return
                got[i] += chunk

        threads = [threading.Thread(target=drain, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        try:
            p = subprocess.Popen(argv, cwd=cwd, env={"TERM": "xterm", **self.env},
                                 stdin=subprocess.DEVNULL, stdout=slaves[0], stderr=slaves[1])
            for s in slaves:
                os.close(s)
            code = p.wait(timeout)
        finally:
            for t in threads:
                t.join(5)
            for m in masters:
                os.close(m)
        return Outcome(code, bytes(got[0]), bytes(got[1]))


def ffind_default() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "ffind")
    return here if os.access(here, os.X_OK) else (shutil.which("ffind") or "ffind")


def interpreter_of(ffind: str) -> str:
    """The Python that runs the console script ``ffind`` (its ``#!`` line)."""
    path = shutil.which(ffind) or ffind
    with open(path, "rb") as f:
        first = f.readline()
    if first.startswith(b"#!"):
        return first[2:].strip().split()[0].decode()
    return sys.executable


STATS = """
import os
from ffind.resident import client, protocol
folder = protocol.socket_dir(os.environ, create=False)
for name in sorted(os.listdir(folder) if folder else []):
    if name.endswith('.sock'):
        r = client.request(os.path.join(folder, name), {'op': 'stats'}, timeout=10)
        if r and r.get('ok'):
            print(r['pid'], r['answered'], r['root'])
"""


def server_stats(runner: Runner) -> list[tuple[int, int, str]]:
    """(pid, requests answered, root) of each of the private environment's servers."""
    p = subprocess.run([*runner.prefix(), interpreter_of(runner.ffind), "-c", STATS],
                       cwd="/", env=runner.env, capture_output=True, text=True, check=False)
    found = []
    for line in p.stdout.splitlines():
        pid, answered, root = line.split(" ", 2)
        found.append((int(pid), int(answered), root))
    return found


def clear(runner: Runner) -> None:
    runner.run(["--clear-cache"], "/")
    time.sleep(0.05)


def sub_folder(tree: str) -> str:
    """The not hidden sub-folder of ``tree`` with the most entries (a place to search from)."""
    best, most = "", -1
    with os.scandir(tree) as it:
        for e in it:
            if e.name.startswith(".") or not e.is_dir(follow_symlinks=False):
                continue
            try:
                n = len(os.listdir(e.path))
            except OSError:
                continue
            if n > most or (n == most and e.name < best):
                best, most = e.name, n
    return best


class Sweep:
    def __init__(self, runner: Runner, tally: Tally, verbose: bool) -> None:
        self.runner = runner
        self.tally = tally
        self.verbose = verbose

    def compare(self, tree: str, phase: str, step: str, cwd: str, args: list[str],
                modes: Sequence[str] = ("served", "no-server"), tty: bool = False,
                ref: Outcome | None = None) -> Outcome:
        """Run ``args`` in ``cwd`` in each of ``modes`` (``first``/``served``: the default
        command; ``no-server``), then ``--no-cache``; record each difference."""
        got = []
        for mode in modes:
            extra = ["--no-server"] if mode == "no-server" else []
            got.append((mode, self.runner.run([*extra, *args], cwd, tty)))
        if ref is None:
            ref = self.runner.run(["--no-cache", *args], cwd, tty)
        for mode, outcome in got:
            self.record(tree, phase, step, cwd, list(args), mode, ref, outcome, tty)
        return ref

    # -- static -----------------------------------------------------------------------

    def static(self, tree: str, work: str, quick: bool) -> None:
        clear(self.runner)
        queries = QUERIES[::3] if quick else QUERIES
        sets = OPTION_SETS[::2] if quick else OPTION_SETS
        t0 = time.monotonic()
        for opts in sets:
            for q in queries:
                # The default command twice: the listing's first call (answered cold, the
                # server started primed), then served (or warm while it comes up).
                self.compare(tree, "static", "grid", tree, [*opts, q],
                             modes=("first", "served", "no-server"))
        for q in queries:
            self.compare(tree, "static", "tty", tree, [*TTY, q], tty=True,
                         modes=("first", "served", "no-server"))
        for args in BAD_INPUT:
            self.compare(tree, "static", "bad input", tree, args)
        # The memory of opened files (deterministic where git status has nothing to say):
        # a few paths remembered, then forgotten, between the searches.
        listing = self.runner.run(["--no-cache", "-l", "0", ""], tree).out.splitlines()
        picked = [os.path.join(tree, os.fsdecode(p)) for p in listing[len(listing) // 3::97][:4]]
        for action in ("--remember", "--forget"):
            self.runner.run([action, *picked], tree)
            for opts in ([], ["-l", "0"], ["--json", "-l", "10"], ["-C", sub_folder(tree) or "."]):
                for q in ("", "a", "main", "test", "init !test"):
                    self.compare(tree, "static", f"memory {action}", tree, [*opts, q])
        sub = sub_folder(tree)
        link = os.path.join(work, "link-" + os.path.basename(tree.rstrip("/")))
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
        os.symlink(tree, link)
        places = [(tree, ["-C", sub]), (tree, ["-C", f"./{sub}/"]),
                  (os.path.join(tree, sub), ["-C", ".."]), (os.path.join(tree, sub), []),
                  (work, ["-C", link]), (link, [])] if sub else [(work, ["-C", link])]
        for cwd, where in places:
            for opts in PLACES_OPTIONS:
                for q in PLACES_QUERIES:
                    self.compare(tree, "static", "places", cwd, [*where, *opts, q],
                                 modes=("first", "served", "no-server"))
        stats = server_stats(self.runner)
        print(f"  static {tree}: {time.monotonic() - t0:.0f} s; servers (pid, answered, "
              f"root): {stats}", flush=True)
        clear(self.runner)

    # -- mutate -----------------------------------------------------------------------

    def check_step(self, tree: str, step: str, cwd: str, quick: bool,
                   extra: Sequence[list[str]] = ()) -> None:
        sets = MUTATE_OPTIONS[::2] if quick else MUTATE_OPTIONS
        for opts in [*sets, *extra]:
            for q in MUTATE_QUERIES:
                self.compare(tree, "mutate", step, cwd, [*opts, q])
        # The served answer again after --no-server rewrote the snapshot (and the reverse
        # order: the snapshot checked right after the server's refresh).
        for q in ("", "test"):
            self.compare(tree, "mutate", step, cwd, ["-l", "0", q],
                         modes=("no-server", "served"))

    def mutate(self, source: str, work: str, quick: bool) -> None:
        copy = os.path.join(work, "trees", "mut-" + os.path.basename(source.rstrip("/")))
        subprocess.run(["cp", "-a", source, copy], check=True)
        if self.runner.user is not None:
            subprocess.run(["chown", "-R", "{}:{}".format(*self.runner.user), copy], check=True)
        clear(self.runner)
        tree = copy
        sub = sub_folder(copy)
        run = self.runner.sh
        is_git = os.path.isdir(os.path.join(copy, ".git"))
        t0 = time.monotonic()
        sub_opts = [["-C", sub, "-l", "0"]] if sub else []

        def step(name: str, script: str | Callable[[], None]) -> None:
            if isinstance(script, str):
                run(script, copy)
            else:
                script()
            if self.verbose:
                print(f"  step {name}", flush=True)
            self.check_step(tree, name, copy, quick, sub_opts)

        self.check_step(tree, "start", copy, quick, sub_opts)
        if is_git:
            run("git config user.email qa@example.com; git config user.name qa", copy)
            count = subprocess.run([*self.runner.prefix(), "git", "-C", copy, "rev-list",
                                    "--count", "HEAD"], env=self.runner.env,
                                   capture_output=True, text=True).stdout.strip()
            if count.isdigit() and int(count) > 40:
                step("git checkout HEAD~40", "git checkout -q HEAD~40")
                step("git checkout back", "git checkout -q -")
        step("create files and folders",
             "echo x > new_file.py; mkdir -p newdir/deeper; echo y > newdir/deeper/new_main.py;"
             " echo z > newdir/test_new.md")
        step("create within the same second",
             lambda: (self.runner.run(["-l", "0", ""], copy),
                      run("echo w > newdir/new_same_second.txt; mkdir newdir/samesec", copy)))
        step("same second, nested", lambda: (
            self.runner.run(["main"], copy),
            run("echo v > newdir/deeper/main_again.py", copy),
            self.runner.run(["main"], copy),
            run("echo u > newdir/deeper/main_third.py", copy)))
        step("delete a file and a folder",
             "rm new_file.py; rm -r newdir/deeper")
        if sub:
            step("rename a file and a folder",
                 f"mv newdir/test_new.md newdir/renamed_test.md; mv {shlex.quote(sub)} "
                 f"{shlex.quote(sub)}_renamed")
            step("rename the folder back", f"mv {shlex.quote(sub)}_renamed {shlex.quote(sub)}")
            step("a .gitignore line in a sub-folder",
                 f"printf '*.py\\n' >> {shlex.quote(sub)}/.gitignore")
            step("the sub-folder's .gitignore removed",
                 f"rm {shlex.quote(sub)}/.gitignore; git checkout -q -- . 2>/dev/null || true")
        if is_git:
            step("edit .git/info/exclude",
                 "mkdir -p .git/info; printf 'newdir/\\n*.md\\n' >> .git/info/exclude")
            step("undo .git/info/exclude",
                 "sed -i '/^newdir\\/$/d; /^\\*\\.md$/d' .git/info/exclude")
            step("modify tracked files", "for f in $(git ls-files | head -20); do "
                 "echo '# qa' >> \"$f\"; done")
            step("git stash", "git stash -q -u")
            step("git stash pop", "git stash pop -q")
            step("git commit", "git add -A; git commit -q -m qa")
            step("git checkout HEAD~1", "git checkout -q HEAD~1")
            step("git switch back to a new branch", "git checkout -q -; git checkout -q -b qa-b")
            step("a nested repository", "mkdir -p nested && cd nested && git init -q && "
                 "echo nested > main_nested.py && printf 'main_nested.py\\n' > .gitignore")
        if sub:
            step("chmod 000 a folder", f"chmod 000 {shlex.quote(sub)}")
            step("chmod back", f"chmod 755 {shlex.quote(sub)}")
            step("a folder replaced by a symbolic link",
                 f"mv {shlex.quote(sub)} ../moved-{os.getpid()}; "
                 f"ln -s ../moved-{os.getpid()} {shlex.quote(sub)}")
            step("the link replaced by the folder",
                 f"rm {shlex.quote(sub)}; mv ../moved-{os.getpid()} {shlex.quote(sub)}")
        step("a hidden folder", "mkdir -p .hidden_dir && echo h > .hidden_dir/main_hidden.py")
        step("a file replaced by a folder, a folder by a file",
             "rm -r .hidden_dir; echo f > .hidden_dir; mkdir -p newdir; rm -f newdir/*.txt; "
             "mv newdir newdir_old && echo f > newdir && mkdir newdir_old/new_main.py")
        step("a folder's times set back after a change",
             "mkdir -p timed && touch -d '2001-01-01' timed && echo t > timed/new_timed.py && "
             "touch -d '2001-01-01' timed")
        step("a folder's times in the future", "echo t > timed/new_future.py && "
             "touch -d '+1 hour' timed")
        if is_git:
            step("the global excludes file ($HOME/.config/git/ignore)",
                 "mkdir -p \"$HOME/.config/git\" && "
                 "printf 'new*\\n' > \"$HOME/.config/git/ignore\"")
            step("core.excludesFile in ~/.gitconfig",
                 "printf 'test*\\n' > \"$HOME/qa-excludes\" && "
                 "git config --global core.excludesFile \"$HOME/qa-excludes\"")
            step("the excludes file edited", "printf '*.md\\n' > \"$HOME/qa-excludes\"")
            step("the global excludes removed", "git config --global --unset core.excludesFile; "
                 "rm -f \"$HOME/qa-excludes\" \"$HOME/.config/git/ignore\"")
        if sub:
            step("a sub-folder replaced by a copy of itself (times kept) with a file more",
                 f"cp -a {shlex.quote(sub)} ../copied-{os.getpid()} && "
                 f"echo c > ../copied-{os.getpid()}/copied_main.py && rm -rf {shlex.quote(sub)}"
                 f" && mv ../copied-{os.getpid()} {shlex.quote(sub)}")
        step("the tree replaced by a copy of itself (times kept) with a file more",
             "d=$(pwd); cp -a \"$d\" \"$d.copy\" && echo c > \"$d.copy/copied_main.py\" && "
             "rm -rf \"$d\" && mv \"$d.copy\" \"$d\"")
        if is_git:
            step("a commit that changes a sub-folder's .gitignore, checked out back and forth",
                 "mkdir -p gi/sub && echo a > gi/sub/keep_main.py && echo b > gi/sub/drop_main.py"
                 " && git add gi && git commit -q -m gi1 && printf 'drop_*\\n' > gi/.gitignore"
                 " && git add gi && git commit -q -m gi2 && git checkout -q HEAD~1")
            step("... and forward again", "git checkout -q -")
        step("many files at once", "mkdir -p bulk; i=0; while [ $i -lt 300 ]; do "
             "echo $i > bulk/f_$i.txt; i=$((i+1)); done")
        step("the bulk folder removed", "rm -r bulk")
        print(f"  mutate {source}: {time.monotonic() - t0:.0f} s; servers: "
              f"{server_stats(self.runner)}", flush=True)
        clear(self.runner)

    # -- stress -----------------------------------------------------------------------

    def stress(self, source: str, work: str, cache: str) -> None:
        copy = os.path.join(work, "trees", "stress-" + os.path.basename(source.rstrip("/")))
        subprocess.run(["cp", "-a", source, copy], check=True)
        if self.runner.user is not None:
            subprocess.run(["chown", "-R", "{}:{}".format(*self.runner.user), copy], check=True)
        tree = copy
        r = self.runner
        t0 = time.monotonic()
        queries = [["-l", "0", ""], ["main"], ["--json", "test"]]

        # Two first calls at once (no snapshot, no server), several times.
        for rnd in range(5):
            clear(r)
            for args in queries:
                ref = r.run(["--no-cache", *args], copy)
                procs = [subprocess.Popen([*r.prefix(), r.ffind, *args], cwd=copy, env=r.env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                         for _ in range(2)]
                for p in procs:
                    out, err = p.communicate(timeout=120)
                    self.record(tree, "stress", f"two first calls {rnd}", copy, args, "first",
                                ref, Outcome(p.returncode, out, err))
            time.sleep(1.0)
            servers = server_stats(r)
            if len(servers) != 1:
                print(f"  NOTE: {len(servers)} servers after two first calls: {servers}")
            self.compare(tree, "stress", f"after two first calls {rnd}", copy, ["-l", "0", ""])

        # The server killed: between two calls, and while it answers.
        for rnd, delay in enumerate([None, 0.0, 0.005, 0.02, 0.05, 0.1, 0.2]):
            r.run(["main"], copy)  # (a server up)
            time.sleep(0.5)
            servers = server_stats(r)
            if delay is None:
                for pid, _, _ in servers:
                    kill(pid)
                self.compare(tree, "stress", "after SIGKILL", copy, ["-l", "0", ""])
                continue
            run(f"echo k > killed_{rnd}.txt", copy, r)  # (a change: the request refreshes)
            args = ["-l", "0", ""]
            ref = r.run(["--no-cache", *args], copy)
            p = subprocess.Popen([*r.prefix(), r.ffind, *args], cwd=copy, env=r.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(delay)
            for pid, _, _ in servers:
                kill(pid)
            out, err = p.communicate(timeout=120)
            self.record(tree, "stress", f"SIGKILL after {delay} s", copy, args, "served", ref,
                        Outcome(p.returncode, out, err))
            self.compare(tree, "stress", f"after SIGKILL {delay}", copy, ["-l", "0", ""])

        # Changes made while the server answers, compared as soon as they stop.
        for rnd in range(4):
            r.run(["-l", "0", ""], copy)
            churn = subprocess.Popen(
                [*r.prefix(), "sh", "-c", CHURN % {"r": rnd}], cwd=copy, env=r.env)
            while churn.poll() is None:
                r.run(["-l", "0", ""], copy)
            for args in queries:
                self.compare(tree, "stress", f"after churn {rnd}", copy, args,
                             modes=("served", "no-server"))

        # A truncated snapshot (no server running, so that the file is what is read).
        for keep in (0, 10, 100, 1000, 0.5, 0.99):
            clear(r)
            r.run(["--no-server", "-l", "0", ""], copy)  # (writes the snapshot)
            for name in os.listdir(os.path.join(cache, "ffind")):
                if name.endswith(".snapshot") and not name.startswith("git-"):
                    path = os.path.join(cache, "ffind", name)
                    size = os.path.getsize(path)
                    with open(path, "r+b") as f:
                        f.truncate(int(size * keep) if isinstance(keep, float) else keep)
            for args in queries:
                self.compare(tree, "stress", f"truncated to {keep}", copy, args,
                             modes=("no-server", "served"))
        # A read-only cache folder (made by a first search, then its mode taken away).
        clear(r)
        r.run(["-l", "0", ""], copy)
        time.sleep(1.0)
        clear(r)
        folder = os.path.join(cache, "ffind")
        os.makedirs(folder, exist_ok=True)
        os.chmod(folder, 0o500)
        try:
            for args in queries:
                self.compare(tree, "stress", "read-only cache folder", copy, args,
                             modes=("first", "served", "no-server"))
            run("echo r > read_only_cache.txt", copy, r)
            for args in queries:
                self.compare(tree, "stress", "read-only cache folder, changed", copy, args,
                             modes=("served", "no-server"))
        finally:
            os.chmod(folder, 0o700)
        print(f"  stress {source}: {time.monotonic() - t0:.0f} s", flush=True)
        clear(r)

    def record(self, tree: str, phase: str, step: str, cwd: str, args: list[str], mode: str,
               ref: Outcome, got: Outcome, tty: bool = False) -> None:
        self.tally.count(tree, phase)
        if got == ref:
            return
        d = Divergence(tree, phase, step, mode, cwd, list(args), ref, got)
        if ("--no-memory" not in args and not self.runner.env.get("FFIND_NO_MEMORY")
                and self.memory_only(cwd, args, mode, tty)):
            if not self.uncommitted(cwd):  # (then git status has nothing to say: the visits)
                d.kind = "memory: the visits"
                self.tally.divergences.append(d)
                print(d.describe(self.runner.ffind), flush=True)
                return
            d.kind = "memory"
            self.tally.memory.append(d)
            if self.verbose:
                print(f"  (memory only) [{phase}/{step}] {mode}: {shlex.join(args)}", flush=True)
            return
        self.tally.divergences.append(d)
        print(d.describe(self.runner.ffind), flush=True)

    def uncommitted(self, cwd: str) -> bool:
        """Whether ``cwd`` is in a git work tree with uncommitted changes (files that count
        as visits when ``git status`` answers in time)."""
        p = subprocess.run([*self.runner.prefix(), "git", "-C", cwd, "status", "--porcelain",
                            "--untracked-files=all"], env=self.runner.env, capture_output=True,
                           check=False)
        return p.returncode == 0 and bool(p.stdout.strip())

    def memory_only(self, cwd: str, args: list[str], mode: str, tty: bool) -> bool:
        """Whether the same command line with ``--no-memory`` agrees in ``mode`` and cold:
        then the difference is the memory's, whose ``git status`` a search does not wait
        for (docs/memory.md: files with uncommitted changes count as visits when it has
        answered in time), not the listing's."""
        extra = ["--no-server"] if mode == "no-server" else []
        with_mode = self.runner.run([*extra, *args, "--no-memory"], cwd, tty)
        cold = self.runner.run(["--no-cache", *args, "--no-memory"], cwd, tty)
        return with_mode == cold


CHURN = """
i=0
while [ $i -lt 60 ]; do
  mkdir -p churn%(r)d/a/b churn%(r)d/c
  echo $i > churn%(r)d/a/main_$i.py; echo $i > churn%(r)d/a/b/test_$i.md
  mv churn%(r)d/a/main_$i.py churn%(r)d/c/moved_main_$i.py
  [ $((i %% 3)) = 0 ] && rm -r churn%(r)d/a/b
  [ $((i %% 7)) = 0 ] && printf 'moved_main_1*\\n' > churn%(r)d/.gitignore
  [ $((i %% 7)) = 3 ] && rm -f churn%(r)d/.gitignore
  i=$((i+1))
done
"""
"""Creates, moves and removes files and folders (and a .gitignore) in a burst."""


def run(script: str, cwd: str, runner: Runner) -> None:
    runner.sh(script, cwd)


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def private_env(user: tuple[int, int] | None,
                no_memory: bool = False) -> Iterator[tuple[str, dict[str, str]]]:
    """A temporary folder with private XDG folders (and, for another user, a HOME)."""
    top = tempfile.mkdtemp(prefix="ffind-sweep-")
    os.chmod(top, 0o755)  # (the copies live here: another user must reach them)
    env = dict(os.environ)
    for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    env.pop("NO_COLOR", None)
    env.pop("FFIND_NO_SERVER", None)
    env.pop("FFIND_NO_MEMORY", None)
    if no_memory:
        env["FFIND_NO_MEMORY"] = "1"
    paths = {"XDG_CACHE_HOME": "cache", "XDG_STATE_HOME": "state", "XDG_RUNTIME_DIR": "run"}
    for var, name in paths.items():
        path = os.path.join(top, name)
        os.mkdir(path, 0o700)
        if user is not None:
            os.chown(path, *user)
        env[var] = path
    trees = os.path.join(top, "trees")  # (the copies, and a place beside them)
    os.mkdir(trees, 0o755)
    if user is not None:
        os.chown(trees, *user)
        home = os.path.join(top, "home")
        os.mkdir(home, 0o700)
        os.chown(home, *user)
        env["HOME"] = home
    try:
        yield top, env
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="*", help="trees for the static phase (never modified)")
    ap.add_argument("--ffind", default=ffind_default(), help="the command (default: %(default)s)")
    ap.add_argument("--mutate", action="append", default=[],
                    help="a tree to copy and change between searches (repeatable)")
    ap.add_argument("--stress", action="append", default=[],
                    help="a tree to copy for the concurrency and damage checks (repeatable)")
    ap.add_argument("--phases", default="static,mutate,stress")
    ap.add_argument("--user", type=int, default=65534,
                    help="run as root: the mutate and stress phases run as this user id")
    ap.add_argument("--no-memory", action="store_true",
                    help="every command with FFIND_NO_MEMORY=1: the strict comparison (with "
                    "the memory on, files with uncommitted changes rank as visits only when "
                    "git status answered in time: such differences are told apart, "
                    "Sweep.memory_only, but a listing's own difference could hide there)")
    ap.add_argument("--quick", action="store_true", help="a third of the grid")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--out", help="a folder to write the divergences to")
    a = ap.parse_args(argv)
    phases = set(a.phases.split(","))
    ffind = shutil.which(a.ffind) or a.ffind
    tally = Tally()
    user = (a.user, a.user) if os.getuid() == 0 and shutil.which("setpriv") else None
    for tree in a.trees + a.mutate + a.stress:
        if not os.path.isdir(tree):
            ap.error(f"not a folder: {tree}")
    if "static" in phases and a.trees:
        with private_env(None, a.no_memory) as (top, env):
            sweep = Sweep(Runner(ffind, env, None), tally, a.verbose)
            try:
                for tree in a.trees:
                    sweep.static(os.path.abspath(tree), top, a.quick)
            finally:
                clear(sweep.runner)
    for phase, trees in (("mutate", a.mutate), ("stress", a.stress)):
        if phase not in phases:
            continue
        for tree in trees:
            with private_env(user, a.no_memory) as (top, env):
                sweep = Sweep(Runner(ffind, env, user), tally, a.verbose)
                why = sweep.runner.usable()
                if why is not None:
                    print(f"error: {why}", file=sys.stderr)
                    return 2
                try:
                    if phase == "mutate":
                        sweep.mutate(os.path.abspath(tree), top, a.quick)
                    else:
                        sweep.stress(os.path.abspath(tree), top, env["XDG_CACHE_HOME"])
                finally:
                    clear(sweep.runner)
    print("\ncommand lines compared (each against --no-cache):")
    for (tree, phase), n in sorted(tally.compared.items()):
        bad = sum(1 for d in tally.divergences if d.tree == tree and d.phase == phase)
        mem = sum(1 for d in tally.memory if d.tree == tree and d.phase == phase)
        print(f"  {phase:7} {tree}: {n} compared, {bad} divergent, {mem} memory only")
    print(f"total: {sum(tally.compared.values())} compared, {len(tally.divergences)} divergent"
          f" ({len(tally.memory)} more differ only with the memory on: git status timing)")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "divergences.txt"), "w") as f:
            for d in tally.divergences + tally.memory:
                f.write(d.describe(ffind) + "\n\n")
    return 1 if tally.divergences else 0


if __name__ == "__main__":
    sys.exit(main())
