"""The walk: every path under a root that a search should see, in batches (docs/walk.md).

``walk`` and ``walk_batches`` list paths relative to the root, ``/``-separated; ``walk_ahead``
starts the walk in a forked child while the caller imports its engine.  Left out: VCS folders,
hidden entries unless ``hidden``, with ``respect_ignore`` what the ignore files exclude and the
build folders of ``DEFAULT_EXCLUDES``, and ``exclude`` globs.  With ``threads >= 2`` a tree that
takes longer than ``INLINE_FIRST`` to read goes on in worker processes (``ffind.fs.pool``).
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

TYPE_CHECKING = False  # (not typing's; the ignore rules are imported by ``_prepare``)
if TYPE_CHECKING:
    from ffind.fs.ignore.patterns import Rules
    from ffind.fs.ignore.scope import Ignores, Scope
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
"""Seconds a walk with ``threads >= 2`` reads here before starting workers, if a CPU is idle
then (a small tree never pays for forking them); 0: start them at once."""
AHEAD_PROBE = 0.003
"""Seconds ``walk_ahead`` reads here before it forks its child (a tiny tree: no fork)."""
AHEAD_FIRST = 0.1
"""Seconds of CPU ``walk_ahead``'s child reads (~15k files) before it hands the rest back."""
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
        """Read one folder: the paths to list to ``out``, the folders to enter to ``stack``;
        ``seen``: the real folders entered already (``follow_links``)."""
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
    """The paths under ``root`` in batches.  ``keep`` (picklable, paths -> those to keep)
    runs in the workers, so paths a query cannot match cost no transfer."""
    options = options or SearchOptions()
    walker, item = _prepare(os.fspath(root), options, on_warning)
    return walk_prepared(walker, item, options, cancel=cancel, on_warning=on_warning, keep=keep)


def walk(
    root: str | os.PathLike[str], options: SearchOptions | None = None, *,
    cancel: Cancel | None = None, on_warning: Warn | None = None,
) -> Iterator[str]:
    """The paths under ``root`` one by one."""
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


