"""The shell integration scripts: ``ffind --bash``, ``--zsh``, ``--fish``.

One source per shell, shipped as package data next to this module (``bash.sh``, ``zsh.zsh``,
``fish.fish``) and versioned with ffind.  Each sets up CTRL-T, ALT-C and ``**<TAB>``, which run
``ffind -i --height`` and put the picked paths on the command line quoted for that shell; see
``docs/shell.md``.

Each script has one memory hook, ``__ffind_remember PATH...``, called with every pick made
through the bindings; ``script`` fills its body in: ``ffind --remember`` in the background when
the command has that flag (the memory of opened files), a no-op until then.
"""

from __future__ import annotations

from importlib import resources

SCRIPTS = {"bash": "bash.sh", "zsh": "zsh.zsh", "fish": "fish.fish"}
REMEMBER = {
    "bash": '( command ffind --remember -- "$@" >/dev/null 2>&1 & )',
    "zsh": '( command ffind --remember -- "$@" >/dev/null 2>&1 & )',
    "fish": "command ffind --remember -- $argv >/dev/null 2>&1 &; disown 2>/dev/null",
}
NO_REMEMBER = {"bash": ":", "zsh": ":", "fish": "true"}


def script(shell: str, *, remember: bool = False) -> str:
    """The integration script for ``shell`` (bash, zsh or fish); ``remember``: record picks
    with ``ffind --remember``."""
    text = resources.files(__package__).joinpath(SCRIPTS[shell]).read_text(encoding="utf-8")
    hook = REMEMBER[shell] if remember else NO_REMEMBER[shell]
    return text.replace("@REMEMBER@", hook)
