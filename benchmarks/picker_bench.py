"""Time from start to the first frame with results, in a pseudo-terminal (80x24).

    python benchmarks/picker_bench.py TREE [--query prompt] [--runs 5] [--server]
                                           [--against OTHER_VENV/bin/python] [--fresh]
                                           [--server-only]

Each system is started in a fresh pty (its controlling terminal, so ``/dev/tty`` is the pty);
the clock runs from just before the fork until the terminal output first shows a counter
``N/M`` with N > 0 (ffind and fzf both draw one; the match rows come in the same write): the
first complete frame.  A frame whose rows come before their count (ffind's first frame from
the resident server: ``…/M``) is timed too, as "rows" (the same time when the count comes with
the rows).  Then Esc is sent and the process reaped.  Systems, measured interleaved, median of
``--runs``:

- ``ffind``: ``run_picker`` (what ``ffind -i`` runs) through ``python -c``;
- ``ffind -i``: the installed command, when the CLI has the flag;
- ``fzf``: ``fdfind -t f | fzf --query Q`` (Go, the reference), via FZF_DEFAULT_COMMAND;
- ``prompt_toolkit floor``: an empty prompt_toolkit full-screen app that draws ``1/1`` at once
  (no walk, no matching): the least a prompt_toolkit picker would cost;
- ``rich floor``: the same with rich + raw mode, what this picker is built on.

``--server``: also ``ffind -i --no-server`` and ``ffind -i`` with the tree's resident server
running (started here, with the interpreter running this script, which must have ffind: use a
non-editable install; it answers once before the runs and is stopped at the end), side by side:
the first frame drawn from the server's answer while the picker's session loads.
``--against PYTHON``: the same two rows for the ffind installed beside another interpreter
(e.g. a venv of main: before/after in one interleaved run), with its own server.
Each ``ffind`` row runs once before the timed runs (the warm snapshot exists).
``--fresh``: run i searches the word ``FRESH[i]`` instead of ``--query`` (each system the same
word in the same run), so that no server has counted that query before (a server remembers
the counts of the queries it counted over its index: a query asked again has its count with
its rows, which the plain runs, all of one query, measure).
``--server-only`` (with ``--server``): only the ``(server)`` rows, one second apart (the other
systems' work, a 1M session's load and its ``git status``, left running beside the next).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import termios
import time

from benchlib import TREE_HELP, real_binary

COUNTER = re.compile(rb"([1-9]\d*)/(\d+)")
ROWS = re.compile(rb"(?:[1-9]\d*|\xe2\x80\xa6)/\d+")
"""A counter, or ffind's "…/M" (rows drawn, their count to come)."""

PICKER = ("import sys; from ffind.frontends.picker import run_picker;"
          " from ffind.options import SearchOptions;"
          " sys.exit(run_picker(sys.argv[1], [], SearchOptions()))")
PT_FLOOR = """
from prompt_toolkit.application import Application
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
kb = KeyBindings()
kb.add("escape")(lambda e: e.app.exit())
Application(layout=Layout(Window(FormattedTextControl("> q\\n  1/1\\n> a"))), key_bindings=kb,
            full_screen=True).run()
"""
RICH_FLOOR = """
import os, sys, tty, termios
fd = os.open("/dev/tty", os.O_RDWR)
old = termios.tcgetattr(fd); tty.setraw(fd)
from rich.console import Console
from rich.text import Text
c = Console(force_terminal=True, width=80)
with c.capture() as cap:
    c.print(Text("  1/1\\n> a", style="yellow"), end="")
os.write(fd, ("\\x1b[?1049h\\x1b[H> q\\r\\n" + cap.get()).encode())
os.read(fd, 1)
os.write(fd, b"\\x1b[?1049l"); termios.tcsetattr(fd, termios.TCSADRAIN, old)
"""


FRESH = ["config", "readme", "import", "server", "client", "module", "render", "parser",
         "buffer", "stream", "widget", "record", "signal", "socket", "answer"]
"""``--fresh``'s words, one a run: six letters, each with a typo pass, none searched before."""


def first_frame(argv: list[str], cwd: str, env: dict[str, str], timeout: float = 20) -> float:
    """Milliseconds to the first complete frame (``frames``: also to the first rows)."""
    return frames(argv, cwd, env, timeout)[1]


def frames(argv: list[str], cwd: str, env: dict[str, str],
           timeout: float = 20) -> tuple[float, float]:
    """Milliseconds to the first frame with rows and to the first complete one (NaN: none)."""
    t0 = time.perf_counter()
    pid, master = pty.fork()
    if pid == 0:  # child: the pty is its controlling terminal
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = b""
    elapsed = rows = float("nan")
    deadline = t0 + timeout
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if rows != rows and ROWS.search(seen):
                rows = (time.perf_counter() - t0) * 1000
            if COUNTER.search(seen):
                elapsed = (time.perf_counter() - t0) * 1000
                break
        os.write(master, b"\x1b")
        end = time.monotonic() + 5
        while time.monotonic() < end:  # drain until the child exits
            if select.select([master], [], [], 0.1)[0]:
                try:
                    if not os.read(master, 65536):
                        break
                except OSError:
                    break
            if os.waitpid(pid, os.WNOHANG)[0]:
                pid = 0
                break
    finally:
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(master)
    return rows, elapsed


