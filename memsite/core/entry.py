"""The entry model and reading entry files, lenient but safe (``validate`` builds new entries,
strictly). Pure.

Entry files are untrusted: they come from other branches, other tools and hand edits. Reading
accepts what other writers may legitimately produce (any UUID, times with or without fraction,
missing optional keys, unknown keys) and rejects, with a reason, anything that could harm a
command later: names that are not names (a category is part of a file name), values that no
JSON writer can print again (NaN, lone surrogates), nesting deep enough to exhaust a stack, and
times that overflow once their offset is applied.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from memsite.core.anchors import Anchor, read_anchors
from memsite.core.ids import is_uuid
from memsite.core.plain import Plain
from memsite.core.schema import CHECKED_VALUES, CONFIDENCE_RANK, CONFIDENCES, SCHEMA_KEYS
from memsite.core.text import NAME_RULE, has_surrogate, is_name, normalize, strings_of
from memsite.errors import InvalidEntryFileError

MAX_FUTURE = timedelta(minutes=5)
MAX_ENTRY_BYTES = 1 << 20  # an entry holds at most a few KB; anything this large is not one
MAX_DEPTH = 32  # nesting of unknown keys
AGENT_READ_MAX = 256  # an agent name read from a file: printable, at most this long
REASON_MAX = 1000
_EARLIEST = datetime(1, 1, 2, tzinfo=UTC)  # a day inside datetime's range, either way
_LATEST = datetime(9999, 12, 30, tzinfo=UTC)
_CREATED_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})?"
)
_DAY_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
WINDOW_KEYS = ("valid_from", "valid_to")
_CONFLICT_RE = re.compile(r"^(<<<<<<<|>>>>>>>|=======|\|\|\|\|\|\|\|)( |$)", re.MULTILINE)
_CONFLICT_MARKS = ("<<<<<<<", ">>>>>>>", "=======", "|||||||")  # one of which the pattern needs


# The fields that make two entries equal and that repr shows; then those derived or carried.
_COMPARED = (
    "id",
    "category",
    "content",
    "created",
    "confidence",
    "tags",
    "supersedes",
    "agent",
    "key",
    "reason",
    "filename",
)
_CARRIED = ("raw", "normalized", "suspect")


class Entry(Plain):
    """One fact as read from disk. ``raw`` is the on-disk object, unknown keys included.
    (A plain class, not a dataclass: see ``core.plain``.)"""

    __slots__ = _COMPARED + _CARRIED
    COMPARED = _COMPARED

    def __init__(
        self,
        id: str,
        category: str,
        content: str,
        created: datetime,
        confidence: str,
        tags: tuple[str, ...] = (),
        supersedes: tuple[str, ...] = (),
        agent: str | None = None,
        key: str | None = None,
        reason: str | None = None,
        filename: str = "",
        raw: Mapping[str, Any] | None = None,
        normalized: str = "",
        suspect: bool | None = None,
    ) -> None:
        self.id = id
        self.category = category
        self.content = content
        self.created = created
        self.confidence = confidence
        self.tags = tags
        self.supersedes = supersedes
        self.agent = agent
        self.key = key
        self.reason = reason
        self.filename = filename
        # ``raw`` is the on-disk object; ``normalized`` is derived once, at load: compaction
        # and search use it for every entry; ``suspect``: whether any string of the entry
        # might hold a secret (the cheap prefilter), None until asked.
        self.raw: Mapping[str, Any] = {} if raw is None else raw
        self.normalized = normalized or normalize(content)
        self.suspect = suspect

    def replace(self, **changes: Any) -> Entry:
        """A copy with ``changes`` (``Plain.replace``); a new ``content`` gets its
        ``normalized`` text made again, never the old one's (which redaction would leave
        holding the secret)."""
        if "content" in changes:
            changes.setdefault("normalized", "")
        return super().replace(**changes)

    @property
    def window(self) -> Window:
        """When the fact holds in the world (checked when the file was read)."""
        if "valid_from" not in self.raw and "valid_to" not in self.raw:
            return NO_WINDOW
        return read_window(self.raw)

    @property
    def anchors(self) -> tuple[Anchor, ...]:
        """The files and spans the fact is tied to (checked when the file was read)."""
        value = self.raw.get("anchors")
        return read_anchors(value) if value else ()

    def is_suspect(self) -> bool:
        """Might any string of the entry (unknown keys too) hold a secret? Decided once."""
        if self.suspect is None:
            from memsite.core.prefilter import prefilter

            self.suspect = _any_suspect(self.raw, prefilter)
        return self.suspect

    @property
    def short_id(self) -> str:
        return self.id[:8]

    @property
    def order_key(self) -> tuple[datetime, int, str]:
        """Sort key; sort with ``reverse=True`` for newest first, high confidence, greatest id."""
        return (self.created, CONFIDENCE_RANK[self.confidence], self.id)


def _any_suspect(raw: Mapping[str, Any], suspect: Callable[[str], bool]) -> bool:
    """Does ``suspect`` hold for any string of ``raw`` that reading has not already checked
    (see ``CHECKED_VALUES``): unknown keys, and every string inside the values? Plain
    string values, most entries' only kind, are tested without a generator (the first
    build asks this of every entry)."""
    for key, value in raw.items():
        if key not in SCHEMA_KEYS and suspect(str(key)):
            return True
        if isinstance(value, str):
            if key not in CHECKED_VALUES and suspect(value):
                return True
        elif value is not None and any(map(suspect, strings_of(value))):
            return True
    return False


def format_created(moment: datetime) -> str:
    """RFC 3339 UTC with milliseconds, e.g. ``2026-03-07T14:30:00.123Z``."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_created(value: str) -> datetime:
    """Parse RFC 3339 with or without fraction (a missing offset means UTC).

    Raises ValueError for anything else, and for moments too close to the ends of the
    calendar to survive time arithmetic (year 1 minus an offset, year 9999 plus one).
    """
    match = _CREATED_RE.fullmatch(value.strip())
    if not match:
        raise ValueError(f"not an RFC 3339 time: {value!r}")
    year, month, day, hour, minute, second, frac, offset = match.groups()
    micro = int((frac or "0")[:6].ljust(6, "0"))
    try:
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=UTC
        )
        if offset and offset not in ("Z", "z"):
            sign = 1 if offset[0] == "+" else -1
            digits = offset[1:].replace(":", "")
            moment -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    except OverflowError:
        raise ValueError(f"time out of range: {value!r}") from None
    if not _EARLIEST <= moment <= _LATEST:
        raise ValueError(f"time out of range: {value!r}")
    return moment


