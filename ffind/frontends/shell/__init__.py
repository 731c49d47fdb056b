"""The shell integration scripts (``ffind --bash``, ``--zsh``, ``--fish``), shipped next to this
module: CTRL-T, ALT-C and ``**<TAB>`` run ``ffind -i --height`` and put the picks on the command
line; each pick goes to the memory hook ``__ffind_remember`` (``docs/shell.md``)."""

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
