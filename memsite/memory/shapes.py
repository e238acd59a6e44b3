"""The JSON answers of the memory's operations: an entry as it is shown, and the answers of
writes. Every answer is JSON-ready; an entry is its on-disk object with suspected secrets
redacted in every string (unknown keys too), plus the fields the operation adds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from memsite.core.entry import Entry
from memsite.core.records import Record
from memsite.core.schema import ACTIVE, EXPIRED
from memsite.core.secrets import redact, redact_object


class AddOptions(TypedDict, total=False):
    """What `add` takes besides the content and the category (``writes.add``)."""

    tags: Iterable[str]
    supersedes: Iterable[str]
    reason: str | None
    confidence: str | None
    agent: str | None
    key: str | None
    allow_secret: bool
    anchors: Iterable[str]
    valid_from: str | None
    valid_to: str | None


class Searching(TypedDict, total=False):
    """What `search` takes besides the query, category and limit (``recall.search``)."""

    include_all: bool
    daily: bool
    expand: bool
    mode: str
    with_provenance: bool


class AmendOptions(TypedDict, total=False):
    """What `amend` takes besides the entry and its new content (``writes.amend``)."""

    agent: str | None
    allow_secret: bool
    anchors: Iterable[str] | None
    valid_from: str | None
    valid_to: str | None


def shown_status(status: str | None, flags: Mapping[str, Any]) -> str | None:
    """A fact's status as outputs print it: an active fact past its valid_to (``flags``: its
    standing's fields) is ``expired``, which compaction never decides (see ``windows``)."""
    return EXPIRED if status == ACTIVE and flags.get(EXPIRED) else status


def entry_json(entry: Entry, **extra: Any) -> dict[str, Any]:
    """The on-disk object for output, with suspected secrets redacted (unless allowed)."""
    shown = redact_object(entry.raw) if entry.is_suspect() else dict(entry.raw)
    return {**shown, **extra}


def content_of(entry: Entry) -> str:
    """The entry's text as it is shown (suspected secrets redacted)."""
    return str(entry_json(entry)["content"])


def write_answer(
    status: str, entry_id: str, path: str, near: list[dict[str, Any]], warnings: list[str]
) -> dict[str, Any]:
    """What `add` and `amend` answer: written or duplicate, with near duplicates and warnings."""
    return {
        "status": status,
        "id": entry_id,
        "path": path,
        "near_duplicates": near,
        "warnings": warnings,
    }


def verifications(records: Iterable[Record]) -> list[dict[str, Any]]:
    return [
        {"id": r.id, "created": r.raw["created"], "evidence": redact(r.text or "") or None}
        for r in records
    ]


def retirement(record: Record) -> dict[str, Any]:
    return {"created": record.raw["created"], "reason": redact(record.text or "")}


def linked(link: Mapping[str, Any], other: Entry | None, status: str | None) -> dict[str, Any]:
    """A link of `read`'s answer, with the other fact's text and status (a fact not in this
    checkout has neither)."""
    shown = {**link, "reason": redact(link["reason"]) if link["reason"] else None}
    if other is None:
        return {**shown, "content": None, "status": None}
    return {**shown, "content": content_of(other), "status": status}
