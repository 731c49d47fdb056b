"""The walk: every path under a root that a search should see, in batches, fast.

- ``walk(root, options=None, *, cancel=None, on_warning=None) -> Iterator[str]``
- ``walk_batches(root, options=None, *, cancel=None, on_warning=None, keep=None)``: the same
  paths in batches, the first at once; ``keep`` filters each batch where it is made.
- ``walk_ahead(...)``: ``walk_batches`` started now, in a forked child, while the caller
  imports its engine (the one-shot search).

Paths are relative to ``root``, ``/``-separated, without ``./``; folders (``"d"`` in
``options.types``) without a trailing ``/``; names that are not UTF-8 keep their surrogate
escapes.  A root that is not a readable folder, or an invalid ``exclude`` glob, raises
``FfindError`` when the walk is made; unreadable folders go to ``on_warning``.

Left out: VCS folders always; hidden entries unless ``options.hidden``; with
``respect_ignore`` what the ignore files exclude (``ffind.fs.ignore.scope``) and the build
folders of ``DEFAULT_EXCLUDES`` (unless an ignore file re-includes them); ``exclude`` globs
always.  Symlinks to files are listed, to folders entered only with ``follow_links``, and
then each real folder (device, inode) once, so loops end.  A folder whose path is longer than
``PATH_MAX`` is read relative to an open descriptor of a folder above it.

Order: with ``threads=1`` depth first, in the order the file system lists each folder; with
several workers the same set, batches interleaved.

Fast because ``os.scandir`` gives each entry's type without a ``stat``, each ignore file is
compiled once per process, and each folder's ``Scope`` merges the cheap pre-checks of the
ignore files in force, so an entry no pattern matches costs a few set lookups.  With
``threads >= 2`` the walk runs in that many worker processes (``ffind.fs.pool``) once the
tree proves bigger than ``INLINE_FIRST`` seconds of reading.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import time
from collections.abc import Callable, Generator, Iterator

from ffind.errors import FfindError
from ffind.fs import load, pool
from ffind.fs.pool import Cancel, Keep, Warn
from ffind.fs.record import folder_marker, folder_stat, probe_marker
from ffind.fs.roots import check_root
from ffind.options import SearchOptions

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    from ffind.fs.ignore.patterns import Rules
    from ffind.fs.ignore.scope import Ignores, Scope
# (the ignore rules are imported where a walk is prepared, ``_prepare``: a process that only
# reads a forked child's paths never needs them)
GITIGNORE_FILE = ".gitignore"  # (``patterns.GITIGNORE_FILE``, ``IGNORE_FILE``)
IGNORE_FILE = ".ignore"

__all__ = ["DEFAULT_EXCLUDES", "VCS_DIRS", "Cancel", "Keep", "Warn", "walk", "walk_ahead",
           "walk_batches"]

DEFAULT_EXCLUDES: tuple[str, ...] = ("node_modules", "target", "__pycache__")
"""Build output skipped by name at any depth unless ``respect_ignore=False``; ``target`` only
where it holds a valid ``CACHEDIR.TAG`` (Cargo's), so a source package named ``target``
stays.  A negation in an ignore file (``!target/``) re-includes any of them."""
VCS_DIRS: frozenset[str] = frozenset({".git", ".hg", ".svn", ".jj"})
"""Version-control folders, always skipped."""

CACHEDIR_TAG = "CACHEDIR.TAG"
_TAG_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
_TAGGED_ONLY = frozenset({"target"})  # skipped only when tagged as a cache
_SPECIAL = frozenset({GITIGNORE_FILE, IGNORE_FILE, ".git"})
_LONG_PATH = 2048  # bytes per step when opening a folder beyond PATH_MAX piecewise
_FD_WALK = os.scandir in os.supports_fd and os.open in os.supports_dir_fd
_PROC_FD = "/proc/self/fd"  # names an open folder by path, to read its ignore files (Linux)
INLINE_FIRST = 0.02
"""Seconds a walk with ``threads >= 2`` reads in this process before it starts its workers (a
small tree never pays for forking them), and only if a CPU is idle then (``load.cpu_idle``).
0: start them at once."""
AHEAD_PROBE = 0.003
"""Seconds ``walk_ahead`` reads in the process before it forks its child (a tiny tree: no fork)."""
AHEAD_FIRST = 0.1
"""Seconds of its own CPU time ``walk_ahead``'s child reads before it hands the rest back
(to the workers, or to the process when no CPU is idle): ~15k files, beside the caller."""
_P, _W, _E, _D, _F, _S = 80, 87, 69, 68, 70, 83  # the child's messages (``pool.fork_stream``)

Item = tuple[str, str, int, "Scope", "tuple[int, int] | None"]
"""A folder to read: (path on disk, its relative path + '/' or '' for the root, depth,
ignore scope of its parent, its (device, inode) when following links)."""


def is_cache_dir(folder: str, dir_fd: int | None = None) -> bool:
    """Whether ``folder`` holds a valid ``CACHEDIR.TAG`` (https://bford.info/cachedir/)."""
    try:
        fd = os.open(os.path.join(folder, CACHEDIR_TAG), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0),
                     dir_fd=dir_fd)
    except OSError:
        return False
    try:
        return (stat.S_ISREG(os.fstat(fd).st_mode)
                and os.read(fd, len(_TAG_SIGNATURE)) == _TAG_SIGNATURE)
    except OSError:
        return False
    finally:
        os.close(fd)


def _open_long(path: str) -> int:
    """An open descriptor of a folder whose path is too long for one system call, opened
    ``_LONG_PATH`` bytes at a time."""
    fd: int | None = None
    step: list[str] = []
    size = 0
    for part in path.split("/"):
        n = len(os.fsencode(part)) + 1
        if step and size + n > _LONG_PATH:
            fd = _open_step(step, fd)
            step, size = [], 0
        step.append(part)
        size += n
    return _open_step(step, fd)


def _open_step(parts: list[str], dir_fd: int | None) -> int:
    """Open the folder ``parts`` (joined with ``/``) relative to ``dir_fd``, which is closed."""
    name = "/".join(parts) or ("/" if dir_fd is None else ".")
    try:
        return os.open(name, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0), dir_fd=dir_fd)
    finally:
        if dir_fd is not None:
            os.close(dir_fd)