def _walk_from(walker: _Walker, stack: list[Item], threads: int, cancel: Cancel | None,
               warn: Warn | None, keep: Keep | None = None, budget: float | None = None,
               ) -> Iterator[list[str]]:
    """The walk from the folders ``stack``: here with one thread; else ``budget`` seconds
    (``INLINE_FIRST``) here, then the rest in ``threads`` workers (here while no CPU is idle,
    asked again after each further ``budget``).
    Following links, workers at once: the pool enters each real folder once."""
    if budget is None:
        budget = INLINE_FIRST
    if not pool.can_fork():
        threads = 1  # (no workers)
    if threads > 1 and walker.follow:
        yield from pool.run(walker, stack, threads, cancel, warn, keep)
        return
    seen = {item[4] for item in stack if item[4] is not None} if walker.follow else set()
    rest = yield from pool.walk_stack(walker, stack, seen, cancel, warn, keep,
                                  None if threads == 1 else budget,
                                  load.cpu_idle if INLINE_FIRST else None)
    if rest:
        yield from pool.run(walker, rest, threads, cancel, warn, keep)


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
        self._child: tuple[pool.Child, pool.Pipe] | None = None
        self._batches: Iterator[list[str]] | None = None
        self._sigusr1 = load.signals().SIGUSR1
        if started is not None:  # (the console script's child: ``started_walk``)
            self._child = pool.Child(started[0]), pool.Pipe(started[1])
        elif not self._inline and self._stack and walker is not None:
            # The first folders here: a tree read within ``AHEAD_PROBE`` costs no fork.
            self._stack = _drain(pool.walk_stack(walker, self._stack, set(), cancel, warn,
                                             budget=AHEAD_PROBE), self._head.extend)
            if self._stack and load.cpu_idle():
                stack = self._stack
                child = pool.fork_stream(
                    lambda send: _ahead_child(walker, stack, AHEAD_FIRST, send))
                if child is not None:
                    self._child = pool.Child(child[0]), child[1]
                    self._stack = []

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
        if self._inline and self._stack and walker is not None:  # (as walk_batches)
            yield from _walk_from(walker, self._stack, self._threads, cancel, warn, keep)
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
        yield from _walk_from(walker, rest, self._threads, cancel, warn, keep, budget)

    def _from_child(self, keep: Keep | None) -> Generator[list[str], None, list[Item]]:
        """The child's batches (filtered with ``keep``) and warnings; the folders it left."""
        assert self._child is not None
        cancel, warn = self._cancel, self._warn
        proc, conn = self._child
        rest: list[Item] = []
        mine: list[Item] = []  # (folders of a share left for the workers: a big tree)
        import select  # (a built-in module)

        # With the pipe empty (nothing to match), ask the child for a share of its folders.
        asked = False
        held: list[bytes] = []  # (the child's batches not yet yielded, and their size)
        size = 0
        waiting = select.poll()  # (not select: a descriptor may be above FD_SETSIZE)
        waiting.register(conn.fileno(), select.POLLIN)
        while True:
            if cancel is not None and cancel.is_set():
                return []
            if not asked and not waiting.poll(0):
                self._share(proc)
                asked = True
            try:
                msg = conn.recv_bytes()
            except EOFError:
                raise FfindError(pool.ended(self._reap(kill=False))) from None
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
            elif tag in (_S, _W):
                import pickle  # (the child needed it: it hands folders back)

                walker, folders = pickle.loads(msg[1:])
                if self._walker is None:  # (``started_walk``: the walker comes with them)
                    self._walker = walker
                if tag == _W:
                    rest = folders
                    continue
                assert self._walker is not None
                left = yield from pool.walk_stack(self._walker, folders, set(), cancel, warn, keep,
                                              budget=AHEAD_FIRST, first=pool.MAX_BATCH)
                mine.extend(left)  # (a big tree: left to the workers; no more shares)
                asked = bool(left)
            elif tag == _F:  # (``started_walk``: the root or the options, as _prepare says)
                self._reap(kill=False)
                raise FfindError(msg[1:].decode("utf-8", "surrogateescape"))
            elif tag == _D:
                self._reap(kill=False)
                return rest + mine
            else:  # X: it failed (one line)
                text = msg[1:].decode("utf-8", "replace")
                raise FfindError(f"a walk worker process failed: {text}")

    def _share(self, proc: pool.Child) -> None:
        """Ask the child for a share of its folders (SIGUSR1); it may have ended (not reaped
        yet: the pid is still its own)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, self._sigusr1)

    def _reap(self, *, kill: bool) -> int | None:
        """Close the pipe and reap the child (killed first with ``kill``); its exit code."""
        if self._child is None:
            return None
        proc, conn = self._child
        conn.close()
        if kill:
            proc.kill()
        proc.join()
        return proc.exitcode

    def close(self) -> None:
        """Stop the walk: the child is ended and reaped, the workers too."""
        batches, self._batches = self._batches, iter(())
        close = getattr(batches, "close", None)
        if close is not None:
            close()
        self._reap(kill=True)


_HOLD = 1 << 20
"""Bytes of the child's batches ``Ahead`` joins at most into one batch."""


def _drain(batches: Generator[list[str], None, list[Item]],
           each: Callable[[list[str]], object]) -> list[Item]:
    """Give every batch of a walk to ``each``; the folders it left."""
    while True:
        try:
            batch = next(batches)
        except StopIteration as end:
            left: list[Item] = end.value
            return left
        each(batch)


def _warn_to(send: Callable[[bytes], None]) -> Warn:
    """A warning sent as an ``E`` message."""
    return lambda message: send(b"E" + message.encode("utf-8", "surrogateescape"))


def _decode(messages: list[bytes]) -> list[str]:
    """The paths of the child's ``P`` messages, in order."""
    data = messages[0][1:] if len(messages) == 1 else b"\0".join(m[1:] for m in messages)
    return data.decode("utf-8", "surrogateescape").split("\0")


