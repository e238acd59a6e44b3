"""The shapes of the MCP tools' structured results (structured content is always an object)."""

from __future__ import annotations

from typing import Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict


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
    status: NotRequired[str]
    score: NotRequired[float]


@with_config(ConfigDict(extra="allow"))
class DailyHit(TypedDict):
    """A search hit in a daily session log (memory_search with daily=true)."""

    source: Literal["daily"]
    file: str
    line: int
    text: str
    score: float


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


class EntryList(TypedDict):
    entries: list[EntryOut]


class SearchResult(TypedDict):
    entries: list[EntryOut | DailyHit]


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
