"""The warm index against a cold walk and ``fd | fzf``, side by side, in one run.

    python benchmarks/warm_bench.py TREE [TREE...] [--query Q] [--runs N] [--ffind CMD]...
        [--touch] [--modes server,peer] [--quiet SECONDS]

For each tree, the median wall time (with the median CPU time, user + system with the
children, and the largest peak RSS, from ``wait4``) of ``--runs`` runs, the modes
interleaved run by run, of:

- cold:  ``ffind --no-cache -l 20 Q``
- warm:  ``ffind --no-server -l 20 Q`` with a snapshot (made by one call first, then past
  the racy window), searched by the process itself
- server: ``ffind -l 20 Q`` answered by the root's resident server (started by one call
  first, and asked once before the timed runs); its resident memory (``VmRSS``), the
  inotify watches and fanotify marks it holds (``ffind.fs.watch``, ``ffind.fs.fanwatch``) after,
  and the median CPU it spent per request (its own and its split child's: less noisy than
  the wall time on a busy machine)
- peer:  ``fdfind -t f | fzf --filter Q | head -20`` (skipped when either is missing)

and the ratios cold/peer, warm/peer, server/peer (``--modes``: only these of the four,
e.g. ``server,peer`` at 1M files, where a cold run takes ~10 s).  Also the fixed costs
(``ffind --version``, the interpreter alone).  Snapshots go to a temporary
``XDG_CACHE_HOME``, the servers' sockets to a temporary ``XDG_RUNTIME_DIR`` (the servers
are stopped at the end).

``--ffind`` given twice or more (e.g. the ``ffind`` of a venv with main installed, and of one
with a branch): each build's modes run in the same rounds, interleaved, against the same
``fd | fzf`` runs; one line per build (without the server mode: one server per root).
``--quiet SECONDS`` (a shared machine): each command waits up to SECONDS for a moment when
no other task runs (``/proc/loadavg``), and a run that started while another task ran is
not counted (how many were not is printed).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def running_tasks() -> int | None:
    """The tasks running on the machine now, this one included (``/proc/loadavg``)."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def calm(quiet: float) -> bool:
    """Wait up to ``quiet`` seconds for a moment when no other task runs; whether it came."""
    deadline = time.monotonic() + quiet
    while True:
        now = running_tasks()
        if now is None or now <= 1:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.003)


def timed_rss(cmd: list[str] | str, cwd: str, env: dict[str, str],
              runs: int) -> tuple[float, int, float]:
    """The median seconds of ``runs`` runs (a str runs through ``sh -c``), the largest peak
    resident set (KiB, ``wait4``: the command or the largest of its children) and the median
    CPU seconds (user + system, the children included: steadier than the wall time on a
    busy machine)."""
    times = []
    cpu = []
    rss = 0
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd if isinstance(cmd, list) else ["sh", "-c", cmd], cwd=cwd,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0  # (reaped here)
        times.append(time.perf_counter() - start)
        cpu.append(usage.ru_utime + usage.ru_stime)
        rss = max(rss, usage.ru_maxrss)
    return statistics.median(times), rss, statistics.median(cpu)


def timed(cmd: list[str] | str, cwd: str, env: dict[str, str], runs: int) -> float:
    """The median seconds of ``runs`` runs (a str runs through ``sh -c``)."""
    return timed_rss(cmd, cwd, env, runs)[0]


def touch_trace(tree: str) -> None:
    """Create one file in the deepest-but-one folder found first; show what was re-read."""
    from ffind.fs.warm import WarmStats, cached_batches
    from ffind.options import SearchOptions
    from ffind.state.cache import SnapshotStore

    store = SnapshotStore(tempfile.mkdtemp(prefix="warm-bench-"))
    options = SearchOptions()
    list(cached_batches(tree, options, store=store))
    time.sleep(2.2)  # past the racy window
    target = next((os.path.join(d, "") for d, _, files in os.walk(tree)
                   if files and ".git" not in d and d != tree), tree)
    probe = os.path.join(target, "ffind_bench_touch.txt")
    with open(probe, "w") as f:
        f.write("")
    try:
        stats = WarmStats()
        start = time.perf_counter()
        n = sum(len(b) for b in cached_batches(tree, options, store=store, stats=stats))
        took = time.perf_counter() - start
    finally:
        os.unlink(probe)
    print(f"  touch: created {os.path.relpath(probe, tree)}; refresh {took * 1000:.0f} ms, "
          f"{n} paths, read again: {stats.relisted} ({stats.reused} folders reused)")
    shutil.rmtree(store.folder, ignore_errors=True)