def _ahead_child(walker: _Walker, stack: list[Item], budget: float,
                 send: Callable[[bytes], None], with_walker: bool = False) -> None:
    """(The forked child of ``walk_ahead``) walk ``stack`` for ``budget`` seconds of CPU,
    sending batches (``P``) and warnings (``E``), then the folders left (``W``); on SIGUSR1
    the newer half goes to the parent (``S``).  Folders go pickled as ``(walker or None, list)``."""
    warn = _warn_to(send)
    wanted = [False]
    try:
        signal = load.signals()

        def asked(signum: int, frame: object) -> None:
            wanted[0] = True

        signal.signal(signal.SIGUSR1, asked)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    except (ValueError, OSError, AttributeError):  # (no share then)
        pass
    clock = time.process_time  # (on a busy machine it may wait a long while)
    used = 0.0

    def put(batch: list[str]) -> None:
        send(b"P" + "\0".join(batch).encode("utf-8", "surrogateescape"))

    while True:
        begun = clock()
        rest = _drain(pool.walk_stack(walker, stack, set(), None, warn, budget=budget - used,
                                  clock=clock, wanted=wanted), put)
        used += clock() - begun
        if not rest:
            return
        import pickle  # (by the parent before the fork if it had other threads: fork_stream)

        share = wanted[0] and len(rest) > 1 and used < budget
        if share:  # (it keeps the older, biggest subtrees: the parent, given the smaller,
            wanted[0] = False  # asks again sooner, and the share evens out)
            stack, rest = rest[:len(rest) // 2], rest[len(rest) // 2:]
        folders = (walker if with_walker else None, rest)
        send((b"S" if share else b"W") + pickle.dumps(folders, pickle.HIGHEST_PROTOCOL))
        if not share:
            return


def early_child(root: str, options: SearchOptions, send: Callable[[bytes], None]) -> None:
    """(The child the console script forks before its imports, ``ffind.frontends.early``)
    ``_prepare`` (its error sent as ``F``), then ``_ahead_child`` with the walker."""
    try:
        walker, item = _prepare(root, options, _warn_to(send))
    except FfindError as exc:
        send(b"F" + str(exc).encode("utf-8", "surrogateescape"))
        return
    _ahead_child(walker, [item], AHEAD_FIRST, send, with_walker=True)


def started_walk(pid: int, fd: int, options: SearchOptions, *, cancel: Cancel | None = None,
                 on_warning: Warn | None = None,
                 keep: Callable[[], Keep | None] = lambda: None) -> Ahead:
    """``walk_ahead`` of the walk the console script forked (``pid`` runs ``early_child``,
    ``fd`` reads its pipe); ``_prepare``'s errors come with the first batch."""
    return Ahead(None, None, _workers(options.threads, None), cancel, on_warning, keep,
                 started=(pid, fd))


def walk_ahead(
    root: str | os.PathLike[str], options: SearchOptions | None = None, *,
    cancel: Cancel | None = None, on_warning: Warn | None = None,
    keep: Callable[[], Keep | None] = lambda: None,
) -> Ahead:
    """``walk_batches`` started now: with ``threads >= 2`` and a CPU idle, a forked child reads
    for ``AHEAD_FIRST`` seconds while the caller goes on, then hands the rest to the workers;
    when idle, this process reads a share of the child's folders.  ``keep()`` makes the filter
    when the iteration starts; the caller closes the answer."""
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
    root's item; ``inputs`` receives the files above the root the walk depends on."""
    return _prepare(root, options, warn, record=True, inputs=inputs)


def walk_prepared(walker: _Walker, item: Item, options: SearchOptions, *,
                  cancel: Cancel | None = None, on_warning: Warn | None = None,
                  keep: Keep | None = None) -> Iterator[list[str]]:
    """The batches of the walk from ``item`` (``prepare_recorded``: paths and markers)."""
    if options.max_depth is not None and options.max_depth < 1:
        return iter(())
    threads = _workers(options.threads, on_warning)
    return _walk_from(walker, [item], threads, cancel, on_warning, keep)
