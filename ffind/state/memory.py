"""The memory of opened files: a SQLite file of visits, one row per absolute path, with two
decayed counts (``weight`` halving every ``HALF_LIFE_DAYS``, ``recent`` every
``RECENT_HALF_LIFE_DAYS``), and pairs of files opened within ``TOGETHER_WINDOW`` of each other
(a decayed count each); light rows age out, at most ``MAX_ROWS`` and ``MAX_PAIRS`` kept.  A
complete walk prunes the paths it no longer finds.  Bad state never breaks a search: a corrupt
file is moved aside, an unusable folder leaves the memory off (``Memory.warning``); WAL mode,
one transaction a visit.
No connection is kept between calls (a resident server or the picker would otherwise hold
the file's locks for minutes, and a damaged file could not be repaired while they run): each
call opens the file and closes it; what a read found is kept, keyed by the file and its
write-ahead log as ``stat`` sees them (``_identity``), and read again once either changed.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping

from ffind.state.paths import own_file, private_dir, xdg_dir

TYPE_CHECKING = False  # (not typing's)
if TYPE_CHECKING:
    import sqlite3

# (``sqlite3`` and ``math`` are imported where a store is opened or written: a search whose
# memory file does not exist yet reads an empty memory without them)

SCHEMA_VERSION = 2
"""1: visits; 2: and pairs (a file of version 1 gains the empty table when first opened)."""
HALF_LIFE_DAYS = 14.0
"""A visit counts half as much after this many days."""
HALF_LIFE = HALF_LIFE_DAYS * 86400.0
RECENT_HALF_LIFE_DAYS = 0.25
"""The short memory (six hours): which folders the user works in now."""
RECENT_HALF_LIFE = RECENT_HALF_LIFE_DAYS * 86400.0
MIN_WEIGHT = 0.001
"""Rows lighter than this (one visit, about ten half-lives ago) are aged out."""
MAX_ROWS = 50_000
"""At most this many remembered paths; past it the lightest are dropped."""
TOGETHER_WINDOW = 300.0
"""Files opened within this many seconds of each other were opened together (one task), and
the files opened in the last this many seconds are what the user works on now."""
TOGETHER_PARTNERS = 8
"""A visit pairs with at most this many files opened before it within the window (the latest):
a script that records hundreds at once adds at most this many pairs a visit."""
LATEST_FILES = 64
"""The files opened in the last ``TOGETHER_WINDOW`` whose partners ranking reads: at most this
many, the latest (a script that records hundreds at once does not make a search read them all)."""
MAX_PAIRS = 20_000
"""At most this many pair rows (each pair is two): about 1,200 visits' worth, two weeks of
heavy use (older pairs weigh little); past it the lightest are dropped down to three quarters
of it, so that reading them all, which that takes, is rare.  Together with the visits the file
stays under about 16 MB."""
BUSY_TIMEOUT_MS = 2_000
AGE_OUT_EVERY = 256
"""Age out at the first visit recorded by a process and once every this many after it (a
search that only reads never ages out: it must stay cheap)."""
FILE_NAME = "memory.sqlite3"


def default_path(environ: Mapping[str, str] | None = None) -> str:
    """``$FFIND_MEMORY``, else ``$XDG_STATE_HOME/ffind/memory.sqlite3`` (falling back to
    ``~/.local/state/ffind/``)."""
    env = os.environ if environ is None else environ
    explicit = env.get("FFIND_MEMORY", "")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    return os.path.join(xdg_dir("state", env), FILE_NAME)


def memory_disabled(environ: Mapping[str, str] | None = None) -> bool:
    """``FFIND_NO_MEMORY`` set to anything but empty or ``0`` turns the memory off."""
    env = os.environ if environ is None else environ
    return env.get("FFIND_NO_MEMORY", "") not in ("", "0")


def open_memory(environ: Mapping[str, str] | None = None) -> Memory | None:
    """The user's memory (:func:`default_path`), or None when ``FFIND_NO_MEMORY`` turns it
    off: what the command, the picker and the MCP server rank with."""
    return None if memory_disabled(environ) else Memory(default_path(environ))


def decay(weight: float, since: float, now: float, half_life: float = HALF_LIFE) -> float:
    """``weight`` as it was at ``since``, decayed to ``now`` (never grown: a time in the
    future counts as now)."""
    return float(weight * 0.5 ** (max(0.0, now - since) / half_life))


def _add_visit(weight: float | None, last: float | None, when: float, half_life: float) -> float:
    """A count after one more visit at ``when``, as of ``max(last, when)`` (an SQL function, so
    that a visit is one statement whatever the order visits arrive in)."""
    if weight is None or last is None:
        return 1.0
    if when >= last:
        return decay(weight, last, when, half_life) + 1.0
    return float(weight + 0.5 ** ((last - when) / half_life))


class Memory:
    """The visits of opened files, in the SQLite file at ``path`` (default: :func:`default_path`).

    ``record(path, when=None)`` remembers a visit; ``forget(path)`` removes a path and
    everything under it; ``weights(root, now)`` is what ranking reads.  Safe to share between
    threads; several processes may use the same file.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = default_path() if path is None else os.path.abspath(os.fspath(path))
        self.warning: str | None = None
        """One line saying why the memory is off (or was repaired), for the front end."""
        self._lock = threading.Lock()
        self._off_for_good = False
        self._records = 0
        self._forgets = 0
        self._seen: tuple[object, ...] | None = None
        self._mirror: dict[str, dict[str, tuple[float, float, float]]] = {}

    # --- opening and recovery ----------------------------------------------------------------

    @property
    def available(self) -> bool:
        """Whether the store could be opened (opens it on first use)."""
        with self._lock, self._connect() as db:
            return db is not None

    @contextlib.contextmanager
    def _connect(self, write: bool = True) -> Iterator[sqlite3.Connection | None]:
        """The database for one call, closed after it (None when the memory is off); to read
        (``write=False``), a store not created yet is simply empty: nothing is created,
        nothing is imported past ``sqlite3``, no warning."""
        if self._off_for_good or (not write and not os.path.exists(self.path)
                                  and _could_create(self.path)):
            yield None
            return
        import sqlite3

        db = None
        try:
            db = self._open()
        except sqlite3.DatabaseError as e:
            if (_is_corrupt(e) or _torn(self.path)) and self._move_aside():
                try:
                    db = self._open()
                except (sqlite3.Error, OSError) as again:
                    self._off(f"cannot open {self.path}: {again}")
            else:
                self._off(f"cannot use {self.path}: {e}")
        except _Refused as e:
            self._off(str(e))
        except OSError as e:
            self._off(f"cannot create {os.path.dirname(self.path)}: {e.strerror or e}")
        try:
            yield db
        finally:
            if db is not None:
                db.close()

    def _open(self) -> sqlite3.Connection:
        import sqlite3

        folder = os.path.dirname(self.path)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not private_dir(folder, create=False):
            raise _Refused(f"{folder} is not this user's own folder (or others may write it); "
                           "memory is off")
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:  # owner-only from the start (sqlite: 0644 less the umask)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
        else:
            if not own_file(st):
                raise _Refused(f"{self.path} is not this user's own file; memory is off")
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise _Refused(f"{self.path} was written by a newer ffind (schema {version}); "
                             "memory is off")
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                with contextlib.suppress(sqlite3.OperationalError):  # read-only: stays as is
                    db.execute("PRAGMA journal_mode = WAL")
            db.execute("CREATE TABLE IF NOT EXISTS visits (path TEXT PRIMARY KEY, "
                       "weight REAL NOT NULL, recent REAL NOT NULL, last REAL NOT NULL) "
                       "WITHOUT ROWID")
            with contextlib.suppress(sqlite3.OperationalError):  # read-only: stays as it was
                db.execute("CREATE INDEX IF NOT EXISTS visits_last ON visits (last)")
                db.execute("CREATE TABLE IF NOT EXISTS pairs (path TEXT NOT NULL, "
                           "partner TEXT NOT NULL, weight REAL NOT NULL, last REAL NOT NULL, "
                           "PRIMARY KEY (path, partner)) WITHOUT ROWID")
                db.execute("CREATE INDEX IF NOT EXISTS pairs_last ON pairs (last)")
                if version < SCHEMA_VERSION:
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.create_function("ffind_add_visit", 4, _add_visit, deterministic=True)
        except BaseException:
            db.close()
            raise
        return db

    def _move_aside(self) -> bool:
        aside = f"{self.path}.corrupt-{int(time.time())}"
        try:
            os.replace(self.path, aside)
        except OSError:
            return False
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.replace(self.path + suffix, aside + suffix)
        self.warning = f"{self.path} was damaged; moved it to {aside} and started a new memory"
        return True

    def _off(self, message: str) -> None:
        self._off_for_good = True
        self.warning = message

    # --- writing ----------------------------------------------------------------------------

    def record(self, path: str | os.PathLike[str], when: float | None = None) -> bool:
        """Remember a visit of ``path`` (absolute; a relative one is resolved against the
        working directory) at Unix time ``when`` (default: now).  The file is never touched.
        Returns False when the memory is off (see :attr:`warning`)."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, not {type(path).__name__}")
        import math

        if when is not None and (isinstance(when, bool) or not isinstance(when, (int, float))
                                 or not math.isfinite(when)):
            raise ValueError(f"when must be a finite Unix time, not {when!r}")
        full = os.path.abspath(os.fspath(path))
        t = time.time() if when is None else float(when)
        with self._lock, self._connect() as db:
            if db is None:
                return False
            import sqlite3

            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    _pair(db, full, t)
                    db.execute("INSERT INTO visits (path, weight, recent, last) "
                               "VALUES (?, 1, 1, ?) ON CONFLICT (path) DO UPDATE SET "
                               "weight = ffind_add_visit(weight, last, excluded.last, ?), "
                               "recent = ffind_add_visit(recent, last, excluded.last, ?), "
                               "last = max(last, excluded.last)",
                               (full, t, HALF_LIFE, RECENT_HALF_LIFE))
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                self._mirror.clear()
                self._records += 1
                if (self._records - 1) % AGE_OUT_EVERY == 0:  # the first visit of a run, and every
                    self._age_out(db)  # AGE_OUT_EVERY after it (never when only reading)
            except sqlite3.Error as e:
                self.warning = f"cannot write {self.path}: {e}"
                return False
        return True

    def forget(self, path: str | os.PathLike[str]) -> int:
        """Forget ``path`` and every remembered path under it; the number of paths removed."""
        full = os.path.abspath(os.fspath(path))
        with self._lock, self._connect(write=False) as db:
            if db is None:
                return 0
            return self._delete(db, "DELETE FROM visits WHERE path = ? OR "
                                "(path >= ? AND path < ?)", [(full, *_under(full))])

    def prune(self, root: str | os.PathLike[str], present: Iterable[str],
              could_list: Callable[[str], bool] | None = None) -> int:
        """After a *complete* walk of ``root``: forget remembered paths under it that the walk
        did not find (``present``: the walk's paths, relative to ``root``).  ``could_list``
        says which relative paths the walk's options would have listed had they existed (a
        hidden file is not pruned by a walk that skips hidden files); default: all."""
        full = os.path.abspath(os.fspath(root))
        keep = set(present)
        cut = len(os.path.join(full, ""))
        gone = [p for p in self._rows_under(full) if p[cut:] not in keep
                and (could_list is None or could_list(p[cut:]))]
        if not gone:
            return 0
        with self._lock, self._connect(write=False) as db:
            if db is None:
                return 0
            return self._delete(db, "DELETE FROM visits WHERE path = ?", [(p,) for p in gone])

    def _delete(self, db: sqlite3.Connection, sql: str, rows: list[tuple[str, ...]]) -> int:
        """Run a DELETE for each of ``rows`` (and drop the pairs of the paths gone); the number
        of rows removed, or 0 (and :attr:`warning` set) when the store cannot be written."""
        import sqlite3

        try:
            cur = db.executemany(sql, rows)
            _drop_orphan_pairs(db)
        except sqlite3.Error as e:
            self.warning = f"cannot write {self.path}: {e}"
            return 0
        self._mirror.clear()
        self._forgets += 1
        return cur.rowcount

    @staticmethod
    def _age_out(db: sqlite3.Connection) -> None:
        """Drop the rows that weigh less than ``MIN_WEIGHT``, and the lightest past
        ``MAX_ROWS``, judged at the newest visit in the store (not the clock: a memory left
        unused for a year is not wiped on its next use, and a replayed history ages as it
        happened)."""
        import sqlite3

        with contextlib.suppress(sqlite3.OperationalError):  # read-only: nothing to age out
            now, count = db.execute("SELECT max(last), count(*) FROM visits").fetchone()
            if not count:
                return
            if count > MAX_ROWS:  # rare: every row is read to keep the heaviest
                rows = db.execute("SELECT path, weight, last FROM visits").fetchall()
            else:  # a row weighs at least 1 at its last visit: only rows older than this can
                # have fallen below MIN_WEIGHT (one query on the index of `last`, not a scan)
                rows = db.execute("SELECT path, weight, last FROM visits WHERE last < ?",
                                  (cutoff_of(now),)).fetchall()
            weighed = [(decay(w, t, now), p) for p, w, t in rows]
            old = [(p,) for w, p in weighed if w < MIN_WEIGHT]
            if count - len(old) > MAX_ROWS:
                alive = sorted(((w, p) for w, p in weighed if w >= MIN_WEIGHT), reverse=True)
                old += [(p,) for _, p in alive[MAX_ROWS:]]
            if old:
                db.executemany("DELETE FROM visits WHERE path = ?", old)
                _drop_orphan_pairs(db)
            Memory._age_out_pairs(db, now)

    @staticmethod
    def _age_out_pairs(db: sqlite3.Connection, now: float) -> None:
        """Drop the pairs lighter than ``MIN_WEIGHT`` at ``now`` and the lightest past
        ``MAX_PAIRS``."""
        rows = db.execute("SELECT path, partner, weight, last FROM pairs WHERE last < ?",
                          (cutoff_of(now),)).fetchall()
        old = [(p, q) for p, q, w, t in rows if decay(w, t, now) < MIN_WEIGHT]
        if old:
            db.executemany("DELETE FROM pairs WHERE path = ? AND partner = ?", old)
        count = db.execute("SELECT count(*) FROM pairs").fetchone()[0]
        if count > MAX_PAIRS:
            rows = db.execute("SELECT path, partner, weight, last FROM pairs").fetchall()
            light = sorted(rows, key=lambda r: decay(r[2], r[3], now))[:count - MAX_PAIRS * 3 // 4]
            db.executemany("DELETE FROM pairs WHERE path = ? AND partner = ?",
                           [(p, q) for p, q, _, _ in light])

    # --- reading ----------------------------------------------------------------------------

    def _rows_under(self, root: str) -> dict[str, tuple[float, float, float]]:
        """``{absolute path: (weight, recent, last)}`` for the rows under ``root``, from a
        mirror that is read again only when this or another process has written since."""
        if not root.isascii():
            try:
                root.encode("utf-8")
            except UnicodeEncodeError:  # not UTF-8 (surrogate escapes): nothing stored under it
                return {}
        with self._lock:
            seen = self._stamp()  # (before the read: a write after it is seen next time)
            if seen != self._seen:
                self._mirror.clear()
                self._seen = seen
            rows = self._mirror.get(root)
            if rows is not None:
                return rows
            with self._connect(write=False) as db:
                rows = {}  # (no file yet, or off: kept too, until the file changes)
                if db is not None:
                    import sqlite3

                    try:
                        lo, hi = _under(root)
                        rows = {p: (w, r, t) for p, w, r, t in db.execute(
                            "SELECT path, weight, recent, last FROM visits "
                            "WHERE path >= ? AND path < ?", (lo, hi))}
                    except sqlite3.Error as e:
                        self.warning = f"cannot read {self.path}: {e}"
                        return {}
            self._mirror[root] = rows
            return rows

    def stamp(self) -> object:
        """Changes whenever :meth:`weights` may answer differently: a visit recorded or a path
        forgotten, by this object or by another process (the file or its log changed); None
        when the memory is off.  Costs two ``stat`` calls."""
        with self._lock:
            if self._off_for_good:
                return None
            return self._stamp()

    def _stamp(self) -> tuple[object, ...]:
        """The file and its log as ``stat`` sees them, and this object's writes."""
        return (_identity(self.path), _identity(self.path + "-wal"), self._records,
                self._forgets)

    def weights(
        self, root: str | os.PathLike[str], now: float | None = None
    ) -> dict[str, tuple[float, float]]:
        """``{path relative to root: (weight, recent)}``, both decayed to ``now``, for the
        remembered paths under ``root`` (what ranking reads).  A path last visited after
        ``now`` is left out (replaying a history never sees its future)."""
        full = os.path.abspath(os.fspath(root))
        t = time.time() if now is None else float(now)
        cut = len(os.path.join(full, ""))
        return {p[cut:]: (decay(w, last, t), decay(r, last, t, RECENT_HALF_LIFE))
                for p, (w, r, last) in self._rows_under(full).items() if last <= t}

    def together(
        self, root: str | os.PathLike[str], now: float | None = None
    ) -> dict[str, float]:
        """``{path relative to root: share}``: the files opened together with the ones opened
        in the last ``TOGETHER_WINDOW`` before ``now`` (at most ``LATEST_FILES``, the latest;
        those themselves left out), each such file's partners weighed by their decayed counts,
        the shares summing to 1 (empty when none has a partner under ``root``)."""
        full = os.path.abspath(os.fspath(root))
        t = time.time() if now is None else float(now)
        rows = self._rows_under(full)
        latest = sorted((-last, p) for p, (_, _, last) in rows.items()
                        if t - TOGETHER_WINDOW <= last <= t)[:LATEST_FILES]
        if not latest:
            return {}
        opened = {p for _, p in latest}
        cut = len(os.path.join(full, ""))
        share: dict[str, float] = {}
        counted = 0
        for partners in self._pairs_of(tuple(sorted(opened))).values():
            weighed = {q: decay(w, last, t) for q, (w, last) in partners.items()
                       if q not in opened and q in rows and last <= t}
            total = sum(weighed.values())
            if total <= 0:
                continue
            counted += 1
            for q, w in weighed.items():
                share[q[cut:]] = share.get(q[cut:], 0.0) + w / total
        return {q: w / counted for q, w in share.items()}

    def _pairs_of(self, paths: tuple[str, ...]) -> dict[str, dict[str, tuple[float, float]]]:
        """``{path: {partner: (weight, last)}}`` for ``paths`` (absolute), read from the file
        (once per ranking's boosts: ``Recall`` keeps them for the minute)."""
        found: dict[str, dict[str, tuple[float, float]]] = {}
        with self._lock, self._connect(write=False) as db:
            if db is not None:
                import sqlite3

                marks = ",".join("?" * len(paths))
                with contextlib.suppress(sqlite3.Error):  # (read-only, schema 1: none)
                    for p, q, w, last in db.execute(
                            "SELECT path, partner, weight, last FROM pairs "
                            f"WHERE path IN ({marks})", paths):
                        found.setdefault(p, {})[q] = (w, last)
        return found

    def close(self) -> None:
        """Stop using the store (no connection is open between calls: nothing to release)."""
        with self._lock:
            self._off_for_good = True

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Memory({self.path!r})"


