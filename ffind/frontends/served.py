"""The resident server's program (``python -m ffind.frontends.served --root ROOT --socket PATH
[--prime DATA] [--tied]``, what ``client.start`` runs): ``ffind.resident.server`` with the
command's parse and writers, so that a command line is answered with the bytes, notes and exit
status the command would give."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ffind.resident.server import Held, Server


def command(server: Server, request: dict[str, Any]) -> tuple[dict[str, Any], Held]:
    """A command line parsed, searched and rendered as the command would for the client's
    terminals and environment; ValueError unless a plain search of the client's folder."""
    from ffind.frontends.cli import Invocation, invocation, render, rendering
    from ffind.frontends.fastparse import parse

    argv, cwd = request["argv"], str(request["cwd"])
    tty_out, tty_err = (bool(t) for t in request["tty"])
    env = {str(k): str(v) for k, v in dict(request["env"]).items()}
    quick = parse([str(a) for a in argv]) if isinstance(argv, list) else None
    inv = None if quick is None else invocation(*quick)
    if (not isinstance(inv, Invocation) or inv.root != "." or inv.interactive or inv.stdin
            or not (inv.cache and inv.server) or inv.shell is not None or inv.remember
            or inv.forget or inv.clear_cache or inv.servers or inv.stop_servers):
        raise ValueError("not a plain search of the current folder")
    on_tty, options, style = rendering(inv, tty_out, env)
    top, total, warnings, memory_warning, held, _ = server.found(
        inv.root, cwd, inv.pattern, options, inv.memory, inv.json or tty_err)
    data, notes, code = render(inv, options, style, on_tty, tty_err, top, lambda: total)
    if memory_warning:
        notes.append(memory_warning)
    return {"ok": True, "before": warnings, "stdout": data, "after": notes,
            "code": int(code)}, held


def main(argv: list[str] | None = None) -> int:
    from ffind.resident.server import main as serve

    return serve(argv, on_command=command)


if __name__ == "__main__":
    raise SystemExit(main())
