"""The fixed cost of one ``ffind`` call, and where its milliseconds go.

    python benchmarks/startup_bench.py TREE [TREE...] [--query Q] [--runs N] [--ffind CMD]...

For each tree, interleaved (one run of each command in turn, ``--runs`` rounds, so a busy
machine slows them alike), the median wall time and the median CPU time (user + system of
the process and the children it waited for) of:

- ``python -c pass`` (the interpreter of ``--ffind``) and ``ffind --version``;
- ``ffind -l 20 Q``: answered by the root's resident server (``server``: the command's steady
  state, started by a first call), warm (``--no-server``: the process searches itself, from a
  snapshot past the racy window), warm without the memory (``FFIND_NO_MEMORY=1``: no SQLite,
  no ``git status``), cold (``--no-cache``), cold without the memory;
- ``fdfind -t f | fzf --filter Q | head -20`` and the ratios to it;
- how often a CPU was idle before a run (a cold call walks on the second CPU only then:
  ``ffind.fs.walk.walk_ahead``), and the load average.

``--quiet SECONDS`` (a shared machine): each round waits up to SECONDS for a moment when no
other task runs, and is run again (up to 20 times) if more than one other was running as one
of its commands started.

Give ``--ffind`` twice (e.g. the ``ffind`` of a venv with main installed, and of one with a
branch) to compare two builds side by side.  Then, for each ``--ffind``, the imports of a
warm and of a cold call by group (``python -X importtime``: each module's least self time
over the runs, summed by group: a floor a busy machine does not inflate; ``-X importtime``
slows imports a little, so read the groups relative to each other).  Snapshots go to a
temporary ``XDG_CACHE_HOME``, the servers' sockets to a temporary ``XDG_RUNTIME_DIR`` (the
servers are stopped at the end, ``ffind --clear-cache``); the memory is the one of the
``XDG_STATE_HOME`` (or ``FFIND_MEMORY``) given (``FFIND_NO_MEMORY=1`` rows have none; a
memory file that does not exist yet costs no ``sqlite3`` import).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GROUPS = [
    ("click", r"^click"),
    ("rapidfuzz", r"^rapidfuzz"),
    ("orjson (+json, uuid, datetime, platform)", r"^(orjson|json|uuid|_uuid|datetime|_datetime|"
                                                 r"platform)"),
    ("dataclasses (+inspect, ast, dis, tokenize)", r"^(dataclasses|inspect|ast|_ast|dis|opcode|"
                                                   r"_opcode|tokenize|token|linecache|copy)$"),
    ("typing", r"^(typing|_typing)"),
    ("sqlite3", r"^(sqlite3|_sqlite3)"),
    ("subprocess (+signal, selectors)", r"^(subprocess|_posixsubprocess|signal|selectors|select)$"),
    ("pickle", r"^(pickle|_pickle|_compat_pickle|struct|_struct)$"),
    ("pathspec", r"^pathspec"),
    ("ffind's own modules", r"^ffind"),
]


def run_once(cmd: list[str] | str, cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run (a str runs through ``sh -c``)."""
    args = ["sh", "-c", cmd] if isinstance(cmd, str) else cmd
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def cpu_was_idle() -> bool | None:
    """Whether a CPU is idle now (fewer tasks running than CPUs, this one included: what
    ``ffind.fs.load.cpu_idle`` asks before a walk forks); None where that cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as f:
            running = int(f.read(256).split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return running < len(os.sched_getaffinity(0))


def running_tasks() -> int | None:
    """How many tasks are running on the machine now (this one included; Linux)."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read(256).split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def interleaved(cmds: dict[str, list[str] | str], cwd: str, env: dict[str, str], runs: int,
                idle: list[bool] | None = None, quiet: float = 0.0,
                ) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) ms of each command, run in turn ``runs`` times (after one round of
    warm-up); ``idle`` receives, before each run, whether a CPU was idle (``cpu_was_idle``:
    a cold walk uses the second CPU only then).  ``quiet`` (seconds): each round waits up to
    that long for a moment when no other task runs, and a round during which more than one
    other task was running at a command's start is run again, up to 20 times (on a shared
    machine: the figures of its quiet moments, as far as there are any)."""
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    r = tries = 0
    while r < runs + 1:
        tries += 1
        calm = True
        if quiet:
            deadline = time.monotonic() + quiet
            while (running_tasks() or 0) > 1 and time.monotonic() < deadline:
                time.sleep(0.005)
            calm = (running_tasks() or 0) <= 1
        got = []
        for name, cmd in cmds.items():
            was_idle = cpu_was_idle()
            if quiet and calm and (running_tasks() or 0) > 2:
                calm = False
            got.append((name, run_once(cmd, cwd, env), was_idle))
        if quiet and not calm and tries < 20:
            continue  # (disturbed: again, up to 20 times)
        tries = 0
        if r:
            for name, (wall, cpu), was_idle in got:
                walls[name].append(wall)
                cpus[name].append(cpu)
                if idle is not None and was_idle is not None:
                    idle.append(was_idle)
        r += 1
    return {k: (statistics.median(walls[k]), statistics.median(cpus[k])) for k in cmds}


KIND_FLAGS = {"server": [], "warm": ["--no-server"], "cold": ["--no-cache"]}
"""The flags of each kind of call whose imports are shown (``server``: the console script's
side when the resident server answers)."""


def import_groups(ffind: list[str], cwd: str, env: dict[str, str], query: str, runs: int,
                  kind: str = "warm") -> dict[str, float]:
    """Import ms by group (``GROUPS``, and "other") of a call of ``kind`` (``KIND_FLAGS``):
    each module's least self time over ``runs`` runs, summed."""
    python = ffind_python(ffind)
    least: dict[str, int] = {}
    flags = KIND_FLAGS[kind]
    for _ in range(runs):
        proc = subprocess.run([python, "-X", "importtime", *ffind_script(ffind), *flags, "-l",
                               "20", query], cwd=cwd, env=env, capture_output=True, text=True,
                              check=False)
        for line in proc.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+\d+ \| +(\S+)", line)
            if m:
                name, us = m.group(2), int(m.group(1))
                least[name] = min(least.get(name, us), us)
    got = dict.fromkeys([g for g, _ in GROUPS] + ["other (stdlib)"], 0.0)
    for name, us in least.items():
        group = next((g for g, rx in GROUPS if re.match(rx, name)), "other (stdlib)")
        got[group] += us / 1000
    return got


