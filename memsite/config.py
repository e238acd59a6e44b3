"""Settings: defaults, loading and validation of config.json (every problem reported at once)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memsite.entry import NAME_RE, Limits
from memsite.errors import ConfigError

DEFAULT_CATEGORIES: dict[str, float] = {
    "conventions": 1,
    "architecture": 1,
    "operations": 1,
    "decisions": 1,
}

DEFAULT_CONFIG: dict[str, Any] = {
    "memory": {
        "enabled": True,
        "autoInjectTokenBudget": 2000,
        "dailyRetentionDays": 30,
        "trackDaily": False,
        "autoFlush": True,
        "autoCompact": True,
        "categories": dict(DEFAULT_CATEGORIES),
        "limits": {"contentMax": 4000, "tagsMax": 20, "agentMax": 64},
    },
    "site": {"site_name": "Project memory", "site_url": None, "repo_url": None},
}

_MEMORY_TYPES: dict[str, type | tuple[type, ...]] = {
    "enabled": bool,
    "autoInjectTokenBudget": int,
    "dailyRetentionDays": int,
    "trackDaily": bool,
    "autoFlush": bool,
    "autoCompact": bool,
    "categories": dict,
    "limits": dict,
}
_LIMIT_KEYS = {"contentMax": "content_max", "tagsMax": "tags_max", "agentMax": "agent_max"}
SITE_KEYS: dict[str, type | tuple[type, ...]] = {
    "site_name": str,
    "site_url": (str, type(None)),
    "repo_url": (str, type(None)),
    "site_description": (str, type(None)),
    "copyright": (str, type(None)),
    "palette": (dict, list, type(None)),
    "extra_nav": (list, type(None)),
    "language": str,
}


@dataclass(frozen=True)
class Config:
    enabled: bool = True
    budget: int = 2000
    daily_retention_days: int = 30
    track_daily: bool = False
    auto_flush: bool = True
    auto_compact: bool = True
    categories: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_CATEGORIES))
    limits: Limits = field(default_factory=Limits)
    site: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_CONFIG["site"]))


def _type_name(expected: type | tuple[type, ...]) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    names = {bool: "true/false", int: "an integer", str: "a string", dict: "an object"}
    names |= {list: "a list", type(None): "null"}
    return " or ".join(names.get(t, t.__name__) for t in types)


def _is(value: Any, expected: type | tuple[type, ...]) -> bool:
    types = expected if isinstance(expected, tuple) else (expected,)
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


def parse_config(data: Mapping[str, Any], source: str, *, foreign: bool = False) -> Config:
    """Validate a config object; ``foreign`` (LeanSpec's config) ignores keys outside memory."""
    problems: list[str] = []
    if not foreign:
        for name in data:
            if name not in ("memory", "site"):
                problems.append(f"unknown key {name!r} (allowed: memory, site)")
    memory = data.get("memory", {})
    site = {} if foreign else data.get("site", {})
    if not isinstance(memory, dict):
        problems.append("'memory' must be an object")
        memory = {}
    if not isinstance(site, dict):
        problems.append("'site' must be an object")
        site = {}
    for name, value in memory.items():
        if name not in _MEMORY_TYPES:
            problems.append(f"unknown key 'memory.{name}' (allowed: {', '.join(_MEMORY_TYPES)})")
        elif not _is(value, _MEMORY_TYPES[name]):
            problems.append(f"'memory.{name}' must be {_type_name(_MEMORY_TYPES[name])}")
    for name, value in site.items():
        if name not in SITE_KEYS:
            problems.append(f"unknown key 'site.{name}' (allowed: {', '.join(SITE_KEYS)})")
        elif not _is(value, SITE_KEYS[name]):
            problems.append(f"'site.{name}' must be {_type_name(SITE_KEYS[name])}")
    categories = memory.get("categories", DEFAULT_CATEGORIES)
    if isinstance(categories, dict):
        if not categories:
            problems.append("'memory.categories' must name at least one category")
        for name, weight in categories.items():
            if not NAME_RE.fullmatch(name):
                problems.append(f"category name {name!r} must match [a-z0-9][a-z0-9._-]{{0,63}}")
            if not _is(weight, (int, float)) or weight <= 0:
                problems.append(f"weight of category {name!r} must be a positive number")
    else:
        categories = DEFAULT_CATEGORIES
    limits_obj = memory.get("limits", {})
    limits = Limits()
    if isinstance(limits_obj, dict):
        values: dict[str, int] = {}
        for name, value in limits_obj.items():
            if name not in _LIMIT_KEYS:
                problems.append(
                    f"unknown key 'memory.limits.{name}' (allowed: {', '.join(_LIMIT_KEYS)})"
                )
            elif not _is(value, int) or value < 1:
                problems.append(f"'memory.limits.{name}' must be a positive integer")
            else:
                values[_LIMIT_KEYS[name]] = value
        limits = Limits(**values)
    for name in ("autoInjectTokenBudget", "dailyRetentionDays"):
        value = memory.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            problems.append(f"'memory.{name}' must be at least 1")
    if problems:
        raise ConfigError(f"{source}: " + "; ".join(problems))
    defaults = DEFAULT_CONFIG["memory"]

    def get(name: str) -> Any:
        return memory.get(name, defaults[name])

    return Config(
        enabled=get("enabled"),
        budget=get("autoInjectTokenBudget"),
        daily_retention_days=get("dailyRetentionDays"),
        track_daily=get("trackDaily"),
        auto_flush=get("autoFlush"),
        auto_compact=get("autoCompact"),
        categories=dict(categories),
        limits=limits,
        site={**DEFAULT_CONFIG["site"], **site},
    )


def load_config(path: Path, *, foreign: bool = False) -> Config:
    """Read and validate config.json; a missing file means the defaults."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path}: cannot read ({exc.__class__.__name__}): fix or remove it"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}): fix the file"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must hold a JSON object")
    return parse_config(data, str(path), foreign=foreign)


def default_config_text() -> str:
    return json.dumps(DEFAULT_CONFIG, indent=2, ensure_ascii=False) + "\n"