def server_pid(tree: str, env: dict[str, str]) -> int | None:
    """The pid of ``tree``'s resident server in ``env`` (asked over its socket), or None.
    A server of another install (``--ffind``) does not answer this one's client (its socket's
    name holds its own package's identity): it is then found by its command line
    (``/proc``: its root, a socket in ``env``'s folder)."""
    from ffind.resident import client

    found = client.where(tree, env)
    if found is None:
        return None
    reply = client.request(found[0], {"op": "stats"})
    pid = None if reply is None else reply.get("pid")
    if isinstance(pid, int):
        return pid
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if ("ffind.resident.server" in argv and "--root" in argv and "--socket" in argv
                and argv[argv.index("--root") + 1] == tree
                and os.path.dirname(argv[argv.index("--socket") + 1])
                == os.path.dirname(found[0])):
            return int(entry)
    return None


def rss_mib(pid: int) -> float:
    """The resident memory of ``pid`` (MiB, ``/proc/PID/status``), or 0."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_of(pid: int | None) -> float:
    """The CPU seconds ``pid`` and its reaped children spent so far (``/proc/PID/stat``:
    utime, stime, cutime, cstime; 10 ms steps), or 0."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def held_watches(pid: int) -> tuple[int, int]:
    """The inotify watches and the fanotify marks ``pid`` holds (``/proc/PID/fdinfo``)."""
    watches = marks = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0, 0
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link not in ("anon_inode:inotify", "anon_inode:[fanotify]"):
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}", "rb") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        watches += sum(line.startswith(b"inotify wd:") for line in lines)
        marks += sum(line.startswith((b"fanotify ino:", b"fanotify mnt_id:", b"fanotify sdev:"))
                     for line in lines)
    return watches, marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--query", default="main")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ffind", action="append",
                        help="the command (default: ffind); twice or more: builds side by side")
    parser.add_argument("--touch", metavar="TREE", help="show the re-read folders in TREE")
    parser.add_argument("--modes", default="cold,warm,server,peer",
                        help="the modes to time (default: cold,warm,server,peer)")
    parser.add_argument("--quiet", type=float, default=0.0, metavar="SECONDS",
                        help="wait up to SECONDS before each command for a quiet moment")
    args = parser.parse_args()
    modes = set(args.modes.split(","))
    if not modes <= set(MODES):
        parser.error(f"--modes: a comma-separated subset of {','.join(MODES)}")
    builds = [shlex.split(cmd) for cmd in args.ffind or ["ffind"]]
    ffind = builds[0]
    cache = tempfile.mkdtemp(prefix="warm-bench-cache-")
    runtime = tempfile.mkdtemp(prefix="wb-", dir="/tmp")
    env = {**os.environ, "XDG_CACHE_HOME": cache, "XDG_RUNTIME_DIR": runtime}
    env.pop("FFIND_NO_SERVER", None)
    fd, fzf = shutil.which("fdfind") or shutil.which("fd"), shutil.which("fzf")
    print(f"query {args.query!r}, median of {args.runs} runs")
    print(f"  ffind --version {timed([*ffind, '--version'], '/', env, args.runs) * 1000:.0f} ms;"
          f" python -c pass {timed([sys.executable, '-c', 'pass'], '/', env, args.runs) * 1000:.0f}"
          " ms")
    try:
        for tree in args.trees:
            bench_tree(tree, builds, env, args.query, args.runs, fd, fzf, modes, args.quiet)
    finally:
        for build in builds:  # (stops the servers)
            subprocess.run([*build, "--clear-cache"], env=env, check=False)
    if args.touch:
        touch_trace(args.touch)
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(runtime, ignore_errors=True)


MODES = ("cold", "warm", "server", "peer")


