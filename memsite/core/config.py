"""Settings: defaults and validation of a config object (every problem reported at once). Pure.

The config file is as untrusted as the entries (another branch can change it), so every number
has bounds, the JSON text itself is parsed without NaN, Infinity or runaway nesting, and the
portal's settings hold only what ``siteconfig`` allows (plain http(s) URLs, Material's palette).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from memsite.core.entry import check_value
from memsite.core.text import NAME_RULE, is_name
from memsite.core.validate import Limits
from memsite.errors import ConfigError, InvalidEntryFileError

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
        "perPromptTokenBudget": 300,
        "dailyRetentionDays": 30,
        "trackDaily": False,
        "autoFlush": True,
        "autoCompact": True,
        "sessionCarryover": True,
        "categories": dict(DEFAULT_CATEGORIES),
        "limits": {"contentMax": 4000, "tagsMax": 20, "agentMax": 64},
    },
    "site": {"site_name": "Project memory", "site_url": None, "repo_url": None},
}

_FLAGS = ("enabled", "trackDaily", "autoFlush", "autoCompact", "sessionCarryover")
# Whole numbers and their bounds: generous for real use, small enough for any arithmetic.
_NUMBERS = {
    "autoInjectTokenBudget": (1, 1_000_000),
    "perPromptTokenBudget": (1, 1_000_000),
    "dailyRetentionDays": (1, 36_500),
}
_LIMITS = {
    "contentMax": ("content_max", 100_000),
    "tagsMax": ("tags_max", 1_000),
    "agentMax": ("agent_max", 256),
}
WEIGHT_MAX = 1_000_000
MAX_CATEGORIES = 200
_MEMORY_KEYS = (*_FLAGS, *_NUMBERS, "categories", "limits", "reviewAfterDays")
REVIEW_DAYS_MAX = 36_500
SITE_KEYS: dict[str, type | tuple[type, ...]] = {
    "site_name": str,
    "site_url": (str, type(None)),
    "repo_url": (str, type(None)),
    "site_description": (str, type(None)),
    "copyright": (str, type(None)),
    "palette": (dict, list, type(None)),
    "extra_nav": (list, type(None)),
    "language": str,
    "releases": (str, type(None)),  # a tag glob: the portal's release pages (build --releases)
}
_TYPE_NAMES = {bool: "true/false", int: "an integer", str: "a string", dict: "an object"}
_TYPE_NAMES |= {list: "a list", type(None): "null"}


class Config(NamedTuple):
    """A store's settings, read from its config.json (``parse_config``); defaults otherwise.
    A NamedTuple rather than a dataclass: every command builds this class at import, and a
    dataclass costs ~1 ms to create. The default mappings are shared: read them, never change
    them (they are typed as ``Mapping``)."""

    enabled: bool = True
    budget: int = 2000
    prompt_budget: int = 300  # memory.perPromptTokenBudget: the facts a prompt hook adds
    daily_retention_days: int = 30
    track_daily: bool = False
    auto_flush: bool = True
    auto_compact: bool = True
    session_carryover: bool = True
    categories: Mapping[str, float] = dict(DEFAULT_CATEGORIES)
    limits: Limits = Limits()
    site: Mapping[str, Any] = dict(DEFAULT_CONFIG["site"])
    # Days after which a fact neither written nor verified is stale: one number for every
    # category, or per category (a category left out never goes stale). None: off.
    review_after: int | Mapping[str, int] | None = None
    # trust.reviewedRef: the ref whose facts count as reviewed (None: the remote's default).
    reviewed_ref: str | None = None

    def review_days(self, category: str) -> int | None:
        """After how many days a fact of ``category`` goes stale (None: never)."""
        if self.review_after is None or isinstance(self.review_after, int):
            return self.review_after
        return self.review_after.get(category)


def _key(*path: str) -> str:
    """A key path for a message, quoted so that no name from the file can break the line."""
    return repr(".".join(path)[:120])


def _type_name(expected: type | tuple[type, ...]) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)


def _is(value: Any, expected: type | tuple[type, ...]) -> bool:
    types = expected if isinstance(expected, tuple) else (expected,)
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


def _whole(value: Any, low: int, high: int) -> bool:
    """A whole number in range; as in JSON Schema, 2000.0 is one too."""
    whole = _is(value, int) or (_is(value, float) and math.isfinite(value) and value.is_integer())
    return whole and low <= value <= high


def _memory_problems(memory: Mapping[str, Any]) -> list[str]:
    problems = []
    for name, value in memory.items():
        if name not in _MEMORY_KEYS:
            problems.append(
                f"unknown key {_key('memory', name)} (allowed: {', '.join(_MEMORY_KEYS)})"
            )
        elif name in _FLAGS and not _is(value, bool):
            problems.append(f"{_key('memory', name)} must be true/false")
        elif name in _NUMBERS and not _whole(value, *_NUMBERS[name]):
            low, high = _NUMBERS[name]
            problems.append(f"{_key('memory', name)} must be a whole number from {low} to {high:,}")
        elif name in ("categories", "limits") and not _is(value, dict):
            problems.append(f"{_key('memory', name)} must be an object")
    return problems


def _categories(value: Any, problems: list[str]) -> dict[str, float]:
    if not isinstance(value, dict):
        return dict(DEFAULT_CATEGORIES)
    if not value:
        problems.append("'memory.categories' must name at least one category")
    if len(value) > MAX_CATEGORIES:
        problems.append(f"'memory.categories' names {len(value)} categories, over {MAX_CATEGORIES}")
    for name, weight in value.items():
        if not is_name(name):
            problems.append(f"category name {name[:80]!r} is not a valid name ({NAME_RULE})")
        if not (_is(weight, (int, float)) and math.isfinite(weight) and 0 < weight <= WEIGHT_MAX):
            problems.append(
                f"weight of category {name[:80]!r} must be a number above 0, at most {WEIGHT_MAX:,}"
            )
    return dict(value)


def _review_after(value: Any, problems: list[str]) -> int | dict[str, int] | None:
    name = "'memory.reviewAfterDays'"
    rule = f"a whole number of days from 1 to {REVIEW_DAYS_MAX:,}"
    if value is None:
        return None
    if isinstance(value, dict):
        for category, days in value.items():
            if not is_name(category):
                problems.append(f"{name}: {category[:80]!r} is not a category name ({NAME_RULE})")
            elif not _whole(days, 1, REVIEW_DAYS_MAX):
                problems.append(f"{name}.{category[:80]} must be {rule}")
        return {c: int(d) for c, d in value.items() if _whole(d, 1, REVIEW_DAYS_MAX)}
    if not _whole(value, 1, REVIEW_DAYS_MAX):
        problems.append(f"{name} must be {rule}, or an object of days per category")
        return None
    return int(value)


def _limits(value: Any, problems: list[str]) -> Limits:
    if not isinstance(value, dict):
        return Limits()
    values: dict[str, int] = {}
    for name, number in value.items():
        if name not in _LIMITS:
            problems.append(
                f"unknown key {_key('memory.limits', name)} (allowed: {', '.join(_LIMITS)})"
            )
            continue
        attribute, high = _LIMITS[name]
        if not _whole(number, 1, high):
            problems.append(
                f"{_key('memory.limits', name)} must be a whole number from 1 to {high:,}"
            )
        else:
            values[attribute] = int(number)
    return Limits(**values)


def _site(site: Any, problems: list[str]) -> dict[str, Any]:
    if not isinstance(site, dict):
        problems.append("'site' must be an object")
        return {}
    typed: dict[str, Any] = {}
    for name, value in site.items():
        if name not in SITE_KEYS:
            problems.append(f"unknown key {_key('site', name)} (allowed: {', '.join(SITE_KEYS)})")
        elif not _is(value, SITE_KEYS[name]):
            problems.append(f"{_key('site', name)} must be {_type_name(SITE_KEYS[name])}")
        else:
            typed[name] = value
    if any(
        typed.get(k) is not None
        for k in ("site_url", "repo_url", "language", "palette", "extra_nav")
    ):
        # Imported only when there is something to check (most configs set none of these:
        # the module's import is ~1.5 ms of every command's start).
        from memsite.core.siteconfig import site_problems

        problems += site_problems(typed)  # URLs, palette, language, extra_nav
    return site


def parse_config(data: Mapping[str, Any], source: str, *, foreign: bool = False) -> Config:
    """Validate a config object; ``foreign`` (LeanSpec's config) ignores keys outside memory."""
    problems: list[str] = []
    if not foreign:
        problems += [
            f"unknown key {name!r} (allowed: memory, site, trust, $schema)"
            for name in data
            if name not in ("memory", "site", "trust", "$schema")
        ]
        if not isinstance(data.get("$schema", ""), str):
            problems.append("'$schema' must be a string (the schema's URL or path)")
    memory = data.get("memory", {})
    if not isinstance(memory, dict):
        problems.append("'memory' must be an object")
        memory = {}
    problems += _memory_problems(memory)
    categories = _categories(memory.get("categories", DEFAULT_CATEGORIES), problems)
    limits = _limits(memory.get("limits", {}), problems)
    review_after = _review_after(memory.get("reviewAfterDays"), problems)
    site = {} if foreign else _site(data.get("site", {}), problems)
    reviewed_ref = None if foreign else _reviewed_ref(data.get("trust", {}), problems)
    if problems:
        raise ConfigError(f"{source}: " + "; ".join(problems))
    defaults = DEFAULT_CONFIG["memory"]

    def get(name: str) -> Any:
        value = memory.get(name, defaults[name])
        return int(value) if name in _NUMBERS else value

    return Config(
        enabled=get("enabled"),
        budget=get("autoInjectTokenBudget"),
        prompt_budget=get("perPromptTokenBudget"),
        daily_retention_days=get("dailyRetentionDays"),
        track_daily=get("trackDaily"),
        auto_flush=get("autoFlush"),
        auto_compact=get("autoCompact"),
        session_carryover=get("sessionCarryover"),
        categories=categories,
        limits=limits,
        site={**DEFAULT_CONFIG["site"], **site},
        review_after=review_after,
        reviewed_ref=reviewed_ref,
    )


_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")


def _reviewed_ref(trust: Any, problems: list[str]) -> str | None:
    """``trust.reviewedRef``: a ref name git accepts (no option, no ``..``), or null."""
    if not isinstance(trust, dict):
        problems.append("'trust' must be an object")
        return None
    problems += [
        f"unknown key {_key('trust', name)} (allowed: reviewedRef)"
        for name in trust
        if name != "reviewedRef"
    ]
    ref = trust.get("reviewedRef")
    if ref is None:
        return None
    if (
        not isinstance(ref, str)
        or not _REF.fullmatch(ref)
        or ".." in ref
        or "//" in ref
        or ref.endswith(("/", ".", ".lock"))
    ):
        problems.append(
            f"{_key('trust', 'reviewedRef')} must be a git ref name such as origin/main or null"
        )
        return None
    return ref


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name}, which is not valid JSON")


def parse_config_text(text: str, source: str, *, foreign: bool = False) -> Config:
    """Parse and validate the text of a config file."""
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source}: not valid JSON ({exc.msg} at line {exc.lineno}): fix the file"
        ) from None
    except RecursionError:
        raise ConfigError(f"{source}: nested too deeply to be a config: fix the file") from None
    except ValueError as exc:  # NaN or Infinity (see _no_constant), or a number too long
        detail = str(exc) if "JSON" in str(exc) else "a number of more than 4,300 digits"
        raise ConfigError(f"{source}: holds {detail}: fix the file") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: must hold a JSON object")
    try:
        check_value(data)
    except InvalidEntryFileError as exc:
        raise ConfigError(f"{source}: {exc}: fix the file") from None
    return parse_config(data, source, foreign=foreign)


def default_config_text() -> str:
    return json.dumps(DEFAULT_CONFIG, indent=2, ensure_ascii=False) + "\n"
