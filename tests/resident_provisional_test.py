"""The resident server's provisional answers (``client.ask(provisional=True)``, the picker's
first frame, issue 14): over the listing the server holds, without validating it, rows first
and their count in a second message, marked provisional; what the command and the library
ask stays validated.  (Beside ``resident_server_test.py``, whose fixtures it uses.)"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from resident_server_test import _armed, _threaded_server, _tree, resident

import ffind
from ffind.options import SearchOptions
from ffind.resident import client, protocol, server

__all__ = ["resident"]  # (the fixture, used by name)

OPTIONS = SearchOptions(limit=3, compute_indices=True)


def _paths(answer: client.Answer | None) -> list[str]:
    assert answer is not None
    return [m.path for m in answer.matches]


def test_a_provisional_answer_is_the_held_listings_rows_then_their_count(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with _threaded_server(root, budget=0) as srv:  # (no watches: no idle validation)
        exact = client.ask("main", str(root), OPTIONS, memory=False, count=False)
        assert exact is not None and not exact.provisional and exact.total == -1
        assert exact.scanned == 5  # (the listing: nothing hidden, build/ ignored)
        _armed(srv)  # (its hint started, no watch: nothing validates the listing until asked)
        (root / "src" / "main_new.py").write_text("x")
        rows: list[client.Answer] = []
        stale = client.ask("main", str(root), OPTIONS, memory=False, count=True,
                           provisional=True, on_rows=rows.append)
        assert stale is not None and stale.provisional
        assert _paths(stale) == _paths(exact) and stale.total == 3
        assert stale.scanned == 5, "not validated: the new file is not in it"
        (first,) = rows
        assert first.provisional and first.total == -1, "the rows, their count to come"
        assert _paths(first) == _paths(exact) and first.scanned == 5
        got = ffind.search("main", root, OPTIONS, cache=True)  # (the library: validated)
        assert srv.answered == 3
        assert got == ffind.search("main", root, OPTIONS) and got.total_match_count == 4
        now = client.ask("main", str(root), OPTIONS, memory=False, count=True,
                         provisional=True)
        assert now is not None and now.total == 4 and now.scanned == 6, "the listing held now"
        assert _paths(now) == [m.path for m in got.matches]


def test_a_provisional_first_request_validates_when_nothing_is_held(
        resident: Path, tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with _threaded_server(root):
        rows: list[client.Answer] = []
        got = client.ask("main", str(root), OPTIONS, memory=False, count=True,
                         provisional=True, on_rows=rows.append)
        cold = ffind.search("main", root, OPTIONS)
        assert got is not None and got.provisional and len(rows) == 1
        assert _paths(got) == [m.path for m in cold.matches]
        assert got.total == cold.total_match_count and got.scanned == 5


@pytest.mark.parametrize(("query", "count"), [("", True), ("main", False)])
def test_a_provisional_answer_comes_whole_when_nothing_is_left_to_count(
        resident: Path, tmp_path: Path, query: str, count: bool) -> None:
    """The empty query's count is the listing's size; without ``count``, none is sent."""
    root = _tree(tmp_path)
    with _threaded_server(root):
        found = client.where(str(root))
        assert found is not None
        path, key = found
        message = {"op": protocol.PROVISIONAL, "key": key, "root": str(root),
                   "cwd": str(tmp_path), "query": query,
                   "options": client.options_dict(OPTIONS), "memory": False, "count": count}
        seen: list[dict[str, object]] = []
        reply = client.request(path, message, then=seen.append)
        assert reply is not None and reply["ok"] is True and reply["provisional"] is True
        assert seen == [] and "follows" not in reply
        assert reply["total"] == (5 if count else -1)


def test_a_query_counted_over_the_same_index_has_its_count_with_its_rows(
        resident: Path, tmp_path: Path) -> None:
    """The server remembers the counts of the queries it counted over the index it holds
    (``Held.counts``): the same query's count comes at once, until the index changes."""
    root = _tree(tmp_path)
    with _threaded_server(root, budget=0) as srv:
        rows: list[client.Answer] = []

        def ask(query: str) -> client.Answer:
            rows.clear()
            got = client.ask(query, str(root), OPTIONS, memory=False, count=True,
                             provisional=True, on_rows=rows.append)
            assert got is not None
            return got

        assert ask("main").total == 3 and len(rows) == 1, "rows, then the count"
        again = ask("main")
        assert again.total == 3 and rows == [], "the count with the rows"
        assert _paths(again) == [m.path for m in ffind.search("main", root, OPTIONS).matches]
        _armed(srv)
        (root / "src" / "main_new.py").write_text("x")
        assert ask("main").total == 3 and rows == [], "the held index: not validated"
        got = ffind.search("main", root, OPTIONS, cache=True)  # (validated: a new index)
        assert got.total_match_count == 4
        assert got == ffind.search("main", root, OPTIONS)
        assert ask("main").total == 4 and rows == [], "counted by that search"
        other = ask("io")
        assert len(rows) == 1, "another query: counted anew"
        assert other.total == ffind.search("io", root, OPTIONS).total_match_count


