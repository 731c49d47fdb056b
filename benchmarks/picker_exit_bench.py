"""Time from Enter to the end of the process when leaving the picker, in a pseudo-terminal.

    python benchmarks/picker_exit_bench.py TREE [--query prompt] [--runs 5]

Each system is started in a fresh pty (80x24) in the tree; the query is given as PATTERN.
Once the walk and the matching are over (the counter line has no spinner and the screen has
been quiet for ``--settle`` seconds), ``--type`` is typed one character at a time (each
settled), then Enter is sent; the clock runs from that write until the
terminal is restored (the alternate screen left: ``ESC[?1049l``) and until the process has
exited (``waitpid``).  Systems, measured interleaved, median of ``--runs``:

- ``ffind -i``: the installed command, which ends with ``os._exit`` after the picker;
- ``main() + teardown``: the same ``cli.main`` called in-process (``python -c``), which
  returns normally, so the interpreter frees the index and the rest before exiting.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import statistics
import struct
import sys
import termios
import time

from binaries import TREE_HELP

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
IN_PROCESS = "import sys; from ffind.frontends.cli import main; sys.exit(main(sys.argv[1:]))"


def _settle(fd: int, settle: float, timeout: float = 300) -> None:
    """Wait until the walk and the matching are done and the screen is quiet."""
    out = b""
    quiet_since = time.monotonic()
    deadline = time.monotonic() + timeout
    while True:
        if time.monotonic() > deadline:
            raise SystemExit("the picker never settled")
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            out = (out + os.read(fd, 65536))[-4096:]
            quiet_since = time.monotonic()
            continue
        at = out.rfind(b"\x1b[2;1H")  # the counter line, as last redrawn
        tail = out[at:].decode("utf-8", "replace") if at >= 0 else ""
        spinning = any(c in tail for c in SPINNER)
        if "/" in tail and not spinning and time.monotonic() - quiet_since > settle:
            return


def one(argv: list[str], cwd: str, settle: float, typed: str) -> tuple[float, float]:
    """(Enter -> terminal restored, Enter -> process exited) in seconds."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: its controlling terminal is the pty
        os.chdir(cwd)
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    _settle(fd, settle)
    for ch in typed:  # one keystroke at a time, each fully matched (the session caches them)
        os.write(fd, ch.encode())
        _settle(fd, settle / 4)
    out = b""
    t0 = time.perf_counter()
    os.write(fd, b"\r")
    restored = None
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], 0.01)
            if ready:
                out += os.read(fd, 65536)
        except OSError:  # EIO: the child is gone and the pty closed
            ready = []
        if restored is None and b"\x1b[?1049l" in out:
            restored = time.perf_counter() - t0
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            exited = time.perf_counter() - t0
            break
    os.close(fd)
    return restored if restored is not None else exited, exited


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--query", default="prompt")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--type", default="", help="then type this, one character at a time")
    ap.add_argument("--settle", type=float, default=1.0)
    args = ap.parse_args()
    ffind = shutil.which("ffind") or sys.exit("ffind is not on PATH")
    systems = {
        "ffind -i (os._exit)": [ffind, "-i", args.query],
        "main() + teardown": [sys.executable, "-c", IN_PROCESS, "-i", args.query],
    }
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in systems}
    for _ in range(args.runs):
        for name, argv in systems.items():
            got[name].append(one(argv, args.tree, args.settle, args.type))
    print(f"{args.tree}, query {args.query!r}, typed {args.type!r}, median of {args.runs}:")
    print(f"{'system':<24}{'Enter->restored':>18}{'Enter->exited':>16}")
    for name, runs in got.items():
        restored = statistics.median(r for r, _ in runs) * 1000
        exited = statistics.median(e for _, e in runs) * 1000
        print(f"{name:<24}{restored:>15.0f} ms{exited:>13.0f} ms")


if __name__ == "__main__":
    main()
