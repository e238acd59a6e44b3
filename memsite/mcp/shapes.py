"""The shapes of the MCP tools' structured results (structured content is always an object)."""

from __future__ import annotations

from typing import Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict


class Provenance(TypedDict):
    """The commit that added the entry's file, from git (never from the entry itself)."""

    commit: str
    author: str
    email: str
    date: str
    signature: str


@with_config(ConfigDict(extra="allow"))
class EntryOut(TypedDict):
    """An entry as stored on disk; keys memsite does not know are passed through."""

    id: str
    category: str
    content: str
    created: str
    agent: NotRequired[str | None]
    tags: NotRequired[list[str] | None]
    supersedes: NotRequired[str | list[str] | None]
    confidence: NotRequired[str | None]
    key: NotRequired[str | None]
    reason: NotRequired[str | None]
    valid_from: NotRequired[str | None]
    valid_to: NotRequired[str | None]
    expired: NotRequired[bool]
    upcoming: NotRequired[bool]
    status: NotRequired[str]
    score: NotRequired[float]
    signals: NotRequired[list[Literal["exact", "semantic"]]]
    similarity: NotRequired[float]
    provenance: NotRequired[Provenance | None]
    trust: NotRequired[Literal["reviewed", "local", "unreviewed"] | None]
    held_back: NotRequired[str]


@with_config(ConfigDict(extra="allow"))
class DailyHit(TypedDict):
    """A search hit in a daily session log (memory_search with daily=true)."""

    source: Literal["daily"]
    file: str
    line: int
    text: str
    score: float
    signals: NotRequired[list[Literal["exact", "semantic"]]]


class ChainLink(TypedDict):
    id: str
    created: str
    status: str
    content: str


@with_config(ConfigDict(extra="allow"))
class EntryDetail(EntryOut):
    """One entry with its status and every entry connected to it by supersession."""

    superseded_by: list[str]
    chain: list[ChainLink]
    file: str
    as_of: NotRequired[AsOfPoint]


class AsOfPoint(TypedDict):
    """The past state an answer is (the tools' as_of): a date, or a git ref and its commit."""

    kind: Literal["date", "ref"]
    given: str
    commit: NotRequired[str]
    time: str


class EntryList(TypedDict):
    entries: list[EntryOut]
    as_of: NotRequired[AsOfPoint]


class SearchResult(TypedDict):
    entries: list[EntryOut | DailyHit]
    as_of: NotRequired[AsOfPoint]


class NearDuplicate(TypedDict):
    id: str
    similarity: float


class WriteResult(TypedDict):
    status: Literal["written", "duplicate"]
    id: str
    path: str
    near_duplicates: list[NearDuplicate]
    warnings: list[str]


class LogResult(TypedDict):
    status: Literal["logged"]
    path: str
    session: str
    kind: Literal["note", "task", "done", "decision"]


class DeleteResult(TypedDict):
    status: Literal["deleted"]
    id: str
    path: str
    revived: list[str]


class AnchorState(TypedDict):
    path: str
    blob: str
    lines: NotRequired[list[int]]
    span: NotRequired[str | None]
    state: Literal["unchanged", "moved", "changed", "missing", "renamed"]
    now_path: NotRequired[str]
    now_lines: NotRequired[list[int]]


class ReconciledFact(TypedDict):
    id: str
    category: str
    content: str
    drifted: bool
    anchors: list[AnchorState]


class ReconcileResult(TypedDict):
    facts: list[ReconciledFact]
    anchored: int
    drifted: int


class VerifyResult(TypedDict):
    status: Literal["verified"]
    id: str
    record: str
    path: str
    repinned: list[str]


class RetireResult(TypedDict):
    status: Literal["retired"]
    id: str
    record: str
    path: str


class RelateResult(TypedDict):
    status: Literal["related", "exists"]
    id: str
    other: str
    type: str
    record: str
    path: str