def bench_tree(tree: str, builds: list[list[str]], env: dict[str, str], query_text: str,
               runs: int, fd: str | None, fzf: str | None, which: set[str] | None = None,
               quiet: float = 0.0) -> None:
    """One tree's lines, one per build: cold, warm (no server), server, fd|fzf, the ratios.
    The modes (and builds) are interleaved run by run (a shared machine's load changes over
    a tree's runs)."""
    which = set(MODES) if which is None else which
    q = shlex.quote(query_text)
    modes: dict[tuple[int, str], list[str] | str] = {}
    pids: dict[int, int | None] = {}
    for b, ffind in enumerate(builds):
        query = [*ffind, "--no-server", "-l", "20", query_text]
        by_server = [*ffind, "-l", "20", query_text]
        if "warm" in which:
            subprocess.run(query, cwd=tree, env=env, stdout=subprocess.DEVNULL, check=False)
            time.sleep(2.2)  # the snapshot is past the racy window
            subprocess.run(query, cwd=tree, env=env, stdout=subprocess.DEVNULL, check=False)
        pid = None
        if "server" in which and len(builds) == 1:  # (one server of the root at a time)
            subprocess.run(by_server, cwd=tree, env=env, stdout=subprocess.DEVNULL, check=False)
            for _ in range(200):  # (the search started the server in the background)
                pid = server_pid(tree, env)
                if pid is not None:
                    break
                time.sleep(0.05)
            subprocess.run(by_server, cwd=tree, env=env, stdout=subprocess.DEVNULL, check=False)
        pids[b] = pid
        if "cold" in which:
            modes[b, "cold"] = [*ffind, "--no-cache", "-l", "20", query_text]
        if "warm" in which:
            modes[b, "warm"] = query
        if "server" in which and len(builds) == 1:  # (one server of the root at a time)
            modes[b, "server"] = by_server
    if fd and fzf and "peer" in which:
        modes[-1, "fd|fzf"] = f"{fd} -t f | {fzf} --filter {q} | head -20"
    got: dict[tuple[int, str], list[tuple[float, int, float]]] = {key: [] for key in modes}
    server_cpu: list[float] = []  # (the server's own, and its split child's, per request)
    skipped = 0
    for _ in range(runs):
        for key, cmd in modes.items():
            while True:
                was_calm = calm(quiet) if quiet else True
                before = cpu_of(pids[key[0]]) if key[1] == "server" else 0.0
                run = timed_rss(cmd, tree, env, 1)
                if was_calm or skipped > 20 * runs:
                    break
                skipped += 1
            got[key].append(run)
            if key[1] == "server":
                server_cpu.append(cpu_of(pids[key[0]]) - before)
    med = {key: (statistics.median(r[0] for r in rows), max(r[1] for r in rows),
                 statistics.median(r[2] for r in rows)) for key, rows in got.items()}
    if quiet:
        print(f"  ({skipped} runs not counted: another task was running as they started; "
              f"load {os.getloadavg()[0]:.1f})")
    for b, ffind in enumerate(builds):
        parts = []
        for name in ("cold", "warm"):
            if (b, name) in med:
                took, rss, cpu = med[b, name]
                parts.append(f"{name} {took * 1000:.0f} ms (CPU {cpu * 1000:.0f} ms, "
                             f"{rss // 1024} MiB)")
        if (b, "server") in med:
            pid = pids[b]
            served, _, served_cpu = med[b, "server"]
            fastest = min(r[0] for r in got[b, "server"])
            parts.append(f"server {served * 1000:.0f} ms (min {fastest * 1000:.0f} ms; client "
                         f"CPU {served_cpu * 1000:.0f} ms; the server's CPU "
                         f"{statistics.median(server_cpu or [0]) * 1000:.0f} ms; "
                         + (f"server {rss_mib(pid):.0f} MiB, %d inotify watches, %d fanotify "
                            "marks" % held_watches(pid) if pid else "NO SERVER") + ")")
        who = f" [{shlex.join(ffind)}]" if len(builds) > 1 else ""
        line = f"{tree}{who}: " + ", ".join(parts)
        if (-1, "fd|fzf") in med:
            peer, peer_rss, peer_cpu = med[-1, "fd|fzf"]
            line += (f", fd|fzf {peer * 1000:.0f} ms (min "
                     f"{min(r[0] for r in got[-1, 'fd|fzf']) * 1000:.0f} ms, CPU "
                     f"{peer_cpu * 1000:.0f} ms, {peer_rss // 1024} MiB); " + ", ".join(
                         f"{name}/peer {med[b, name][0] / peer:.2f}x"
                         for name in ("cold", "warm", "server") if (b, name) in med))
        print(line, flush=True)


if __name__ == "__main__":
    main()
