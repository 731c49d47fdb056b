"""The walk: every path under a root that a search should see, in batches, fast.

API contract:
- ``walk(root, options=None, *, cancel=None, on_warning=None) -> Iterator[str]``
- ``walk_batches(root, options=None, *, cancel=None, on_warning=None, keep=None)
  -> Iterator[list[str]]``: the same paths in batches, the first within ~50 ms (what the
  session consumes); ``keep`` filters each batch in the workers (what ``search`` uses).
``cancel`` has ``is_set()``; ``on_warning(message: str)`` receives one-line warnings.

Paths are relative to ``root``, ``/``-separated, without ``./``; folders (``"d"`` in
``options.types``) without a trailing ``/``.  Names that are not UTF-8 stay ``str`` with
surrogate escapes (``os.fsencode`` gives the bytes back).  A root that is not a readable folder, or
an invalid ``exclude`` glob, raises ``FfindError`` when ``walk``/``walk_batches`` is called.

What is left out: VCS folders (``VCS_DIRS``) always; hidden entries unless ``options.hidden``;
with ``options.respect_ignore`` (the default) folders named in ``DEFAULT_EXCLUDES`` and whatever
the ignore files exclude (see ``ffind.fs.ignore``); ``options.exclude`` globs always.  Symlinks to
files are listed, to folders entered only with ``follow_links`` (each real folder at most once
per chain, so loops end), broken ones skipped.  Unreadable folders go to ``on_warning``.

Order: the same tree gives the same order with ``threads=1`` (depth first, in the order the
file system lists each folder); with several workers the set is the same but batches interleave.

How it is fast: ``os.scandir`` gives each entry's type without a ``stat``; each ignore file is
compiled once per process (``patterns.Rules``, cached by content), and each folder's scope
(``_Scope``) merges the pre-checks of every ignore file in force, so an entry that no pattern
matches costs a few set lookups and ``str.endswith``/``startswith`` calls, plus one regex per
file holding other name patterns (skipped when each of them starts with a literal character
the name does not) or path patterns that can match at its depth (only in folders on the way to
their literal leading folders: ``docs/api/*.md`` is never tried under ``src/``); an excluded
folder is never read.
With ``threads >= 2`` the walk runs in that many forked worker processes (``spawn`` where ``fork``
is unavailable).  Each worker walks depth first from its own stack; when another worker is idle
(a shared flag), a busy worker gives away the older half of its stack, the biggest unwalked
subtrees, through the parent, which hands them on.  So one huge subtree keeps both workers busy.
Workers send paths back as NUL-joined UTF-8 batches, each filtered first by ``keep`` when one is
given, over plain pipes (``multiprocessing`` is imported only to spawn); cancelling (or closing
the iterator) kills
and reaps them within one poll interval (50 ms), and so does the interpreter's exit for walks left
running.  A worker that dies (killed, or a bug) raises ``FfindError`` with a one-line message.
Forking from a process with threads is safe: see "Worker processes" below.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import signal
import stat
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ffind.errors import FfindError
from ffind.fs.ignore.gitconfig import (
    above_root_gitignores,
    common_dir,
    excludes_file,
    find_git_dir,
    find_repo_top,
)
from ffind.fs.ignore.patterns import (
    GITIGNORE_FILE,
    IGNORE_FILE,
    Leads,
    Rules,
    compile_globs,
    load_file,
)
from ffind.options import SearchOptions

DEFAULT_EXCLUDES: tuple[str, ...] = ("node_modules", "target", "__pycache__")
"""Folders skipped by name at any depth unless ``respect_ignore=False`` (package managers' and
build tools' output, which nobody searches for by name)."""
VCS_DIRS: frozenset[str] = frozenset({".git", ".hg", ".svn", ".jj"})
"""Version-control folders, always skipped."""

_SPECIAL = frozenset({GITIGNORE_FILE, IGNORE_FILE, ".git"})
_POLL = 0.05  # seconds: how often the parent looks at ``cancel`` while waiting for workers
_FIRST_BATCH = 64  # the first batches are small so the first paths arrive at once
_MAX_BATCH = 4096
_FLUSH_AFTER = 0.02  # seconds: send what a worker has after this long, however few

Level = tuple[Rules, str, int, int]
"""One ignore file in scope: its rules, and how to make an entry path relative to its folder:
``lead + path[cut:]`` (``lead`` for files above the search root, ``cut`` for files below);
an entry at depth ``d`` below the search root is ``d + offset`` segments below the file's
folder."""
Item = tuple[str, str, int, "_Scope", tuple[tuple[int, int], ...]]
"""A folder to read: (path on disk, its relative path + '/' or '' for the root, depth,
ignore context of its parent, (device, inode) chain when following links)."""


class _Scope:
    """The ignore files in force in one folder, and pre-checks merged across all of them.

    ``ignores`` (``.ignore`` files) and ``gits`` (``.gitignore``, info/exclude, global) are
    each deepest first; the first level with a matching pattern decides (``levels``).  Shared by
    every folder below until one of them holds an ignore file of its own.
    """

    __slots__ = ("_at", "base_anys", "dir_names", "dir_prefixes", "dir_suffixes", "git_on",
                 "gits", "ignores", "levels", "names", "prefixes", "suffixes")

    def __init__(self, ignores: tuple[Level, ...], gits: tuple[Level, ...],
                 git_on: bool) -> None:
        self.ignores = ignores
        self.gits = gits
        self.git_on = git_on
        levels = ignores + gits if git_on else ignores
        self.levels = levels
        rules = [level[0] for level in levels]
        self.names: frozenset[str] = frozenset().union(*(r.names for r in rules))
        self.dir_names: frozenset[str] = frozenset().union(*(r.dir_names for r in rules))
        self.suffixes = tuple({x for r in rules for x in r.suffixes})
        self.dir_suffixes = tuple({x for r in rules for x in r.dir_suffixes})
        self.prefixes = tuple({x for r in rules for x in r.prefixes})
        self.dir_prefixes = tuple({x for r in rules for x in r.dir_prefixes})
        # (regex, the first characters it can match or None): most names skip the regex
        self.base_anys = tuple((r.base_any, r.base_firsts) for r in rules
                               if r.base_any is not None)
        self._at: dict[int, tuple[tuple[Any, str, int, Leads], ...]] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Scope, (self.ignores, self.gits, self.git_on))

    def path_checks(self, depth: int) -> tuple[tuple[Any, str, int, Leads], ...]:
        """(regex fullmatch, lead, cut, leads) of the path patterns that can match at
        ``depth`` (``leads``: ``Rules.path_leads_at``)."""
        try:
            return self._at[depth]
        except KeyError:
            checks = []
            for rules, lead, cut, offset in self.levels:
                fm = rules.path_any_at(depth + offset)
                if fm is not None:
                    checks.append((fm, lead, cut, rules.path_leads_at(depth + offset)))
            found = self._at[depth] = tuple(checks)
            return found

    def decide(self, rel: str, name: str, is_dir: bool) -> bool:
        """The ordered decision (a pre-check matched): is the entry ignored?"""
        path = rel + "/" if is_dir else rel
        for rules, lead, cut, _ in self.levels:
            decision = rules.match(lead + path[cut:] if lead else path[cut:], name, is_dir)
            if decision is not None:
                return decision
        return False


