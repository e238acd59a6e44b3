"""The MCP server: memsite's operations as MCP tools and resources, a thin layer over `Memory`.

Every tool call opens a fresh `Memory` on the same store, so it sees what other processes wrote
since the last call; `MemsiteError` becomes the SDK's `ToolError` (resources: `ResourceError`)
in one place each, so the client reads the service's actionable message and the server keeps
serving. A suspected secret is refused and cannot be overridden here: that is a person's
decision, made with the CLI. Imported only by `memsite mcp` (the SDK is heavy).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import ToolAnnotations

from memsite.core.text import one_line, printable
from memsite.core.validate import Limits
from memsite.errors import EntryNotFoundError, MemsiteError, SecretFoundError
from memsite.mcp.catalog import DESCRIPTIONS, TOOLS
from memsite.mcp.instructions import build_instructions
from memsite.mcp.params import (
    LIST_LIMIT,
    Agent,
    Anchors,
    AsOf,
    Category,
    CategoryFilter,
    Confidence,
    Content,
    Daily,
    EntryId,
    Evidence,
    Expand,
    Ids,
    IncludeAll,
    Key,
    LinkReason,
    LinkType,
    ListLimit,
    LogKind,
    LogText,
    Names,
    OtherId,
    Query,
    Reason,
    Repin,
    RetireReason,
    SearchLimit,
    SearchMode,
    TagFilter,
    ValidFrom,
    ValidTo,
)
from memsite.mcp.shapes import (
    DailyHit,
    DeleteResult,
    EntryDetail,
    EntryList,
    EntryOut,
    LogResult,
    ReconcileResult,
    RelateResult,
    RetireResult,
    SearchResult,
    VerifyResult,
    WriteResult,
)
from memsite.mcp.words import argument_errors, in_agent_words
from memsite.memory import Memory, session_name
from memsite.version import __version__

SECRET_HINT = (
    "; memsite does not accept this over MCP: if it is a false positive, ask a person to review "
    'it and record it with `memsite add "..." -c CATEGORY --allow-secret`'
)

Transport = Literal["stdio", "http"]


@contextmanager
def _tool_errors() -> Iterator[None]:
    """The one place where service errors become MCP tool errors (isError results), in the
    agent's words: its tools, not shell commands (``words.in_agent_words``)."""
    try:
        yield
    except SecretFoundError as exc:
        raise ToolError(in_agent_words(str(exc)) + SECRET_HINT) from None
    except MemsiteError as exc:
        raise ToolError(in_agent_words(str(exc))) from None


class _Server(MCPServer[Any]):
    """`MCPServer` whose failed calls answer one plain line: the SDK prefixes every tool error
    with "Error executing tool NAME:" and reports bad arguments as pydantic's multi-line
    dump with a documentation URL; an agent is told what is wrong and what the tool takes."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        from pydantic import ValidationError

        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                takes = await self._arguments_of(name)
                raise ToolError(argument_errors(cause.errors(), name, takes)) from None
            if name not in TOOLS:
                raise ToolError(f"no tool {name!r}: the tools are {', '.join(TOOLS)}") from None
            if isinstance(cause, ToolError) and type(exc) is ToolError:
                raise ToolError(str(cause)) from None
            raise

    async def _arguments_of(self, name: str) -> list[str]:
        for tool in await self.list_tools():
            if tool.name == name:
                return list(tool.input_schema.get("properties", {}))
        return []


def _tool(
    server: MCPServer[Any], annotations: ToolAnnotations, **fill: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a tool under its function's name with its description from ``catalog``."""

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        described = DESCRIPTIONS[function.__name__].format(**fill)
        return server.tool(annotations=annotations, description=described)(function)

    return register


@contextmanager
def _resource_errors() -> Iterator[None]:
    try:
        yield
    except EntryNotFoundError as exc:
        raise ResourceNotFoundError(in_agent_words(str(exc))) from None
    except MemsiteError as exc:
        raise ResourceError(in_agent_words(str(exc))) from None


class _Session:
    """The opened store; a fresh `Memory` per call so other writers' entries are seen. The
    session's name is $MEMSITE_SESSION, else one drawn for this connection."""

    def __init__(self, memory: Memory) -> None:
        # Anchor paths are relative to the project root over MCP (the tool says so).
        self.first = memory.reopen(cwd=memory.store.project_root)
        self.name = session_name(connection=True)

    def memory(self) -> Memory:
        return self.first.reopen()


