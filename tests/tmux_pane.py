"""One tmux pane driven by a test: the picker, a shell, an editor (each test file adds what its
program needs).  Every wait polls the screen against a deadline, never a fixed sleep."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class TmuxPane:
    tmux: list[str]
    """``tmux -L SOCKET -f /dev/null``: the test's own server."""
    target: str
    """The session's name."""
    trim: bool = True
    """Drop the blank lines at the bottom of the screen."""

    def send(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.target, *keys], check=True)

    def type(self, text: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.target, "-l", text], check=True)

    def screen(self, escapes: bool = False) -> list[str]:
        flags = ["-p", "-e"] if escapes else ["-p"]
        got = subprocess.run([*self.tmux, "capture-pane", *flags, "-t", self.target],
                             check=True, capture_output=True, text=True)
        return (got.stdout.rstrip("\n") if self.trim else got.stdout).splitlines()

    def wait_for(self, what: Callable[[list[str]], bool], timeout: float = 20) -> list[str]:
        """The screen once ``what(screen)`` holds; AssertionError with the screen past
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.screen()
            if what(lines):
                return lines
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.target}: the screen never got there:\n"
                                     + "\n".join(lines))
            time.sleep(0.05)