def ffind_python(ffind: list[str]) -> str:
    """The interpreter of a console script (its ``#!`` line), or this one."""
    path = shutil.which(ffind[0]) or ffind[0]
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            first = f.readline()
    except OSError:
        return sys.executable
    return first[2:].strip() if first.startswith("#!") and "python" in first else sys.executable


def ffind_script(ffind: list[str]) -> list[str]:
    path = shutil.which(ffind[0]) or ffind[0]
    return [path, *ffind[1:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--query", default="main")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--ffind", action="append", help="the command (repeatable)")
    parser.add_argument("--quiet", type=float, default=0.0, metavar="SECONDS",
                        help="wait up to SECONDS before each round for a quiet moment")
    args = parser.parse_args()
    builds = [shlex.split(c) for c in (args.ffind or ["ffind"])]
    cache = tempfile.mkdtemp(prefix="startup-bench-cache-")
    runtime = tempfile.mkdtemp(prefix="sb-", dir="/tmp")  # (short: a socket path's limit)
    env = {**os.environ, "XDG_CACHE_HOME": cache, "XDG_RUNTIME_DIR": runtime}
    env.pop("FFIND_NO_SERVER", None)
    quiet = {**env, "FFIND_NO_MEMORY": "1"}
    fd, fzf = shutil.which("fdfind") or shutil.which("fd"), shutil.which("fzf")
    q = args.query
    print(f"query {q!r}, medians of {args.runs} interleaved runs: wall ms / CPU ms")
    try:
        for tree in args.trees:
            for ffind in builds:  # snapshots for the warm rows, past the racy window
                for e in (env, quiet):
                    run_once([*ffind, "--no-server", "-l", "20", q], tree, e)
            time.sleep(2.2)
            for ffind in builds:  # each build's server (started in the background by the
                for _ in range(3):  # first call; the next ones are answered by it)
                    run_once([*ffind, "-l", "20", q], tree, env)
                    time.sleep(0.3)
            cmds: dict[str, list[str] | str] = {}
            for b, ffind in enumerate(builds):
                tag = f"[{b}] " if len(builds) > 1 else ""
                python = ffind_python(ffind)
                cmds[f"{tag}python -c pass"] = [python, "-c", "pass"]
                cmds[f"{tag}ffind --version"] = [*ffind, "--version"]
                cmds[f"{tag}server"] = [*ffind, "-l", "20", q]
                cmds[f"{tag}warm"] = [*ffind, "--no-server", "-l", "20", q]
                cmds[f"{tag}warm, no memory"] = ["env", "FFIND_NO_MEMORY=1", *ffind,
                                                 "--no-server", "-l", "20", q]
                cmds[f"{tag}cold"] = [*ffind, "--no-cache", "-l", "20", q]
                cmds[f"{tag}cold, no memory"] = ["env", "FFIND_NO_MEMORY=1", *ffind,
                                                 "--no-cache", "-l", "20", q]
            if fd and fzf:
                cmds["fd | fzf"] = f"{fd} -t f | {fzf} --filter {shlex.quote(q)} | head -20"
            idle: list[bool] = []
            got = interleaved(cmds, tree, env, args.runs, idle, args.quiet)
            peer = got.get("fd | fzf", (0.0, 0.0))[0]
            print(f"\n{tree}")
            if idle:
                print(f"  a CPU idle before {100 * sum(idle) / len(idle):.0f}% of the runs "
                      f"(load {os.getloadavg()[0]:.1f})")
            for name, (wall, cpu) in got.items():
                ratio = f"  {wall / peer:.2f}x fd|fzf" if peer and name != "fd | fzf" else ""
                print(f"  {name:<28} {wall:6.0f} / {cpu:4.0f}{ratio}")
            for kind in KIND_FLAGS:
                print(f"  imports of a {kind} call (-X importtime, least self ms by group):")
                for b, ffind in enumerate(builds):
                    groups = import_groups(ffind, tree, env, q, max(5, args.runs // 2), kind)
                    total = sum(groups.values())
                    line = ", ".join(f"{k} {v:.1f}" for k, v in groups.items() if v >= 0.05)
                    tag = f"[{b}] " if len(builds) > 1 else ""
                    print(f"  {tag}{total:.1f} ms: {line}")
    finally:
        for ffind in builds:  # (stops this run's servers)
            subprocess.run([*ffind, "--clear-cache"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)


if __name__ == "__main__":
    main()