class Cancel(Protocol):
    def is_set(self) -> bool: ...


Warn = Callable[[str], None]
Keep = Callable[[list[str]], list[str]]


class _Walker:
    """Reads one folder at a time; everything the workers need, picklable for ``spawn``."""

    def __init__(self, options: SearchOptions, exclude: Rules | None,
                 git_tail: tuple[Level, ...], global_rules: Rules | None) -> None:
        self.options = options
        self.hidden = options.hidden
        self.respect = options.respect_ignore
        self.follow = options.follow_links
        self.max_depth = options.max_depth
        self.list_files = "f" in options.types
        self.list_dirs = "d" in options.types
        self.exclude = exclude
        self.skip_dirs = frozenset(DEFAULT_EXCLUDES) if self.respect else frozenset()
        self.global_rules = global_rules
        self.git_tail = git_tail

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Walker, (self.options, self.exclude, self.git_tail, self.global_rules))

    def _nested_repo(self, path: str, cut: int, offset: int) -> tuple[Level, ...] | None:
        git_dir = find_git_dir(path)
        if git_dir is None:
            return None
        levels: list[Level] = []
        info = load_file(os.path.join(common_dir(git_dir), "info", "exclude"))
        if info is not None:
            levels.append((info, "", cut, offset))
        if self.global_rules is not None:
            levels.append((self.global_rules, "", cut, offset))
        return tuple(levels)

    def scan(self, item: Item, out: list[str], stack: list[Item], warn: Warn | None) -> None:
        """Read one folder: append the paths to list to ``out`` and the folders to enter to
        ``stack``."""
        path, prefix, depth, ctx, chain = item
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except (FileNotFoundError, NotADirectoryError):
            return  # vanished since its parent was read
        except OSError as exc:
            if warn is not None:
                warn(f"cannot read folder {path}: {exc.strerror or exc}")
            return

        if self.respect:
            ignores, gits, git_on = ctx.ignores, ctx.gits, ctx.git_on
            new_ignore = new_git = None
            nested = False
            for e in entries:
                name = e.name
                if name[0] == "." and name in _SPECIAL:
                    if name == IGNORE_FILE:
                        new_ignore = load_file(e.path, warn)
                    elif name == GITIGNORE_FILE:
                        if not e.is_symlink():  # git (>= 2.32) refuses a symlinked .gitignore
                            new_git = e.path
                    elif depth:  # '.git' below the root: a nested repository
                        nested = True
            cut = len(prefix)
            if nested:
                tail = self._nested_repo(path, cut, -depth)
                if tail is not None:
                    gits, git_on = tail, True
            if new_git is not None and git_on:
                rules = load_file(new_git, warn)
                if rules is not None:
                    gits = ((rules, "", cut, -depth), *gits)
            if new_ignore is not None:
                ignores = ((new_ignore, "", cut, -depth), *ignores)
            if ignores is not ctx.ignores or gits is not ctx.gits or git_on != ctx.git_on:
                ctx = _Scope(ignores, gits, git_on)
        exclude = self.exclude
        child_depth = depth + 1
        checks = bool(ctx.levels)
        if checks:
            names, dir_names = ctx.names, ctx.dir_names
            suffixes, dir_suffixes = ctx.suffixes, ctx.dir_suffixes
            prefixes, dir_prefixes = ctx.prefixes, ctx.dir_prefixes
            base_anys = ctx.base_anys
            path_checks = []
            for fm, lead, cut, leads in ctx.path_checks(child_depth):
                if leads is not None:  # patterns under given folders: is this one on the way?
                    here = lead + prefix[cut:] if lead else prefix[cut:]
                    if here not in leads[1] and not here.startswith(leads[0]):
                        continue
                path_checks.append((fm, lead, cut))
            decide = ctx.decide

        hidden = self.hidden
        skip_dirs = self.skip_dirs
        list_files = self.list_files
        list_dirs = self.list_dirs
        follow = self.follow
        descend = self.max_depth is None or child_depth < self.max_depth
        append = out.append
        for e in entries:
            name = e.name
            if name[0] == "." and (not hidden or name in VCS_DIRS):
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    is_dir = True
                    key = (0, 0)
                    if follow:
                        st = e.stat(follow_symlinks=False)
                        key = (st.st_dev, st.st_ino)
                elif e.is_file(follow_symlinks=False):
                    is_dir = False
                elif e.is_symlink():
                    st = os.stat(e.path)  # follows; broken -> OSError -> skipped
                    if stat.S_ISDIR(st.st_mode):
                        if not follow:
                            continue
                        is_dir = True
                        key = (st.st_dev, st.st_ino)
                    elif stat.S_ISREG(st.st_mode):
                        is_dir = False
                    else:
                        continue
                else:
                    continue  # fifo, socket, device
            except OSError:
                continue  # vanished or broken
            rel = prefix + name
            if is_dir:
                if name in skip_dirs:
                    continue
                if checks:
                    hit = (name in names or name in dir_names or name.endswith(suffixes)
                           or name.endswith(dir_suffixes) or name.startswith(prefixes)
                           or name.startswith(dir_prefixes))
                    if not hit and base_anys:
                        bname = name + "/"
                        for fm, firsts in base_anys:
                            if (firsts is None or name[0] in firsts) and fm(bname) is not None:
                                hit = True
                                break
                    if not hit and path_checks:
                        p = rel + "/"
                        for fm, lead, cut in path_checks:
                            if fm(lead + p[cut:] if lead else p[cut:]) is not None:
                                hit = True
                                break
                    if hit and decide(rel, name, True):
                        continue
                if exclude is not None and exclude.match(rel + "/", name, True):
                    continue
                if list_dirs:
                    append(rel)
                if descend:
                    if follow:
                        if key in chain:
                            continue  # a loop: this real folder is already on the path
                        stack.append((e.path, rel + "/", child_depth, ctx, (*chain, key)))
                    else:
                        stack.append((e.path, rel + "/", child_depth, ctx, chain))
            else:
                if checks:
                    hit = (name in names or name.endswith(suffixes)
                           or name.startswith(prefixes))
                    if not hit and base_anys:
                        for fm, firsts in base_anys:
                            if (firsts is None or name[0] in firsts) and fm(name) is not None:
                                hit = True
                                break
                    if not hit and path_checks:
                        for fm, lead, cut in path_checks:
                            if fm(lead + rel[cut:] if lead else rel[cut:]) is not None:
                                hit = True
                                break
                    if hit and decide(rel, name, False):
                        continue
                if exclude is not None and exclude.match(rel, name, False):
                    continue
                if list_files:
                    append(rel)


