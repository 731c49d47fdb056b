"""Keystroke to frame in the real picker, in a pseudo-terminal (80x24), after the walk.

    python benchmarks/picker_keys_bench.py TREE [--gap 0.1] [--rounds 2] [--no-fzf]
        [--queries "session test,base coder"]

``ffind -i`` (and ``fdfind -t f | fzf`` for reference) is started in a fresh pty with an empty
query; once its counter shows every file (``M/M``: the walk is over), the queries are typed one
character at a time, ``--gap`` seconds apart (a brisk typist), then erased with Ctrl-U.  A
keystroke's latency runs from writing the key to the pty until the terminal output shows the
counter of the new query's matches (``N/M``, N computed beforehand: ``len(Index.run(q))`` for
ffind, ``fzf --filter q | wc -l`` for fzf).  Both pickers redraw the prompt at once and the
results when they are ready, so a keystroke that leaves the count unchanged cannot be told
from its immediate redraw: those keystrokes are left out (counted as "same count").  For
ffind, "results" is the time until the new query's best match is drawn as the first row
(``ffind`` draws the matches before their count comes); keystrokes that keep the same best
match are left out of it.
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

from binaries import TREE_HELP, real_binary

QUERIES = ["prompt", "base_coder", "controller", "mod.rs", "s/p/t"]
VERBOSE = False


def _read(master: int, timeout: float) -> bytes:
    if not select.select([master], [], [], timeout)[0]:
        return b""
    try:
        return os.read(master, 1 << 16)
    except OSError:
        return b""


ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _wait_for(master: int, needle: bytes, timeout: float,
              first: bytes | None = None) -> tuple[float, float]:
    """Seconds until ``needle`` appears in the output, and until ``first`` (searched with the
    escape sequences taken out) does; NaN on timeout."""
    t0 = time.perf_counter()
    seen = b""
    at_first = float("nan") if first else 0.0
    while time.perf_counter() - t0 < timeout:
        seen += _read(master, 0.05)
        if first and at_first != at_first and first in ANSI.sub(b"", seen):
            at_first = time.perf_counter() - t0
        if needle in seen:
            return time.perf_counter() - t0, at_first
        seen = seen[-4000:]  # a needle split across two reads still matches
    return float("nan"), at_first


def run_picker(argv: list[str], cwd: str, env: dict[str, str], total: int,
               counts: dict[str, int], gap: float, rounds: int,
               tops: dict[str, str] | None = None) -> tuple[list[float], int, list[float]]:
    pid, master = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    lat: list[float] = []
    shown: list[float] = []
    same = 0
    try:
        ready = _wait_for(master, f"{total}/{total}".encode(), 60)[0]
        if ready != ready:
            raise SystemExit(f"{argv[0]}: its counter never showed {total}/{total}")
        time.sleep(0.5)  # let the picker settle (idle work) after the walk
        for _ in range(rounds):
            for q in QUERIES:
                prev, prev_top = total, None
                for i in range(1, len(q) + 1):
                    want = counts[q[:i]]
                    top = tops.get(q[:i]) if tops else None
                    row = None
                    if top and top != prev_top:
                        row = ("> " + (top if len(top) <= 78 else ".." + top[-76:])).encode()
                    prev_top = top
                    os.write(master, q[i - 1].encode())
                    if want == prev:
                        same += 1
                        _wait_for(master, b"\x00", gap)  # just drain for a while
                    else:
                        t, r = _wait_for(master, f"{want}/{total}".encode(), 5, row)
                        lat.append(t * 1000)
                        if row:
                            shown.append(r * 1000)
                        if VERBOSE:
                            extra = f"  results {r * 1000:6.1f} ms" if row else ""
                            print(f"    {q[:i]!r:14} {want:6d} count {t * 1000:6.1f} ms{extra}")
                        time.sleep(gap)
                    prev = want
                os.write(master, b"\x15")  # Ctrl-U
                _wait_for(master, f"{total}/{total}".encode(), 5)
                time.sleep(gap)
        os.write(master, b"\x1b")
    finally:
        end = time.monotonic() + 5
        while pid and time.monotonic() < end:
            _read(master, 0.05)
            if os.waitpid(pid, os.WNOHANG)[0]:
                pid = 0
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(master)
    return lat, same, shown


def main() -> int:
    global VERBOSE, QUERIES
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--gap", type=float, default=0.1)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-fzf", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="every keystroke's latency")
    ap.add_argument("--queries", default=",".join(QUERIES),
                    help="comma-separated queries to type (default: %(default)s)")
    args = ap.parse_args()
    VERBOSE = args.verbose
    QUERIES = [q for q in args.queries.split(",") if q]
    env = {**os.environ, "TERM": "xterm-256color"}
    from ffind.engine.index import Index
    from ffind.fs.walk import walk
    from ffind.options import SearchOptions

    paths = list(walk(args.tree, SearchOptions()))
    index = Index(paths)
    prefixes = sorted({q[:i] for q in QUERIES for i in range(1, len(q) + 1)})
    systems = []
    ffind = real_binary("ffind")
    if ffind:
        counts = {p: len(index.run(p)) for p in prefixes}
        tops = {p: index.match(p, limit=1)[0].path for p in prefixes}
        systems.append(("ffind -i", [ffind, "-i"], env, len(paths), counts, tops))
    fzf, fd = real_binary("fzf"), real_binary("fdfind")
    if fzf and fd and not args.no_fzf:
        listing = subprocess.run([fd, "-t", "f"], cwd=args.tree, capture_output=True,
                                 check=True).stdout
        n = listing.count(b"\n")
        counts = {p: subprocess.run([fzf, "--filter", p], input=listing, capture_output=True,
                                    check=False).stdout.count(b"\n") for p in prefixes}
        systems.append(("fdfind | fzf", [fzf], {**env, "FZF_DEFAULT_COMMAND": f"{fd} -t f"},
                        n, counts, None))
    print(f"keystroke -> frame with the new count, {args.tree}, gap {args.gap * 1000:.0f} ms, "
          f"{args.rounds} round(s) of {', '.join(QUERIES)}")
    for name, argv, e, total, counts, tops in systems:
        lat, same, shown = run_picker(argv, args.tree, e, total, counts, args.gap, args.rounds,
                                      tops)
        for what, xs in (("count", lat), ("results", shown)):
            ok = sorted(x for x in xs if x == x)
            if not xs:
                continue
            lost = len(xs) - len(ok)
            if not ok:
                print(f"  {name:14s} {what:8s} no frame seen")
                continue
            p95 = ok[min(len(ok) - 1, int(0.95 * len(ok)))]
            print(f"  {name:14s} {what:8s} median {statistics.median(ok):5.1f} ms  p95 "
                  f"{p95:5.1f}  max {ok[-1]:5.1f}  ({len(ok)} keys, {same} same count, "
                  f"{lost} timed out)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
