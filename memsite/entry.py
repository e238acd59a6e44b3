"""The entry model: parsing (lenient), validation of new entries (strict), normalization. Pure."""

from __future__ import annotations

import json
import re
import unicodedata
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memsite.errors import InvalidEntryFileError, InvalidInputError

NAME_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
CONFIDENCES = ("high", "medium", "low")
CONFIDENCE_RANK = {"low": 0, "medium": 1, "high": 2}
KNOWN_KEYS = (
    "id",
    "category",
    "content",
    "created",
    "agent",
    "tags",
    "supersedes",
    "confidence",
    "key",
    "reason",
)
MAX_FUTURE = timedelta(minutes=5)
_CREATED_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})?"
)
_CONFLICT_RE = re.compile(r"^(<<<<<<<|>>>>>>>|=======|\|\|\|\|\|\|\|)( |$)", re.MULTILINE)
_WS_RE = re.compile(r"\s+")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])\w)+")


@dataclass(slots=True)
class Entry:
    """One fact as read from disk. ``raw`` is the on-disk object, unknown keys included."""

    id: str
    category: str
    content: str
    created: datetime
    confidence: str
    tags: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    agent: str | None = None
    key: str | None = None
    reason: str | None = None
    filename: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # Derived once, at load: compaction and search use them for every entry.
    normalized: str = field(default="", compare=False, repr=False)
    # Whether any text field might hold a secret (the cheap prefilter); None until asked.
    suspect: bool | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.normalized:
            self.normalized = normalize(self.content)

    def is_suspect(self) -> bool:
        """Might a text field hold a secret? Decided once per entry, cached with the parse."""
        if self.suspect is None:
            from memsite.secrets import prefilter

            texts = [self.content, *self.tags, self.key or "", self.reason or "", self.agent or ""]
            self.suspect = any(prefilter(text) for text in texts if text)
        return self.suspect

    @property
    def short_id(self) -> str:
        return self.id[:8]

    @property
    def order_key(self) -> tuple[datetime, int, str]:
        """Sort key; sort with ``reverse=True`` for newest first, high confidence, greatest id."""
        return (self.created, CONFIDENCE_RANK[self.confidence], self.id)


def normalize(content: str) -> str:
    """NFKC, casefold, collapse whitespace, strip, drop trailing '.' and '!'."""
    text = _WS_RE.sub(" ", unicodedata.normalize("NFKC", content).casefold()).strip()
    return text.rstrip(".!").rstrip()


