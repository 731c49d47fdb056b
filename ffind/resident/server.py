"""The resident index server of one root: per listing key (root and listing options) it holds
the validated listing, its ``Index`` and snapshot, and answers over a Unix socket
(``protocol``) as ``ffind.search`` would (``searching.catalog``), validating the listing per
request as a warm search does.  While idle it arms inotify hints and builds count tables; it
exits when idle, on a signal or ``stop``, or when its socket file is replaced."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ffind.resident import protocol
from ffind.state.paths import private_dir
from ffind.text import __version__

if TYPE_CHECKING:
    from ffind.agent.tool import TreeSnapshot
    from ffind.engine.index import CountTable, Index, MatchSet
    from ffind.fs.watch import Hint
    from ffind.options import SearchOptions
    from ffind.scoring.scorer import FileMatch
    from ffind.searching.catalog import Recalling
    from ffind.state.cache import CachedListing, SnapshotStore

CommandHandler = Callable[["Server", dict[str, Any]], tuple[dict[str, Any], "Held"]]

IDLE_SECONDS = 600.0  # idle seconds before exiting, up to IDLE_FULL_UPTO files
IDLE_FULL_UPTO = 100_000  # above, proportionally less (memory grows with the listing)
IDLE_LEAST = 60.0  # the shortest idle time of a large server
MAX_SERVERS = 4  # per socket folder: a new one stops the least recently used
WATCH_QUARTER = 0.25  # the share of max_user_watches all servers reserve at most
MAX_WATCHES = "/proc/sys/fs/inotify/max_user_watches"
CHECK_SECONDS = 1.0  # how often the server checks its socket file is still its own
MAX_KEYS = 4  # listing keys (option sets) held at once
COUNTS_KEPT = 64  # total counts remembered per index
REQUEST_WATCHES = 1024  # inotify watches added on a request's path (the rest while idle)
TABLE_FROM = 200_000  # paths from which an index gets a count table while idle


def idle_seconds(environ: dict[str, str] | None = None) -> float | None:
    """``FFIND_SERVER_IDLE`` (seconds, > 0), else None."""
    env = os.environ if environ is None else environ
    try:
        value = float(env.get("FFIND_SERVER_IDLE", ""))
    except ValueError:
        return None
    return value if value > 0 else None


def idle_for(files: int) -> float:
    """How long a server holding ``files`` paths waits for a request (1M files: a minute)."""
    if files <= IDLE_FULL_UPTO:
        return IDLE_SECONDS
    return max(IDLE_LEAST, IDLE_SECONDS * IDLE_FULL_UPTO / files)


class _HeldStore:
    """The snapshot store of the warm path, read from memory; saves are written by ``flush``,
    after the reply."""

    def __init__(self, real: SnapshotStore, held: CachedListing | None) -> None:
        self.real = real
        self.held = held
        self.pending: tuple[dict[str, Any], CachedListing] | None = None

    def load(self, key: dict[str, Any]) -> CachedListing | None:
        if self.held is None:  # (the file once, then the snapshot in memory)
            self.held = self.real.load(key)
        return self.held

    def save(self, key: dict[str, Any], snap: CachedListing) -> bool:
        self.held = snap
        self.pending = (key, snap)
        return True

    def flush(self) -> None:
        if self.pending is not None:
            key, snap = self.pending
            self.pending = None
            self.real.save(key, snap)


class Held:
    """What the server keeps for one listing key."""

    def __init__(self, store: _HeldStore, root: str, options: SearchOptions) -> None:
        self.store = store
        self.root, self.options = root, options
        self.listing: list[str] | None = None
        self.snap: CachedListing | None = None  # the last validation's (None: a plain walk)
        self.index: Index | None = None
        self.counts: OrderedDict[str, int] = OrderedDict()  # the last queries' total counts
        self.table: CountTable | None = None  # built while idle
        self.building: Iterator[None] | None = None
        self.tool: TreeSnapshot | None = None  # the agent tools' indexed listing
        self.recalling: Recalling | None = None  # the memory's ranking, its ``git status``
        self.hint: Hint | None = None  # inotify hint, started after the first reply
        self.hinted = False
        self.reserved = 0  # inotify watches reserved for ``hint``
        self.ahead = False  # watches added, their folders not checked: validate when idle
        self.only: Hint | None = None  # the hint the last validation asked

    def to_arm(self) -> bool:
        """Whether there is idle work: a hint to start, watches to add, folders to check."""
        if self.snap is None:
            return False
        return not self.hinted or (self.hint is not None and (not self.hint.armed
                                                              or self.ahead))

    def needs_table(self, table_from: int) -> bool:
        """Whether the index (``table_from`` paths or more) lacks a built count table."""
        index = self.index
        return (index is not None and len(index) >= table_from
                and (self.table is None or self.table.store is not index.store
                     or not self.table.done))

    def tabulate(self) -> bool:
        """One step of the count table's build; False when it failed."""
        index = self.index
        assert index is not None
        if self.table is None or self.table.store is not index.store:
            self.table = index.count_table()
            self.building = self.table.build()
        try:
            assert self.building is not None
            next(self.building)
        except StopIteration:
            self.building = None
        except Exception:
            self.building = self.table = None
            return False
        return True

    def close(self) -> None:
        """Stop the last ``git status`` and the watches."""
        if self.recalling is not None:
            self.recalling.stop()
            self.recalling = None
        if self.hint is not None:
            self.hint.close()
            self.hint = None
        self.reserved = 0

    def watches(self) -> tuple[int, int]:
        """(inotify watches held, folders in the listing)."""
        folders = 0 if self.snap is None else len(self.snap.prefixes)
        watcher = None if self.hint is None else self.hint.watcher
        inotify = getattr(watcher, "first", watcher)
        return (0 if inotify is None else len(inotify.wd_of)), folders


