"""FileSearcher: a search session that walks in the background and rematches on every key.  The
walk thread queues batches in an ``Inbox`` (``feed``); the match thread owns the ``Index``,
matches a new query from the cheapest known start (``matchsets``), ranks, publishes the state,
and works ahead between keys (``idle``).  ``results``/``snapshot`` read one published state."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ffind.options import SearchOptions, check_options, check_query
from ffind.searching.catalog import batched
from ffind.searching.feed import FEED_BATCH, FIRST_FRAME_WAIT, Inbox, walk_roots, warm_root
from ffind.searching.idle import IDLE_DELAY, IdleWork
from ffind.searching.matchsets import Cancelled, MatchSets, State
from ffind.searching.merge import as_roots, check_roots, order_matches, ranked
from ffind.searching.order import SessionOrder

if TYPE_CHECKING:
    from ffind.engine.index import Index, VisitSource
    from ffind.scoring.scorer import FileMatch

UPDATE_INTERVAL = 0.02  # seconds between two ``on_update`` calls at most
WALK_INTERVAL = 0.1
"""Seconds between two rematches driven by the walk's new paths (a new query never waits)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One consistent view of a session: the best matches of ``query`` so far."""

    query: str  # may lag behind the latest ``set_query``
    matches: list[FileMatch]  # best first, at most ``options.limit``
    total_match_count: int
    scanned_file_count: int  # paths found by the walk so far
    walk_complete: bool  # false while walking and after ``cancel``


class Reporter(Protocol):
    """Receives snapshots on the match thread; may also have ``on_ranked(query, matches)``
    (before ``on_complete``, ahead of the count) and ``on_warning(message)``."""

    def on_update(self, snapshot: Snapshot) -> None: ...

    def on_complete(self, snapshot: Snapshot) -> None: ...


