"""Edits of JSON configs that touch only memsite's keys: MCP server maps and hook lists."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from memsite.errors import InvalidInputError

Ours = Callable[[str], bool]  # is this hook command one of memsite's?


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def load_json(rel: str, text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InvalidInputError(
            f"{rel} is not plain JSON ({exc}); memsite does not rewrite files with comments: "
            "fix it, or leave this runner out with --runner"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{rel} does not hold a JSON object: fix it or leave it out")
    return data


def _child(obj: dict[str, Any], key: str, rel: str, kind: type) -> Any:
    value = obj.get(key)
    if value is not None and not isinstance(value, kind):
        raise InvalidInputError(f"{rel}: '{key}' is not a JSON {kind.__name__}: fix it first")
    return value


def add_server(
    obj: dict[str, Any], rel: str, container: str, entry: dict[str, Any]
) -> list[list[str]]:
    """Put ``entry`` at obj[container]["memsite"]; returns the containers this created."""
    created: list[list[str]] = []
    servers = _child(obj, container, rel, dict)
    if servers is None:
        servers = obj[container] = {}
        created.append([container])
    if servers.get("memsite") != entry:
        servers["memsite"] = entry
    return created


def remove_server(obj: dict[str, Any], container: str, created: list[list[str]] | None) -> None:
    servers = obj.get(container)
    if isinstance(servers, dict):
        servers.pop("memsite", None)
        if not servers and (created is None or [container] in created):
            del obj[container]


def _is_ours(hook: Any, ours: Ours) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and ours(hook["command"])


def add_hooks(
    obj: dict[str, Any],
    rel: str,
    wanted: Mapping[str, tuple[str | None, str]],
    events: Iterable[str],
    ours: Ours,
) -> list[list[str]]:
    """Add memsite's hook groups (replacing stale memsite hooks); returns created containers."""
    created: list[list[str]] = []
    hooks = _child(obj, "hooks", rel, dict)
    if hooks is None:
        hooks = obj["hooks"] = {}
        created.append(["hooks"])
    for event in events:
        groups = hooks.get(event)
        if groups is not None and not isinstance(groups, list):
            raise InvalidInputError(f"{rel}: 'hooks.{event}' is not a JSON list: fix it first")
        if event not in wanted:
            if groups:
                _drop_our_hooks(hooks, event, None, ours)
            continue
        matcher, command = wanted[event]
        if groups is None:
            groups = hooks[event] = []
            created.append(["hooks", event])
        if any(_group_has(g, matcher, command) for g in groups):
            continue
        _drop_our_hooks(hooks, event, None, ours, keep_list=True)
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "command": command}]
        hooks[event].append(group)
    return created


def _group_has(group: Any, matcher: str | None, command: str) -> bool:
    return (
        isinstance(group, dict)
        and group.get("matcher") == matcher
        and isinstance(group.get("hooks"), list)
        and any(isinstance(h, dict) and h.get("command") == command for h in group["hooks"])
    )


def _drop_our_hooks(
    hooks: dict[str, Any],
    event: str,
    created: list[list[str]] | None,
    ours: Ours,
    keep_list: bool = False,
) -> None:
    groups = hooks.get(event)
    if not isinstance(groups, list):
        return
    kept = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            mine = [h for h in group["hooks"] if _is_ours(h, ours)]
            if mine:
                rest = [h for h in group["hooks"] if not _is_ours(h, ours)]
                if not rest:
                    continue
                group["hooks"] = rest
        kept.append(group)
    hooks[event] = kept
    if not kept and not keep_list and (created is None or ["hooks", event] in created):
        del hooks[event]


def remove_hooks(obj: dict[str, Any], created: list[list[str]] | None, ours: Ours) -> None:
    hooks = obj.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        _drop_our_hooks(hooks, event, created, ours)
    if not hooks and (created is None or ["hooks"] in created):
        del obj["hooks"]