def _pair(db: sqlite3.Connection, full: str, t: float) -> None:
    """Count a visit of ``full`` at ``t`` as opened together with the files opened in the
    ``TOGETHER_WINDOW`` before it (at most ``TOGETHER_PARTNERS``, the latest), both ways."""
    partners = [q for (q,) in db.execute(
        "SELECT path FROM visits WHERE last >= ? AND last <= ? AND path != ? "
        "ORDER BY last DESC, path LIMIT ?", (t - TOGETHER_WINDOW, t, full, TOGETHER_PARTNERS))]
    if partners:
        db.executemany("INSERT INTO pairs (path, partner, weight, last) VALUES (?, ?, 1, ?) "
                       "ON CONFLICT (path, partner) DO UPDATE SET "
                       "weight = ffind_add_visit(weight, last, excluded.last, ?), "
                       "last = max(last, excluded.last)",
                       [row for q in partners
                        for row in ((full, q, t, HALF_LIFE), (q, full, t, HALF_LIFE))])


def cutoff_of(now: float) -> float:
    """Rows last counted before this time may weigh less than ``MIN_WEIGHT`` at ``now`` (one
    at their last visit, decayed since)."""
    import math

    return now - HALF_LIFE * math.log2(1 / MIN_WEIGHT)


def _drop_orphan_pairs(db: sqlite3.Connection) -> None:
    """Forget the pairs of paths no longer remembered."""
    db.execute("DELETE FROM pairs WHERE NOT EXISTS (SELECT 1 FROM visits WHERE "
               "visits.path = pairs.path) OR NOT EXISTS (SELECT 1 FROM visits WHERE "
               "visits.path = pairs.partner)")


class _Refused(Exception):
    """The store is not to be used (a newer schema, a file or folder not the user's own)."""


def _torn(path: str) -> bool:
    """Whether the file at ``path`` lacks SQLite's header (truncated or overwritten) while a
    write-ahead log is beside it: damage, not a busy store (whose header is whole)."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return False
    return head != b"SQLite format 3\x00" and os.path.exists(path + "-wal")


def _identity(path: str) -> tuple[int, ...] | None:
    """The file at ``path`` as (device, inode, size, mtime, ctime), or None when there is
    none: what changes when something other than SQLite truncates or replaces it."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _could_create(path: str) -> bool:
    """Whether ``path`` could be created: its nearest existing folder is a folder we may write
    in.  (A state folder under a file, or read-only, is bad state to say something about.)"""
    folder = os.path.dirname(path)
    while not os.path.lexists(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
    return os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)


def _is_corrupt(e: sqlite3.DatabaseError) -> bool:
    text = str(e).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


def _under(folder: str) -> tuple[str, str]:
    """The half-open range of strings that are paths strictly under ``folder``."""
    base = folder.rstrip("/") + "/"
    return base, base[:-1] + "0"  # '0' is the character after '/'