def _prepare(root: str, options: SearchOptions) -> tuple[_Walker, Item]:
    """Check the root, compile --exclude, and gather the ignore files above the root."""
    try:
        st = os.stat(root)
    except OSError as exc:
        raise FfindError(f"cannot read folder {root}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise FfindError(f"not a folder: {root}")
    if not os.access(root, os.R_OK | os.X_OK):
        raise FfindError(f"cannot read folder {root}: Permission denied")
    exclude = compile_globs(options.exclude) if options.exclude else None

    ignores: list[Level] = []
    gits: list[Level] = []
    git_tail: list[Level] = []
    global_rules: Rules | None = None
    git_on = not options.require_git
    if options.respect_ignore:
        absroot = os.path.abspath(root)
        top = find_repo_top(absroot)
        git_dir = find_git_dir(top) if top is not None else None
        cdir = common_dir(git_dir) if git_dir is not None else None
        path = excludes_file(top or absroot, cdir)
        global_rules = load_file(path) if path else None
        lead = ""
        if top is not None and cdir is not None:
            git_on = True
            for gitignore, lead_i in reversed(above_root_gitignores(top, absroot)):
                rules = load_file(gitignore)
                if rules is not None:
                    gits.append((rules, lead_i, 0, lead_i.count("/")))
            rel = os.path.relpath(absroot, top)
            lead = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            info = load_file(os.path.join(cdir, "info", "exclude"))
            if info is not None:
                git_tail.append((info, lead, 0, lead.count("/")))
        if global_rules is not None and git_on:
            git_tail.append((global_rules, lead, 0, lead.count("/")))
        # .ignore files above the root apply too (ripgrep and fd read parents' ignore files).
        folder = absroot
        while True:
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            lead_p = os.path.relpath(absroot, parent).replace(os.sep, "/") + "/"
            rules = load_file(os.path.join(parent, IGNORE_FILE))
            if rules is not None:
                ignores.append((rules, lead_p, 0, lead_p.count("/")))
            folder = parent
    walker = _Walker(options, exclude, tuple(git_tail), global_rules)
    ctx = _Scope(tuple(ignores), (*gits, *git_tail), git_on)
    chain: tuple[tuple[int, int], ...] = ((st.st_dev, st.st_ino),) if options.follow_links else ()
    return walker, (root, "", 0, ctx, chain)


def walk_batches(
    root: str | os.PathLike[str], options: SearchOptions | None = None, *,
    cancel: Cancel | None = None, on_warning: Warn | None = None, keep: Keep | None = None,
) -> Iterator[list[str]]:
    """The paths under ``root`` in batches (lists of paths); see the module docstring.

    ``keep`` (a picklable callable, list of paths -> the ones to keep, in order) filters each
    batch where it is made, in the workers: ``search`` drops the paths its query cannot match
    before they cost a transfer and a place in the index.  In a forked worker it must not
    import anything or take a lock (see "Worker processes" below)."""
    options = options or SearchOptions()
    if options.threads < 1:
        raise FfindError(f"threads must be at least 1, not {options.threads}")
    root_s = os.fspath(root)
    walker, item = _prepare(root_s, options)
    if options.max_depth is not None and options.max_depth < 1:
        return iter(())
    if options.threads == 1:
        return _walk_inline(walker, item, cancel, on_warning, keep)
    return _walk_parallel(walker, item, options.threads, cancel, on_warning, keep)


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
                 warn: Warn | None, keep: Keep | None = None) -> Iterator[list[str]]:
    stack = [item]
    out: list[str] = []
    limit = _FIRST_BATCH
    last = time.monotonic()
    scan = walker.scan
    while stack:
        if cancel is not None and cancel.is_set():
            return
        scan(stack.pop(), out, stack, warn)
        if len(out) >= limit or (out and time.monotonic() - last > _FLUSH_AFTER):
            kept = out if keep is None else keep(out)
            if kept:
                yield kept
            out = []
            limit = min(limit * 2, _MAX_BATCH)
            last = time.monotonic()
    if out and keep is not None:
        out = keep(out)
    if out:
        yield out