def word_tokens(normalized: str) -> list[str]:
    """Word tokens of normalized text; CJK text is split per character."""
    return _TOKEN_RE.findall(normalized)


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def format_created(moment: datetime) -> str:
    """RFC 3339 UTC with milliseconds, e.g. ``2026-03-07T14:30:00.123Z``."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_created(value: str) -> datetime:
    """Parse RFC 3339 with or without fraction; a missing offset means UTC."""
    match = _CREATED_RE.fullmatch(value.strip())
    if not match:
        raise ValueError(f"not an RFC 3339 time: {value!r}")
    year, month, day, hour, minute, second, frac, offset = match.groups()
    micro = int((frac or "0")[:6].ljust(6, "0"))
    moment = datetime(
        int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=UTC
    )
    if offset and offset not in ("Z", "z"):
        sign = 1 if offset[0] == "+" else -1
        digits = offset[1:].replace(":", "")
        moment -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return moment


def filename_for(created: datetime, entry_id: str) -> str:
    return created.astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%S") + f"Z-{entry_id[:8]}.json"


def is_uuid(value: str) -> bool:
    return UUID_RE.fullmatch(value) is not None


# --- reading (lenient) ---------------------------------------------------------------------------


def parse_entry(data: bytes, filename: str) -> Entry:
    """Parse one entry file's bytes. Raises InvalidEntryFileError saying why it is unusable."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEntryFileError(f"not valid UTF-8 (byte {exc.start})") from None
    if _CONFLICT_RE.search(text):
        raise InvalidEntryFileError("holds git merge-conflict markers")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidEntryFileError(f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(obj, dict):
        raise InvalidEntryFileError("not a JSON object")
    return entry_from_object(obj, filename)


def entry_from_object(obj: Mapping[str, Any], filename: str = "") -> Entry:
    def bad(message: str) -> InvalidEntryFileError:
        return InvalidEntryFileError(message)

    for name in ("id", "category", "content", "created"):
        if name not in obj:
            raise bad(f"missing required key {name!r}")
        if not isinstance(obj[name], str):
            raise bad(f"{name!r} must be a string")
    entry_id = obj["id"]
    if not is_uuid(entry_id):
        raise bad("'id' is not a UUID")
    if not obj["content"].strip():
        raise bad("'content' is empty")
    if not obj["category"]:
        raise bad("'category' is empty")
    try:
        created = parse_created(obj["created"])
    except ValueError:
        raise bad("'created' is not an RFC 3339 time") from None
    confidence = obj.get("confidence")
    if confidence is None:
        confidence = "medium"
    elif not isinstance(confidence, str) or confidence not in CONFIDENCES:
        raise bad("'confidence' must be high, medium or low")
    tags = obj.get("tags")
    if tags is None:
        tags = []
    elif not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise bad("'tags' must be a list of strings")
    supersedes = obj.get("supersedes")
    if supersedes is None:
        supersedes = []
    elif isinstance(supersedes, str):
        supersedes = [supersedes]
    elif not isinstance(supersedes, list) or not all(isinstance(s, str) for s in supersedes):
        raise bad("'supersedes' must be null, an id or a list of ids")
    for name in ("agent", "key", "reason"):
        if obj.get(name) is not None and not isinstance(obj[name], str):
            raise bad(f"{name!r} must be a string")
    return Entry(
        id=entry_id.lower(),
        category=obj["category"],
        content=obj["content"],
        created=created,
        confidence=confidence,
        tags=tuple(dict.fromkeys(t.lower() for t in tags if t)),
        supersedes=tuple(dict.fromkeys(s.lower() for s in supersedes if is_uuid(s))),
        agent=obj.get("agent") or None,
        key=obj.get("key") or None,
        reason=obj.get("reason") or None,
        filename=filename,
        raw=dict(obj),
    )


# --- writing (strict) ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    content_max: int = 4000
    tags_max: int = 20
    agent_max: int = 64


def split_tags(values: Iterable[str]) -> list[str]:
    """Tags from repeated, comma-separated options, lower-cased, order kept, duplicates dropped."""
    tags: dict[str, None] = {}
    for value in values:
        for part in value.split(","):
            tag = part.strip().lower()
            if tag:
                tags[tag] = None
    return list(tags)


def check_name(kind: str, value: str) -> str:
    if not NAME_RE.fullmatch(value):
        raise InvalidInputError(
            f"invalid {kind} {value!r}: use 1-64 characters of a-z, 0-9, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return value


def build_entry(
    *,
    content: str,
    category: str,
    categories: Iterable[str],
    created: datetime,
    entry_id: str | None = None,
    tags: Iterable[str] = (),
    supersedes: Iterable[str] = (),
    confidence: str | None = None,
    agent: str | None = None,
    key: str | None = None,
    reason: str | None = None,
    extra: Mapping[str, Any] | None = None,
    limits: Limits = Limits(),
) -> dict[str, Any]:
    """Validate a new entry strictly and return its on-disk object (key order fixed)."""
    allowed = list(categories)
    if category not in allowed:
        raise InvalidInputError(
            f"unknown category {category!r}: use one of {', '.join(allowed)} "
            "(or add it to memory.categories in config.json)"
        )
    if not content.strip():
        raise InvalidInputError("content is empty: give the fact to remember")
    if len(content) > limits.content_max:
        raise InvalidInputError(
            f"content is {len(content)} characters, over the limit of {limits.content_max}: "
            "split it into several facts (memory.limits.contentMax in config.json)"
        )
    if "\x00" in content:
        raise InvalidInputError("content holds a NUL character: remove it")
    tag_list = [check_name("tag", t.lower()) for t in tags]
    if len(tag_list) > limits.tags_max:
        raise InvalidInputError(
            f"{len(tag_list)} tags, over the limit of {limits.tags_max}: keep the most useful ones"
        )
    if confidence is None:
        confidence = "medium"
    if confidence not in CONFIDENCES:
        raise InvalidInputError(f"invalid confidence {confidence!r}: use high, medium or low")
    if agent is not None:
        agent = agent.strip() or None
    if agent is not None and (len(agent) > limits.agent_max or not agent.isprintable()):
        raise InvalidInputError(
            f"invalid agent name: use at most {limits.agent_max} printable characters"
        )
    if key is not None:
        check_name("key", key)
    sup = list(dict.fromkeys(s.lower() for s in supersedes))
    for value in sup:
        if not is_uuid(value):
            raise InvalidInputError(f"invalid supersedes id {value!r}: give a full entry id")
    if reason is not None and not reason.strip():
        reason = None
    new_id = entry_id or str(uuid.uuid4())
    obj: dict[str, Any] = {
        "id": new_id,
        "category": category,
        "content": content,
        "created": format_created(created),
        "agent": agent,
        "tags": tag_list,
        "supersedes": (sup[0] if len(sup) == 1 else sup) if sup else None,
        "confidence": confidence,
    }
    if key is not None:
        obj["key"] = key
    if reason is not None:
        obj["reason"] = reason.strip()
    for name, value in (extra or {}).items():
        if name not in obj:
            obj[name] = value
    return obj


def serialize(obj: Mapping[str, Any]) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