def client_name(ctx: Context | None, limits: Limits) -> str | None:
    """The name the client gave in the MCP handshake (clientInfo.name), made fit to record:
    one printable line without hidden characters within the agent-name limit; None when it
    gave none."""
    try:
        params = ctx.session.client_params if ctx is not None else None
    except (AttributeError, LookupError, ValueError):  # no request context
        return None
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    if not isinstance(name, str):
        return None
    from memsite.core.hidden import strip_hidden

    shown = one_line(printable(strip_hidden(name)))[: limits.agent_max].strip()
    return shown or None


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else value


_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_ADDITIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
_APPENDING = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
_DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)


def _write_tools(server: MCPServer[Any], session: _Session, categories: str) -> None:
    @_tool(server, _ADDITIVE, categories=categories)
    def memory_write(
        content: Content,
        category: Category,
        tags: Names = None,
        supersedes: Ids = None,
        reason: Reason = None,
        confidence: Confidence = None,
        key: Key = None,
        agent: Agent = None,
        anchors: Anchors = None,
        valid_from: ValidFrom = None,
        valid_to: ValidTo = None,
        ctx: Context | None = None,
    ) -> WriteResult:
        with _tool_errors():
            memory = session.memory()
            answer = memory.add(
                content,
                category,
                tags=_as_list(tags),
                supersedes=_as_list(supersedes),
                reason=reason,
                confidence=confidence,
                agent=_agent(agent, ctx, memory),
                key=key,
                anchors=_as_list(anchors),
                valid_from=valid_from,
                valid_to=valid_to,
            )
        answer["warnings"] = [in_agent_words(said) for said in answer.get("warnings", [])]
        return cast(WriteResult, answer)

    @_tool(server, _APPENDING)
    def memory_log(text: LogText, kind: LogKind = "note") -> LogResult:
        with _tool_errors():
            answer = session.memory().log(text, session.name, kind=kind)
        return cast(LogResult, answer)


def _record_tools(server: MCPServer[Any], session: _Session) -> None:
    """Tools that write records about facts (and delete an entry)."""

    @_tool(server, _APPENDING)
    def memory_verify(
        id: EntryId,
        evidence: Evidence = None,
        repin: Repin = False,
        agent: Agent = None,
        ctx: Context | None = None,
    ) -> VerifyResult:
        with _tool_errors():
            memory = session.memory()
            answer = memory.verify(id, evidence, repin=repin, agent=_agent(agent, ctx, memory))
        return cast(VerifyResult, answer)

    @_tool(server, _ADDITIVE)
    def memory_retire(
        id: EntryId, reason: RetireReason, agent: Agent = None, ctx: Context | None = None
    ) -> RetireResult:
        with _tool_errors():
            memory = session.memory()
            answer = memory.retire(id, reason, agent=_agent(agent, ctx, memory))
        return cast(RetireResult, answer)

    @_tool(server, _ADDITIVE)
    def memory_relate(
        id: EntryId,
        other: OtherId,
        type: LinkType,
        reason: LinkReason = None,
        agent: Agent = None,
        ctx: Context | None = None,
    ) -> RelateResult:
        with _tool_errors():
            memory = session.memory()
            answer = memory.relate(id, other, type, reason=reason, agent=_agent(agent, ctx, memory))
        return cast(RelateResult, answer)

    @_tool(server, _DESTRUCTIVE)
    def memory_delete(id: EntryId) -> DeleteResult:
        with _tool_errors():
            return cast(DeleteResult, session.memory().delete(id))


def _agent(agent: str | None, ctx: Context | None, memory: Memory) -> str | None:
    if agent is not None:
        return agent
    return os.environ.get("MEMSITE_AGENT") or client_name(ctx, memory.config.limits)


def _shown(value: Any) -> Any:
    """What an agent is given: invisible and direction-changing characters removed from
    every string (they can carry instructions no reviewer sees; ``core.hidden``)."""
    from memsite.core.hidden import strip_hidden
    from memsite.core.text import map_strings

    return map_strings(value, strip_hidden)