def changed_listing(root: str, options: SearchOptions, held: Held,
                    warn: Callable[[str], None]) -> bool:
    """Validate ``held``'s listing of ``root`` as a warm search does (narrowed by the hint);
    True when it differs from the one indexed (``held.listing`` is then the new one)."""
    from ffind.fs.warm import prepare
    from ffind.fs.watch import refreshed

    found = prepare(root, options, on_warning=warn, store=held.store)  # type: ignore[arg-type]
    hint = held.hint
    held.only = None
    held.ahead = False  # (this validation checks the folders newly watched)
    if found is None:  # (not cached: a plain walk; the hint checks everything next time)
        from ffind.fs.walk import walk_batches

        batches: Iterator[list[str]] = walk_batches(root, options, on_warning=warn)
        if hint is not None:
            hint.settle(None)
    else:
        run, snap = found
        if snap is None:
            batches = run.cold()
        else:
            batches = refreshed(run, snap, hint)
            held.only = hint  # (what it gave: ``hint.last``, once the batches are read)
    listing: list[str] = []
    for batch in batches:
        listing.extend(batch)
    now = None if found is None else found[0].listing
    if found is not None and found[1] is None and hint is not None:
        hint.settle(now)  # (a cold walk's listing: made after the watches were added)
    before, held.snap = held.snap, now
    if held.listing is not None and ((now is not None and now is before)
                                     or listing == held.listing):
        return False  # (the same snapshot validated unchanged: the same listing)
    held.listing = listing
    held.index = held.tool = None  # (``counts`` go with the index: ``indexed``)
    if held.recalling is not None:
        held.recalling.restart()
    held.table = held.building = None  # (it holds the index's store)
    return True


