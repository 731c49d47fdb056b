"""ffind.state.memory: the store of visits (record, decay, age-out, forget, prune, recovery,
concurrent writers).  Every test uses its own file under tmp_path: never the user's."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ffind.state import memory as memory_mod
from ffind.state.memory import HALF_LIFE, Memory, default_path, memory_disabled

DAY = 86400.0
T0 = 1_700_000_000.0


def test_default_path_follows_ffind_memory_then_xdg_state_home(tmp_path: Path) -> None:
    assert default_path({"FFIND_MEMORY": str(tmp_path / "m.db")}) == str(tmp_path / "m.db")
    assert default_path({"XDG_STATE_HOME": str(tmp_path)}) == str(
        tmp_path / "ffind" / "memory.sqlite3")
    home = os.path.expanduser("~")
    assert default_path({"XDG_STATE_HOME": "relative"}) == os.path.join(
        home, ".local", "state", "ffind", "memory.sqlite3")
    assert default_path({}) == os.path.join(home, ".local", "state", "ffind", "memory.sqlite3")


def test_no_memory_variable() -> None:
    assert memory_disabled({"FFIND_NO_MEMORY": "1"})
    assert not memory_disabled({"FFIND_NO_MEMORY": "0"})
    assert not memory_disabled({})


def test_record_creates_owner_only_file_and_folder(tmp_path: Path) -> None:
    db = tmp_path / "state" / "ffind" / "memory.sqlite3"
    with Memory(db) as mem:
        assert mem.record(tmp_path / "a.py", when=T0)
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


def test_weights_decay_with_the_half_life(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    with Memory(tmp_path / "m.db") as mem:
        mem.record(root / "a.py", when=T0)
        mem.record(root / "a.py", when=T0 + HALF_LIFE)  # the first visit is worth 0.5 now
        mem.record(root / "src" / "b.py", when=T0 + HALF_LIFE)
        w = mem.weights(root, now=T0 + 2 * HALF_LIFE)
    assert w["a.py"][0] == pytest.approx(0.75)
    assert w["src/b.py"][0] == pytest.approx(0.5)
    assert set(w) == {"a.py", "src/b.py"}


def test_visits_out_of_order_count_the_same(tmp_path: Path) -> None:
    root = tmp_path / "r"
    with Memory(tmp_path / "a.db") as a, Memory(tmp_path / "b.db") as b:
        for t in (T0, T0 + 3 * DAY, T0 + 10 * DAY):
            a.record(root / "x", when=t)
        for t in (T0 + 10 * DAY, T0, T0 + 3 * DAY):
            b.record(root / "x", when=t)
        now = T0 + 11 * DAY
        assert a.weights(root, now)["x"] == pytest.approx(b.weights(root, now)["x"])


def test_weights_only_under_root_and_not_from_the_future(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as mem:
        mem.record("/r/a", when=T0)
        mem.record("/r2/b", when=T0)  # a sibling whose name starts like the root
        mem.record("/r/later", when=T0 + DAY)
        assert set(mem.weights("/r", now=T0 + 1)) == {"a"}
        assert set(mem.weights("/r", now=T0 + DAY)) == {"a", "later"}


def test_relative_path_is_resolved_against_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Memory(tmp_path / "m.db") as mem:
        mem.record("sub/f.txt", when=T0)
        assert set(mem.weights(tmp_path, now=T0)) == {"sub/f.txt"}


def test_record_rejects_wrong_types(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as mem:
        with pytest.raises(TypeError, match="path"):
            mem.record(None)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="when"):
            mem.record("/a", when=float("nan"))


def test_forget_removes_a_path_and_everything_under_it(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as mem:
        for p in ("/r/src/a", "/r/src/b/c", "/r/srcx", "/r/other"):
            mem.record(p, when=T0)
        assert mem.forget("/r/src") == 2
        assert set(mem.weights("/r", now=T0)) == {"srcx", "other"}
        assert mem.forget("/r/other") == 1
        assert set(mem.weights("/r", now=T0)) == {"srcx"}


def test_prune_forgets_what_a_complete_walk_no_longer_finds(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as mem:
        for p in ("/r/a", "/r/b", "/elsewhere/c"):
            mem.record(p, when=T0)
        assert mem.prune("/r", ["a", "new"]) == 1
        assert set(mem.weights("/r", now=T0)) == {"a"}
        assert set(mem.weights("/elsewhere", now=T0)) == {"c"}


def test_old_visits_age_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_mod, "AGE_OUT_EVERY", 4)
    with Memory(tmp_path / "m.db") as mem:
        mem.record("/r/old", when=T0)
        for i in range(4):  # a year later
            mem.record(f"/r/new{i}", when=T0 + 365 * DAY)
        assert set(mem.weights("/r", now=T0 + 365 * DAY)) == {f"new{i}" for i in range(4)}


def test_the_store_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_mod, "AGE_OUT_EVERY", 50)
    monkeypatch.setattr(memory_mod, "MAX_ROWS", 20)
    with Memory(tmp_path / "m.db") as mem:
        for i in range(100):
            mem.record(f"/r/f{i:03}", when=T0 + i)
        kept = mem.weights("/r", now=T0 + 100)
    assert len(kept) <= 20 + 49  # aged out every 50 visits
    assert "f099" in kept and "f000" not in kept


def test_a_damaged_file_is_moved_aside_and_a_new_memory_started(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    db.write_bytes(b"this is not a database" * 100)
    with Memory(db) as mem:
        assert mem.record("/r/a", when=T0)
        assert mem.warning is not None and "moved it to" in mem.warning
        assert set(mem.weights("/r", now=T0)) == {"a"}
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")


def test_a_newer_database_is_left_alone_and_memory_is_off(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 99")
    con.close()
    before = db.read_bytes()
    with Memory(db) as mem:
        assert not mem.record("/r/a", when=T0)
        assert mem.weights("/r") == {}
        assert mem.warning is not None and "newer ffind" in mem.warning
    assert db.read_bytes() == before


def test_an_unwritable_state_folder_means_no_memory_and_one_warning(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with Memory(blocker / "sub" / "m.db") as mem:  # a folder cannot be made under a file
        assert not mem.record("/r/a")
        assert mem.weights("/r") == {}
        assert mem.warning is not None and "cannot create" in mem.warning


def test_a_read_only_database_still_ranks(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db) as mem:
        mem.record("/r/a", when=T0)
    con = sqlite3.connect(db)  # leave it in rollback mode, as a copy from elsewhere would be
    con.execute("PRAGMA journal_mode = DELETE")
    con.close()
    db.chmod(0o400)
    try:
        with Memory(db) as mem:
            if os.geteuid() != 0:  # root writes a 0400 file anyway
                assert not mem.record("/r/b")
            assert "a" in mem.weights("/r", now=T0)
    finally:
        db.chmod(0o600)


WRITER = """
import sys
from ffind.state.memory import Memory
mem = Memory(sys.argv[1])
for i in range(int(sys.argv[3])):
    assert mem.record(f"/r/{sys.argv[2]}/{i % 7}", when=1_700_000_000 + i)
