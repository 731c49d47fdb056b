"""``MatchSet``: every match of one query over some id ranges of an index, computed lazily,
and the id-range helpers it needs."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeAlias, TypeVar

from ffind.engine import accel
from ffind.engine.accel import Ids, loaded_numpy
from ffind.engine.prefilter import typo_term
from ffind.engine.tuning import Tuning
from ffind.query import parse

Range = tuple[int, int]
Greedy: TypeAlias = "tuple[Any, Any]"
"""Superset ids and where the greedy match of the last term ends in each (two int32 arrays): the
next key adding a character to that term needs only its next occurrence from there."""


def clip(ranges: Iterable[Range], start: int, end: int) -> list[Range]:
    """``ranges`` cut to ``[start, end)``."""
    out = []
    for s, e in ranges:
        s, e = max(s, start), min(e, end)
        if s < e:
            out.append((s, e))
    return out


def union(a: list[Range], b: list[Range]) -> list[Range]:
    """The union of two lists of ranges, sorted and merged."""
    out: list[Range] = []
    for s, e in sorted(a + b):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


class Source(Protocol):
    """What a ``MatchSet`` computes itself with (``ffind.engine.index.Index``)."""

    tuning: Tuning

    def compute(
        self, query: str, ranges: list[Range], hint: MatchSet | None
    ) -> tuple[Ids, Ids, Ids, Greedy | None]: ...

    def find_typos(self, ms: MatchSet) -> Ids: ...


Compact: TypeAlias = "array[int] | range"
Packed: TypeAlias = tuple[Compact, Compact, Compact, "Compact | None"]
"""A computed set's superset, strict, loose and typo ids in compact form, one per distinct list."""


def to_array(ids: Ids) -> array[int]:
    """``array('i', ids)`` (through numpy once its import has finished); an ``array`` as it is."""
    if isinstance(ids, array):
        return ids
    np = loaded_numpy()
    if np is None or len(ids) < 4096:
        return array("i", ids)
    return array("i", np.fromiter(ids, np.int32, len(ids)).tobytes())


def compact(ids: Ids) -> Compact:
    """Ascending ids as a ``range`` when they are one run, else as ``array('i')``."""
    if ids and ids[-1] - ids[0] + 1 == len(ids):
        return range(ids[0], ids[-1] + 1)
    return to_array(ids)


def expand(ids: Compact) -> list[int]:
    """``compact``'s inverse."""
    return list(ids) if isinstance(ids, range) else ids.tolist()


def restore(ids: Compact, chunk: int = accel.CHUNK) -> Ids:
    """``ids`` as a computed set keeps them (``accel.Ids``): a list, or from ``chunk`` ids with
    numpy the array itself, so no list of ints is made again."""
    np = loaded_numpy()
    if np is None or len(ids) < chunk:
        return expand(ids)
    if isinstance(ids, range):
        return array("i", np.arange(ids.start, ids.stop, dtype=np.int32).tobytes())
    return ids


A = TypeVar("A")
B = TypeVar("B")


def _each_once(
    f: Callable[[A], B], items: tuple[A, A, A, A | None],
) -> tuple[B, B, B, B | None]:
    """``f`` of each item, called once per distinct object (one result where the items were one)."""
    done: dict[int, B] = {}

    def one(x: A) -> B:
        r = done.get(id(x))
        if r is None:
            r = done[id(x)] = f(x)
        return r

    a, b, c, d = items
    return one(a), one(b), one(c), None if d is None else one(d)


def pack(lists: tuple[Ids, Ids, Ids, Ids | None]) -> Packed:
    """The lists in compact form, one per distinct list object."""
    return _each_once(compact, lists)


def restored(packed: Packed, chunk: int = accel.CHUNK) -> tuple[Ids, Ids, Ids, Ids | None]:
    """``pack``'s inverse as a computed set keeps its ids (``restore``), one object where the
    compact forms were one."""
    return _each_once(lambda ids: restore(ids, chunk), packed)


