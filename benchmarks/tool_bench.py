"""find_files latency for agents: `ffind mcp` driven over stdio by the mcp SDK's client.

For each round a fresh server process (`python -m ffind mcp --root TREE`) is started; we time,
on the client side (JSON-RPC round trip included):

- from spawning the server to the first answer ("spawn+first"), and the first ``find_files``
  call alone, sent as soon as the MCP handshake is done (it waits for the walk the server
  started at start-up, and the index built as the walk streams), and
- the next ``--calls`` calls, each a different query (served from the cached walk; each may
  start a background re-walk), as the median and the slowest, and
- the first query once more ("same again": answered from the walk's answer cache).

Two modes side by side: ``back-to-back`` (the next call is sent as soon as the previous answer
arrives, so a background re-walk is usually running: the worst case) and ``spaced`` (``--gap``
seconds between calls, so each call finds the re-walk finished: an agent thinking between calls).
Also the one-shot Python ``ffind.agent.tool.find_files`` (walk + index + match per call) for scale.

    python benchmarks/tool_bench.py --tree TREE --rounds 3      # needs the mcp extra
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from benchlib import TREE_HELP
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parent.parent
QUERIES = [  # 11 different queries: the first call and ten more, none repeated
    "prompt", "base_coder", "database migration", "controller", "mod.rs",
    "session test", "ci.yml", "readme", "promtp", "user model", "test helper",
]


async def one_round(
    tree: str, calls: int, gap: float
) -> tuple[float, float, list[float], float, str]:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "ffind", "mcp", "--root", tree], cwd=str(REPO)
    )
    start = time.perf_counter()
    async with Client(server, read_timeout_seconds=600) as client:
        t = time.perf_counter()
        first = await client.call_tool("find_files", {"query": QUERIES[0]})
        first_ms = (time.perf_counter() - t) * 1000
        spawn_ms = (time.perf_counter() - start) * 1000
        assert not first.is_error, first
        times: list[float] = []
        for i in range(calls):
            if gap:
                await asyncio.sleep(gap)
            q = QUERIES[(i + 1) % len(QUERIES)]
            t = time.perf_counter()
            r = await client.call_tool("find_files", {"query": q})
            times.append((time.perf_counter() - t) * 1000)
            assert not r.is_error, r
        t = time.perf_counter()
        r = await client.call_tool("find_files", {"query": QUERIES[0]})
        again = (time.perf_counter() - t) * 1000
        text = first.content[0].text  # type: ignore[union-attr]
        assert r.content[0].text == text  # type: ignore[union-attr]
    return spawn_ms, first_ms, times, again, text


def in_process(tree: str, repeats: int = 5) -> list[tuple[str, float, float]]:
    """Per query, side by side: the matcher alone (``Index.match(q, limit=20)``) and the tool's
    answer (``search_snapshot``: every match counted, the page ranked, formatted), caches
    cleared; medians of ``repeats``."""
    from ffind.agent.tool import TreeSnapshot, search_snapshot, tool_walk

    snap = TreeSnapshot.build(tool_walk(tree))
    rows = []
    for q in QUERIES:
        a: list[float] = []
        b: list[float] = []
        for _ in range(repeats):
            t = time.perf_counter()
            snap.main.match(q, limit=20)
            a.append((time.perf_counter() - t) * 1000)
            snap.answers.clear()
            snap.matchsets.clear()
            t = time.perf_counter()
            search_snapshot(snap, q, 20)
            b.append((time.perf_counter() - t) * 1000)
        rows.append((q, statistics.median(a), statistics.median(b)))
    return rows


def oneshot_ms(tree: str) -> float:
    from ffind.agent.tool import find_files

    t = time.perf_counter()
    find_files(QUERIES[0], root=tree)
    return (time.perf_counter() - t) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True, help=TREE_HELP)
    ap.add_argument("--rounds", type=int, default=3, help="server processes per mode")
    ap.add_argument("--calls", type=int, default=10, help="calls after the first")
    ap.add_argument("--gap", type=float, default=3.0, help="seconds between calls, spaced mode")
    args = ap.parse_args()

    modes = (("back-to-back", 0.0), (f"spaced {args.gap:g} s", args.gap))
    rows: dict[str, list[list[float]]] = {mode: [[], [], [], [], []] for mode, _ in modes}
    text = ""
    for _ in range(args.rounds):
        for mode, gap in modes:  # alternate the modes, so load from others hits both alike
            spawn, first, times, again, text = asyncio.run(
                one_round(args.tree, args.calls, gap)
            )
            values = (spawn, first, statistics.median(times), max(times), again)
            for col, value in zip(rows[mode], values, strict=True):
                col.append(value)
    shots = [oneshot_ms(args.tree) for _ in range(args.rounds)]

    print(f"tree {args.tree}; first answer: {text.splitlines()[0]}")
    print(f"{args.rounds} server processes per mode, {args.calls} calls after the first; "
          "medians over processes")
    print(f"{'mode':<16} {'spawn+first':>12} {'first call':>11} {'median next':>12}"
          f" {'slowest next':>13} {'same again':>11}")
    for mode, cols in rows.items():
        spawn, first, median, worst, again = (statistics.median(c) for c in cols)
        print(f"{mode:<16} {spawn:>9.0f} ms {first:>8.0f} ms {median:>9.1f} ms {worst:>10.1f} ms"
              f" {again:>8.1f} ms")
    print(f"{'one-shot python':<16} {statistics.median(shots):>8.0f} ms "
          "(ffind.agent.tool.find_files: walk + index + match, no server)")
    print()
    print("in process, per query (median of 5): the matcher's top 20 vs the tool's answer")
    print(f"{'query':<20} {'match(q, 20)':>13} {'find_files':>11} {'ratio':>6}")
    rows_ip = in_process(args.tree)
    for q, a, b in rows_ip:
        print(f"{q:<20} {a:>10.1f} ms {b:>8.1f} ms {b / a:>6.2f}")
    ma = statistics.median(r[1] for r in rows_ip)
    mb = statistics.median(r[2] for r in rows_ip)
    print(f"{'median':<20} {ma:>10.1f} ms {mb:>8.1f} ms {mb / ma:>6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
