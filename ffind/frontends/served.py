"""The resident server's program (``python -m ffind.frontends.served``, what ``client.start``
runs): ``ffind.resident.server`` with the command's parse and writers, so that a command line
is answered with the bytes, notes and exit status the command would give."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ffind.resident.server import Held, Server


def command(server: Server, request: dict[str, Any]) -> tuple[dict[str, Any], Held]:
    """A command line parsed, searched and rendered as the command would for the client's
    terminals and environment; ValueError unless a plain search of the client's folder."""
    from ffind.frontends.cli import plain_search, render, rendering

    argv, cwd = request["argv"], str(request["cwd"])
    tty_out, tty_err = (bool(t) for t in request["tty"])
    env = {str(k): str(v) for k, v in dict(request["env"]).items()}
    inv = plain_search([str(a) for a in argv]) if isinstance(argv, list) else None
    if inv is None or inv.root != "." or not (inv.cache and inv.server):
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