class _Walker:
    """Reads one folder at a time; everything the workers need, picklable for ``spawn``."""

    def __init__(self, options: SearchOptions, exclude: Rules | None, ignores: Ignores,
                 record: bool = False) -> None:
        self.options = options
        self.record = record
        self.hidden = options.hidden
        self.respect = options.respect_ignore
        self.follow = options.follow_links
        self.max_depth = options.max_depth
        self.list_files = "f" in options.types
        self.list_dirs = "d" in options.types
        self.exclude = exclude
        self.skip_dirs = frozenset(DEFAULT_EXCLUDES) if self.respect else frozenset()
        self.ignores = ignores

    def __reduce__(self) -> tuple[object, ...]:
        return (_Walker, (self.options, self.exclude, self.ignores, self.record))

    @staticmethod
    def _list_long(path: str, error: OSError, warn: Warn | None
                   ) -> tuple[list[os.DirEntry[str]], int] | None:
        """After ``os.scandir(path)`` failed with ``error``: the entries of a folder whose path
        is too long, and the descriptor they are relative to (the caller closes it); None when
        it cannot be read (a warning, unless it vanished)."""
        fd = None
        try:
            if error.errno != errno.ENAMETOOLONG or not _FD_WALK:
                raise error
            fd = _open_long(path)
            with os.scandir(fd) as it:
                return list(it), fd
        except (FileNotFoundError, NotADirectoryError):
            pass  # vanished since its parent was read
        except OSError as exc:
            if warn is not None:
                warn(f"cannot read folder {path}: {exc.strerror or exc}")
        if fd is not None:
            os.close(fd)
        return None

    def scan(self, item: Item, out: list[str], stack: list[Item], warn: Warn | None,
             seen: set[tuple[int, int]]) -> None:
        """Read one folder: append the paths to list to ``out`` and the folders to enter to
        ``stack``; with ``follow_links``, ``seen`` holds the real folders already entered."""
        path, prefix, depth, ctx, _ = item
        fd = None
        folder = folder_stat(path) if self.record else None
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except OSError as exc:
            listing = self._list_long(path, exc, warn)
            if listing is None:
                if self.record:  # re-read on every warm search
                    out.append(folder_marker(prefix, None, None, ""))
                return
            entries, fd = listing
        try:
            found: dict[str, str] | None = None
            where = path if fd is None else f"{_PROC_FD}/{fd}"
            if self.respect:  # the folder's own ignore files, and .git
                for e in entries:
                    name = e.name
                    if name[0] == "." and name in _SPECIAL:
                        if name == GITIGNORE_FILE and e.is_symlink():
                            continue  # git (>= 2.32) refuses a symlinked .gitignore
                        if found is None:
                            found = {}
                        found[name] = f"{where}/{name}"
                if found is not None:
                    ctx = self.ignores.enter(ctx, where, prefix, depth, found, warn)
            if self.record:
                volatile = fd is not None or any(e.is_symlink() for e in entries)
                out.append(folder_marker(prefix, None if volatile else folder, found, where))
            self._sort(entries, fd, path, prefix, depth + 1, ctx, out, stack, seen)
        finally:
            if fd is not None:
                os.close(fd)

    def _sort(self, entries: list[os.DirEntry[str]], fd: int | None, path: str, prefix: str,
              depth: int, ctx: Scope, out: list[str], stack: list[Item],
              seen: set[tuple[int, int]]) -> None:
        """Each entry of one folder (``fd``: read by descriptor): listed, entered, or not."""
        checks = bool(ctx.levels)
        base_anys = ctx.base_anys
        path_checks = ctx.path_checks(prefix, depth) if checks else ()
        decide = ctx.decide
        dir_pre = (ctx.dir_names, ctx.dir_suffixes, ctx.dir_prefixes)
        file_pre = (ctx.file_names, ctx.file_suffixes, ctx.file_prefixes)
        hidden, follow, exclude, skip_dirs = self.hidden, self.follow, self.exclude, self.skip_dirs
        list_files, list_dirs = self.list_files, self.list_dirs
        descend = self.max_depth is None or depth < self.max_depth
        append = out.append
        key = (0, 0)
        for e in entries:
            name = e.name
            if name[0] == "." and (not hidden or name in VCS_DIRS):
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    is_dir = True
                    if follow:
                        st = e.stat(follow_symlinks=False)
                        key = (st.st_dev, st.st_ino)
                elif e.is_file(follow_symlinks=False):
                    is_dir = False
                elif e.is_symlink():
                    st = os.stat(e.path if fd is None else name, dir_fd=fd)  # broken: OSError
                    is_dir = stat.S_ISDIR(st.st_mode)
                    if is_dir and follow:
                        key = (st.st_dev, st.st_ino)
                    elif is_dir or not stat.S_ISREG(st.st_mode):
                        continue
                else:
                    continue  # fifo, socket, device
            except OSError:
                continue  # vanished or broken
            rel = prefix + name
            tail = "/" if is_dir else ""
            verdict = None
            if checks:
                names, suffixes, prefixes = dir_pre if is_dir else file_pre
                hit = name in names or name.endswith(suffixes) or name.startswith(prefixes)
                if not hit and base_anys:
                    for fm, firsts in base_anys:
                        if (firsts is None or name[0] in firsts) and fm(name + tail) is not None:
                            hit = True
                            break
                if not hit and path_checks:
                    for fm, lead, cut, ends in path_checks:
                        if ends is not None and name not in ends:
                            continue  # (every one of these patterns ends with another name)
                        if fm(lead + (rel + tail)[cut:] if lead else (rel + tail)[cut:]):
                            hit = True
                            break
                if hit:
                    verdict = decide(rel, name, is_dir)
                    if verdict:
                        continue
            if is_dir and verdict is None and name in skip_dirs:
                if name not in _TAGGED_ONLY:
                    continue
                if self.record:  # (a tag written or removed later is seen here)
                    append(probe_marker(rel, e.path if fd is None else None))
                if is_cache_dir(e.path if fd is None else name, fd):
                    continue
            if exclude is not None and exclude.match(rel + tail, name, is_dir):
                continue
            if not is_dir:
                if list_files:
                    append(rel)
                continue
            if list_dirs:
                append(rel)
            if descend and not (follow and key in seen):  # (a real folder entered once)
                if follow:
                    seen.add(key)
                child = e.path if fd is None else f"{path}/{name}"
                stack.append((child, rel + "/", depth, ctx, key if follow else None))