"""


def test_concurrent_writers_lose_no_visit(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    n = 60
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), f"w{k}", str(n)], env=env)
             for k in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    with Memory(db) as mem:
        w = mem.weights("/r", now=1_700_000_000 + n)
    assert len(w) == 4 * 7
    for k in range(4):  # every visit counted: the decay over a minute is negligible
        total = sum(w[f"w{k}/{j}"][0] for j in range(7))
        assert total == pytest.approx(n, rel=1e-3)


def test_forget_and_prune_on_a_locked_store_warn_instead_of_raising(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(db) as mem:
        mem.record("/r/a", when=T0)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with Memory(db) as mem:
            assert mem.forget("/r/a") == 0
            assert mem.warning is not None and "cannot" in mem.warning
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Memory(db) as mem:
        assert set(mem.weights("/r", now=T0)) == {"a"}


def test_a_root_whose_name_is_not_utf8_has_no_rows(tmp_path: Path) -> None:
    # (the store holds UTF-8 text: nothing can be under such a root; a search there ranks
    # without the memory instead of failing)
    mem = Memory(tmp_path / "m.sqlite3")
    assert mem.record(tmp_path / "a.txt")
    root = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"\xffroot"))
    assert mem.weights(root) == {}
    assert mem.prune(root, []) == 0


def test_a_memory_others_may_write_is_not_used(tmp_path: Path) -> None:
    """Another user could plant visits (or a link) there: memory off, one warning, and the
    file left as it is."""
    folder = tmp_path / "state"
    with Memory(folder / "m.db") as mem:
        assert mem.record("/r/a", when=T0)
    folder.chmod(0o777)
    with Memory(folder / "m.db") as mem:
        assert mem.weights("/r", now=T0) == {} and not mem.record("/r/b", when=T0)
        assert mem.warning is not None and "not this user's own folder" in mem.warning
    folder.chmod(0o700)
    (folder / "m.db").chmod(0o666)
    with Memory(folder / "m.db") as mem:
        assert mem.weights("/r", now=T0) == {}
        assert mem.warning is not None and "not this user's own file" in mem.warning
    (folder / "m.db").chmod(0o600)
    link = folder / "link.db"
    link.symlink_to(folder / "m.db")
    with Memory(link) as mem:
        assert mem.weights("/r", now=T0) == {}
        assert mem.warning is not None and "not this user's own file" in mem.warning
    with Memory(folder / "m.db") as mem:
        assert set(mem.weights("/r", now=T0)) == {"a"}


@pytest.mark.parametrize("damage", ["truncate", "garbage", "replace"])
def test_a_memory_damaged_while_another_holds_it_open_is_recovered(tmp_path: Path,
                                                                   damage: str) -> None:
    """A resident server holds the file open between searches: another process can still
    repair it (no lock held between queries), and the holder then reads the new file."""
    db = tmp_path / "m.db"
    holder = Memory(db)
    assert holder.record("/r/a", when=T0)
    assert set(holder.weights("/r", now=T0)) == {"a"}
    if damage == "truncate":
        db.write_bytes(b"")
    elif damage == "garbage":
        db.write_bytes(b"this is not a database" * 300)
    else:  # another memory put in its place
        other = tmp_path / "other.db"
        with Memory(other) as mem:
            mem.record("/r/c", when=T0)
        other.replace(db)
    with Memory(db) as other_process:
        assert other_process.record("/r/b", when=T0), other_process.warning
        assert "locked" not in (other_process.warning or "")
    expected = {"b"} if damage != "replace" else {"b", "c"}
    assert set(holder.weights("/r", now=T0)) == expected
    assert holder.record("/r/d", when=T0) and set(holder.weights("/r", now=T0)) == expected | {"d"}
    holder.close()


# --- files opened together ---------------------------------------------------------------------

V1_FILE = Path(__file__).parent / "data" / "memory-v1.sqlite3"
"""A memory written by ffind's schema 1 (visits only): ``/proj/src/a.py`` at T0 and T0+200,
``/proj/src/b.py`` at T0+100, ``/proj/tests/test_a.py`` at T0+300, ``/other/x.go`` at T0+400."""


def test_a_memory_of_schema_1_keeps_every_visit_and_gains_pairs(tmp_path: Path) -> None:
    db = tmp_path / "state" / "memory.sqlite3"
    db.parent.mkdir(mode=0o700)
    db.write_bytes(V1_FILE.read_bytes())
    db.chmod(0o600)
    with Memory(db) as mem:
        w = mem.weights("/proj", now=T0 + 300)
        assert w == {"src/a.py": pytest.approx((1.9997708, 1.9872153)),
                     "src/b.py": pytest.approx((0.9998854, 0.9936025)),
                     "tests/test_a.py": (1.0, 1.0)}
        assert set(mem.weights("/other", now=T0 + 400)) == {"x.go"}
        assert mem.together("/proj", now=T0 + 300) == {}  # no pairs were kept then
        assert mem.record("/proj/src/b.py", when=T0 + 310)
        assert mem.together("/proj", now=T0 + 310) == {}  # every partner is open now
        assert mem.record("/proj/src/c.py", when=T0 + 900)
        assert mem.together("/proj", now=T0 + 900) == {}
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA user_version").fetchone()[0] == memory_mod.SCHEMA_VERSION == 2
        assert con.execute("SELECT count(*) FROM visits").fetchone()[0] == 5
        pairs = set(con.execute("SELECT path, partner FROM pairs"))
    finally:
        con.close()
    # b at T0+310 was opened within the window of test_a (T0+300), a (T0+200) and x (T0+400
    # is in its future: not before it); c at T0+900 is alone
    assert pairs == {("/proj/src/b.py", "/proj/tests/test_a.py"),
                     ("/proj/tests/test_a.py", "/proj/src/b.py"),
                     ("/proj/src/b.py", "/proj/src/a.py"), ("/proj/src/a.py", "/proj/src/b.py")}


def test_a_read_only_memory_of_schema_1_still_ranks(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    db.write_bytes(V1_FILE.read_bytes())
    db.chmod(0o400)
    try:
        with Memory(db) as mem:
            assert set(mem.weights("/proj", now=T0 + 300)) == {"src/a.py", "src/b.py",
                                                               "tests/test_a.py"}
            assert mem.together("/proj", now=T0 + 300) == {}
            assert mem.warning is None
    finally:
        db.chmod(0o600)


def test_the_files_opened_with_the_latest_ones_share_by_their_counts(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as mem:
        for when in (T0, T0 + DAY):  # a task: main.py with its test, twice
            mem.record("/r/src/main.py", when=when)
            mem.record("/r/tests/test_main.py", when=when + 60)
        mem.record("/r/src/main.py", when=T0 + 2 * DAY)  # and once with the docs
        mem.record("/r/docs/main.md", when=T0 + 2 * DAY + 60)
        mem.record("/r/src/util.py", when=T0 + 2 * DAY + 3600)  # later, alone
        now = T0 + 3 * DAY
        assert mem.together("/r", now=now) == {}  # nothing opened in the last five minutes
        mem.record("/r/src/main.py", when=now)
        got = mem.together("/r", now=now + 10)
        docs = 0.5 ** ((now + 10 - (T0 + 2 * DAY + 60)) / HALF_LIFE)
        tests = (1 + 0.5 ** (DAY / HALF_LIFE)) * 0.5 ** ((now + 10 - (T0 + DAY + 60)) / HALF_LIFE)
        assert got == {"tests/test_main.py": pytest.approx(tests / (tests + docs)),
                       "docs/main.md": pytest.approx(docs / (tests + docs))}
        assert mem.together("/elsewhere", now=now + 10) == {}


def test_a_visit_pairs_with_at_most_the_latest_few(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_mod, "TOGETHER_PARTNERS", 2)
    with Memory(tmp_path / "m.db") as mem:
        for i in range(5):
            mem.record(f"/r/f{i}", when=T0 + i)
    con = sqlite3.connect(tmp_path / "m.db")
    try:
        partners = [q for (q,) in con.execute(
            "SELECT partner FROM pairs WHERE path = '/r/f4' ORDER BY partner")]
    finally:
        con.close()
    assert partners == ["/r/f2", "/r/f3"]


def test_forgetting_and_pruning_drop_the_pairs_too(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db") as mem:
        for p in ("/r/a", "/r/b", "/r/c"):
            mem.record(p, when=T0)
        mem.record("/r/a", when=T0 + DAY)
        assert set(mem.together("/r", now=T0 + DAY)) == {"b", "c"}
        assert mem.forget("/r/b") == 1
        assert set(mem.together("/r", now=T0 + DAY)) == {"c"}
        assert mem.prune("/r", ["a"]) == 1
        assert mem.together("/r", now=T0 + DAY) == {}
    con = sqlite3.connect(tmp_path / "m.db")
    try:
        assert con.execute("SELECT count(*) FROM pairs").fetchone()[0] == 0
    finally:
        con.close()


def test_pairs_age_out_and_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_mod, "AGE_OUT_EVERY", 4)
    monkeypatch.setattr(memory_mod, "MAX_PAIRS", 6)
    with Memory(tmp_path / "m.db") as mem:
        mem.record("/r/old1", when=T0)
        mem.record("/r/old2", when=T0 + 1)
        for i in range(4):  # a year later; the fourth visit ages out (the fifth of the run)
            mem.record(f"/r/new{i}", when=T0 + 365 * DAY + i)
        mem.record("/r/new4", when=T0 + 365 * DAY + 4)
    con = sqlite3.connect(tmp_path / "m.db")
    try:
        pairs = set(con.execute("SELECT path, partner FROM pairs"))
    finally:
        con.close()
    assert not any("old" in p or "old" in q for p, q in pairs)
    assert len(pairs) <= 6 + 2 * memory_mod.TOGETHER_PARTNERS


def test_only_the_latest_files_partners_are_read(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(tmp_path / "m.db") as mem:
        mem.record("/r/x", when=T0)
        mem.record("/r/x_partner", when=T0 + 60)
        mem.record("/r/y", when=T0 + DAY)
        mem.record("/r/y_partner", when=T0 + DAY + 60)
        mem.record("/r/x", when=T0 + 2 * DAY)
        mem.record("/r/y", when=T0 + 2 * DAY + 1)  # the latest
        now = T0 + 2 * DAY + 2
        assert set(mem.together("/r", now=now)) == {"x_partner", "y_partner"}
        monkeypatch.setattr(memory_mod, "LATEST_FILES", 1)
        mem.record("/r/z", when=T0)  # (a write: what was read is read again)
        assert set(mem.together("/r", now=now)) == {"x", "y_partner"}  # y's partners only