def _serve_with(python: str, tree: str, query: str) -> str:
    """``serve`` run by another install's interpreter (``--against``): its server's socket."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = (f"import sys; sys.path.insert(0, {here!r}); import picker_bench;"
            " print(picker_bench.serve(sys.argv[1], sys.argv[2]))")
    env = {k: v for k, v in os.environ.items() if k not in ("FFIND_NO_SERVER", "PYTHONPATH")}
    done = subprocess.run([python, "-c", code, tree, query], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def serve(tree: str, query: str) -> str:
    """Start ``tree``'s resident server (FFIND_NO_SERVER unset) and let it answer once; its
    socket."""
    from ffind.options import SearchOptions
    from ffind.resident import client

    os.environ.pop("FFIND_NO_SERVER", None)
    found = client.where(tree, create=True)
    if found is None or client.start(tree) is None:
        raise SystemExit("picker_bench: no resident server may run here")
    deadline = time.monotonic() + 120
    while client.ask(query, tree, SearchOptions(), memory=True, count=True) is None:
        if time.monotonic() > deadline:
            raise SystemExit("picker_bench: the server did not answer")
        time.sleep(0.1)
    return found[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--query", default="prompt")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--server", action="store_true",
                    help="also ffind -i with and without the tree's resident server")
    ap.add_argument("--server-only", action="store_true",
                    help="with --server: only the (server) rows, one second apart")
    ap.add_argument("--fresh", action="store_true",
                    help="a new word each run (FRESH), never counted before by a server")
    ap.add_argument("--against", metavar="PYTHON",
                    help="with --server: also the ffind installed beside this interpreter "
                         "(another version, e.g. a venv of main), its own server running, "
                         "interleaved with this one's")
    args = ap.parse_args()
    env = {**os.environ, "TERM": "xterm-256color"}
    if args.server:
        env.pop("FFIND_NO_SERVER", None)
    systems: dict[str, tuple[list[str], dict[str, str]]] = {
        "ffind (run_picker)": ([sys.executable, "-c", PICKER, args.query], env),
    }
    ffind = real_binary("ffind")
    if ffind and args.server:
        systems["ffind -i --no-server"] = ([ffind, "-i", "--no-server", args.query], env)
        systems["ffind -i (server)"] = ([ffind, "-i", args.query], env)
        if args.against:
            other = os.path.join(os.path.dirname(args.against), "ffind")
            other_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
            systems["against: --no-server"] = ([other, "-i", "--no-server", args.query],
                                               other_env)
            systems["against: (server)"] = ([other, "-i", args.query], other_env)
    elif ffind:
        systems["ffind -i"] = ([ffind, "-i", args.query], env)
    fzf, fd = real_binary("fzf"), real_binary("fdfind")
    if fzf and fd:
        systems["fdfind | fzf"] = ([fzf, "--query", args.query],
                                   {**env, "FZF_DEFAULT_COMMAND": f"{fd} -t f"})
    systems["prompt_toolkit floor"] = ([sys.executable, "-c", PT_FLOOR], env)
    systems["rich floor"] = ([sys.executable, "-c", RICH_FLOOR], env)
    if args.server and args.server_only:
        systems = {name: sys_ for name, sys_ in systems.items() if name.endswith("(server)")}
    stop = serve(args.tree, args.query) if args.server else None
    stops = [] if stop is None else [stop]
    try:
        if args.server and args.against:
            stops.append(_serve_with(args.against, args.tree, args.query))
        for name, (argv, e) in systems.items():
            if name.startswith(("ffind", "against")):
                first_frame(argv, args.tree, e)  # (the warm snapshot)
        times: dict[str, list[float]] = {name: [] for name in systems}
        rows: dict[str, list[float]] = {name: [] for name in systems}
        for run in range(args.runs):
            word = FRESH[run % len(FRESH)] if args.fresh else args.query
            for name, (argv, e) in systems.items():
                if args.fresh and argv[-1] == args.query:
                    argv = [*argv[:-1], word]
                first, complete = frames(argv, args.tree, e)
                if args.server_only:
                    time.sleep(1)
                rows[name].append(first)
                times[name].append(complete)
        if stop is not None:
            from ffind.resident import client

            answered = client.request(stop, {"op": "stats"})
            print(f"server answered {None if answered is None else answered.get('answered')}"
                  " requests")
    finally:
        from ffind.resident import client

        for path in stops:  # (another version's server stops on this request too)
            client.request(path, {"op": "stop"})
    what = (f"a new word each run ({', '.join(FRESH[:args.runs])})" if args.fresh
            else f"query {args.query!r}")
    print(f"first frame with results, {args.tree}, {what}, median of {args.runs}:")
    print(f"  {'':22s} {'complete':>10s} {'rows':>9s}")
    for name, xs in times.items():
        print(f"  {name:22s} {_median(xs):7.0f} ms {_median(rows[name]):6.0f} ms"
              f"   (runs: {' '.join(f'{x:.0f}' for x in xs)})")
    return 0


def _median(xs: list[float]) -> float:
    ok = [x for x in xs if x == x]
    return statistics.median(ok) if ok else float("nan")


if __name__ == "__main__":
    sys.exit(main())