def test_a_new_querys_count_comes_from_the_count_table_built_while_idle(
        resident: Path, tmp_path: Path) -> None:
    """Once the server has built its index's count table while idle
    (``ffind.engine.counting``), a new query's count is the table's, equal to a search's; a
    new index drops it (the count as before) until the next is built."""
    root = _tree(tmp_path)
    with _threaded_server(root, budget=0) as srv:
        srv.table_from = 0  # (every index gets one: the tree is small)

        def ask(query: str) -> int:
            got = client.ask(query, str(root), OPTIONS, memory=False, count=True,
                             provisional=True)
            assert got is not None
            return got.total

        def tabled() -> server.Held:
            end = time.monotonic() + 10
            while True:
                helds = [h for h in srv.held.values() if h.index is not None]
                if helds and srv.untabled() is None and helds[0].table is not None:
                    return helds[0]
                assert time.monotonic() < end, "no count table was built"
                time.sleep(0.01)

        ask("main")
        held = tabled()
        table = held.table
        assert table is not None and table.ready and table.store is held.index.store
        counted: list[str] = []
        real = table.count
        table.count = lambda q: counted.append(q) or real(q)  # type: ignore[method-assign]
        for query in ["io", "mian", "src !io", "READ", "^src"]:
            assert ask(query) == ffind.search(query, root, OPTIONS).total_match_count, query
        # (a lone term of 4+ characters: the table, which saves the typo pass; the others,
        # whose sets the ranking computed over this small tree, have ``len`` at once)
        assert {"mian", "READ"} <= set(counted)
        (root / "src" / "io_new.py").write_text("x")
        got = ffind.search("io", root, OPTIONS, cache=True)  # (validated: a new index)
        assert got.total_match_count == ffind.search("io", root, OPTIONS).total_match_count
        assert ask("util") == ffind.search("util", root, OPTIONS).total_match_count
        assert tabled().table is not table, "the new index's own table"


def test_a_count_table_that_fails_to_build_is_let_go(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the table's build (not the tree's doing): the server counts as before and
    builds no more tables."""
    from ffind.engine import counting

    def broken(self: counting.CountTable, step: int = 1) -> Iterator[None]:
        yield
        raise RuntimeError("a bug")

    monkeypatch.setattr(counting.CountTable, "build", broken)
    root = os.path.realpath(_tree(tmp_path))
    srv = server.Server(root, os.path.join(root, "unused.sock"), "", 60)
    srv.table_from = 0
    try:
        srv.found(root, root, "main", OPTIONS, False, True)
        while (held := srv.untabled()) is not None:
            srv.tabulate(held)
        assert srv.table_from == sys.maxsize
        assert all(h.table is None for h in srv.held.values())
        tally = srv.found(root, root, "io", OPTIONS, False, False, validate=False,
                          later=True)[5]
        assert tally is not None
        assert tally() == ffind.search("io", root, OPTIONS).total_match_count
    finally:
        srv.close()


def test_the_count_table_is_built_before_the_watches(
        resident: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's idle work builds a large index's count table (~1.2 s at 1M paths) before
    it adds the watches and marks (seconds more): a picker opened soon after the first answer
    gets its count from the table."""
    root = _tree(tmp_path)
    tabled_first: list[bool] = []
    real_arm = server.Server.arm

    def arm(self: server.Server, held: server.Held) -> None:
        tabled_first.append(held.table is not None and held.table.ready)
        real_arm(self, held)

    monkeypatch.setattr(server.Server, "arm", arm)
    with _threaded_server(root) as srv:
        srv.table_from = 0  # (every index gets one: the tree is small)
        got = client.ask("main", str(root), OPTIONS, memory=False, count=True,
                         provisional=True)
        assert got is not None
        end = time.monotonic() + 10
        while not tabled_first:
            assert time.monotonic() < end, "no watch was added while idle"
            time.sleep(0.01)
    assert tabled_first[0], "the watches came before the count table"


def test_a_provisional_count_is_remembered_when_the_client_has_gone(
        resident: Path, tmp_path: Path) -> None:
    """A picker that quits before the server's answer (its session was faster) leaves the
    rows undeliverable: the server still counts the query and remembers it, so the next
    picker opened on it has its count at once."""
    import socket

    from ffind import __version__

    root = os.path.realpath(_tree(tmp_path))
    srv = server.Server(root, os.path.join(root, "unused.sock"), "key", 60)
    srv.found(root, root, "main", OPTIONS, False, True)  # (an index held)
    ours, theirs = socket.socketpair()
    ours.sendall(protocol.encode({
        "op": protocol.PROVISIONAL, "key": "key", "root": root, "cwd": root, "query": "io",
        "options": client.options_dict(OPTIONS), "memory": False, "count": True,
        "v": __version__}))
    ours.close()  # (gone before the answer: its rows cannot be sent)
    with theirs:
        srv.handle(theirs)
    counted = [h.counts.get("io") for h in srv.held.values() if h.index is not None]
    assert counted == [ffind.search("io", root, OPTIONS).total_match_count]