def _read_tools(server: MCPServer[Any], session: _Session) -> None:
    @_tool(server, _READ_ONLY)
    def memory_read(id: EntryId, as_of: AsOf = None) -> EntryDetail:
        with _tool_errors():
            memory = _past(session.memory(), as_of)
            return cast(EntryDetail, _dated(memory, _shown(memory.read(id))))

    @_tool(server, _READ_ONLY)
    def memory_reconcile() -> ReconcileResult:
        with _tool_errors():
            return cast(ReconcileResult, session.memory().reconcile())

    @_tool(server, _READ_ONLY)
    def memory_search(
        query: Query,
        category: CategoryFilter = None,
        limit: SearchLimit = 20,
        include_all: IncludeAll = False,
        daily: Daily = False,
        expand: Expand = False,
        mode: SearchMode = "auto",
        as_of: AsOf = None,
    ) -> SearchResult:
        with _tool_errors():
            memory = _past(session.memory(), as_of)
            rows = memory.search(
                query,
                category=category,
                limit=limit,
                include_all=include_all,
                daily=daily,
                expand=expand,
                mode=mode,
            )
        entries = cast(list[EntryOut | DailyHit], _shown(rows))
        return cast(SearchResult, _dated(memory, {"entries": entries}))

    @_tool(server, _READ_ONLY)
    def memory_list(
        category: CategoryFilter = None,
        tag: TagFilter = None,
        include_all: IncludeAll = False,
        limit: ListLimit = LIST_LIMIT,
        as_of: AsOf = None,
    ) -> EntryList:
        with _tool_errors():
            memory = _past(session.memory(), as_of)
            rows = memory.list_entries(category, tag, include_all, limit)
        entries = cast(list[EntryOut], _shown(rows))
        return cast(EntryList, _dated(memory, {"entries": entries}))


def _past(memory: Memory, as_of: str | None) -> Memory:
    return memory if as_of is None else memory.as_of(as_of)


def _dated(memory: Memory, answer: dict[str, Any]) -> dict[str, Any]:
    """An answer of a past state says which one it is (``as_of``)."""
    return answer if memory.point is None else {**answer, "as_of": memory.point.json()}


def _resources(server: MCPServer[Any], session: _Session) -> None:
    @server.resource(
        "memsite://index",
        name="index",
        title="Project memory index (index.md)",
        description="The token-budgeted summary of the memory, rebuilt first when stale.",
        mime_type="text/markdown",
    )
    def index() -> str:
        with _resource_errors():
            return session.memory().context()

    @server.resource(
        "memsite://entries/{id}",
        name="entry",
        title="One memory entry",
        description="An entry (JSON) with its status and supersession chain.",
        mime_type="application/json",
    )
    def entry(id: str) -> str:
        with _resource_errors():
            row = _shown(session.memory().read(id))
        return json.dumps(row, indent=2, ensure_ascii=False) + "\n"


def _without_prompts(server: MCPServer[Any]) -> None:
    """memsite has no prompts, so it does not advertise the capability: the SDK's low-level
    server advertises one for each request kind it has a handler for, and `MCPServer` always
    registers prompts/list and prompts/get (tests/mcp/test_server.py checks the answer)."""
    handlers = server._lowlevel_server._request_handlers  # no public way to drop them
    for method in ("prompts/list", "prompts/get"):
        handlers.pop(method, None)


def build_server(memory: Memory) -> MCPServer[Any]:
    """An `MCPServer` serving the store: its tools, the index and one resource per entry.
    Builds no views: the instructions carry the index only when it is fresh (``instructions``),
    so a server starting on a stale store answers `initialize` before any store work."""
    session = _Session(memory)
    first = session.memory()
    server = _Server(
        "memsite",
        title="Project memory (memsite)",
        version=__version__,
        instructions=build_instructions(first),
        log_level="WARNING",
    )
    _without_prompts(server)
    _write_tools(server, session, ", ".join(first.config.categories))
    _record_tools(server, session)
    _read_tools(server, session)
    _resources(server, session)
    return server


def serve(
    memory: Memory,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
) -> None:
    """Run the server until the client disconnects (stdio) or the process is stopped (http).
    Over HTTP every request passes the `Gate` (Host, Origin, and ``token`` unless None)."""
    server = build_server(memory)
    if transport == "stdio":
        server.run("stdio")
        return
    import socket

    import uvicorn

    from memsite.core.hosts import served
    from memsite.mcp.http import Gate

    # What MCPServer.run("streamable-http") does, with the gate in front of the app.
    app = server.streamable_http_app(host=host)
    gate = Gate(app, served(host, port, socket.gethostname()), token)
    uvicorn.Server(uvicorn.Config(gate, host=host, port=port, log_level="warning")).run()