def _prepare(root: str, options: SearchOptions, warn: Warn | None = None, record: bool = False,
             inputs: list[str] | None = None) -> tuple[_Walker, Item]:
    """Check the root, compile --exclude, and gather the ignore files above the root
    (their paths added to ``inputs``)."""
    from ffind.fs.ignore.patterns import compile_globs
    from ffind.fs.ignore.scope import Ignores, Scope

    check_root(root)
    exclude = compile_globs(options.exclude) if options.exclude else None
    if options.respect_ignore:
        ignores, ctx = Ignores.for_root(root, options.require_git, warn, inputs)
    else:
        ignores, ctx = Ignores(None), Scope((), (), False)
    key = None
    if options.follow_links:
        st = os.stat(root)
        key = (st.st_dev, st.st_ino)
    return _Walker(options, exclude, ignores, record), (root, "", 0, ctx, key)


def _workers(threads: int, warn: Warn | None) -> int:
    """``threads``, capped at ``load.max_workers()`` with a one-line note."""
    cap = load.max_workers()
    if threads <= cap:
        return threads
    note = f"threads={threads} is more than this machine can use: walking with {cap}"
    if warn is not None:
        warn(note)
    else:
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no usable stderr
            print(f"ffind: {note}", file=sys.stderr)
    return cap


