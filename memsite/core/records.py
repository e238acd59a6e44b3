"""Records: what is said *about* a fact, each in a file of its own beside the entries. Pure.

A fact is never edited, so confirming it, withdrawing it or linking it to another is a new
file in entries/ with a ``record`` key naming its kind:

- ``verify``: the fact still holds (``evidence``; ``anchors`` when re-pinned to today's files);
- ``retire``: the fact is withdrawn without a successor (``reason``);
- ``relate``: a typed link from ``target`` to ``other`` (``type``, ``reason``);
- ``approve``: a person let a held-back fact reach agents (``reason``). It counts only when
  the record is itself reviewed or written in this clone (``core.trust``).

A LeanSpec reader sees a file without ``content`` and skips it. Reading is as careful as for
entries: every id must be a UUID, names and lengths are bounded, anchors are checked paths.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from memsite.core.anchors import Anchor, read_anchors
from memsite.core.entry import AGENT_READ_MAX, format_created, parse_created
from memsite.core.ids import is_uuid
from memsite.core.plain import Plain
from memsite.errors import InvalidEntryFileError

VERIFY = "verify"
RETIRE = "retire"
RELATE = "relate"
APPROVE = "approve"
KINDS = (VERIFY, RETIRE, RELATE, APPROVE)
LINK_TYPES = ("refines", "supports", "depends-on", "conflicts-with", "distinct-from")
TEXT_READ_MAX = 4000


_COMPARED = (
    "id",
    "kind",
    "target",
    "created",
    "agent",
    "text",
    "other",
    "link",
    "anchors",
    "filename",
)


class Record(Plain):
    """One record file, read (frozen; a plain class, not a dataclass: see ``core.plain``)."""

    __slots__ = (*_COMPARED, "raw")
    COMPARED = _COMPARED
    id: str
    kind: str
    target: str
    created: datetime
    agent: str | None  # who wrote it
    text: str | None  # a verification's evidence, or a retirement's or link's reason
    other: str | None  # relate: the fact linked to
    link: str | None  # relate: the link type
    anchors: tuple[Anchor, ...]  # verify --repin: the anchors pinned again
    filename: str
    raw: Mapping[str, Any]

    def __init__(
        self,
        id: str,
        kind: str,
        target: str,
        created: datetime,
        agent: str | None = None,
        text: str | None = None,
        other: str | None = None,
        link: str | None = None,
        anchors: tuple[Anchor, ...] = (),
        filename: str = "",
        raw: Mapping[str, Any] | None = None,
    ) -> None:
        given = (id, kind, target, created, agent, text, other, link, anchors, filename)
        for name, value in zip(_COMPARED, given, strict=True):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "raw", {} if raw is None else raw)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Record is frozen: cannot set {name!r}")

    def __reduce__(self) -> tuple[type[Record], tuple[Any, ...]]:  # copies and pickles
        return Record, (*self.compared(), self.raw)

    def __hash__(self) -> int:  # frozen: hashed as it is compared
        return hash(self.compared())

    @property
    def short_id(self) -> str:
        return self.id[:8]


def is_record(obj: Mapping[str, Any]) -> bool:
    return "record" in obj


def record_from_object(obj: Mapping[str, Any], filename: str = "") -> Record:
    """A Record from an on-disk object (untrusted); InvalidEntryFileError saying why not."""
    kind = obj.get("record")
    if kind not in KINDS:
        raise InvalidEntryFileError(f"'record' must be one of {', '.join(KINDS)}")
    for name in ("id", "target", "created"):
        if not isinstance(obj.get(name), str):
            raise InvalidEntryFileError(f"a {kind} record needs a string {name!r}")
    if not is_uuid(obj["id"]) or not is_uuid(obj["target"]):
        raise InvalidEntryFileError("a record's 'id' and 'target' must be UUIDs")
    try:
        created = parse_created(obj["created"])
    except ValueError:
        raise InvalidEntryFileError(
            "'created' is not an RFC 3339 time within years 1-9999"
        ) from None
    agent = obj.get("agent")
    if agent is not None and (
        not isinstance(agent, str) or len(agent) > AGENT_READ_MAX or not agent.isprintable()
    ):
        raise InvalidEntryFileError(
            f"'agent' must be at most {AGENT_READ_MAX} printable characters"
        )
    text_key = "evidence" if kind == VERIFY else "reason"
    text = obj.get(text_key)
    if text is not None and (not isinstance(text, str) or len(text) > TEXT_READ_MAX):
        raise InvalidEntryFileError(f"{text_key!r} must be a string of at most {TEXT_READ_MAX}")
    other = link = None
    if kind == RELATE:
        other, link = obj.get("other"), obj.get("type")
        if not isinstance(other, str) or not is_uuid(other):
            raise InvalidEntryFileError("a relate record needs the UUID of the 'other' fact")
        if link not in LINK_TYPES:
            raise InvalidEntryFileError(f"'type' must be one of {', '.join(LINK_TYPES)}")
        other = other.lower()
    anchors = read_anchors(obj.get("anchors")) if kind == VERIFY else ()
    return Record(
        id=obj["id"].lower(),
        kind=kind,
        target=obj["target"].lower(),
        created=created,
        agent=agent or None,
        text=text or None,
        other=other,
        link=link,
        anchors=anchors,
        filename=filename,
        raw=dict(obj),
    )


def first_retirements(records: Iterable[Record]) -> dict[str, Record]:
    """The retire record of each retired fact: the oldest, which retired it (``records`` come
    oldest first), found in one pass."""
    found: dict[str, Record] = {}
    for record in records:
        if record.kind == RETIRE:
            found.setdefault(record.target, record)
    return found


def build_record(
    kind: str,
    target: str,
    created: datetime,
    *,
    agent: str | None = None,
    text: str | None = None,
    other: str | None = None,
    link: str | None = None,
    anchors: Sequence[Anchor] = (),
    record_id: str | None = None,
) -> dict[str, Any]:
    """A new record's on-disk object (values already checked by the caller), keys in order."""
    if record_id is None:
        import uuid

        record_id = str(uuid.uuid4())
    obj: dict[str, Any] = {
        "record": kind,
        "id": record_id,
        "target": target,
        "created": format_created(created),
        "agent": agent,
    }
    if kind == RELATE:
        obj["other"] = other
        obj["type"] = link
    if text is not None:
        obj["evidence" if kind == VERIFY else "reason"] = text
    if anchors:
        obj["anchors"] = [a.as_dict() for a in anchors]
    return obj
