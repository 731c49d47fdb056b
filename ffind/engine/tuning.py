"""The engine's tuning: one frozen ``Tuning`` given to ``Index(tuning=...)`` and read by every
stage from its store (``PathStore.tuning``).  No field changes a ranking but ``budget``,
``seed`` and ``slack`` (what the exact budget approximates); the others trade speed against
memory.  Figures: ``docs/speed.md``; the benchmark named per field reproduces each."""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing's: a search does not import it)
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, without importing dataclasses (ffind.frozen)
    from ffind.frozen import dataclass


@dataclass(frozen=True, slots=True)
class Tuning:
    """The sizes and thresholds of the engine (see the module docstring)."""

    budget: int = 500
    """Most exact scorings per ranking beyond ``seed``; past it a path scores its bound less
    ``slack`` a query character.  Only unselective queries reach it (``prefix_compare.py``)."""
    seed: int = 64
    """Best-bounded loose candidates scored exactly before the costly refinements, so these
    skip paths under the k-th score (``keys_bench.py``: the slow keys)."""
    slack: int = 9
    """Past ``budget``, a path's score is its bound less this per query character
    (``rank_eval.py``: keystrokes-to-first unchanged)."""
    chunk: int = 65_536
    """Ids or paths a stage handles at a time, and from how many ids a set is an ``array('i')``:
    a key's peak memory against call overhead (``session_memory.py`` at 1M)."""
    slice: int = 16_384
    """Paths per slice of the folded buffer, the letter masks and the count table, and per idle
    step: how long a key waits for idle work against its overhead (``keys_bench.py``)."""
    numpy_from: int = 2_048
    """From how many items a stage runs in numpy (or reads a block or the buffer in bulk), else
    item by item: numpy's fixed cost against per-item work (``constant_ab.py``: x2, x0.5 level)."""
    joined_share: int = 3
    """Candidates at least this share of the index search the whole folded buffer, else path by
    path: one pass over every path against one per candidate (``constant_ab.py``)."""
    last_joined_share: int = 5
    """The same share for the last term's bounds, whose buffer pass pays sooner
    (``constant_ab.py``: a fifth against a third, -6% over all keys at 104k)."""
    few_share: int = 32
    """The paths holding the last searched term are kept when at most this share of the index;
    a longer term is tested on them only (``keys_bench.py``: ``s/p/t``)."""
    buffer_upto: int = 500_000
    """Up to how many paths the folded buffer (~73 bytes a path) is built: memory against the
    speed of large trees' keys (``session_memory.py``, ``keys_bench.py`` at 1M)."""
    names_upto: int = 262_144
    """Up to how many paths the folded file names and stems (~140 bytes a path) are kept, past it
    sliced on use: memory against re-slicing (``session_memory.py`` at 1M)."""
    or_split: int = 8
    """Up to how many alternatives an OR group is ranked one alternative at a time through the
    fast paths (``ffind.engine.either``): those rankings against scoring every match."""
    kept: int = 4
    """Recent terms or keys each cache keeps (early bounds, marks, prefixed ids): memory against
    reuse while one query is typed (``constant_ab.py``)."""

    def __post_init__(self) -> None:
        for name in self.__match_args__:
            v = getattr(self, name)
            least = 0 if name in ("budget", "seed", "slack") else 1
            if not isinstance(v, int) or isinstance(v, bool) or v < least:
                raise ValueError(f"tuning {name} must be an int of at least {least}, not {v!r}")


DEFAULT = Tuning()
"""The tuning an ``Index`` uses unless given one."""