def walk_batches(
    root: str | os.PathLike[str], options: SearchOptions | None = None, *,
    cancel: Cancel | None = None, on_warning: Warn | None = None, keep: Keep | None = None,
) -> Iterator[list[str]]:
    """The paths under ``root`` in batches; see the module docstring.  ``keep`` (picklable,
    paths -> the ones to keep, in order) runs in the workers: the paths a query cannot match
    cost no transfer (it must import nothing and take no lock: ``ffind.fs.pool``).
    ``options.threads`` above ``load.max_workers()`` is capped, with a note."""
    options = options or SearchOptions()
    walker, item = _prepare(os.fspath(root), options, on_warning)
    return walk_prepared(walker, item, options, cancel=cancel, on_warning=on_warning, keep=keep)


def walk(
    root: str | os.PathLike[str], options: SearchOptions | None = None, *,
    cancel: Cancel | None = None, on_warning: Warn | None = None,
) -> Iterator[str]:
    """The paths under ``root`` one by one; see the module docstring."""
    batches = walk_batches(root, options, cancel=cancel, on_warning=on_warning)

    def paths() -> Iterator[str]:
        try:
            for batch in batches:
                yield from batch
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()

    return paths()


def _walk_inline(walker: _Walker, item: Item, cancel: Cancel | None,
                 warn: Warn | None, keep: Keep | None = None, budget: float | None = None,
                 hand_over: Callable[[], bool] | None = None,
                 ) -> Generator[list[str], None, list[Item]]:
    """Read folders depth first in this process, in batches; with ``budget`` (seconds), stop
    once it is spent and return the folders left (else []), unless ``hand_over`` says no."""
    seen = {item[4]} if walker.follow and item[4] is not None else set()
    return (yield from _walk_stack(walker, [item], seen, cancel, warn, keep, budget, hand_over))


