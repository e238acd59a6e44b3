"""Strict rules for what a person or an agent writes: names, free texts, a new entry. Pure.

Reading is lenient (``core.entry``: files from other tools and branches); writing is strict, so
that everything memsite writes reads back as it was meant. Every text written, free or a name,
is refused when it holds an invisible or direction-changing character (``core.hidden``): the
one place `add`, `amend`, `log`, `verify`, `retire`, `relate`, `approve`, `import` and the MCP
tools share (imported entry and record objects through :func:`check_imported`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from memsite.core.anchors import Anchor
from memsite.core.entry import (
    REASON_MAX,
    WINDOW_KEYS,
    check_value,
    format_created,
    is_day,
    parse_bound,
)
from memsite.core.hidden import hidden_problem
from memsite.core.ids import is_uuid
from memsite.core.schema import CONFIDENCES
from memsite.core.text import NAME_RULE, has_surrogate, is_name
from memsite.errors import InvalidInputError


class Limits(NamedTuple):
    content_max: int = 4000
    tags_max: int = 20
    agent_max: int = 64


_LIMITS = Limits()


def check_hidden(kind: str, value: str) -> str:
    """Refuse a text holding a hidden character, in one line naming the first and its position."""
    problem = hidden_problem(kind, value)
    if problem is not None:
        raise InvalidInputError(problem)
    return value


def check_name(kind: str, value: str) -> str:
    check_hidden(kind, value)
    if not is_name(value):
        raise InvalidInputError(f"invalid {kind} {value[:80]!r}: use {NAME_RULE}")
    return value


def check_text(kind: str, value: str, limit: int) -> str:
    """A free-text value of a new entry: not empty, at most ``limit`` characters, no NUL, no
    hidden character."""
    if not value.strip():
        raise InvalidInputError(f"{kind} is empty: give the text")
    if len(value) > limit:
        raise InvalidInputError(f"{kind} is {len(value)} characters, over the limit of {limit}")
    if "\x00" in value:
        raise InvalidInputError(f"{kind} holds a NUL character: remove it")
    if has_surrogate(value):
        raise InvalidInputError(f"{kind} is not valid UTF-8 text: fix its encoding")
    return check_hidden(kind, value)


def _check_content(content: str, limits: Limits) -> None:
    if not content.strip():
        raise InvalidInputError("content is empty: give the fact to remember")
    if len(content) > limits.content_max:
        raise InvalidInputError(
            f"content is {len(content)} characters, over the limit of {limits.content_max}: "
            "split it into several facts (memory.limits.contentMax in config.json)"
        )
    check_text("content", content, limits.content_max)


def check_agent(agent: str | None, limits: Limits = _LIMITS) -> str | None:
    """Who writes an entry or a record: trimmed, None when empty, else at most
    ``limits.agent_max`` printable characters and no hidden one."""
    agent = agent.strip() if agent is not None else None
    if not agent:
        return None
    check_hidden("agent", agent)
    if len(agent) > limits.agent_max or not agent.isprintable() or has_surrogate(agent):
        raise InvalidInputError(
            f"invalid agent name: use at most {limits.agent_max} printable characters"
        )
    return agent


def _check_category(category: str, categories: Iterable[str]) -> None:
    allowed = list(categories)
    if category not in allowed:
        raise InvalidInputError(
            f"unknown category {category[:80]!r}: use one of {', '.join(allowed)} "
            "(or add it to memory.categories in config.json)"
        )


def _check_tags(tags: Iterable[str], limits: Limits) -> list[str]:
    tag_list = [check_name("tag", t.lower()) for t in tags]
    if len(tag_list) > limits.tags_max:
        raise InvalidInputError(
            f"{len(tag_list)} tags, over the limit of {limits.tags_max}: keep the most useful ones"
        )
    return tag_list


def _check_supersedes(supersedes: Iterable[str]) -> list[str]:
    sup = list(dict.fromkeys(s.lower() for s in supersedes))
    for value in sup:
        if not is_uuid(value):
            raise InvalidInputError(f"invalid supersedes id {value[:80]!r}: give a full entry id")
    return sup


def check_window(valid_from: str | None, valid_to: str | None) -> dict[str, str]:
    """The window of a new entry as written: each bound a day (kept as given) or a time (in
    UTC with milliseconds, as ``created``); an empty or absent one is left open."""
    window: dict[str, str] = {}
    moments: list[datetime] = []
    for name, value in zip(WINDOW_KEYS, (valid_from, valid_to), strict=True):
        value = value.strip() if value is not None else ""
        if not value:
            continue
        try:
            moment = parse_bound(value, end=name == "valid_to")
        except ValueError:
            raise InvalidInputError(
                f"invalid {name} {value[:40]!r}: use a date (2026-03-31) or a UTC time "
                "(2026-03-31T18:00:00Z)"
            ) from None
        window[name] = value if is_day(value) else format_created(moment)
        moments.append(parse_bound(window[name], end=name == "valid_to"))  # as it reads back
    if len(moments) == 2 and moments[1] <= moments[0]:
        raise InvalidInputError(
            f"valid_to {window['valid_to']} is not after valid_from {window['valid_from']}: "
            "give a window that ends after it starts"
        )
    return window


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
    anchors: Sequence[Anchor] = (),
    limits: Limits = _LIMITS,
    valid_from: str | None = None,
    valid_to: str | None = None,
) -> dict[str, Any]:
    """Validate a new entry strictly and return its on-disk object (key order fixed)."""
    _check_category(category, categories)
    _check_content(content, limits)
    tag_list = _check_tags(tags, limits)
    confidence = confidence or "medium"
    if confidence not in CONFIDENCES:
        raise InvalidInputError(f"invalid confidence {confidence[:20]!r}: use high, medium or low")
    if key is not None:
        check_name("key", key)
    sup = _check_supersedes(supersedes)
    window = check_window(valid_from, valid_to)
    reason = reason.strip() if reason is not None and reason.strip() else None
    if reason is not None:
        check_text("reason", reason, REASON_MAX)
    if entry_id is None:
        import uuid

        entry_id = str(uuid.uuid4())
    obj: dict[str, Any] = {
        "id": entry_id,
        "category": category,
        "content": content,
        "created": format_created(created),
        "agent": check_agent(agent, limits),
        "tags": tag_list,
        "supersedes": (sup[0] if len(sup) == 1 else sup) if sup else None,
        "confidence": confidence,
    }
    if key is not None:
        obj["key"] = key
    if reason is not None:
        obj["reason"] = reason
    obj.update(window)
    if anchors:
        obj["anchors"] = [a.as_dict() for a in anchors]
    return obj


def check_imported(obj: Mapping[str, Any]) -> None:
    """An entry or record object from an import, before it is read: what ``core.entry``
    rejects (``InvalidEntryFileError``), then any hidden character in any of its strings,
    keys included (``InvalidInputError`` naming the top-level key it is under). An approve
    record is refused: approving is a person's decision in their clone (`memsite approve`),
    and an imported one would count as written here."""
    if obj.get("record") == "approve":
        raise InvalidInputError(
            "an approve record is not imported: approve the fact yourself (`memsite approve`)"
        )
    check_value(obj)  # bounds the nesting walked below
    for key, value in obj.items():
        check_hidden("a key", key)
        stack: list[Any] = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                check_hidden(key, item)
            elif isinstance(item, Mapping):
                stack.extend(part for pair in item.items() for part in pair)
            elif isinstance(item, list):
                stack.extend(item)


def serialize(obj: Mapping[str, Any]) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
