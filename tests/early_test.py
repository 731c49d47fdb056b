"""The walk of a cold search forked by the console script before its imports
(``ffind.frontends.early``): when it is forked, that the search takes it over with the same
output, and that no child is left on any way out (an error, Ctrl-C, a failed import)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ffind.frontends import early
from ffind.frontends.cli import Invocation, invocation
from ffind.frontends.fastparse import parse
from ffind.options import SearchOptions

# The console script's entry point (argv from ``sys.argv``, as the installed script calls it)
# in a fresh interpreter, a CPU said to be idle; at the end (``exit_now``, or after an error)
# it prints the exit status, whether the walk was forked, the children left and the modules.
_SCRIPT = """
import os, sys
import ffind.fs.load
ffind.fs.load.cpu_idle = lambda *args: {idle}
from ffind.frontends import cli, early, entry
forked = []
real_fork = early._fork

def fork(inv):
    found = real_fork(inv)
    forked.append(found is not None)
    return found

early._fork = fork
{patch}

def done(code):
    sys.stdout.flush()
    kids = []
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{{tid}}/children") as f:
            kids += f.read().split()
    print(code, int(any(forked)), len(kids), " ".join(sorted(sys.modules)), file=sys.stderr)
    os._exit(code)

cli.exit_now = done
sys.argv = ["ffind", *sys.argv[1:]]
try:
    code = entry.main()
except BaseException as exc:
    print(f"raised {{type(exc).__name__}}", file=sys.stderr)
    code = -1
done(code)
"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the early walk is forked on Linux only")