def _walk_stack(walker: _Walker, stack: list[Item], seen: set[tuple[int, int]],
                cancel: Cancel | None, warn: Warn | None, keep: Keep | None = None,
                budget: float | None = None, hand_over: Callable[[], bool] | None = None,
                clock: Callable[[], float] = time.monotonic, wanted: list[bool] | None = None,
                first: int = pool.FIRST_BATCH,
                ) -> Generator[list[str], None, list[Item]]:
    """``_walk_inline`` from the folders ``stack`` (the last read first); ``budget`` is
    measured with ``clock``; ``wanted[0]``: stop as if it were spent, once there are folders
    to share (``_ahead_child``); ``first``: the size of the first batch (they double)."""
    out: list[str] = []
    limit = first
    last = time.monotonic()
    start = clock()
    scan = walker.scan
    read = 0
    while stack:
        if cancel is not None and cancel.is_set():
            return []
        # (the clock is asked every 16th folder: before each, it was ~5% of a walk's CPU)
        if budget is not None and not read & 15 and clock() - start >= budget:
            if hand_over is None or hand_over():
                break
            budget = None
        read += 1
        if wanted is not None and wanted[0] and len(stack) > 1:
            break
        scan(stack.pop(), out, stack, warn, seen)
        if len(out) >= limit or (out and time.monotonic() - last > pool.FLUSH_AFTER):
            kept = out if keep is None else keep(out)
            if kept:
                yield kept
            out = []
            limit = min(limit * 2, pool.MAX_BATCH)
            last = time.monotonic()
    if out and keep is not None:
        out = keep(out)
    if out:
        yield out
    return stack


def _walk_parallel(walker: _Walker, item: Item, n: int, cancel: Cancel | None,
                   warn: Warn | None, keep: Keep | None = None) -> Iterator[list[str]]:
    if walker.follow:  # the pool sees every folder found, to enter each real folder once
        return pool.run(walker, [item], n, cancel, warn, keep)
    return _inline_first(walker, item, n, cancel, warn, keep)


def _inline_first(walker: _Walker, item: Item, n: int, cancel: Cancel | None,
                  warn: Warn | None, keep: Keep | None) -> Iterator[list[str]]:
    """``INLINE_FIRST`` seconds of the walk here, then the rest in ``n`` workers (or here,
    when no CPU is idle)."""
    rest = yield from _walk_inline(walker, item, cancel, warn, keep, budget=INLINE_FIRST,
                                   hand_over=load.cpu_idle if INLINE_FIRST else None)
    if rest:
        yield from pool.run(walker, rest, n, cancel, warn, keep)


