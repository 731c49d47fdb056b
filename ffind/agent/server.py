"""``ffind mcp``: the agent tools served over MCP (stdio), with the walks they search cached.

One walk per searched folder (``CachedTree``, at most ``ToolServer.MAX_TREES`` idle); after
answering, a call starts a throttled background re-walk.  Client arguments are untrusted
(``path`` is confined to the root).  Ctrl-C ends the server with 130."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

from ffind.agent.schema import (
    FIND_FILES_DESCRIPTION,
    FIND_FILES_SCHEMA,
    GLOB_DESCRIPTION,
    GLOB_LIMIT,
    GLOB_SCHEMA,
    SERVER_INSTRUCTIONS,
    TOOL_LIMIT,
    check_arguments,
)
from ffind.agent.tool import (
    TreeSnapshot,
    cached_tool_build,
    cached_tool_walk,
    check_limit,
    glob_snapshot,
    resolve_dir,
    search_snapshot,
    tool_walk,
)
from ffind.errors import ExitCode, FfindError
from ffind.searching.catalog import servable_memory

if TYPE_CHECKING:
    from ffind.engine.index import VisitSource

REFRESH_INTERVAL = 2.0  # seconds after a re-walk ends before a call may start the next
REFRESH_DELAY = 0.05  # seconds a re-walk waits: the answer of the call that started it first


class CachedTree:
    """The walk of one folder: ``get()`` the last finished one, ``kick()`` a throttled re-walk
    (the same paths keep the old snapshot and its answers), ``close()`` cancels."""

    def __init__(
        self,
        directory: str,
        walker: Callable[[str, threading.Event], Iterable[list[str]]] = tool_walk,
        min_interval: float = REFRESH_INTERVAL,
    ) -> None:
        self.directory = directory
        self.min_interval = min_interval
        self.users = 0  # calls using this tree now (``ToolServer``'s lock)
        self._walker = walker
        self._lock = threading.Lock()
        self._first = threading.Lock()
        self._snap: TreeSnapshot | None = None
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._done_at = 0.0

    def ready(self) -> bool:
        """Whether a walk of the folder is indexed (``get()`` answers at once)."""
        return self._snap is not None

    def start(self) -> None:
        """Start the first walk in the background, unless one is under way or done."""
        with self._lock:
            if self._snap is not None or self._first.locked() or self._cancel.is_set():
                return

            def first() -> None:
                with contextlib.suppress(FfindError):
                    self.get()

            threading.Thread(target=first, name=f"ffind-first {self.directory}",
                             daemon=True).start()

    def get(self) -> TreeSnapshot:
        snap = self._snap
        if snap is None:
            with self._first:
                snap = self._snap
                if snap is None:
                    snap = self._walk(first=True)
                    if self._cancel.is_set():  # cut short: its paths are not the folder's
                        raise FfindError(f"the search of {self.directory} was cancelled")
                    self._snap = snap
                    self._done_at = time.monotonic()
        return snap

    def _walk(self, first: bool = False) -> TreeSnapshot:
        # A server answers many searches: numpy's import pays for itself.
        if first and self._walker is cached_tool_walk:
            # Only the first walk forks a validating child: forked from a process holding an
            # index, it would make the calls served meanwhile copy the pages they touch.
            return cached_tool_build(self.directory, self._cancel, numpy=True)
        return TreeSnapshot.build(self._walker(self.directory, self._cancel), numpy=True)

    def kick(self) -> None:
        """Start a background re-walk unless one is running or the last ended too recently."""
        with self._lock:
            if (self._cancel.is_set() or (self._thread is not None and self._thread.is_alive())
                    or time.monotonic() - self._done_at < self.min_interval):
                return
            self._thread = threading.Thread(
                target=self._refresh, name=f"ffind-refresh {self.directory}", daemon=True
            )
            self._thread.start()

    def _refresh(self) -> None:
        # Let the call that kicked us send its answer first: starting the walk forks worker
        # processes, and forking a process this size holds the interpreter for ~10 ms.
        if self._cancel.wait(REFRESH_DELAY):
            self._done_at = time.monotonic()
            return
        try:
            new = self._walk()
        except Exception:  # a vanished folder, say; keep serving the last walk
            return
        finally:
            self._done_at = time.monotonic()
        if self._cancel.is_set():
            return
        old = self._snap
        # The parallel walk's order varies from walk to walk: compare the sets.
        if old is None or len(new.paths) != len(old.paths) or set(new.paths) != set(old.paths):
            self._snap = new

    def wait_refresh(self, timeout: float | None = None) -> None:
        """Block until a running refresh has finished (tests and benchmarks)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def close(self, wait: float = 5.0) -> None:
        """Cancel the walks; wait up to ``wait`` seconds for a running refresh to end."""
        self._cancel.set()
        if wait > 0:
            self.wait_refresh(wait)


