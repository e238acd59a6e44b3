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
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from memsite.core.text import one_line, printable
from memsite.core.validate import Limits
from memsite.errors import EntryNotFoundError, MemsiteError, SecretFoundError
from memsite.mcp.instructions import build_instructions
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
from memsite.memory import Memory, session_name
from memsite.version import __version__

LIST_LIMIT = 50
LIST_MAX = 10_000  # a bound the client is told (an unbounded limit crashed the listing)
WRITE_DOC = (
    "Record one durable project fact (a convention, an architecture fact, how to build/test/"
    "deploy, a decision and its reason). Categories: {categories}. Deduplicated: an identical "
    "active fact answers status 'duplicate' and writes nothing; near duplicates are listed. "
    "To change a fact, pass supersedes=[old id]. Text that looks like a credential is refused."
)
SECRET_HINT = (
    "; memsite does not accept this over MCP: if it is a false positive, ask a person to review "
    'it and record it with `memsite add "..." -c CATEGORY --allow-secret`'
)

Transport = Literal["stdio", "http"]


@contextmanager
def _tool_errors() -> Iterator[None]:
    """The one place where service errors become MCP tool errors (isError results)."""
    try:
        yield
    except SecretFoundError as exc:
        raise ToolError(str(exc) + SECRET_HINT) from None
    except MemsiteError as exc:
        raise ToolError(str(exc)) from None


@contextmanager
def _resource_errors() -> Iterator[None]:
    try:
        yield
    except EntryNotFoundError as exc:
        raise ResourceNotFoundError(str(exc)) from None
    except MemsiteError as exc:
        raise ResourceError(str(exc)) from None


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

EntryId = Annotated[
    str, Field(description="Full entry id (UUID) or a unique prefix of at least 4 hex characters.")
]
Content = Annotated[str, Field(description="The fact, one or two sentences.")]
Category = Annotated[str, Field(description="Category; the tool description lists them.")]
Names = Annotated[
    list[str] | str | None,
    Field(description="Tags (lower-case words): a list or a comma-separated string."),
]
Ids = Annotated[
    list[str] | str | None,
    Field(description="Ids of entries this fact replaces (they stop being active)."),
]
Reason = Annotated[str | None, Field(description="Why this entry replaces the ones it supersedes.")]
# The values of memsite.core.entry.CONFIDENCES (a Literal must spell them out).
Confidence = Annotated[
    Literal["high", "medium", "low"] | None, Field(description="Default medium.")
]
Key = Annotated[
    str | None, Field(description="Subject with one current value (e.g. package-manager).")
]
Agent = Annotated[str | None, Field(description="Who writes this (default $MEMSITE_AGENT).")]
Anchors = Annotated[
    list[str] | str | None,
    Field(
        description="Files the fact describes, relative to the project root: PATH or "
        "PATH:START-END (lines); the fact is then checked for drift when they change."
    ),
]
Query = Annotated[str, Field(description="Words to look for (typos tolerated).")]
LogText = Annotated[str, Field(description="What happened or is left to do, one line.")]
# The values of memsite.core.sessions.KINDS (a Literal must spell them out).
LogKind = Annotated[Literal["note", "task", "done", "decision"], Field(description="Default note.")]
CategoryFilter = Annotated[str | None, Field(description="Only this category.")]
TagFilter = Annotated[str | None, Field(description="Only entries with this tag.")]
SearchLimit = Annotated[int, Field(ge=1, le=200, description="At most this many hits.")]
ListLimit = Annotated[
    int | None,
    Field(ge=0, le=LIST_MAX, description=f"At most this many (default {LIST_LIMIT})."),
]
IncludeAll = Annotated[
    bool, Field(description="Also superseded, duplicate and overridden entries (with status).")
]
Daily = Annotated[bool, Field(description="Also search the daily session logs.")]
Expand = Annotated[
    bool, Field(description="Also the facts linked to the hits, each with 'via' (hit, link).")
]
Evidence = Annotated[str | None, Field(description="How you checked that the fact holds.")]
Repin = Annotated[
    bool, Field(description="Pin drifted anchors to the files as they are now (after checking).")
]
RetireReason = Annotated[str, Field(description="Why the fact no longer holds.")]
OtherId = Annotated[
    str, Field(description="The other fact: full id or a unique prefix of 4+ hex characters.")
]
# The values of memsite.core.records.LINK_TYPES (a Literal must spell them out).
LinkType = Annotated[
    Literal["refines", "supports", "depends-on", "conflicts-with", "distinct-from"],
    Field(description="How id relates to other."),
]
LinkReason = Annotated[str | None, Field(description="Why they are linked.")]