# ----------------------------------------------------------------------------------------------
# Worker processes.  Messages from a worker start with one tag byte:
# P paths (NUL-joined UTF-8), W folders given away (pickled Items), I idle, E a warning,
# X the worker failed (its last message: one line).
#
# Forking from a process with threads (the session and the MCP server walk from a thread).
# The child of fork() holds only the forking thread; any lock another thread held at that moment
# stays locked for ever in the child.  So where fork exists the workers are started with a bare
# ``os.fork()`` (not ``multiprocessing.Process``, whose child code closes ``sys.stdin``, flushes
# ``sys.stdout``/``sys.stderr`` at exit and runs after-fork and exit hooks: the buffered
# streams' locks, and the flush could print the parent's unflushed output a second time), and
# the child runs only ``_child_main``:
# - no I/O but ``os.scandir``/``os.stat``/reading ignore files and ``os.read``/``os.write`` on its
#   two pipes; no ``print``, no logging, no ``sys.std*``; it never raises a traceback (that would
#   write to ``sys.stderr``): a failure goes to the parent as one ``X`` message;
# - nothing imported after the fork: ``pickle``, ``re``, ``signal``, ``gc`` are imported at the
#   top of this module and pathspec in ``_walk_parallel`` before the first fork (a ``from x
#   import y`` of a module already loaded takes no import lock);
# - it ends with ``os._exit``: no ``atexit`` handlers, no finalizers, no flush of inherited
#   buffers; the cyclic GC is off in the child, so no inherited ``__del__`` (say, of another
#   walk's generator) can run there, and ``_Workers.end`` acts only in the process that made it;
# - every signal is blocked in the forking thread around ``fork()``, so the child is born with
#   them blocked and never unblocks them: no inherited Python handler (the picker's SIGWINCH,
#   SIGTERM) and no ``signal.set_wakeup_fd`` write (into the parent's event loop) ever runs in a
#   worker.  Ctrl-C and a terminal resize reach the whole process group; the parent handles them
#   and ends the workers (SIGKILL, which cannot be blocked; a worker also ends when its pipes
#   close).  A worker that got KeyboardInterrupt before it could ignore SIGINT used to die with a
#   traceback, and the parent reported a dead worker (exit code None: not reaped yet);
# - ``os.fork`` itself runs the interpreter's own after-fork hooks (threading, the import lock,
#   logging's handler locks, random), which exist to make the child consistent;
# - ``_FORK_LOCK`` serialises starting workers across threads, and each child closes the
#   parent's ends of the pipes of every walk in flight in this process, not only its own: a
#   worker of one walk holding a copy of another walk's pipe would hide that walk's end of file
#   (a dead worker would go unnoticed) and could leave workers waiting for each other.
# - a ``keep`` filter runs in the child: it must import nothing and take no lock (``Prefilter``
#   binds its rapidfuzz functions when the parent builds it);
# - the pipes are ``_Pipe``s: ``os.read``/``os.write`` with a length prefix.
# ``spawn`` (where there is no fork) starts fresh interpreters through multiprocessing.
#
# At exit: an ``atexit`` handler, registered after ``multiprocessing.util``'s when that is
# loaded (so it runs first),
# kills and reaps the workers of every walk still running (a generator left open, a walk in a
# daemon thread); the walk then ends quietly.  multiprocessing's own exit handler never sees our
# forked workers, and ``Process`` objects (spawn) are never closed, so it cannot trip on them.
_P, _W, _I, _E, _X = 80, 87, 73, 69, 88

