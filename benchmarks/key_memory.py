"""What a session's key allocates, function by function: the traced peak of each engine
function above what was allocated when it was entered.

    python benchmarks/key_memory.py TREE [--words W,W] [--at KEY,KEY] [--top 20]

Walks TREE with a ``FileSearcher`` (limit 20), builds every table the idle warm-up builds
(``Index.warm``, as ``session_memory.py --warm``), then types the words one key at a time.  For
each key of ``--at`` (default: ``s/p/t`` and ``test u``, the keys where the 1M session's
memory peaks) ``tracemalloc`` runs, and every function of the engine's modules is wrapped to
record the most memory traced while it ran above what was traced when it was entered (a
function called several times: its largest).  Prints, per key, what the key held once done and
the ``--top`` functions by that peak.  Tracing slows the key several times over: figures of
memory only.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import sys
import tracemalloc
from collections import defaultdict
from collections.abc import Callable
from types import ModuleType
from typing import Any

from binaries import TREE_HELP

from ffind.options import SearchOptions
from ffind.searching.session import FileSearcher

WORDS = ["prom", "base_cod", "s/p/t", "test util"]
MODULES = ["index", "ranker", "rank", "shortcuts", "prefilter", "matchset", "store",
           "bounding", "accel", "occur", "letters"]


class Peaks:
    """The traced peak of each wrapped function above its entry (a stack of our own: one
    ``tracemalloc`` peak for the whole process, reset at each entry and exit)."""

    def __init__(self) -> None:
        self.stack: list[list[int]] = []
        self.peak: dict[str, float] = defaultdict(float)

    def wrap(self, name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def g(*args: Any, **kwargs: Any) -> Any:
            if not tracemalloc.is_tracing():
                return f(*args, **kwargs)
            cur, pk = tracemalloc.get_traced_memory()
            if self.stack:
                self.stack[-1][1] = max(self.stack[-1][1], pk)
            tracemalloc.reset_peak()
            self.stack.append([cur, cur])
            try:
                return f(*args, **kwargs)
            finally:
                top = self.stack.pop()
                top[1] = max(top[1], tracemalloc.get_traced_memory()[1])
                self.peak[name] = max(self.peak[name], (top[1] - top[0]) / 2**20)
                if self.stack:
                    self.stack[-1][1] = max(self.stack[-1][1], top[1])
                tracemalloc.reset_peak()

        return g

    def install(self, mods: list[ModuleType]) -> None:
        """Wrap the functions and methods defined in ``mods``, and point every module's name
        for one of them at its wrapper."""
        wrapped: dict[int, Callable[..., Any]] = {}
        for mod in mods:
            for name, obj in list(vars(mod).items()):
                if inspect.isfunction(obj) and obj.__module__ == mod.__name__:
                    wrapped[id(obj)] = self.wrap(f"{mod.__name__.split('.')[-1]}.{name}", obj)
                    setattr(mod, name, wrapped[id(obj)])
                elif inspect.isclass(obj) and obj.__module__ == mod.__name__:
                    for mn, m in list(vars(obj).items()):
                        if inspect.isfunction(m) and not mn.startswith("__"):
                            setattr(obj, mn, self.wrap(f"{obj.__name__}.{mn}", m))
        for mod in mods:  # (names imported from another module: ``from x import f``)
            for name, obj in list(vars(mod).items()):
                if inspect.isfunction(obj) and id(obj) in wrapped:
                    setattr(mod, name, wrapped[id(obj)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", help=TREE_HELP)
    ap.add_argument("--words", default=",".join(WORDS))
    ap.add_argument("--at", default="s/p/t,test u", help="the keys to trace")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    import importlib

    mods = [importlib.import_module(f"ffind.engine.{m}") for m in MODULES]
    peaks = Peaks()
    peaks.install(mods)
    at = set(args.at.split(","))
    with FileSearcher(args.tree, SearchOptions(limit=20)) as fs:
        fs.wait()
        with fs._ilock:
            for _ in fs._index.warm():
                pass
        for word in [w for w in args.words.split(",") if w]:
            for i in range(1, len(word) + 1):
                if word[i - 1] == " ":
                    continue
                key = word[:i]
                traced = key in at
                if traced:
                    tracemalloc.start()
                    peaks.peak.clear()
                    before = tracemalloc.get_traced_memory()[0]
                fs.set_query(key)
                fs.wait()
                fs.results(20)
                if traced:
                    held = (tracemalloc.get_traced_memory()[0] - before) / 2**20
                    tracemalloc.stop()
                    print(f"{key!r}: held {held:.1f} MiB once done; the functions' traced peaks"
                          " above their entry (MiB):")
                    for name, v in sorted(peaks.peak.items(), key=lambda kv: -kv[1])[:args.top]:
                        print(f"  {v:7.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