class Ahead:
    """The batches of a walk started before its consumer is ready (``walk_ahead``):
    iterate once, then ``close`` (also when the iteration was never started)."""

    def __init__(self, walker: _Walker | None, item: Item | None, threads: int,
                 cancel: Cancel | None, warn: Warn | None, keep: Callable[[], Keep | None],
                 started: tuple[int, int] | None = None) -> None:
        self._walker = walker
        self._threads = threads
        self._cancel = cancel
        self._warn = warn
        self._keep = keep
        self._head: list[str] = []
        self._stack: list[Item] = [item] if threads and item is not None else []
        self._inline = walker is not None and (threads == 1 or walker.follow
                                               or not INLINE_FIRST)
        self._child: tuple[int, pool.Pipe] | None = None
        self._reaped = True
        self._batches: Iterator[list[str]] | None = None
        self._started = started is not None
        if started is not None:  # (the console script's child: ``started_walk``)
            from ffind.fs.load import signals

            signal = signals()
            self._sigkill, self._sigusr1 = signal.SIGKILL, signal.SIGUSR1
            self._child = started[0], pool.Pipe(started[1])
            self._reaped = False
            return
        if self._inline or not self._stack or walker is None:
            return
        # The first folders here: a tree read within ``AHEAD_PROBE`` costs no fork.
        head = _walk_stack(walker, self._stack, set(), cancel, warn, budget=AHEAD_PROBE)
        while True:
            try:
                self._head.extend(next(head))
            except StopIteration as end:
                self._stack = end.value
                break
        if not self._stack or not load.cpu_idle():
            return
        stack, budget = self._stack, AHEAD_FIRST

        def child(send: Callable[[bytes], None]) -> None:
            _ahead_child(walker, stack, budget, send)

        self._child = pool.fork_stream(child)
        if self._child is not None:
            self._reaped = False
            self._stack = []
            import signal  # (imported by the fork; kept for a kill while the interpreter
            # exits, when nothing can be imported any more)

            self._sigkill, self._sigusr1 = signal.SIGKILL, signal.SIGUSR1

    def __iter__(self) -> Iterator[list[str]]:
        if self._batches is None:
            self._batches = self._run()
        return self._batches

    def _run(self) -> Iterator[list[str]]:
        if not self._stack and not self._head and self._child is None:
            return  # (nothing to read: max_depth < 1, or an empty tree)
        keep = self._keep()
        cancel, warn = self._cancel, self._warn
        walker = self._walker
        # (one thread, or links followed: walk_batches)
        if self._inline and self._stack and walker is not None:
            item = self._stack[0]
            if self._threads == 1:
                yield from _walk_inline(walker, item, cancel, warn, keep)
            else:
                yield from _walk_parallel(walker, item, self._threads, cancel, warn, keep)
            return
        head = self._head if keep is None or not self._head else keep(self._head)
        self._head = []
        if head:
            yield head
        rest = self._stack
        # (a tree the child did not read within its time is large: the workers at once)
        budget = INLINE_FIRST
        if self._child is not None:
            rest = yield from self._from_child(keep)
            budget = 0.0
            walker = self._walker  # (the console script's child sends its walker with rest)
        if not rest:
            return
        assert walker is not None  # (sent with the folders left by the console script's child)
        # the rest here, and in the workers if the tree proves large
        rest = yield from _walk_stack(walker, rest, set(), cancel, warn, keep, budget=budget,
                                      hand_over=load.cpu_idle if INLINE_FIRST else None)
        if rest:
            yield from pool.run(walker, rest, self._threads, cancel, warn, keep)

    def _from_child(self, keep: Keep | None) -> Generator[list[str], None, list[Item]]:
        """The child's batches (filtered here with ``keep``) and warnings, in order; the
        folders it left to read."""
        assert self._child is not None
        cancel, warn = self._cancel, self._warn
        pid, conn = self._child
        rest: list[Item] = []
        mine: list[Item] = []  # (folders of a share left for the workers: a big tree)
        import select  # (a built-in module)

        # With the pipe empty (nothing to match here), the child is asked for a share of its
        # folders (``S``), read here; a child that reads faster than this process matches is
        # never asked.
        asked = False
        held: list[bytes] = []  # (the child's batches not yet yielded, and their size)
        size = 0
        waiting = select.poll()  # (not select: a descriptor may be above FD_SETSIZE)
        waiting.register(conn.fileno(), select.POLLIN)
        while True:
            if cancel is not None and cancel.is_set():
                return []
            if not asked and not waiting.poll(0):
                self._share(pid)
                asked = True
            try:
                msg = conn.recv_bytes()
            except EOFError:
                raise FfindError(self._died()) from None
            tag = msg[0]
            if tag == _P:  # (batches waiting in the pipe are joined: a match has a fixed cost)
                held.append(msg)
                size += len(msg)
                if size < _HOLD and waiting.poll(0):
                    continue
            if held:
                batch = _decode(held)
                held, size = [], 0
                if keep is not None:
                    batch = keep(batch)
                if batch:
                    yield batch
            if tag == _P:
                continue
            if tag == _E:
                if warn is not None:
                    warn(msg[1:].decode("utf-8", "surrogateescape"))
            elif tag == _S:
                import pickle  # (the child needed it: it shares its folders)

                walker, share = pickle.loads(msg[1:])
                if self._walker is None:  # (``started_walk``: the walker comes with them)
                    self._walker = walker
                assert self._walker is not None
                left = yield from _walk_stack(self._walker, share, set(), cancel, warn, keep,
                                              budget=AHEAD_FIRST, first=pool.MAX_BATCH)
                mine.extend(left)  # (a big tree: left to the workers; no more shares)
                asked = bool(left)
            elif tag == _W:
                import pickle  # (the child needed it: the tree is big)

                if self._started:  # (``started_walk``: the walker comes with them)
                    self._walker, rest = pickle.loads(msg[1:])
                else:
                    rest = pickle.loads(msg[1:])
            elif tag == _F:  # (``started_walk``: the root or the options, as _prepare says)
                self._reap(kill=False)
                raise FfindError(msg[1:].decode("utf-8", "surrogateescape"))
            elif tag == _D:
                self._reap(kill=False)
                return rest + mine
            else:  # X: it failed (one line)
                text = msg[1:].decode("utf-8", "replace")
                raise FfindError(f"a walk worker process failed: {text}")

    def _share(self, pid: int) -> None:
        """Ask the child for a share of its folders (``SIGUSR1``: ``_ahead_child``); it may
        have ended already (reaped only after its last message: the pid is still its own)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, self._sigusr1)

    def _died(self) -> str:
        """Why the child's pipe ended before its end: one line."""
        return pool.ended(self._reap(kill=False))

    def _reap(self, *, kill: bool) -> int | None:
        """Close the pipe and reap the child (killed first with ``kill``); its exit code."""
        if self._child is None or self._reaped:
            return None
        pid, conn = self._child
        self._reaped = True
        conn.close()
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, self._sigkill)
        try:
            return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        except ChildProcessError:  # (reaped elsewhere: SIGCHLD ignored)
            return None

    def close(self) -> None:
        """Stop the walk: the child is ended and reaped, the workers too."""
        batches, self._batches = self._batches, iter(())
        close = getattr(batches, "close", None)
        if close is not None:
            close()
        self._reap(kill=True)