_FORK_LOCK = threading.Lock()
_LIVE: set[_Workers] = set()  # walks with workers in this process (under _FORK_LOCK)
_exiting = False  # set by the exit handler: no new workers
_exit_hook = False  # the exit handler is registered


def _encode(paths: list[str]) -> bytes:
    return b"P" + "\0".join(paths).encode("utf-8", "surrogateescape")


def _worker_loop(walker: _Walker, tasks: Any, results: Any, want: Any,
                 keep: Keep | None) -> None:
    send = results.send_bytes

    def flush(out: list[str]) -> None:
        kept = out if keep is None else keep(out)
        if kept:
            send(_encode(kept))

    def warn(message: str) -> None:
        send(b"E" + message.encode("utf-8", "surrogateescape"))

    scan = walker.scan
    limit = _FIRST_BATCH  # small first batches, so the first paths arrive at once
    try:
        while True:
            msg = tasks.recv_bytes()
            if not msg:
                return
            stack: list[Item] = pickle.loads(msg)
            out: list[str] = []
            last = time.monotonic()
            while stack:
                scan(stack.pop(), out, stack, warn)
                if want[0] and len(stack) > 1:
                    k = len(stack) // 2  # the bottom half: the shallowest, biggest subtrees
                    send(b"W" + pickle.dumps(stack[:k], pickle.HIGHEST_PROTOCOL))
                    del stack[:k]
                if len(out) >= limit or (out and time.monotonic() - last > _FLUSH_AFTER):
                    flush(out)
                    out = []
                    limit = min(limit * 2, _MAX_BATCH)
                    last = time.monotonic()
            if out:
                flush(out)
            send(b"I")
    except (EOFError, OSError):
        return  # the parent went away