class MatchSet:
    """Every match of one query over some id ranges of an ``Index``: the superset (every positive
    term, folded), the strict and loose (smart case's fallback) matches, typos found lazily.
    ``Index.run`` only records the query, ranges and nearest computed set (``hint``); the ids are
    computed on first use, from ``hint`` when there is one."""

    def __init__(
        self, index: Source, query: str, ranges: list[Range], superset: Ids | None,
        strict: Ids | None = None, loose: Ids | None = None,
        typos: Ids | None = None, hint: MatchSet | None = None,
    ) -> None:
        self.index = index
        self.query = query
        self.ranges = ranges
        self._superset = superset
        self._strict = strict
        self._loose = loose
        self._typos = typos
        self._hint = hint
        self._count: int | None = None
        self._greedy: Greedy | None = None
        self._packed: Packed | None = None
        """The ids as arrays (``compact``, or computed so: ``Filler``); kept beside the lists
        once they are restored, which are never changed, so compacting again only lets the
        lists go."""

    @classmethod
    def from_packed(cls, index: Source, query: str, ranges: list[Range],
                    packed: Packed, greedy: Greedy | None = None) -> MatchSet:
        """A computed set whose ids are given in compact form."""
        ms = cls(index, query, ranges, None)
        ms._greedy = greedy
        ms._packed = packed
        return ms

    @property
    def greedy(self) -> Greedy | None:
        """The last term's greedy ends per superset id (``Greedy``), when known."""
        return self._greedy

    def set_greedy(self, greedy: Greedy) -> None:
        """Keep ``greedy`` (``Ender``'s) when the set is computed."""
        if self.computed:
            self._greedy = greedy

    def superset_array(self, lo: int, hi: int) -> Any:
        """The superset's ids ``lo`` to ``hi`` as an int32 array, without restoring a compacted
        set."""
        np = sys.modules["numpy"]
        if self._packed is not None:
            ids = self._packed[0]
            if isinstance(ids, range):
                return np.arange(ids.start + lo, ids.start + min(hi, len(ids)), dtype=np.int32)
            return np.frombuffer(ids, dtype=np.int32)[lo:hi]
        return np.array(self.superset[lo:hi], dtype=np.int32)

    @property
    def computed(self) -> bool:
        return self._superset is not None or self._packed is not None

    @property
    def compacted(self) -> bool:
        """True while the ids are kept as arrays only (``compact``)."""
        return self._packed is not None and self._superset is None

    def compact(self) -> None:
        """Keep the computed ids as arrays until the next use (not while another thread reads the
        set)."""
        self._greedy = None
        if self._superset is None or self._strict is None or self._loose is None:
            return
        packed = self._packed
        if packed is None:
            packed = pack((self._superset, self._strict, self._loose, self._typos))
        elif self._typos is not None and packed[3] is None:  # (found since: packed too)
            packed = (*packed[:3], compact(self._typos))
        self._packed = packed
        self._superset = self._strict = self._loose = self._typos = None

    def _unpack(self) -> None:
        packed = self._packed
        if packed is not None and self._superset is None:
            self._superset, self._strict, self._loose, self._typos = restored(
                packed, self.index.tuning.chunk)

    def size(self) -> int:
        """How many ids the superset holds, without restoring a compacted set."""
        if self._superset is None and self._packed is not None:
            return len(self._packed[0])
        return len(self.superset)

    def nearest_computed(self) -> MatchSet | None:
        """This set when computed, else the computed set it narrows: where a narrower query
        starts."""
        return self if self.computed else self._hint

    def fill(self, done: MatchSet) -> None:
        """Take ``done``'s computed ids (the same query and ranges, computed apart by
        ``Filler``)."""
        if done.query != self.query or done.ranges != self.ranges:
            raise ValueError("fill: not the same query over the same ranges")
        if self.computed:
            return
        self._hint = None
        self._greedy = done._greedy
        if done._superset is None:  # (in compact form: ``Filler``'s)
            self._packed = done._packed
            return
        self._strict, self._loose, self._typos = done._strict, done._loose, done._typos
        self._packed = done._packed
        self._superset = done._superset  # last: another thread may be reading ``computed``

    def _compute(self) -> None:
        if self._packed is not None:
            self._unpack()
        if self._superset is None:
            sup, self._strict, self._loose, self._greedy = self.index.compute(
                self.query, self.ranges, self._hint)
            self._superset = sup  # last: another thread may be reading ``computed``
            self._hint = None

    @property
    def superset(self) -> Ids:
        self._compute()
        assert self._superset is not None
        return self._superset

    @property
    def strict(self) -> Ids:
        self._compute()
        assert self._strict is not None
        return self._strict

    @property
    def loose(self) -> Ids:
        self._compute()
        assert self._loose is not None
        return self._loose

    @property
    def fallback(self) -> bool:
        """True when the query has capitals but matches nothing case-sensitively."""
        return not self.strict and self.strict is not self.loose and bool(self.loose)

    @property
    def ids(self) -> Ids:
        """The exact (non-typo) matches, ascending."""
        return self.loose if self.fallback else self.strict

    def ids_seq(self) -> Sequence[int]:
        """``ids``, as the compact form when the set is compacted."""
        packed = self._packed
        if packed is not None and self._superset is None:
            _, strict, loose, _ = packed
            return loose if not strict and strict is not loose and loose else strict
        return self.ids

    def typos(self) -> Ids:
        """The typo matches (ids of names one edit away), computed on first use."""
        self._unpack()
        if self._typos is None:
            self._typos = self.index.find_typos(self)
        return self._typos

    def __len__(self) -> int:
        if self._count is None and self.compacted and self._packed is not None:
            _, strict, loose, _ = self._packed
            if typo_term(parse(self.query)) is None:  # (no typos: counted without the lists)
                fallback = not strict and strict is not loose and bool(loose)
                self._count = len(loose if fallback else strict)
        if self._count is None:
            ids = self.ids
            n = len(ids)
            if typo_term(parse(self.query)) is not None:
                typos = self.typos()
                if typos:
                    n += len(set(typos).difference(ids))
            self._count = n
        return self._count

    def can_narrow(self, new_query: str) -> bool:
        """True when ``new_query``'s matches are a subset of this set's superset; False when
        unsure."""
        from ffind.query import implies

        new = parse(new_query).positive
        return all(any(implies(t2, t1) for t2 in new) for t1 in parse(self.query).positive)

    def merge(self, other: MatchSet) -> MatchSet:
        """The set of the same query over both sets' ranges, as one ``run`` over the union gives."""
        if not self.computed and not other.computed and self._hint is other._hint:
            return MatchSet(self.index, self.query, union(self.ranges, other.ranges), None,
                            hint=self._hint)

        def cat(a: Ids, b: Ids) -> Ids:
            if isinstance(a, list) and isinstance(b, list):
                return sorted(a + b) if a and b and a[-1] > b[0] else a + b
            # (an ``array('i')`` on one side at least: ``Ids`` of a chunk or more)
            if a and b and a[-1] > b[0]:
                return to_array(sorted([*a, *b]))
            return to_array(a) + to_array(b)

        runs = _runs(self, other)
        if runs is not None:  # (every id of both: an empty query's set, kept as ranges)
            return MatchSet.from_packed(self.index, self.query,
                                        union(self.ranges, other.ranges), runs)
        self._compute()
        other._compute()
        loose_is_strict = self.loose is self.strict and other.loose is other.strict
        strict = cat(self.strict, other.strict)
        typos = (cat(self._typos, other._typos)
                 if self._typos is not None and other._typos is not None else None)
        return MatchSet(
            self.index, self.query, union(self.ranges, other.ranges),
            cat(self.superset, other.superset), strict,
            strict if loose_is_strict else cat(self.loose, other.loose), typos,
        )