_HOLD = 1 << 20
"""Bytes of the child's batches ``Ahead`` joins at most into one batch."""


def _warn_to(send: Callable[[bytes], None]) -> Warn:
    """A warning sent as an ``E`` message."""
    return lambda message: send(b"E" + message.encode("utf-8", "surrogateescape"))


def _decode(messages: list[bytes]) -> list[str]:
    """The paths of the child's ``P`` messages, in order."""
    data = messages[0][1:] if len(messages) == 1 else b"\0".join(m[1:] for m in messages)
    return data.decode("utf-8", "surrogateescape").split("\0")


def _ahead_child(walker: _Walker, stack: list[Item], budget: float,
                 send: Callable[[bytes], None], with_walker: bool = False) -> None:
    """(In the forked child of ``walk_ahead``) walk from ``stack`` for ``budget`` seconds of
    CPU, sending each batch (``P``, NUL-joined) and warning (``E``) in order, then the folders
    left (``W``, pickled; ``with_walker``: ``(walker, folders)``).  When the parent asks
    (``SIGUSR1``), the newer half of the folders left goes to it (``S``, pickled ``(walker or
    None, folders)``) and the walk goes on with the older."""
    warn = _warn_to(send)
    wanted = [False]
    try:
        from ffind.fs.load import signals

        signal = signals()

        def asked(signum: int, frame: object) -> None:
            wanted[0] = True

        signal.signal(signal.SIGUSR1, asked)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    except (ValueError, OSError, AttributeError):  # (no share then)
        pass
    clock = time.process_time  # (on a busy machine it may wait a long while)
    used = 0.0
    while True:
        begun = clock()
        batches = _walk_stack(walker, stack, set(), None, warn, budget=budget - used,
                              clock=clock, wanted=wanted)
        while True:
            try:
                batch = next(batches)
            except StopIteration as end:
                rest: list[Item] = end.value
                break
            send(b"P" + "\0".join(batch).encode("utf-8", "surrogateescape"))
        used += clock() - begun
        if not rest:
            return
        import pickle  # (by the parent before the fork if it had other threads: fork_stream)

        if wanted[0] and len(rest) > 1 and used < budget:
            wanted[0] = False
            half = len(rest) // 2
            stack = rest[:half]  # (it keeps the older, biggest subtrees: the parent, given the
            # smaller, asks again sooner, and the share evens out)
            shared = (walker if with_walker else None, rest[half:])
            send(b"S" + pickle.dumps(shared, pickle.HIGHEST_PROTOCOL))
            continue
        sent: object = (walker, rest) if with_walker else rest
        send(b"W" + pickle.dumps(sent, pickle.HIGHEST_PROTOCOL))
        return