def _report_failure(results: Any, exc: BaseException) -> None:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    with contextlib.suppress(BaseException):
        results.send_bytes(b"X" + text.encode("utf-8", "replace"))


def _child_main(walker: _Walker, tasks: Any, results: Any, want: Any, close: list[Any],
                keep: Keep | None) -> None:
    """A forked worker: see the comment above on what it may touch.  Never returns."""
    code = 0
    try:
        gc.disable()
        for conn in close:
            conn.close()
        _worker_loop(walker, tasks, results, want, keep)
    except BaseException as exc:  # reported to the parent, never printed here
        code = 1
        _report_failure(results, exc)
    finally:
        os._exit(code)


def _spawn_main(walker: _Walker, tasks: Any, results: Any, want: Any,
                keep: Keep | None) -> None:
    """A spawned worker (a fresh interpreter, no fork hazards)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills us
    try:
        _worker_loop(walker, tasks, results, want, keep)
    except BaseException as exc:
        _report_failure(results, exc)
        raise SystemExit(1) from None


class _Pipe:
    """One end of a pipe carrying messages (a 4-byte length, then the bytes): what
    ``multiprocessing.Pipe`` gives, for forked workers, without importing multiprocessing
    (~7 ms of every ``ffind`` start).  ``send_bytes``/``recv_bytes``/``fileno``/``close`` as
    multiprocessing's ``Connection``; ``recv_bytes`` raises EOFError when the other end closed."""

    __slots__ = ("_fd",)

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @staticmethod
    def pair() -> tuple[_Pipe, _Pipe]:
        """(reading end, writing end)."""
        r, w = os.pipe()
        return _Pipe(r), _Pipe(w)

    def fileno(self) -> int:
        return self._fd

    def send_bytes(self, data: bytes) -> None:
        view = memoryview(len(data).to_bytes(4, "big") + data)
        while view:
            view = view[os.write(self._fd, view):]

    def _read(self, n: int) -> bytes:
        data = os.read(self._fd, n)
        if len(data) == n:
            return data
        parts = [data]
        while n > len(data):
            if not data:
                raise EOFError
            n -= len(data)
            data = os.read(self._fd, n)
            parts.append(data)
        return b"".join(parts)

    def recv_bytes(self) -> bytes:
        return self._read(int.from_bytes(self._read(4), "big"))

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


def _set_pipe_size(conn: Any) -> None:
    """A bigger pipe (Linux) lets a worker run ahead of a busy consumer for longer."""
    try:
        import fcntl

        fcntl.fcntl(conn.fileno(), 1031, 1 << 20)  # F_SETPIPE_SZ
    except (ImportError, OSError):
        pass