class Window(NamedTuple):
    """When a fact holds in the world (its world-state time, as opposed to when it was
    written): from ``start`` (included) until ``end`` (excluded); None leaves that side open."""

    start: datetime | None = None
    end: datetime | None = None


NO_WINDOW = Window()


def parse_bound(value: str, *, end: bool = False) -> datetime:
    """A ``valid_from`` (or with ``end``, a ``valid_to``) value as a moment: a day
    (``2026-03-31``) from its start, or to its end (the next day's start), in UTC; or an
    RFC 3339 time (see :func:`parse_created`). ValueError for anything else."""
    match = _DAY_RE.fullmatch(value)
    if match is None:
        return parse_created(value)
    try:
        year, month, day = map(int, match.groups())
        moment = datetime(year, month, day, tzinfo=UTC) + timedelta(days=int(end))
    except (ValueError, OverflowError):
        raise ValueError(f"not a day: {value!r}") from None
    if not _EARLIEST <= moment <= _LATEST:
        raise ValueError(f"day out of range: {value!r}")
    return moment


def is_day(value: str) -> bool:
    """Is a ``valid_from`` / ``valid_to`` value a day (not a time)?"""
    return _DAY_RE.fullmatch(value) is not None


def read_window(obj: Mapping[str, Any]) -> Window:
    """The window of an on-disk object: ``valid_from`` and ``valid_to`` absent, null or empty
    (open), or a day or an RFC 3339 time, ``valid_to`` after ``valid_from``."""
    bounds: list[datetime | None] = []
    for name in WINDOW_KEYS:
        value = obj.get(name)
        if value is None or value == "":
            bounds.append(None)
            continue
        if not isinstance(value, str):
            raise _bad(f"{name!r} must be a date (YYYY-MM-DD) or an RFC 3339 time")
        try:
            bounds.append(parse_bound(value, end=name == "valid_to"))
        except ValueError:
            raise _bad(f"{name!r} is not a date (YYYY-MM-DD) or an RFC 3339 time") from None
    start, end = bounds
    if start is not None and end is not None and end <= start:
        raise _bad("'valid_to' is not after 'valid_from'")
    return Window(start, end)


def filename_for(created: datetime, entry_id: str) -> str:
    return created.astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%S") + f"Z-{entry_id[:8]}.json"


# --- reading (lenient, safe) ---------------------------------------------------------------------


def _no_constant(name: str) -> Any:
    raise InvalidEntryFileError(f"holds {name}, which is not valid JSON")