class Server:
    """One root's server on the socket ``path`` (already locked by the caller)."""

    def __init__(self, root: str, path: str, key: str, idle: float | None,
                 watch_budget: int | None = None, mark_budget: int | None = None,
                 on_command: CommandHandler | None = None) -> None:
        self.root, self.path, self.key = root, path, key
        self.idle = idle  # seconds without a request before it exits; None: ``idle_for``
        self.lock: int | None = None  # the lock file's descriptor
        self.parent: int | None = None  # ``--tied``: the process it exits with
        self.last = time.monotonic()  # when the last request was answered
        self.on_command = on_command  # answers a whole command line; None: refused
        self.watch_budget = watch_budget  # inotify watches per hint (None: ``reserve``)
        self.mark_budget = mark_budget  # fanotify marks beyond the watches (None: its share)
        self.held: OrderedDict[str, Held] = OrderedDict()
        self.answered = 0
        self.rebuilt = 0
        self.arming = False  # idle work under way
        self.checked = -1  # folders the last validation checked by its hint; -1: all
        self.narrowed = 0  # validations that asked the hint
        self.table_from = TABLE_FROM
        self.stopping = False
        self.listener: socket.socket | None = None
        self.identity: tuple[int, int] | None = None

    # ---- the socket ------------------------------------------------------------------------
    def bind(self) -> None:
        """Listen on ``path`` (a stale socket file there is replaced)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o077)
        try:
            sock.bind(self.path)
        finally:
            os.umask(old)
        sock.listen(16)
        st = os.stat(self.path)
        self.listener, self.identity = sock, (st.st_dev, st.st_ino)

    def ours(self) -> bool:
        """Whether the socket file is still the one bound (not removed nor replaced)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.identity

    def close(self) -> None:
        for held in self.held.values():
            held.close()
        write_lock(self)
        if self.listener is not None:
            self.listener.close()
            self.listener = None
            if self.ours():
                with contextlib.suppress(OSError):
                    os.unlink(self.path)

    def serve(self) -> None:
        """Answer requests until a reason to exit (see the module docstring)."""
        import select

        assert self.listener is not None
        self.last = time.monotonic()
        try:
            while not self.stopping:
                # (the count table first: the picker's counts wait for it)
                table = self.untabled()
                work = self.unarmed() if table is None else None
                try:
                    ready = select.select([self.listener], [], [],
                                          0 if work is not None or table is not None
                                          else CHECK_SECONDS)[0]
                except InterruptedError:
                    continue
                if ready:
                    try:
                        conn, _ = self.listener.accept()
                    except OSError:
                        continue
                    with conn:
                        self.handle(conn)
                    self.last = time.monotonic()
                    if self.lock is not None:  # (its time: the last use, ``evict``)
                        with contextlib.suppress(OSError):
                            os.utime(self.lock)
                elif work is not None:
                    self.arming = True
                    try:
                        self.arm(work)
                    finally:
                        self.arming = False
                elif table is not None:
                    self.tabulate(table)
                elif time.monotonic() - self.last > self.idle_limit():
                    return
                if not self.ours() or (self.parent is not None
                                       and os.getppid() != self.parent):
                    return
        finally:
            self.close()

    def files(self) -> int:
        """The paths held (every listing key's)."""
        return sum(len(held.listing or ()) for held in self.held.values())

    def idle_limit(self) -> float:
        """Seconds without a request before it exits (``idle``, else ``idle_for``)."""
        return self.idle if self.idle is not None else idle_for(self.files())

    # ---- while idle: the watches ---------------------------------------------------------
    def unarmed(self) -> Held | None:
        """A listing with idle work (``Held.to_arm``), the most recently used first."""
        for held in reversed(self.held.values()):
            if held.to_arm():
                return held
        return None

    def waiting(self) -> bool:
        """Whether a client waits (or the server is to stop): idle work stops for it."""
        import select

        if self.stopping or self.listener is None:
            return True
        try:
            return bool(select.select([self.listener], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def arm(self, held: Held) -> None:
        """Start ``held``'s hint if not yet, and add its watches until a client waits."""
        if not held.hinted:
            from ffind.fs.watch import Hint

            budget = self.watch_budget
            if budget is None:
                budget = reserve(self, held)
            held.hint = Hint.start(held.root, held.options, budget,
                                   per_request=REQUEST_WATCHES, marks=self.mark_budget)
            held.hinted = True
        hint = held.hint
        if hint is None or held.snap is None:
            return
        try:
            done = hint.arm(held.snap, stop=self.waiting)
        except Exception:  # (a bug, not the tree: go on without the hint, as before it)
            hint.close()
            held.hint = None
            return
        held.ahead = done and bool(hint.pending)
        if held.ahead and not self.waiting():
            self.check_ahead(held)

    def untabled(self) -> Held | None:
        """A listing whose large index has no count table yet, the most recently used first."""
        for held in reversed(self.held.values()):
            if held.needs_table(self.table_from):
                return held
        return None

    def tabulate(self, held: Held) -> None:
        """One step of ``held``'s count table; after a failure no index gets one."""
        if not held.tabulate():
            self.table_from = sys.maxsize

    def prime(self, root: str, options: SearchOptions, index: bool = False) -> Held | None:
        """Hold ``root``'s listing before the first request (``--prime``), its snapshot
        written; with ``index``, indexed too.  None when it failed."""
        held = self._held(root, options)
        try:
            changed_listing(root, options, held, _ignore_warning)
            held.store.flush()
        except Exception:
            held.listing = held.snap = None
            held.store.pending = None
            return None
        if index and held.listing is not None:
            self.indexed(held)
        return held

    def indexed(self, held: Held) -> Index:
        """``held``'s ``Index``, built when it has none."""
        if held.index is None:
            from ffind.engine.index import Index

            assert held.listing is not None
            held.index = Index(held.listing)  # (a slice at a time: ``Tuning.chunk``)
            held.counts.clear()
            if held.recalling is not None:
                held.recalling.restart()
            self.rebuilt += 1
        return held.index

    def check_ahead(self, held: Held) -> None:
        """Validate ``held``'s listing while idle once its watches are added, so that the next
        request checks only what changed."""
        held.ahead = False  # (once: failed or not, the next request validates as ever)
        with contextlib.suppress(Exception):
            changed_listing(held.root, held.options, held, _ignore_warning)
            held.store.flush()

    def validate(self, root: str, options: SearchOptions, held: Held,
                 warn: Callable[[str], None]) -> bool:
        """``changed_listing``, counting what the hint narrowed."""
        changed = changed_listing(root, options, held, warn)
        last = None if held.only is None else held.only.last
        self.checked = -1 if last is None else len(last)
        self.narrowed += last is not None
        return changed

    # ---- one request -----------------------------------------------------------------------
    def handle(self, conn: socket.socket) -> None:
        conn.settimeout(10.0)
        if protocol.peer_uid(conn) not in (None, os.getuid()):
            return
        try:
            request = protocol.receive(conn, protocol.MAX_REQUEST)
        except (OSError, ValueError, EOFError):
            return
        reply, after = self.answer(request)
        rest = reply.pop("rest", None)
        with contextlib.suppress(OSError, ValueError):
            conn.settimeout(60.0)
            second = None
            try:
                conn.sendall(protocol.encode(reply))
            finally:
                # (a provisional answer's count is computed and remembered even when the
                # client has gone: the next picker on the query has it at once)
                if rest is not None:
                    second = rest()
            if second is not None:
                conn.sendall(protocol.encode(second))
        if after is not None:
            after()

    def answer(self, request: object) -> tuple[dict[str, Any], Callable[[], None] | None]:
        """The reply to ``request`` and what to do once it is sent; with ``follows``, its
        ``rest()`` is the second message."""
        if not isinstance(request, dict):
            return {"ok": False, "why": "not a request"}, None
        version = request.get("v")
        if version != __version__:
            # (another version's client: this server is out of date)
            self.stopping = self.stopping or isinstance(version, str)
            return {"ok": False, "why": f"ffind {__version__}"}, None
        op = request.get("op")
        if op == "stop":
            self.stopping = True
            return {"ok": True}, None
        if op == "stats":
            return stats(self), None
        if op not in ("search", protocol.PROVISIONAL, "tool", "command"):
            return {"ok": False, "why": f"unknown op {op!r}"}, None
        if request.get("key") != self.key:
            return {"ok": False, "why": "another root or environment"}, None
        try:
            reply, held = (self.search(request) if op in ("search", protocol.PROVISIONAL)
                           else self.command(request) if op == "command"
                           else _tool(self, request))
        except Exception as e:
            return {"ok": False, "why": f"{type(e).__name__}: {e}"}, None
        self.answered += 1
        return reply, held.store.flush

    def _held(self, root: str, options: SearchOptions) -> Held:
        from ffind.state.cache import SnapshotStore
        from ffind.state.snapkey import key_text, listing_key

        name = key_text(listing_key(root, options))  # (a root that is not UTF-8 too)
        held = self.held.get(name)
        if held is None:
            held = self.held[name] = Held(_HeldStore(SnapshotStore(), None), root, options)
            while len(self.held) > MAX_KEYS:
                _, old = self.held.popitem(last=False)
                old.close()
                write_lock(self)
        self.held.move_to_end(name)
        return held

    def search(self, request: dict[str, Any]) -> tuple[dict[str, Any], Held]:
        """The answer to a search request; a ``provisional`` one (a picker's first frame) is
        ranked over the listing held, not validated first."""
        from ffind.options import SearchOptions

        options = SearchOptions(**request["options"])
        provisional = request.get("op") == protocol.PROVISIONAL
        count = bool(request.get("count"))
        query = str(request["query"])
        top, total, warnings, memory_warning, held, tally = self.found(
            str(request["root"]), str(request["cwd"]), query, options,
            bool(request.get("memory")), count and not provisional, validate=not provisional,
            later=count and provisional)
        reply: dict[str, Any] = {
            "ok": True, "total": total, "complete": True, "warnings": warnings,
            "memory_warning": memory_warning,
            "matches": [(m.score, m.path, m.indices, m.typo) for m in top],
            "scanned": len(held.listing or ()), "provisional": provisional,
        }
        if provisional and count and total < 0:
            # The rows at once, the count in a second message.
            assert tally is not None
            reply["follows"] = True
            reply["rest"] = lambda: {"total": tally()}
        return reply, held

    def command(self, request: dict[str, Any]) -> tuple[dict[str, Any], Held]:
        """A whole command line, by ``on_command``; ValueError without."""
        if self.on_command is None:
            raise ValueError("no command line is answered here")
        return self.on_command(self, request)

    def found(self, given: str, cwd: str, query: str, options: SearchOptions, memory: bool,
              count: bool, validate: bool = True, later: bool = False,
              ) -> tuple[list[FileMatch], int, list[str], str | None, Held,
                         Callable[[], int] | None]:
        """Search ``query`` in the root ``given`` as ``ffind.search`` would: (matches, count or
        -1, warnings, the memory's warning, the listing held, what computes the count).
        ``validate=False``: over the listing held; ``later``: the count follows the rows."""
        from ffind.fs.roots import check_root
        from ffind.searching.catalog import Recalling, answer, list_every
        from ffind.searching.merge import ranked

        # The root as the client named it, from its folder (``-C ''`` is refused, not joined).
        root = given if os.path.isabs(given) or not given else os.path.join(cwd, "") + given
        check_root(root)
        held = self._held(root, options)
        warnings: list[str] = []
        if validate or held.listing is None:
            self.validate(root, options, held, warnings.append)
        listing = held.listing
        assert listing is not None
        opened = None
        if memory:
            from ffind.state.memory import open_memory

            opened = open_memory()
        recall = None
        if opened is not None and (not query or ranked(query)):
            if held.recalling is None:
                held.recalling = Recalling(opened, root, remember=True, wait_for_git=True)
                held.recalling.start()
            else:  # (the last request's ``git status`` serves this one while it runs)
                held.recalling.renew(opened)
            recall = held.recalling
        total, tally = -1, None
        if not query:  # (a listing not validated is not complete: the memory keeps all)
            top = list_every(listing, options, recall, complete=validate)
            total = len(listing)
        else:
            index = self.indexed(held)
            matchset = index.run(query)
            top = answer(index, query, matchset, options.limit, options.compute_indices, recall)
            known = held.counts.get(query) if count or later else None  # (remembered)
            if known is not None:
                held.counts.move_to_end(query)
                tally = _known(known)
            else:
                tally = _tally(held, query, matchset)
            if count or known is not None:
                total = tally()
        if not os.path.isabs(given):
            warnings = [_as_given(w, root, given) for w in warnings]
        return (top, total, warnings, None if opened is None else opened.warning, held,
                tally)


def stats(self: Server) -> dict[str, Any]:
    """What ``ffind --servers`` shows of ``self``, and the counters the tests read."""
    watches = [held.watches() for held in self.held.values()]
    return {"ok": True, "pid": os.getpid(), "root": self.root, "files": self.files(),
            "rss": _rss(), "watches": sum(w for w, _ in watches),
            "folders": sum(f for _, f in watches),
            "watching_all": all(held.hint is not None and w >= f for held, (w, f)
                                in zip(self.held.values(), watches, strict=True)),
            "idle": round(time.monotonic() - self.last, 1),
            "idle_limit": self.idle_limit(), "tied": self.parent is not None,
            "answered": self.answered, "rebuilt": self.rebuilt, "keys": len(self.held),
            "checked": self.checked, "narrowed": self.narrowed}


def write_lock(self: Server) -> None:
    """Write the server's pid and reserved watches in its lock file."""
    if self.lock is not None:
        reserved = sum(held.reserved for held in self.held.values())
        with contextlib.suppress(OSError):
            os.pwrite(self.lock, f"{os.getpid()} {reserved}\n".encode().ljust(32), 0)


def reserve(self: Server, held: Held) -> int:
    """The inotify watches ``held``'s hint may hold, reserved in the lock file: at most its
    folders, a share of the free ones, and what the servers left of ``WATCH_QUARTER``."""
    from ffind.fs.inotify import WATCH_SHARE, free_watches, proc_int

    limit = proc_int(MAX_WATCHES) or 0
    taken = others_reserved(self.path) + sum(h.reserved for h in self.held.values())
    folders = 0 if held.snap is None else len(held.snap.prefixes)
    left = int(limit * WATCH_QUARTER) - taken
    held.reserved = max(0, min(left, folders, int(free_watches() * WATCH_SHARE)))
    write_lock(self)
    return held.reserved


def _tally(held: Held, query: str, matchset: MatchSet) -> Callable[[], int]:
    """What computes ``matchset``'s count (by the count table when it has one) and remembers
    it in ``held.counts``."""
    index = held.index
    table = held.table

    def tally() -> int:
        n = None
        if (table is not None and index is not None and table.store is index.store
                and not (matchset.computed and not index.typo_pass(query))):
            # (a set the ranking computed, without a typo pass to run: ``len`` at once)
            n = table.count(query)
        if n is None:
            n = len(matchset)
        if held.index is index:
            held.counts[query] = n
            held.counts.move_to_end(query)
            while len(held.counts) > COUNTS_KEPT:
                held.counts.popitem(last=False)
        return n

    return tally


def _known(n: int) -> Callable[[], int]:
    return lambda: n


def _tool(self: Server, request: dict[str, Any]) -> tuple[dict[str, Any], Held]:
    """An agent tool's answer (``find_files``, ``glob``) over the validated listing."""
    from ffind.agent.schema import GLOB_LIMIT
    from ffind.agent.tool import (
        TOOL_OPTIONS,
        TreeSnapshot,
        check_limit,
        glob_snapshot,
        search_snapshot,
        tool_batches,
    )
    from ffind.fs.roots import check_root

    directory = str(request["root"])
    if not os.path.isabs(directory):
        raise ValueError("the tool's folder must be absolute")
    check_root(directory)
    held = self._held(directory, TOOL_OPTIONS)
    self.validate(directory, TOOL_OPTIONS, held, _ignore_warning)
    assert held.listing is not None
    snap = held.tool
    if snap is None:
        snap = held.tool = TreeSnapshot.build(tool_batches(iter([held.listing])), numpy=True)
        self.rebuilt += 1
    if request["tool"] == "glob":
        text = glob_snapshot(snap.paths, directory, str(request["query"]), GLOB_LIMIT,
                             snap.secret_paths)
        return {"ok": True, "text": text}, held
    limit = request["limit"]
    check_limit(limit)
    memory = None
    if request.get("memory"):
        from ffind.state.memory import open_memory

        memory = open_memory()
        snap.answers.clear()  # (keyed by the memory's stamp: a new memory each request)
    text = search_snapshot(snap, str(request["query"]), limit, memory=memory, root=directory)
    return {"ok": True, "text": text}, held


def _ignore_warning(warning: str) -> None:
    pass


def _as_given(warning: str, root: str, given: str) -> str:
    """A walk's warning with the paths below ``root`` named from ``given``."""
    return warning.replace(root + "/", given + "/").replace(root + ":", given + ":")


def run(root: str, path: str, idle: float | None = None,
        prime: tuple[str, dict[str, Any], bool] | None = None,
        on_command: CommandHandler | None = None, tied: bool = False) -> int:
    """Serve ``root`` on the socket ``path``; 1 when another server holds the lock or the
    socket cannot be bound.  ``prime``: (root, options' fields, index) to hold first."""
    import fcntl

    env = protocol.answer_env()
    if env is None or not private_dir(os.path.dirname(path), others=0o077):
        return 1  # (a socket only in a folder no one else may enter)
    key = protocol.socket_key(root, env)
    lock_path = protocol.lock_path(path)
    lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    held = False
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 1  # another server has it
        if not protocol.same_file(lock, lock_path):
            return 1  # (removed since it was opened, by a server that stopped: start again)
        held = True
        server = Server(os.path.realpath(root), path, key,
                        idle_seconds() if idle is None else idle, on_command=on_command)
        server.lock = lock
        server.parent = os.getppid() if tied else None
        if server.parent == 1:
            return 0  # (tied to a process already gone)
        write_lock(server)
        evict(path)
        try:
            server.bind()
        except OSError:
            return 1
        _stop_on_signals(server)
        if prime is not None:
            _prime(server, prime)
            if 0 < server.files() < protocol.serve_from():  # (too small to pay: docs/cache.md)
                protocol.mark_small(path)
                server.close()
                return 0
        server.serve()
        return 0
    finally:
        # (a server starting now checks ``same_file``)
        if held and protocol.same_file(lock, lock_path):
            with contextlib.suppress(OSError):
                os.unlink(lock_path)
        os.close(lock)


def _prime(server: Server, prime: tuple[str, dict[str, Any], bool]) -> None:
    from ffind.options import SearchOptions

    try:
        options = SearchOptions(**prime[1])
    except (TypeError, ValueError):
        return
    server.prime(prime[0], options, prime[2])


def _others(path: str) -> list[tuple[str, int, int, float]]:
    """The other running servers of ``path``'s folder: (socket, pid, reserved watches, last
    request's time), from their lock files."""
    from ffind.resident.client import holder

    folder = os.path.dirname(path)
    found = []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    for name in names:
        sock = os.path.join(folder, name)
        if not name.endswith(".sock") or sock == path:
            continue
        lock = protocol.lock_path(sock)
        held = holder(sock)
        if held is None:
            continue
        try:
            used = os.stat(lock).st_mtime
        except OSError:
            continue
        found.append((sock, held[0], held[1], used))
    return found


def others_reserved(path: str) -> int:
    """The inotify watches the other running servers of ``path``'s folder reserved."""
    return sum(reserved for _, _, reserved, _ in _others(path))


def evict(path: str) -> None:
    """Stop the least recently used servers of ``path``'s folder (``MAX_SERVERS``)."""
    from ffind.resident.client import stop

    others = sorted(_others(path), key=lambda o: o[3])
    for sock, *_ in others[:max(0, len(others) - MAX_SERVERS + 1)]:
        stop(sock)


def _rss() -> int:
    """This process's resident memory (bytes; 0 when unknown)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _stop_on_signals(server: Server) -> None:
    def stop(signum: int, frame: object) -> None:
        server.stopping = True

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)


def main(argv: list[str] | None = None, on_command: CommandHandler | None = None) -> int:
    """``--root ROOT --socket PATH [--prime DATA] [--tied]``: what ``client.start`` runs."""
    args = sys.argv[1:] if argv is None else list(argv)
    tied = args[-1:] == ["--tied"]
    if tied:
        args.pop()
    if (len(args) not in (4, 6) or args[0] != "--root" or args[2] != "--socket"
            or args[4:5] not in ([], ["--prime"])):
        print("usage: python -m ffind.frontends.served --root ROOT --socket PATH "
              "[--prime DATA] [--tied]", file=sys.stderr)
        return 2
    root, path = args[1], args[3]
    prime = None
    if len(args) == 6:
        try:
            prime = protocol.decode_prime(args[5])
        except ValueError as e:
            print(f"ffind server: {e}", file=sys.stderr)
            return 2
    os.chdir("/")
    return run(root, path, prime=prime, on_command=on_command, tied=tied)


if __name__ == "__main__":
    raise SystemExit(main())