class _Forked:
    """A worker started with ``os.fork``: kill and reap it by pid."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.exitcode: int | None = None  # as multiprocessing: -N when killed by signal N
        self.reaped = False

    def kill(self) -> None:
        if not self.reaped:  # never signal a pid that may have been reused
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def join(self, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.reaped:
            try:
                pid, status = os.waitpid(self.pid, 0 if deadline is None else os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): code unknown
                self.reaped = True
                return
            if pid:
                self.reaped = True
                self.exitcode = os.waitstatus_to_exitcode(status)
                return
            if deadline is not None and time.monotonic() >= deadline:
                return
            time.sleep(0.002)

    def is_alive(self) -> bool:
        self.join(0)
        return not self.reaped


class _Workers:
    """One parallel walk's worker processes and the parent's ends of their pipes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.procs: list[Any] = []  # _Forked, or multiprocessing.Process (spawn; never closed)
        self.tasks: list[Any] = []
        self.results: list[Any] = []
        self.stopped = False
        self.exited = False  # stopped by the exit handler: leave the rest to the OS
        self.owner = os.getpid()

    def end(self, *, graceful: bool) -> None:
        """Stop the workers (idempotent, from any thread): ask them to finish when
        ``graceful``, kill the rest, and reap them all.  The pipes stay open (the walking
        thread may be waiting on them); ``close`` closes them."""
        with self.lock:
            if self.stopped:
                return
            self.stopped = True
            if os.getpid() != self.owner:
                return  # a copy inherited by a child process: not ours to stop
            if graceful:
                for conn in self.tasks:
                    with contextlib.suppress(OSError):
                        conn.send_bytes(b"")
                for proc in self.procs:
                    proc.join(1.0)
            for proc in self.procs:
                if proc.is_alive():
                    proc.kill()
            for proc in self.procs:
                proc.join()

    def close(self, *, graceful: bool) -> None:
        """``end``, then forget the walk and close its pipes (the walking thread only)."""
        self.end(graceful=graceful)
        if self.exited or os.getpid() != self.owner:
            return  # (after the exit handler, this may run as modules are torn down)
        with _FORK_LOCK:
            _LIVE.discard(self)
        for conn in (*self.tasks, *self.results):
            conn.close()

    def died(self, i: int) -> str:
        """Why worker ``i``'s pipe ended: one line."""
        proc = self.procs[i]
        proc.join(2.0)  # the pipe closes a moment before the process can be reaped
        code = proc.exitcode
        if code is None:
            how = "still running" if proc.is_alive() else "exit status unknown"
        elif code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exit code {code}"
        return f"a walk worker process ended unexpectedly ({how})"


def _at_exit() -> None:
    """Kill and reap every walk's workers before the interpreter (and multiprocessing's exit
    handler, which would terminate spawned daemon workers under a running walk) goes on."""
    global _exiting
    with _FORK_LOCK:
        _exiting = True
        live = list(_LIVE)
    for workers in live:
        workers.end(graceful=False)
        workers.exited = True


def _fork_available() -> bool:
    """Where there is ``os.fork`` the workers are forked; else spawned through multiprocessing."""
    return hasattr(os, "fork")


def _install_exit_hook() -> None:
    global _exit_hook
    if not _exit_hook:
        import atexit

        if not _fork_available() or "multiprocessing" in sys.modules:
            # registers its atexit handler before ours (spawned workers are its children)
            import multiprocessing.util  # noqa: F401

        atexit.register(_at_exit)  # atexit runs handlers last in, first out
        _exit_hook = True


def _start(workers: _Workers, walker: _Walker, n: int, mp: Any, fork: bool, want: Any,
           keep: Keep | None) -> bool:
    """Start ``n`` workers; False if the interpreter is exiting (no workers then)."""
    for _ in range(n):
        with _FORK_LOCK:
            if _exiting:
                return False
            try:
                pipe = _Pipe.pair if fork else functools.partial(mp.Pipe, duplex=False)
                task_r, task_w = pipe()
                try:
                    res_r, res_w = pipe()
                except OSError:
                    task_r.close()
                    task_w.close()
                    raise
            except OSError as exc:  # EMFILE
                raise FfindError(f"cannot start the walk's workers: {exc}") from None
            _set_pipe_size(res_w)
            workers.tasks.append(task_w)
            workers.results.append(res_r)
            try:
                if fork:
                    close = [c for w in _LIVE for c in (*w.tasks, *w.results)]
                    blocked = hasattr(signal, "pthread_sigmask")
                    if blocked:
                        old = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
                    try:
                        with warnings.catch_warnings():
                            # Python >= 3.12 warns about fork() in a process with threads; see the
                            # comment above for why this child is safe.
                            warnings.filterwarnings("ignore", ".* is multi-threaded",
                                                    DeprecationWarning)
                            pid = os.fork()
                        if pid == 0:
                            _child_main(walker, task_r, res_w, want, close, keep)  # never returns
                    finally:
                        if blocked:
                            signal.pthread_sigmask(signal.SIG_SETMASK, old)
                    workers.procs.append(_Forked(pid))
                else:
                    proc = mp.Process(target=_spawn_main, name="ffind-walk",
                                      args=(walker, task_r, res_w, want, keep), daemon=True)
                    proc.start()
                    workers.procs.append(proc)
            except OSError as exc:  # fork: EAGAIN, ENOMEM
                raise FfindError(f"cannot start the walk's workers: {exc}") from None
            finally:
                task_r.close()
                res_w.close()
    return True


