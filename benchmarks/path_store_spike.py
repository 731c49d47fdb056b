"""A spike for issue 17 (not the engine's code): what a compact path store would hold, and what
making a key's candidate strings from it would cost.

    python benchmarks/path_store_spike.py PATHS_FILE [--keys s,test u] [--repeat 3]

PATHS_FILE holds one path per line.  Compares, for the paths and their folded forms (lowercased;
the folded form is the path's own string when lowercasing changes nothing, as
``PathStore.folded`` keeps it):

- today's form: a list of ``str`` (one object a path), the folded list sharing the unchanged;
- a compact form: the paths joined in one ``str`` (one byte a character while every path is
  ASCII; the others kept aside, by id) with their start offsets in an ``array('I')``, the
  folded forms the same way for the paths whose folded form differs.

Sizes are ``sys.getsizeof``'s (objects' headers included, not the allocator's rounding).
Then, per key, the ids of the paths whose folded form holds every character of each of its
words in order (a key's candidate set, as the fuzzy prefilter gives it), and the CPU time to
make their strings: from the list (``paths[i]``), and from the compact form (a slice of the
joined text per id), both as a list; the least over ``--repeat`` runs; and what the strings
made hold while the key is ranked.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from array import array
from collections.abc import Callable


def mib(n: float) -> str:
    return f"{n / 2**20:7.1f} MiB"


def list_size(items: list[str], shared: list[str] | None = None) -> int:
    """The list and the strings it alone holds (not those of ``shared``, by identity)."""
    own = {id(s) for s in shared} if shared is not None else set()
    return sys.getsizeof(items) + sum(sys.getsizeof(s) for s in items if id(s) not in own)


class Compact:
    """The strings joined in one text with their offsets; the non-ASCII ones kept aside."""

    def __init__(self, items: list[str]) -> None:
        self.wide = {i: s for i, s in enumerate(items) if not s.isascii()}
        parts = ["" if i in self.wide else s for i, s in enumerate(items)] if self.wide else items
        self.text = "".join(parts)
        self.at = array("I", [0])
        total = 0
        for s in parts:
            total += len(s)
            self.at.append(total)

    def size(self) -> int:
        return (sys.getsizeof(self.text) + sys.getsizeof(self.at) + sys.getsizeof(self.wide)
                + sum(sys.getsizeof(s) for s in self.wide.values()))

    def strings(self, ids: list[int]) -> list[str]:
        text, at, wide = self.text, self.at, self.wide
        if not wide:
            return [text[at[i]:at[i + 1]] for i in ids]
        return [wide[i] if i in wide else text[at[i]:at[i + 1]] for i in ids]


def best(f: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        f()
        times.append(time.process_time() - t)
    return min(times) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths")
    ap.add_argument("--keys", default="s,test u")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with open(args.paths) as f:
        paths = f.read().splitlines()
    folded = [p if (lo := p.lower()) == p else lo for p in paths]
    changed = [i for i, (p, fo) in enumerate(zip(paths, folded, strict=True)) if fo is not p]
    today = list_size(paths) + list_size(folded, paths)
    cp = Compact(paths)
    cf = Compact([folded[i] for i in changed])  # (the differing folded forms only)
    where = array("i", changed)
    compact = cp.size() + cf.size() + sys.getsizeof(where)
    print(f"{len(paths)} paths, {len(changed)} with a folded form of their own")
    print(f"  today: paths {mib(list_size(paths))} + folded {mib(list_size(folded, paths))}"
          f" = {mib(today)}")
    print(f"  compact: paths {mib(cp.size())} ({len(cp.wide)} aside) + folded {mib(cf.size())}"
          f" + ids {mib(sys.getsizeof(where))} = {mib(compact)}")
    for key in [k for k in args.keys.split(",") if k]:
        rx = [re.compile(".*?".join(map(re.escape, w))) for w in key.split()]
        ids = [i for i, fo in enumerate(folded) if all(r.search(fo) for r in rx)]
        from_list = best(lambda ids=ids: [paths[i] for i in ids], args.repeat)
        from_text = best(lambda ids=ids: cp.strings(ids), args.repeat)
        made = cp.strings(ids)
        assert made == [paths[i] for i in ids]
        print(f"  {key!r}: {len(ids)} candidates; their strings from the list {from_list:.1f}"
              f" ms, from the compact text {from_text:.1f} ms (CPU), which then hold"
              f" {mib(list_size(made))} until the key ends")
    return 0


if __name__ == "__main__":
    sys.exit(main())