def load_object(data: bytes) -> dict[str, Any]:
    """The JSON object of an entry or record file's bytes, checked to be safe to handle
    (size, encoding, conflict markers, nesting, finite numbers). InvalidEntryFileError if not."""
    if len(data) > MAX_ENTRY_BYTES:
        raise InvalidEntryFileError(f"is {len(data)} bytes, over the {MAX_ENTRY_BYTES} byte limit")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEntryFileError(f"not valid UTF-8 (byte {exc.start})") from None
    if any(marker in text for marker in _CONFLICT_MARKS) and _CONFLICT_RE.search(text):
        raise InvalidEntryFileError("holds git merge-conflict markers")
    try:
        try:
            obj = _DECODER.decode(text)
            # No escape, so no lone surrogate; too few brackets to nest too deep; no number
            # too large (the decoder stops at one): nothing for the full walk to find.
            plain = "\\u" not in text and text.count("[") + text.count("{") < MAX_DEPTH
        except _NotFinite:
            obj, plain = json.loads(text, parse_constant=_no_constant), False
    except json.JSONDecodeError as exc:
        raise InvalidEntryFileError(f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise InvalidEntryFileError(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # the one ValueError json raises past its own: an integer too long
        raise InvalidEntryFileError("holds a number of more than 4,300 digits") from None
    if not isinstance(obj, dict):
        raise InvalidEntryFileError("not a JSON object")
    if not plain:
        check_value(obj)
    return obj


class _NotFinite(Exception):
    """A number too large for a float: ``check_value`` reports it, in its order."""


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _NotFinite
    return value


_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)


def check_value(value: Any) -> None:
    """Reject what would break a later command: deep nesting, non-finite numbers, surrogates."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidEntryFileError(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, str):
            if has_surrogate(item):
                raise InvalidEntryFileError("holds a lone surrogate (\\ud800-\\udfff), not text")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise InvalidEntryFileError("holds a number too large to be finite")
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((key, depth))
                stack.append((child, depth + 1))
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)


def _bad(message: str) -> InvalidEntryFileError:
    return InvalidEntryFileError(message)


def _read_name(obj: Mapping[str, Any], name: str) -> str | None:
    """An optional name field (key): absent, null or empty is None; else it must be a name."""
    value = obj.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _bad(f"{name!r} must be a string")
    if not is_name(value):
        raise _bad(f"{name!r} is not a valid name ({NAME_RULE})")
    return value


def _read_list(obj: Mapping[str, Any], name: str, message: str) -> list[str]:
    value = obj.get(name)
    if value is None:
        return []
    if isinstance(value, str) and name == "supersedes":
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(message)
    return value


def entry_from_object(obj: Mapping[str, Any], filename: str = "") -> Entry:
    """An Entry from an on-disk object; every name is checked with the write-time rule."""
    for name in ("id", "category", "content", "created"):
        if name not in obj:
            raise _bad(f"missing required key {name!r}")
        if not isinstance(obj[name], str):
            raise _bad(f"{name!r} must be a string")
    if not is_uuid(obj["id"]):
        raise _bad("'id' is not a UUID")
    if not obj["content"].strip():
        raise _bad("'content' is empty")
    if not obj["category"]:
        raise _bad("'category' is empty")
    if not is_name(obj["category"]):
        raise _bad(f"'category' is not a valid name ({NAME_RULE})")
    try:
        created = parse_created(obj["created"])
    except ValueError:
        raise _bad("'created' is not an RFC 3339 time within years 1-9999") from None
    confidence = obj.get("confidence")
    if confidence is None:
        confidence = "medium"
    elif not isinstance(confidence, str) or confidence not in CONFIDENCES:
        raise _bad("'confidence' must be high, medium or low")
    tags = [t.lower() for t in _read_list(obj, "tags", "'tags' must be a list of strings") if t]
    bad_tags = [t for t in tags if not is_name(t)]
    if bad_tags:
        raise _bad(f"tag {bad_tags[0][:64]!r} is not a valid name ({NAME_RULE})")
    supersedes = _read_list(obj, "supersedes", "'supersedes' must be null, an id or a list of ids")
    for name in ("agent", "reason"):
        if obj.get(name) is not None and not isinstance(obj[name], str):
            raise _bad(f"{name!r} must be a string")
    agent = obj.get("agent") or None
    if agent is not None and (len(agent) > AGENT_READ_MAX or not agent.isprintable()):
        raise _bad(f"'agent' must be at most {AGENT_READ_MAX} printable characters")
    read_anchors(obj.get("anchors"))
    read_window(obj)
    return Entry(
        id=obj["id"].lower(),
        category=obj["category"],
        content=obj["content"],
        created=created,
        confidence=confidence,
        tags=tuple(dict.fromkeys(tags)),
        supersedes=tuple(dict.fromkeys(s.lower() for s in supersedes if is_uuid(s))),
        agent=agent,
        key=_read_name(obj, "key"),
        reason=obj.get("reason") or None,
        filename=filename,
        raw=dict(obj),
    )


# --- writing (strict) ----------------------------------------------------------------------------