class FileSearcher:
    """A background walk of ``roots`` (or ``paths`` given) plus incremental matching;
    ``reporter`` gets updates and completions; ``cache`` (one root): the warm index's paths at
    once, replaced by the validated listing if it differs."""

    def __init__(
        self,
        roots: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (),
        options: SearchOptions | None = None,
        reporter: Reporter | None = None,
        *,
        paths: Iterable[str] | None = None,
        memory: VisitSource | None = None,
        cache: bool = False,
    ) -> None:
        self.options = check_options(options)
        if isinstance(paths, (str, bytes)):
            raise TypeError("paths must be an iterable of str, not a single str")
        self.roots = as_roots(roots)
        if paths is None:
            check_roots(self.roots)
        self.warnings: list[str] = []
        self._reporter = reporter
        self._multi = paths is None and len(self.roots) > 1
        self._cached = cache and paths is None and len(self.roots) == 1
        self._root_of: dict[str, int | list[int]] = {}
        self._order = SessionOrder(memory, self.roots, paths is not None, remember=cache)
        self._cond = threading.Condition(threading.Lock())
        self._ilock = threading.Lock()  # every Index call (run/top/extend)
        self._cancel = threading.Event()
        self._walk_imported = threading.Event()  # the walk's modules are loaded
        self._shown = threading.Event()  # a state with paths was published (and reported)
        self._inbox = Inbox(self._cond)
        # Guarded by _cond:
        self._query = ""
        self._gen = 0
        self._epoch = 0  # the index's: a state of another epoch is not read
        self._state = State("", None, 0, 0, {})
        self._state_gen = 0
        self._published = 0.0  # when the last state was published (``time.monotonic``)
        self._error: BaseException | None = None  # the match thread's
        # Match thread only (the index and its idle work are made there: importing the matcher
        # overlaps the walk):
        self._index: Index
        self._work: IdleWork
        self._sets = MatchSets(self._ilock, self._check)
        self._gen_matched = 0  # the generation being matched (``_check``)
        self._last_report = 0.0
        self._report_due = False
        if paths is not None:
            self._walk_imported.set()
        self._closed = False
        self._last_walk_update = 0.0
        self._completed_version = -1

        source: Iterator[tuple[int, list[str]]] = (
            ((0, b) for b in batched(paths, FEED_BATCH)) if paths is not None
            else self._walk_all()
        )
        self._walker = threading.Thread(
            target=self._inbox.fill, args=(source, self._cancel), name="ffind-walk", daemon=True
        )
        self._matcher = threading.Thread(target=self._match_main, name="ffind-match", daemon=True)
        # A searcher never closed still stops its walk and its workers at exit (before
        # multiprocessing's exit handler), and its match thread is waited for briefly: a
        # daemon thread inside numpy or rapidfuzz while the interpreter finalizes may crash.
        weakref.finalize(self, _shutdown, self._cancel, self._cond, self._walker, self._matcher)
        self._walker.start()
        self._matcher.start()

    # ----------------------------------------------------------------------------- public API

    def set_query(self, text: str) -> None:
        """Match ``text`` from now on; returns at once, stale work is abandoned."""
        check_query(text, "text")
        with self._cond:
            if text == self._query:
                return
            self._query = text
            self._gen += 1
            self._cond.notify_all()

    @property
    def query(self) -> str:
        """The latest query given to ``set_query``."""
        return self._query

    def results(
        self, limit: int | None = None, *, compute_indices: bool | None = None
    ) -> list[FileMatch]:
        """The best matches of ``snapshot().query``; defaults from ``options`` (``limit`` None:
        the options' limit; 0: every match, as the command's ``-l 0``)."""
        from ffind.engine.index import check_limit

        check_limit(limit)
        with self._cond:
            state = self._state
        return self._top(state, limit or None, compute_indices, every=limit == 0)

    def snapshot(self) -> Snapshot:
        """The current state: query, best matches, counts, whether the walk has finished."""
        with self._cond:
            state, scanned, complete = self._state, self._inbox.scanned, self._inbox.complete
        matches = self._top(state, None, None)
        if state.count is None and state.ms is not None:
            with self._ilock:
                if state.epoch == self._epoch:
                    state.count = len(state.ms)
        return Snapshot(state.query, matches, state.count or 0, scanned, complete)

    def wait(self, timeout: float | None = None) -> bool:
        """Until the walk is over and the query fully matched: True, False on timeout or
        ``cancel``; re-raises the walk's error."""
        with self._cond:
            self._cond.wait_for(lambda: self._complete_locked() or self._cancel.is_set()
                                or self._failed() is not None, timeout)
            error = self._failed()
            if error is not None:
                raise error
            return self._complete_locked()

    @property
    def walk_complete(self) -> bool:
        return self._inbox.complete

    def cancel(self) -> None:
        """Stop the walk (its worker processes too) and the matching; results stay readable."""
        self._cancel.set()
        self._shown.set()
        with self._cond:
            self._cond.notify_all()

    def close(self, timeout: float | None = None) -> bool:
        """Cancel, wait for the walk thread (it owns the workers) and up to ``timeout`` for
        the match thread; True if both ended."""
        self.cancel()
        if self._walker is not threading.current_thread():
            self._walker.join()
        if self._matcher is not threading.current_thread():
            self._matcher.join(timeout)
        self._closed = not self._walker.is_alive() and not self._matcher.is_alive()
        return self._closed

    def __enter__(self) -> FileSearcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------ internals

    def _complete_locked(self) -> bool:
        inbox = self._inbox
        return (inbox.complete and not inbox.pending and self._state_gen == self._gen
                and self._state.query == self._query and self._state.covered == inbox.scanned
                and not inbox.replace and self._state.epoch == self._epoch)

    def _failed(self) -> BaseException | None:
        return self._error or self._inbox.error

    def _top(
        self, state: State, limit: int | None, compute_indices: bool | None, every: bool = False
    ) -> list[FileMatch]:
        if limit is None and not every:
            limit = self.options.limit
        ci = self.options.compute_indices if compute_indices is None else compute_indices
        key = (limit, ci)
        with self._cond:
            cached = state.tops.get(key)
        if cached is not None:
            return list(cached)
        if state.ms is None or limit == 0:
            return []
        with self._ilock:
            if state.epoch != self._epoch:
                return []  # replaced meanwhile: its index is gone
            found = self._order.ranked(self._index, state.query, state.ms, state.covered,
                                       limit, ci)
        if self._multi:
            found = with_roots(found, state.query, self.roots, self._root_of)
        with self._cond:
            if len(state.tops) >= 8:
                state.tops.clear()
            state.tops[key] = found
        return list(found)

    # --- match thread

    def _match_main(self) -> None:
        try:
            # The walk imports first (the GIL serialises imports) so its workers start early;
            # numpy pays for itself, but with the warm index it waits for the first frame.
            self._walk_imported.wait(0.2)
            from ffind.engine.index import Index

            self._index = Index(numpy=None if self._cached else True)
            self._work = IdleWork(self._index, self._cond, self._ilock)
            self._match_loop()
        except BaseException as e:
            with self._cond:
                if self._error is None:
                    self._error = e
                self._cond.notify_all()

    def _match_loop(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._cancel.is_set():
                        return
                    if self._gen != self._state_gen or self._inbox.replace:
                        break
                    now = time.monotonic()
                    timeout = None
                    if self._inbox.pending:
                        due = self._last_walk_update + WALK_INTERVAL
                        if self._inbox.done or self._state.covered == 0 or now >= due:
                            break
                        timeout = due - now
                    if self._complete_locked() and self._completed_version != self._state.version:
                        break
                    if self._report_due:
                        due = self._last_report + UPDATE_INTERVAL
                        if now >= due:
                            break
                        timeout = min(timeout or due - now, due - now)
                    if self._idle_step():
                        continue
                    rest = self._published + IDLE_DELAY - now
                    if rest > 0:  # (``_settled`` then: a fill may be due)
                        timeout = rest if timeout is None else min(timeout, rest)
                    self._cond.wait(timeout)
                batches, replace = self._inbox.take()
                gen, query = self._gen, self._query
                self._epoch += replace  # the published state is now of an old index
            if replace:
                self._new_index()
            if batches:
                self._extend(batches)
                self._last_walk_update = time.monotonic()
            try:
                changed = self._bring_up_to_date(query, gen)
            except Cancelled:
                continue
            self._report(changed)
            if self._state.covered and not self._shown.is_set():
                self._first_shown()

    def _check(self) -> None:
        """Raise ``Cancelled`` when the query being matched went stale."""
        if self._gen != self._gen_matched or self._cancel.is_set():
            raise Cancelled

    def _idle(self) -> bool:
        """Nothing pending, no report due, the first results shown, the warm walk over."""
        inbox = self._inbox
        return not (inbox.pending or self._report_due or inbox.replace
                    or (self._reporter is not None and not self._last_report)
                    or self._state.covered == 0 or (self._cached and not inbox.done))

    def _idle_step(self) -> bool:
        """(Holding ``_cond``) one step of idle work: once idle, more once settled
        (``IDLE_DELAY`` past the last state published), the most on the query's own answer."""
        idle = self._idle()
        settled = idle and time.monotonic() >= self._published + IDLE_DELAY
        state = self._state
        here = settled and state.epoch == self._epoch  # (the index's own state)
        current = (here and self._inbox.done and state.query == self._query
                   and self._state_gen == self._gen and state.covered == len(self._index))
        return self._work.step(state, self._sets, idle=idle, settled=settled, here=here,
                               current=current)

    def _walk_all(self) -> Iterator[tuple[int, list[str]]]:
        if self._cached:
            return warm_root(self.roots[0], self.options, self._cancel, self._warn,
                             self._walk_imported, self._shown, lambda: self._query,
                             self._caught_up)
        self._walk_imported.set()
        return walk_roots(self.roots, self.options, self._cancel, self._warn)

    def _caught_up(self) -> None:
        """Wait (``FIRST_FRAME_WAIT`` at most) until every path handed over is matched, so
        the validation's ``stat`` pass does not compete with it for the GIL."""
        with self._cond:
            self._cond.wait_for(lambda: self._cancel.is_set() or (
                not self._inbox.pending and self._state.covered >= self._inbox.scanned),
                FIRST_FRAME_WAIT)

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        on_warning = getattr(self._reporter, "on_warning", None)
        if on_warning is not None:
            on_warning(message)

    def _first_shown(self) -> None:
        """The first frame is out: the warm index's validation and numpy's import may start."""
        self._shown.set()
        if self._cached:
            self._index.numpy.wanted = True
            self._index.numpy.module()  # (starts the import in the background)

    def _new_index(self) -> None:
        """An empty index (``REPLACE``); the published state stays until the new paths match."""
        from ffind.engine.index import Index

        with self._ilock:
            self._index = Index(numpy=True)
            self._work = IdleWork(self._index, self._cond, self._ilock)
            self._root_of.clear()
            self._order.restart()
            self._sets.states.clear()

    def _extend(self, batches: list[tuple[int, list[str]]]) -> None:
        with self._ilock:
            for root_id, batch in batches:
                self._index.extend(batch)
                if self._multi:
                    for p in batch:
                        old = self._root_of.setdefault(p, root_id)
                        if old != root_id:
                            if isinstance(old, int):
                                self._root_of[p] = [old, root_id]
                            else:
                                old.append(root_id)

    def _bring_up_to_date(self, query: str, gen: int) -> bool:
        """Make the published state match ``query`` over every indexed path; True if changed."""
        started = time.monotonic()
        self._gen_matched = gen
        with self._cond:
            state = self._state
        index, sets = self._index, self._sets
        n = len(index)
        current = state.epoch == self._epoch
        if current and state.query == query and state.covered == n:
            if self._state_gen != gen:
                with self._cond:
                    self._state_gen = gen
                    self._cond.notify_all()
            return False
        hit = sets.states.get(query)
        tops: dict[tuple[int | None, bool], list[FileMatch]] = {}
        count = None
        if current and state.query == query and state.ms is not None:
            ms = sets.merge(state.ms, sets.run(index, query, None, state.covered, n))
        elif hit is not None and hit.ms is not None and hit.covered == n:  # seen before
            ms, tops, count = hit.ms, hit.tops, hit.count
        elif hit is not None and hit.ms is not None:
            ms = sets.merge(hit.ms, sets.run(index, query, None, hit.covered, n))
        else:
            ms = sets.fresh(index, query, n, self._work.partial)
        new = State(query, ms, n, state.version + 1, tops, count, self._epoch)
        sets.remember(new)
        if not tops:  # a ranking follows (a query seen before has its own): memory peaks
            sets.compact(index, [new.ms, state.ms])
        # Rank before publishing: readers of the default view never wait for a ranking.
        self._check()
        self._top(new, None, None)
        if state.query != query:  # (a key, not the walk's new paths)
            self._work.warm_within(started, lambda: self._gen == gen, self._idle)
        with self._cond:
            if self._gen != gen:  # a newer query came in meanwhile: keep the cache, skip publishing
                raise Cancelled
            self._state = new
            self._state_gen = gen
            self._published = time.monotonic()
            self._cond.notify_all()
        return True

    def _report(self, changed: bool) -> None:
        with self._cond:
            complete = self._complete_locked()
            version = self._state.version
        if self._reporter is None:
            self._completed_version = version if complete else self._completed_version
            return
        if not complete and self._state.covered == 0:
            return  # nothing to show yet: keep the throttle window for the first paths
        now = time.monotonic()
        if complete and self._completed_version != version:
            self._completed_version = version
            self._report_due = False
            self._last_report = now
            self._ranked_first()
            self._reporter.on_complete(self.snapshot())
            return
        if changed:
            self._report_due = True
        if self._report_due and now - self._last_report >= UPDATE_INTERVAL:
            self._report_due = False
            self._last_report = now
            self._reporter.on_update(self.snapshot())

    def _ranked_first(self) -> None:
        """``on_ranked``: the matches of a state whose count is still to be computed."""
        early = getattr(self._reporter, "on_ranked", None)
        with self._cond:
            state = self._state
        if early is not None and state.count is None and state.ms is not None:
            early(state.query, self._top(state, None, None))


def _shutdown(cancel: threading.Event, cond: threading.Condition,
              *threads: threading.Thread) -> None:
    cancel.set()
    with cond:
        cond.notify_all()
    for thread in threads:
        if thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout=2)


def with_roots(found: list[FileMatch], query: str, roots: list[str],
               root_of: dict[str, int | list[int]]) -> list[FileMatch]:
    """``found`` with each match's root (``root_of``: path -> root number(s)), in the
    multi-root order."""
    seen: dict[str, int] = {}
    out = []
    for m in found:
        where = root_of.get(m.path, 0)
        if isinstance(where, list):
            k = seen.get(m.path, 0)
            seen[m.path] = k + 1
            where = where[min(k, len(where) - 1)]
        out.append(dataclasses.replace(m, root=roots[where]))
    if not ranked(query):
        return out
    return order_matches(out, {r: i for i, r in reversed(list(enumerate(roots)))})