def _run_of(ids: Sequence[int]) -> range | None:
    """``ids`` (ascending, distinct) as a ``range`` when they are one run, else None."""
    if isinstance(ids, range):
        return ids
    if not ids:
        return range(0)
    if ids[-1] - ids[0] + 1 == len(ids):
        return range(ids[0], ids[-1] + 1)
    return None


def _runs(a: MatchSet, b: MatchSet) -> Packed | None:
    """The merge of ``a`` and ``b`` in compact form when every list of each is one run and ``b``'s
    follow ``a``'s; else None."""
    lists = []
    for ms in (a, b):
        if not ms.computed:
            ms._compute()
        got: tuple[Sequence[int], Sequence[int], Sequence[int], Sequence[int] | None]
        if ms._superset is not None and ms._strict is not None and ms._loose is not None:
            got = (ms._superset, ms._strict, ms._loose, ms._typos)
        elif ms._packed is not None:
            got = ms._packed
        else:
            return None
        if got[3] is not None:
            return None
        lists.append(got)
    (s1, t1, l1, _), (s2, t2, l2, _) = lists
    if (t1 is s1) != (t2 is s2) or (l1 is t1) != (l2 is t2):
        return None
    joined: list[range] = []
    for x, y in ((s1, s2), (t1, t2), (l1, l2)):
        rx, ry = _run_of(x), _run_of(y)
        if rx is None or ry is None:
            return None
        if not rx or not ry:
            joined.append(rx or ry)
        elif rx.stop != ry.start:
            return None
        else:
            joined.append(range(rx.start, ry.stop))
    sup = joined[0]
    strict = sup if t1 is s1 else joined[1]
    loose = strict if l1 is t1 else joined[2]
    return sup, strict, loose, None