def run(cwd: Path, *args: str, idle: bool = True, patch: str = ""
        ) -> tuple[str, str, int, bool, int, set[str]]:
    """(stdout, stderr without the last line, exit status, forked, children left, modules)."""
    proc = subprocess.run([sys.executable, "-c", _SCRIPT.format(idle=idle, patch=patch),
                           *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    head, _, last = proc.stderr.rstrip("\n").rpartition("\n")
    code, forked, kids, modules = last.split(" ", 3)
    return (proc.stdout, head, int(code), forked == "1", int(kids), set(modules.split()))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for rel in ("src/main.py", "src/query.py", "docs/q.md", "README.md", "a/b/c/deep.txt",
                ".hidden/h.py", "build.log"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    (root / ".ignore").write_text("*.log\n")
    return root


@pytest.mark.parametrize("args", [
    ["q"], ["-l", "2", "q"], ["-H", "py"], ["-I", "log"], ["-t", "d", ""], ["-d", "2", ""],
    ["--json", "--compute-indices", "ma"], ["-0", "-e", "*.md", ""], ["!src"], ["-l", "0", ""],
])
def test_a_cold_search_takes_the_walk_forked_before_the_imports(
        tree: Path, args: list[str]) -> None:
    out, err, code, forked, kids, _ = run(tree, "--no-cache", *args)
    assert forked
    assert kids == 0
    # the same answer as the walk this process starts itself (one thread: no child at all)
    same, same_err, same_code, not_forked, _, _ = run(tree, "--no-cache", "--threads", "1",
                                                       *args)
    assert not not_forked
    assert (out, err, code) == (same, same_err, same_code)
    assert out


def test_the_process_imports_no_ignore_rules_when_the_child_read_the_tree(
        tmp_path: Path) -> None:
    # (one folder below the root: the child never has two to share, so it reads them all)
    (tmp_path / "src").mkdir()
    (tmp_path / "src/query.py").write_text("")
    (tmp_path / "README.md").write_text("")
    out, _, code, forked, _, modules = run(tmp_path, "--no-cache", "-l", "5", "q")
    assert (out, code, forked) == ("src/query.py\n", 0, True)
    assert not modules & {"ffind.fs.ignore.patterns", "ffind.fs.ignore.scope",
                          "ffind.fs.ignore.wildmatch", "pickle", "click",
                          "signal"}  # (``_signal``'s functions: ``load.signals``)


@pytest.mark.parametrize(("args", "idle"), [
    (["--no-server", "q"], True),  # the warm index, not a first call: no cold walk
    (["--no-cache", "--threads", "1", "q"], True),  # one thread: walked in the process
    (["--no-cache", "-L", "q"], True),  # links followed: walk_batches' pool
    (["--no-cache", "-d", "0", "q"], True),  # nothing to read
    (["--no-cache", "--threads", "999", "q"], True),  # capped with a note: as before
    (["--no-cache", "--stdin", "q"], True),
    (["--no-cache", "-l", "x", "q"], True),  # click's error
    (["--no-cache", "q"], False),  # no CPU idle
])
def test_no_walk_is_forked_where_walk_ahead_would_not(
        tree: Path, args: list[str], idle: bool) -> None:
    _, _, _, forked, kids, _ = run(tree, *args, idle=idle)
    assert not forked
    assert kids == 0


def test_a_missing_root_is_one_line_and_leaves_no_child(tree: Path) -> None:
    # forked (a missing -C is not the parse's error), then the search's check fails first
    out, err, code, forked, kids, _ = run(tree, "--no-cache", "-C", str(tree / "gone"), "q")
    assert forked
    assert (out, code, kids) == ("", 2, 0)
    assert err == f"ffind: cannot search '{tree / 'gone'}': no such folder"


def test_an_invalid_exclude_from_the_child_is_one_line(tree: Path) -> None:
    same = run(tree, "--no-cache", "--threads", "1", "-e", "[", "q")
    got = run(tree, "--no-cache", "-e", "[", "q")
    assert got[:3] == same[:3]
    assert got[2] == 2 and got[1].startswith("ffind: ") and "\n" not in got[1]
    assert got[4] == 0


@pytest.mark.parametrize(("patch", "code", "message"), [
    # Ctrl-C while the process imports the search (the child walks meanwhile)
    ("import ffind.searching.oneshot as o\n"
     "def stop(*a, **k):\n    raise KeyboardInterrupt\no.search = stop", 130, ""),
    # a failed import after the fork
    ("sys.modules['ffind.searching.oneshot'] = None", -1, "raised ModuleNotFoundError"),
])
def test_the_child_is_ended_when_the_process_fails_before_the_search_takes_it(
        tree: Path, patch: str, code: int, message: str) -> None:
    out, err, got, forked, kids, _ = run(tree, "--no-cache", "q", patch=patch)
    assert forked
    assert (out, got, kids) == ("", code, 0)
    assert err.endswith(message)


def test_a_bad_flag_forks_nothing_and_is_clicks_error(tree: Path) -> None:
    out, err, code, forked, kids, _ = run(tree, "--no-cache", "--nope", "q")
    assert (out, code, forked, kids) == ("", 2, False, 0)
    assert "--nope" in err


def _inv(*args: str) -> Invocation:
    quick = parse(list(args))
    assert quick is not None
    inv = invocation(*quick)
    assert isinstance(inv, Invocation)
    return inv


def test_take_hands_the_child_over_only_for_its_root_and_listing(tmp_path: Path) -> None:
    def child() -> early.Started:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        read, write = os.pipe()
        os.close(write)
        return early.Started(pid, read, _inv("--no-cache", "-l", "3", "q"))

    options = SearchOptions(limit=99, compute_indices=True)  # (not the listing's)
    started = child()
    assert started.take(".", options) == (started.pid, started.fd)
    assert started.take(".", options) is None  # once
    os.close(started.fd)
    os.waitpid(started.pid, 0)
    for root, other in ((str(tmp_path), options), (".", SearchOptions(hidden=True))):
        started = child()
        assert started.take(root, other) is None
        with pytest.raises(ChildProcessError):  # ended and reaped
            os.waitpid(started.pid, 0)
        started.close()  # (again: nothing)


_NO_SPAWN = """
import ffind.resident.client as client
def start(root, environ=None, prime=None, index=True):
    print("started", root, prime is not None, index, file=sys.stderr)
client.start = start
"""


@pytest.fixture
def server_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The resident server allowed, with a private socket folder (short: ``AF_UNIX``; none
    is started: the tests replace ``client.start``)."""
    import shutil
    import tempfile

    runtime = Path(tempfile.mkdtemp(prefix="ffe-", dir="/tmp"))
    monkeypatch.delenv("FFIND_NO_SERVER", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield runtime
    shutil.rmtree(runtime, ignore_errors=True)


_SPAWN_RECORDED = """
import ffind.resident.client as client
def spawn(path, args, env, **kw):
    print("spawned", *args[2:5], *args[8:9], file=sys.stderr)
    return 1 << 22
client.os.posix_spawn = spawn
"""


def test_a_first_calls_server_start_imports_no_dataclasses(tree: Path, server_on: Path) -> None:
    # (the options sent to the primed server once read ``__dataclass_fields__``: ~8 ms)
    out, err, code, forked, _, modules = run(tree, "-l", "2", "q", patch=_SPAWN_RECORDED)
    assert (code, forked) == (0, True) and out
    assert err == "spawned -m ffind.frontends.served --root --prime"
    assert not modules & {"dataclasses", "inspect", "ast", "dis", "tokenize"}


@pytest.mark.parametrize("args", [["q"], ["-l", "2", "q"], ["-H", "py"], ["-t", "d", ""],
                                  ["--json", "ma"]])
def test_a_first_call_is_answered_as_no_cache_and_starts_a_primed_server(
        tree: Path, server_on: Path, args: list[str]) -> None:
    out, err, code, forked, kids, _ = run(tree, *args, patch=_NO_SPAWN)
    assert forked and kids == 0
    assert err == f"started . True {args[-1] != ''}"
    cold, cold_err, cold_code, _, _, _ = run(tree, "--no-cache", *args)
    assert (out, code) == (cold, cold_code) and cold_err == ""
    assert not list(Path(os.environ["XDG_CACHE_HOME"]).glob("ffind/*.snapshot"))
    # (with a CPU busy: not forked, still answered as ``--no-cache``, the server primed)
    out, err, code, forked, _, _ = run(tree, *args, idle=False, patch=_NO_SPAWN)
    assert (out, err, code, forked) == (cold, f"started . True {args[-1] != ''}", cold_code,
                                        False)


def test_a_call_with_a_snapshot_is_not_a_first_call(tree: Path, server_on: Path) -> None:
    out, err, code, forked, _, _ = run(tree, "--no-server", "q")
    assert not forked and err == ""
    assert len(list(Path(os.environ["XDG_CACHE_HOME"]).glob("ffind/*.snapshot"))) == 1
    again, err, code, forked, _, _ = run(tree, "q", patch=_NO_SPAWN)
    assert code == 0
    assert (again, forked) == (out, False)
    # (the snapshot is there: the server is started primed all the same, to validate it and
    # exit at once when the listing is too small to serve)
    assert err == "started . True True"


@pytest.mark.parametrize("args", [["--no-server", "q"], ["--no-cache", "q"], ["-i", "q"],
                                  ["--stdin", "q"], ["--bash"], ["--clear-cache"], ["mcp"]])
def test_what_is_not_a_first_call(tree: Path, server_on: Path, args: list[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    assert early.first_call(args) is None


def test_first_call_needs_the_server_and_no_snapshot(
        tree: Path, server_on: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ffind.state.snapkey import snapshot_path

    monkeypatch.chdir(tree)
    inv = early.first_call(["-H", "q"])
    assert inv is not None and inv.options.hidden and inv.pattern == "q"
    monkeypatch.setenv("FFIND_NO_SERVER", "1")
    assert early.first_call(["-H", "q"]) is None
    monkeypatch.delenv("FFIND_NO_SERVER")
    os.chmod(server_on, 0o755)
    os.chmod(server_on / "ffind", 0o755)  # (a socket folder others may enter: not used)
    assert early.first_call(["-H", "q"]) is None
    os.chmod(server_on / "ffind", 0o700)
    path = snapshot_path(".", inv.options)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Path(path).write_bytes(b"")
    assert early.first_call(["-H", "q"]) is None
    assert early.first_call(["q"]) is not None  # (another listing key: none for it)



_STUCK_SERVER = """
import socket, threading
import ffind.resident.client as client
path, _ = client.where(".", create=True)
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(8)
taken = []

def serve():  # takes every request and never answers (a stopped server)
    while True:
        conn, _ = listener.accept()
        taken.append(conn)
        print("taken", file=sys.stderr, flush=True)

threading.Thread(target=serve, daemon=True).start()
_request = client.request

def request(path, message, timeout=0.3, *args, **kwargs):  # (the reply's timeout: 0.3 s, not 30)
    return _request(path, message, min(timeout, 0.3), *args, **kwargs)

client.request = request
"""


def test_a_server_that_takes_a_request_and_never_answers_is_asked_once(
        tree: Path, server_on: Path) -> None:
    # (a stopped server made a call wait twice: once before the command's imports, once
    # after its parse; now the call searches itself after the first wait, and starts none)
    out, err, code, _, _, _ = run(tree, "-l", "5", "q", patch=_STUCK_SERVER)
    cold, _, cold_code, _, _, _ = run(tree, "--no-cache", "-l", "5", "q")
    assert (out, code) == (cold, cold_code) and out
    assert err.splitlines() == ["taken"]
