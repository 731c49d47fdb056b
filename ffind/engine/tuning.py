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
    """Ids or paths a stage handles at a time, and from how many a set is an ``array('i')``:
    temporaries of one part instead of all (``key_memory.py``: 1M peak) against call overhead."""
    slice: int = 16_384
    """Paths per slice of the folded buffer, the letter masks and the count table, and per
    idle step (halved to doubled); longer steps delay the next key (``keys_bench.py``)."""
    numpy_from: int = 2_048
    """From how many candidates a stage runs in numpy instead of Python lists (the arrays'
    fixed cost against per-item work; ``bulk_bench.py``)."""
    block_from: int = 1_024
    """From how many ids in one block the word starts, or the prefixes, are read in bulk from
    the block or the folded buffer instead of per id (``bulk_bench.py``: ``s/p/t``)."""
    joined_share: int = 3
    """A term is searched in the whole folded buffer when the candidates are at least this
    share of the index, else path by path (``bulk_bench.py``: a third)."""
    last_joined_share: int = 5
    """The same share for the last term's bounds, whose buffer pass pays earlier
    (``last_joined_share.py``: a fifth at 104k and 14.5k paths)."""
    few_share: int = 32
    """The paths holding the last searched term are kept when at most this share of the index,
    and a longer term is tested on them only (``keys_bench.py``: ``s/p/t``)."""
    buffer_upto: int = 500_000
    """Up to how many paths the folded buffer is built (~73 bytes a path); past it the per-path
    code answers (``key_memory.py``, ``keys_bench.py`` at 1M)."""
    names_upto: int = 262_144
    """Up to how many paths the folded file names and stems are kept (~140 bytes a path), past
    it sliced on use (``index_footprint.py``)."""
    kept: int = 4
    """How many recent terms or keys each cache keeps (early bounds and scores, occurrence
    marks, prefixed ids): the terms of one query being typed (``keys_bench.py``)."""

    def __post_init__(self) -> None:
        for name in self.__match_args__:
            v = getattr(self, name)
            least = 0 if name in ("budget", "seed", "slack") else 1
            if not isinstance(v, int) or isinstance(v, bool) or v < least:
                raise ValueError(f"tuning {name} must be an int of at least {least}, not {v!r}")


DEFAULT = Tuning()
"""The tuning an ``Index`` uses unless given one."""