def compact_idle(cached: Iterable[MatchSet | None], hot: Iterable[MatchSet | None],
                 most: int | None = None) -> int:
    """``compact`` the computed sets of ``cached`` but those of ``hot``; with ``most``, at most that
    many sets holding lists.  How many it compacted."""
    keep: set[int] = set()
    for ms in hot:
        if ms is not None:
            keep.add(id(ms))
            keep.add(id(ms.nearest_computed()))
    done = 0
    for ms in cached:
        near = None if ms is None else ms.nearest_computed()
        if near is None or id(near) in keep:
            continue
        if near.compacted:
            near.compact()  # (lets its greedy ends go, if it kept them)
            continue
        if most is not None and done >= most:
            break
        near.compact()
        done += near.compacted
    return done


class Filler:
    """Computes a lazy ``MatchSet`` a slice of ids at a time between keys, so the next key can
    narrow a set a shortcut answered without computing.  Slices are disjoint and ascending: their
    ids concatenated are what one ``run`` gives."""

    def __init__(self, run: Callable[..., MatchSet], ms: MatchSet, size: int) -> None:
        self._run = run
        self.ms = ms
        self.size = size
        ranges = ms.ranges
        self.start = ranges[0][0] if ranges else 0
        self.end = ranges[-1][1] if ranges else 0
        self.upto = self.start
        # the ids so far in compact form (4 bytes an id: a million ids in 4 MB, no int
        # objects kept, nothing to compact later); None: the same ids as the one before
        self._superset = array("i")
        self._strict: array[int] | None = array("i")
        self._loose: array[int] | None = array("i")
        self._greedy: list[Greedy] | None = []
        """Each slice's greedy ends, while every slice so far had them."""

    @property
    def finished(self) -> bool:
        """``ms`` is computed (by this filler, or by a reader meanwhile)."""
        return self.ms.computed

    def step(self) -> bool:
        """Compute one more slice; True when the set is complete (then ``ms`` is filled)."""
        if self.finished:
            return True
        if self.upto >= self.end:  # (no ids at all)
            self.ms.fill(self.done())
            return True
        hi = min(self.upto + self.size, self.end)
        part = self._run(self.ms.query, within=self.ms, start=self.upto, end=hi)
        sup, strict, loose = part.superset, part.strict, part.loose
        if self._greedy is not None:
            if part.greedy is None:
                self._greedy = None
            else:
                self._greedy.append(part.greedy)
        self._superset.extend(to_array(sup))
        if strict is sup:  # (one list, as ``Index.compute`` gives it for this query)
            self._strict = None
        elif self._strict is not None:
            self._strict.extend(to_array(strict))
        if loose is strict:
            self._loose = None
        elif self._loose is not None:
            self._loose.extend(to_array(loose))
        self.upto = hi
        if self.upto >= self.end:
            self.ms.fill(self.done())
            return True
        return False

    def done(self) -> MatchSet:
        """The part computed so far, in compact form (its arrays are shared: stop stepping
        after)."""
        sup = self._superset
        strict = sup if self._strict is None else self._strict
        loose = strict if self._loose is None else self._loose
        greedy: Greedy | None = None
        if self._greedy:  # (none at all: no slice computed, or one without)
            np = sys.modules["numpy"]
            greedy = (np.concatenate([g[0] for g in self._greedy]),
                      np.concatenate([g[1] for g in self._greedy]))
            self._greedy = [greedy]
        return MatchSet.from_packed(self.ms.index, self.ms.query,
                                    clip(self.ms.ranges, self.start, self.upto),
                                    (sup, strict, loose, None), greedy)


class Ender:
    """Finds between keys, a slice at a time, the greedy ends of a computed set's lone-character
    last term (``test u``), so the next key (``test ut``) narrows by ``FoldedBuffer.advance``."""

    def __init__(self, find: Callable[[MatchSet, Any], Any | None], ms: MatchSet,
                 size: int) -> None:
        self._find = find
        self.ms = ms
        self.size = size
        self.upto = 0
        self._ids: Any = None
        self._ends: Any = None
        self.finished = False

    def step(self) -> bool:
        """Find one more slice; True when done (found and kept, or nothing to find)."""
        if self.finished:
            return True
        if self._ids is None:
            np = sys.modules["numpy"]
            self._ids = self.ms.superset_array(0, self.ms.size())
            self._ends = np.empty(len(self._ids), np.int32)
        n = len(self._ids)
        hi = min(self.upto + self.size, n)
        part = self._find(self.ms, self._ids[self.upto:hi])
        if part is None:
            self.finished = True
            self._ids = self._ends = None
            return True
        self._ends[self.upto:hi] = part
        self.upto = hi
        if self.upto >= n:
            self.ms.set_greedy((self._ids, self._ends))
            self._ids = self._ends = None
            self.finished = True
            return True
        return False