class ToolServer:
    """The state behind ``ffind mcp``: the root and one ``CachedTree`` per searched folder."""

    MAX_TREES = 8

    def __init__(
        self,
        root: str | os.PathLike[str],
        refresh_interval: float = REFRESH_INTERVAL,
        walker: Callable[[str, threading.Event], Iterable[list[str]]] = cached_tool_walk,
        memory: VisitSource | None = None,
    ) -> None:
        self.root = resolve_dir(root, None)
        self.memory = memory  # read to rank, never written: an agent's calls are not visits
        self.refresh_interval = refresh_interval
        self._walker = walker
        self._trees: dict[str, CachedTree] = {}
        self._lock = threading.Lock()

    def tree(self, path: str | None) -> CachedTree:
        """The cached tree of folder ``path`` (made if new), without counting a use."""
        with self.using(path) as tree:
            return tree

    @contextmanager
    def using(self, path: str | None) -> Iterator[CachedTree]:
        """The cached tree of ``path``, counted as in use (never dropped) inside the block."""
        directory = resolve_dir(self.root, path)
        with self._lock:
            tree = self._trees.pop(directory, None) or CachedTree(
                directory, self._walker, self.refresh_interval
            )
            self._trees[directory] = tree  # most recently used last
            tree.users += 1
        try:
            yield tree
        finally:
            with self._lock:
                tree.users -= 1
                dropped = self._trim()
            for old in dropped:
                old.close(wait=0)

    def _trim(self) -> list[CachedTree]:
        """Forget the least recently used idle trees beyond ``MAX_TREES`` (under the lock)."""
        idle = [d for d, t in self._trees.items() if t.users == 0]
        excess = len(self._trees) - self.MAX_TREES
        return [self._trees.pop(d) for d in idle[:max(excess, 0)]]

    def _resident(self, tree: CachedTree, tool: str, query: str, limit: int) -> str | None:
        """Before the folder's first walk is indexed: its resident server's answer, if one runs
        (the first walk then starts in the background); None: answer here."""
        if tree.ready() or self._walker is not cached_tool_walk or not servable_memory(self.memory):
            return None
        from ffind.resident.client import ask_tool

        text = ask_tool(tool, tree.directory, query, limit, memory=self.memory is not None)
        if text is not None:
            tree.start()
        return text

    def _resident_runs(self) -> bool:
        """Whether the root's resident server runs and may answer the first calls."""
        from ffind.resident.client import answering

        return (self._walker is cached_tool_walk and servable_memory(self.memory)
                and answering(self.root))

    def find_files(self, query: str, path: str | None = None, limit: int = TOOL_LIMIT) -> str:
        check_limit(limit)
        with self.using(path) as tree:
            text = self._resident(tree, "find_files", query, limit)
            if text is not None:
                return text
            try:
                return search_snapshot(tree.get(), query, limit, memory=self.memory,
                                       root=tree.directory)
            finally:
                tree.kick()  # after the answer, so the re-walk does not slow this call

    def glob(self, pattern: str, path: str | None = None) -> str:
        with self.using(path) as tree:
            text = self._resident(tree, "glob", pattern, GLOB_LIMIT)
            if text is not None:
                return text
            try:
                snap = tree.get()
                return glob_snapshot(snap.paths, tree.directory, pattern, GLOB_LIMIT,
                                     snap.secret_paths)
            finally:
                tree.kick()

    def warm(self) -> threading.Thread:
        """Walk the root in the background now, for the agent's first call."""

        def walk_root() -> None:
            if self._resident_runs():
                return  # (the first call is answered by it; that call starts the walk)
            try:
                with self.using(None) as tree:
                    tree.get()
            except FfindError:  # the server closed under the walk: nobody is waiting
                return
            if self._walker is cached_tool_walk:
                _start_resident(self.root)

        thread = threading.Thread(target=walk_root, name="ffind-warm", daemon=True)
        thread.start()
        return thread

    def close(self, wait: float = 5.0) -> None:
        with self._lock:
            trees = list(self._trees.values())
            self._trees.clear()
        for t in trees:
            t.close(wait)