def early_child(root: str, options: SearchOptions, send: Callable[[bytes], None]) -> None:
    """(In the child the console script forks before its imports, ``ffind.frontends.early``)
    ``_prepare`` (its error sent as ``F``), then ``_ahead_child`` from the root, which hands
    the folders left back with the walker."""
    try:
        walker, item = _prepare(root, options, _warn_to(send))
    except FfindError as exc:
        send(b"F" + str(exc).encode("utf-8", "surrogateescape"))
        return
    _ahead_child(walker, [item], AHEAD_FIRST, send, with_walker=True)


def started_walk(pid: int, fd: int, options: SearchOptions, *, cancel: Cancel | None = None,
                 on_warning: Warn | None = None,
                 keep: Callable[[], Keep | None] = lambda: None) -> Ahead:
    """``walk_ahead`` of the walk the console script forked before its imports (``pid`` runs
    ``early_child``, its pipe's read end is ``fd``); ``_prepare``'s errors come with the
    first batch."""
    return Ahead(None, None, _workers(options.threads, None), cancel, on_warning, keep,
                 started=(pid, fd))


def walk_ahead(
    root: str | os.PathLike[str], options: SearchOptions | None = None, *,
    cancel: Cancel | None = None, on_warning: Warn | None = None,
    keep: Callable[[], Keep | None] = lambda: None,
) -> Ahead:
    """``walk_batches``, started now: with ``threads >= 2`` and a CPU idle, a forked child
    reads depth first for up to ``AHEAD_FIRST`` seconds while the caller goes on, then hands
    what is left to the workers (or to this process).  When this process has matched all the
    child sent, it reads a share of the child's folders itself.  ``keep()`` makes the batches'
    filter when the iteration starts.  Raises ``FfindError`` as ``walk_batches``; the caller
    closes the answer (``Ahead.close``)."""
    options = options or SearchOptions()
    walker, item = _prepare(os.fspath(root), options, on_warning)
    if options.max_depth is not None and options.max_depth < 1:
        threads = 0  # (nothing to read; no note about the threads either, as walk_batches)
    else:
        threads = _workers(options.threads, on_warning)
    return Ahead(walker, item, threads, cancel, on_warning, keep)


def prepare_recorded(root: str, options: SearchOptions, warn: Warn | None,
                     inputs: list[str]) -> tuple[_Walker, Item]:
    """A recording walker (``ffind.fs.record``: a marker per folder among the paths) and the
    root's item; ``inputs`` receives the files above the root the walk depends on.  Raises
    ``FfindError`` as ``walk_batches``."""
    return _prepare(root, options, warn, record=True, inputs=inputs)


def walk_prepared(walker: _Walker, item: Item, options: SearchOptions, *,
                  cancel: Cancel | None = None, on_warning: Warn | None = None,
                  keep: Keep | None = None) -> Iterator[list[str]]:
    """The batches of the walk from ``item`` (``_prepare``, ``prepare_recorded``: then paths
    and markers)."""
    if options.max_depth is not None and options.max_depth < 1:
        return iter(())
    threads = _workers(options.threads, on_warning)
    if threads == 1:
        return _walk_inline(walker, item, cancel, on_warning, keep)
    return _walk_parallel(walker, item, threads, cancel, on_warning, keep)