def _walk_parallel(walker: _Walker, item: Item, n: int, cancel: Cancel | None,
                   warn: Warn | None, keep: Keep | None = None) -> Iterator[list[str]]:
    if walker.respect or walker.exclude is not None:
        # Import once here, not in each worker, and never in a child forked from threads.
        import pathspec.patterns.gitignore.spec  # noqa: F401

    _install_exit_hook()
    fork = _fork_available()
    mp: Any = None
    wait: Callable[..., list[Any]]
    if fork:  # one shared byte: "a worker is idle, give work away"
        import mmap
        import select

        want: Any = mmap.mmap(-1, 1)

        def wait(conns: list[Any], timeout: float) -> list[Any]:
            # poll, not select: a process with more than FD_SETSIZE (1024) open files (a
            # long-lived server) may hold pipe ends that select() cannot take
            poller = select.poll()
            for conn in conns:
                poller.register(conn.fileno(), select.POLLIN)
            ready = {fd for fd, _ in poller.poll(timeout * 1000)}
            return [conn for conn in conns if conn.fileno() in ready]
    else:
        import multiprocessing
        import multiprocessing.connection

        mp = multiprocessing.get_context("spawn")
        want = mp.RawArray("b", 1)
        wait = multiprocessing.connection.wait
    workers = _Workers()
    with _FORK_LOCK:
        _LIVE.add(workers)
    finished = False
    try:
        if not _start(workers, walker, n, mp, fork, want, keep):
            return
        task_conns = workers.tasks
        which = {conn: i for i, conn in enumerate(workers.results)}
        queue: list[Item] = [item]
        idle = set(range(n))
        while True:
            handout = []
            while idle and queue:  # hand out folders: an equal share to each idle worker
                share = max(1, len(queue) // len(idle))
                handout.append((idle.pop(), queue[-share:]))
                del queue[-share:]
            want[0] = 1 if idle else 0  # before the hand-out, so a busy worker sees it at once
            for i, give in handout:
                task_conns[i].send_bytes(pickle.dumps(give, pickle.HIGHEST_PROTOCOL))
            if len(idle) == n:
                finished = True
                return
            if cancel is not None and cancel.is_set():
                return
            for conn in wait(list(which), timeout=_POLL):
                i = which[conn]
                try:
                    msg = conn.recv_bytes()  # type: ignore[union-attr]
                except (EOFError, OSError):
                    if workers.stopped or (cancel is not None and cancel.is_set()):
                        return  # stopped on purpose (cancel, or the interpreter is exiting)
                    raise FfindError(workers.died(i)) from None
                tag = msg[0]
                if tag == _P:
                    yield msg[1:].decode("utf-8", "surrogateescape").split("\0")
                elif tag == _W:
                    queue.extend(pickle.loads(msg[1:]))
                elif tag == _I:
                    idle.add(i)
                elif tag == _E and warn is not None:
                    warn(msg[1:].decode("utf-8", "surrogateescape"))
                elif tag == _X:
                    text = msg[1:].decode("utf-8", "replace")
                    raise FfindError(f"a walk worker process failed: {text}")
                if cancel is not None and cancel.is_set():
                    return
    finally:
        workers.close(graceful=finished)


def _main(argv: list[str]) -> int:
    """``python -m ffind.fs.walk [ROOT] [--threads N] [--hidden] [--no-ignore] [-0]``: print the
    walk (for benchmarks and debugging; the ``ffind`` command is the user interface)."""
    root = "."
    threads = 2
    flags: dict[str, bool] = {}
    args = iter(argv)
    for arg in args:
        if arg == "--threads":
            threads = int(next(args))
        elif arg in ("--hidden", "--no-ignore", "-0", "--dirs"):
            flags[arg] = True
        else:
            root = arg
    options = SearchOptions(
        threads=threads, hidden=flags.get("--hidden", False),
        respect_ignore=not flags.get("--no-ignore", False),
        types=("f", "d") if flags.get("--dirs") else ("f",),
    )
    end = "\0" if flags.get("-0") else "\n"
    write = sys.stdout.buffer.write
    try:
        for batch in walk_batches(root, options,
                                  on_warning=lambda m: print(f"ffind: {m}", file=sys.stderr)):
            write((end.join(batch) + end).encode("utf-8", "surrogateescape"))
        sys.stdout.flush()
    except FfindError as exc:
        print(f"ffind: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