def _start_resident(root: str) -> None:
    """Start ``root``'s resident server unless one runs (reaped in a thread once it exits)."""
    from ffind.resident import client

    if client.answering(root, create=True):
        return
    pid = client.start(root, tied=True)  # (it exits with the MCP server)
    if pid is not None:
        threading.Thread(target=_reap, args=(pid,), name="ffind-reap", daemon=True).start()


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


# --- the MCP server ----------------------------------------------------------------------------


def build_server(state: ToolServer) -> Any:
    """The ``MCPServer`` (mcp SDK 2.x) with the ``find_files`` and ``glob`` tools."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools.base import Tool
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
    from mcp_types import ToolAnnotations
    from pydantic import ValidationError

    from ffind import __version__

    def find_files(query: str, path: str | None = None, limit: int = TOOL_LIMIT) -> str:
        try:
            return state.find_files(query, path, limit)
        except FfindError as e:
            raise ToolError(str(e)) from None

    def glob(pattern: str, path: str | None = None) -> str:
        try:
            return state.glob(pattern, path)
        except FfindError as e:
            raise ToolError(str(e)) from None

    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )

    class Checked(FuncMetadata):
        """The SDK's validation (from the signature, which turns ``"5"`` into 5 and drops
        unknown names) after ``check_arguments`` against the published schema."""

        published: dict[str, Any]

        def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
            try:
                check_arguments(self.published, arguments_to_validate)
            except FfindError as e:  # (the SDK passes a ValidationError's text to the client)
                raise ValidationError.from_exception_data("arguments", [{
                    "type": "value_error", "loc": (), "input": arguments_to_validate,
                    "ctx": {"error": ValueError(str(e))}}]) from None
            return super().validate_arguments(arguments_to_validate)

    def tool(fn: Callable[..., str], title: str, description: str,
             schema: dict[str, Any]) -> Tool:
        t = Tool.from_function(fn, title=title, description=description,
                               annotations=read_only, structured_output=False)
        checked = Checked(arg_model=t.fn_metadata.arg_model, published=schema)
        # Publish our hand-written schema (descriptions for the model, limit's range)
        return t.model_copy(update={"parameters": schema, "fn_metadata": checked})

    return MCPServer(
        "ffind",
        title="ffind: fuzzy file search",
        instructions=SERVER_INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        tools=[
            tool(find_files, "Find files by name", FIND_FILES_DESCRIPTION, FIND_FILES_SCHEMA),
            tool(glob, "Find files by glob pattern", GLOB_DESCRIPTION, GLOB_SCHEMA),
        ],
    )


def _parse(argv: list[str]) -> Any:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # one line, like the rest of the command
            raise FfindError(f"mcp: {message}")

    parser = Parser(
        prog="ffind mcp",
        description="Serve ffind's find_files and glob tools to an AI agent over MCP (stdio).",
    )
    parser.add_argument(
        "--root", default=None, metavar="DIR",
        help="project folder the tools may search (default: the working directory)",
    )
    parser.add_argument(
        "--no-memory", action="store_true",
        help="rank without the memory of opened files (also FFIND_NO_MEMORY=1)",
    )
    parser.add_argument(
        "--no-warm", action="store_true",
        help="do not walk the root at start-up (by default the walk starts at once, so the "
        "first call is fast)",
    )
    return parser.parse_args(argv)


def _exit_on_sigint(state: ToolServer) -> None:
    """Ctrl-C ends the server at once with 130 (the SDK's stdin thread would hold a
    KeyboardInterrupt until stdin closes); the walks are cancelled."""
    import signal

    def interrupted(signum: int, frame: object) -> None:
        state.close(wait=0)
        os._exit(ExitCode.INTERRUPTED)

    signal.signal(signal.SIGINT, interrupted)


def mcp_main(argv: list[str]) -> int:
    """``ffind mcp [--root DIR]``: serve the MCP tools over stdio; return the exit code."""
    args = _parse(argv)
    for name, stream in (("input", sys.stdin), ("output", sys.stdout)):
        if stream is None:
            raise FfindError(
                f"mcp: standard {name} is closed; the MCP server talks JSON-RPC over stdin and "
                "stdout (start it from an MCP client)"
            )
    memory = None
    if not args.no_memory:
        from ffind.state.memory import open_memory

        memory = open_memory()
    state = ToolServer(os.getcwd() if args.root is None else args.root, memory=memory)
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise FfindError(
            "the MCP server needs the mcp package (ffind's mcp extra): pip install 'mcp>=2'"
        ) from None
    server = build_server(state)
    _exit_on_sigint(state)
    if not args.no_warm:
        state.warm()
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    finally:
        state.close()
    return ExitCode.FOUND
