"""``ffind --servers`` and ``ffind --stop-servers``: this user's resident servers
(``ffind.resident``) listed from their own accounts, or stopped (docs/cache.md)."""

from __future__ import annotations

from typing import Any


def manage(stop: bool, json: bool) -> int:
    """``ffind --servers`` (a table, or with ``json`` one JSON object per server) and ``ffind
    --stop-servers``; exit status 0, or 1 when none runs (ran)."""
    from ffind.errors import ExitCode
    from ffind.frontends import output
    from ffind.resident import client

    if stop:
        return ExitCode.FOUND if client.stop_all() else ExitCode.NOT_FOUND
    found = client.servers()
    if json:
        import orjson

        output.write_stdout(b"".join(orjson.dumps(s, option=orjson.OPT_SORT_KEYS) + b"\n"
                                     for s in found))
    elif found:
        output.write_stdout(servers_table(found).encode("utf-8", "surrogateescape"))
    return ExitCode.FOUND if found else ExitCode.NOT_FOUND


def servers_table(found: list[dict[str, Any]]) -> str:
    """The ``--servers`` table: one line per server, then a note on partial watching."""
    rows = [("PID", "FILES", "MEMORY", "WATCHED", "IDLE", "FOLDER")]
    partial = False
    for s in found:
        if "root" not in s:
            rows.append((str(s.get("pid", "?")), "?", "?", "?", "?",
                         f"(not answering: {s['socket']})"))
            continue
        partial = partial or not s.get("watching_all")
        watched = f"{s.get('watches', 0)}/{s.get('folders', 0)}"
        idle = f"{int(s.get('idle', 0))}s of {int(s.get('idle_limit', 0))}s"
        rows.append((str(s["pid"]), str(s.get("files", 0)),
                     f"{int(s.get('rss', 0)) >> 20} MiB", watched, idle, str(s["root"])))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:5], widths, strict=True)) + "  " + r[5]
             for r in rows]
    if partial:
        lines.append("WATCHED: inotify watches / folders; the folders not watched are "
                     "checked by each search (the answers stay exact).")
    return "\n".join(lines) + "\n"