def _write_tools(server: MCPServer[Any], session: _Session, categories: str) -> None:
    @server.tool(annotations=_ADDITIVE, description=WRITE_DOC.format(categories=categories))
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
                agent=agent
                if agent is not None
                else os.environ.get("MEMSITE_AGENT") or client_name(ctx, memory.config.limits),
                key=key,
                anchors=_as_list(anchors),
            )
        return cast(WriteResult, answer)

    @server.tool(annotations=_APPENDING)
    def memory_log(text: LogText, kind: LogKind = "note") -> LogResult:
        """Append a line to this session's daily log (searchable with memory_search daily=true,
        never in the index). kind=task for open work, done when it is finished (same text),
        decision for a choice made: the next session starts with the open tasks and decisions."""
        with _tool_errors():
            answer = session.memory().log(text, session.name, kind=kind)
        return cast(LogResult, answer)


def _record_tools(server: MCPServer[Any], session: _Session) -> None:
    """Tools that write records about facts (and delete an entry)."""

    @server.tool(annotations=_APPENDING)
    def memory_verify(
        id: EntryId,
        evidence: Evidence = None,
        repin: Repin = False,
        agent: Agent = None,
        ctx: Context | None = None,
    ) -> VerifyResult:
        """Record that a fact still holds after you checked it (a new record; the fact is not
        edited). Refused while its anchors drifted unless repin=true, which pins them to the
        files as they are now: only after checking the fact against the code."""
        with _tool_errors():
            memory = session.memory()
            answer = memory.verify(id, evidence, repin=repin, agent=_agent(agent, ctx, memory))
        return cast(VerifyResult, answer)

    @server.tool(annotations=_ADDITIVE)
    def memory_retire(
        id: EntryId, reason: RetireReason, agent: Agent = None, ctx: Context | None = None
    ) -> RetireResult:
        """Withdraw a fact that no longer holds and has no successor: it leaves the index and
        lists, its history stays. To correct a fact, memory_write with supersedes instead."""
        with _tool_errors():
            memory = session.memory()
            answer = memory.retire(id, reason, agent=_agent(agent, ctx, memory))
        return cast(RetireResult, answer)

    @server.tool(annotations=_ADDITIVE)
    def memory_relate(
        id: EntryId,
        other: OtherId,
        type: LinkType,
        reason: LinkReason = None,
        agent: Agent = None,
        ctx: Context | None = None,
    ) -> RelateResult:
        """Link fact id to fact other: refines, supports, depends-on, conflicts-with, or
        distinct-from (two facts that look alike but both hold: silences a possible conflict)."""
        with _tool_errors():
            memory = session.memory()
            answer = memory.relate(id, other, type, reason=reason, agent=_agent(agent, ctx, memory))
        return cast(RelateResult, answer)

    @server.tool(annotations=_DESTRUCTIVE)
    def memory_delete(id: EntryId) -> DeleteResult:
        """Remove an entry file (git keeps its history); prefer memory_write with supersedes
        to correct a fact. Lists the entries that become active again."""
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
    @server.tool(annotations=_READ_ONLY)
    def memory_read(id: EntryId) -> EntryDetail:
        """One entry with its status, superseded_by and chain (its supersession history), and
        where they apply its anchors with their state today, drifted, stale, verified, its
        verifications, its links both ways and why it was retired; trust says whether the
        team reviewed it (held_back: why it is kept out of the index)."""
        with _tool_errors():
            return cast(EntryDetail, _shown(session.memory().read(id)))

    @server.tool(annotations=_READ_ONLY)
    def memory_reconcile() -> ReconcileResult:
        """Every anchor of every active fact against the files now: unchanged, moved, changed,
        missing or renamed. A drifted fact needs checking before you rely on it."""
        with _tool_errors():
            return cast(ReconcileResult, session.memory().reconcile())

    @server.tool(annotations=_READ_ONLY)
    def memory_search(
        query: Query,
        category: CategoryFilter = None,
        limit: SearchLimit = 20,
        include_all: IncludeAll = False,
        daily: Daily = False,
        expand: Expand = False,
    ) -> SearchResult:
        """Ranked search over the memory's content, tags and keys; best hits first. A hit with
        trust "unreviewed" or held_back was not vetted: check it against the code."""
        with _tool_errors():
            rows = session.memory().search(query, category, limit, include_all, daily, expand)
        return {"entries": cast(list[EntryOut | DailyHit], _shown(rows))}

    @server.tool(annotations=_READ_ONLY)
    def memory_list(
        category: CategoryFilter = None,
        tag: TagFilter = None,
        include_all: IncludeAll = False,
        limit: ListLimit = LIST_LIMIT,
    ) -> EntryList:
        """Active entries, newest first (include_all: every status, with 'status')."""
        with _tool_errors():
            rows = session.memory().list_entries(category, tag, include_all, limit)
        return {"entries": cast(list[EntryOut], _shown(rows))}


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


def build_server(memory: Memory) -> MCPServer[Any]:
    """An `MCPServer` serving the store: its tools, the index and one resource per entry."""
    session = _Session(memory)
    first = session.memory()
    server: MCPServer[Any] = MCPServer(
        "memsite",
        title="Project memory (memsite)",
        version=__version__,
        instructions=build_instructions(first),
        log_level="WARNING",
    )
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
