"""Secret detection and redaction for entry text, built on detect-secrets.

Two tiers, because importing detect-secrets costs ~150 ms and `memsite add` has 150 ms in all:

* ``core.prefilter`` — cheap patterns, run on every write and every output;
* :func:`scan` — detect-secrets' token-format plugins (AWS, GitHub, GitLab, Slack, Stripe,
  private keys, JWTs, basic-auth URLs, npm, PyPI, OpenAI, SendGrid, Twilio…), its keyword
  detector (run in its YAML/INI mode, which catches ``password = …`` but not prose about
  passwords) and a tuned entropy check (base64-like runs of 32+ characters mixing cases and
  digits with Shannon entropy ≥ 4.5; hex digests, UUIDs and SRI hashes stay ordinary text).
  It is imported only when the prefilter finds a candidate, or when ``full=True`` (review,
  build). ``core.detector`` drives it over a text in time linear in the text.

No function here ever returns or formats a secret's value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from memsite.core.prefilter import (
    SecretHit,
    match_shape,
    prefilter,
    remembered,
    short_scans,
    url_credentials,
)

ALLOW_KEY = "allow_secret"


def scan(text: str, *, full: bool = False) -> list[SecretHit]:
    """Suspected secrets in ``text``, in order, never overlapping.

    Without ``full`` the library is consulted only when the prefilter finds a candidate.
    """
    if not text or (not full and not prefilter(text)):
        return []
    found: tuple[SecretHit, ...] = remembered(short_scans, text, _scan)
    return list(found)


def _scan(text: str) -> tuple[SecretHit, ...]:
    # Only when a text holds a candidate (the detector and detect-secrets cost ~2 ms to
    # import, on the path of every search and list).
    from memsite.core.detector import library_values

    spans = [*match_shape(text), *url_credentials(text), *_located(text, library_values(text))]
    # Longest first at each position; drop what an earlier span already covers.
    spans.sort(key=lambda h: (h.start, -h.end))
    merged: list[SecretHit] = []
    for hit in spans:
        if merged and hit.start < merged[-1].end:
            if hit.end > merged[-1].end:
                last = merged[-1]
                merged[-1] = SecretHit(last.kind, last.start, hit.end)
            continue
        merged.append(hit)
    return tuple(merged)


# A value the library finds is redacted wherever it occurs in the text, each distinct value
# looked for once over the whole text while that costs SEARCH_BUDGET characters in all (a
# found place counting as _PLACE_COST characters): ordinary texts never come near it. A text
# holding more distinct suspected secrets than that buys has each of the rest redacted where
# it was found (its line or window), so that the work stays linear in the text.
SEARCH_BUDGET = 1 << 26
_PLACE_COST = 256


def _located(text: str, found: Iterable[tuple[str, str, int, int]]) -> Iterator[SecretHit]:
    """The places of the values ``found`` (kind, value, where it was found) in ``text``."""
    values: dict[tuple[str, bool], tuple[str, list[tuple[int, int]]]] = {}
    for kind, value, start, end in found:
        if len(value) < 4:
            continue
        # A URL password is replaced where it stands (before "@"), not wherever the word occurs.
        _, regions = values.setdefault((value, kind == "basic-auth-credentials"), (kind, []))
        if not regions or regions[-1] != (start, end):
            regions.append((start, end))
    budget = SEARCH_BUDGET
    for (value, before_at), (kind, regions) in values.items():
        if budget >= len(text):
            budget -= len(text)
            regions = [(0, len(text))]
        for start, end in regions:
            for at in _occurrences(text, value, before_at, start, end):
                budget -= _PLACE_COST
                yield SecretHit(kind, at, at + len(value))


def _occurrences(text: str, value: str, before_at: bool, start: int, end: int) -> Iterator[int]:
    """Where ``value`` starts in ``text[start:end]``, as ``re.finditer`` of its escaped form
    (with ``(?=@)`` if ``before_at``) finds it."""
    at = text.find(value, start, end)
    while at >= 0:
        if before_at and not text.startswith("@", at + len(value)):
            at = text.find(value, at + 1, end)
            continue
        yield at
        at = text.find(value, at + len(value), end)


def redact(text: str, hits: list[SecretHit] | None = None, *, full: bool = False) -> str:
    """``text`` with each suspected secret replaced by ``[redacted: <kind>]``."""
    hits = scan(text, full=full) if hits is None else hits
    if not hits:
        return text
    parts = []
    last = 0
    for hit in hits:
        parts.append(text[last : hit.start])
        parts.append(f"[redacted: {hit.kind}]")
        last = hit.end
    parts.append(text[last:])
    return "".join(parts)


# The fields of a new entry a write checks, in this order: the first one found is refused.
CHECKED_FIELDS = ("content", "key", "reason", "agent")


def is_allowed(obj: Mapping[str, Any]) -> bool:
    """Did a person mark this entry's suspected secret as a reviewed false positive?"""
    return obj.get(ALLOW_KEY) is True


def redact_object(obj: Mapping[str, Any], *, full: bool = False) -> dict[str, Any]:
    """A copy of an entry object with suspected secrets redacted in every string it holds."""
    from memsite.core.text import map_strings

    if is_allowed(obj):
        return dict(obj)
    redacted: dict[str, Any] = map_strings(dict(obj), lambda text: redact(text, full=full))
    return redacted


def _field_strings(obj: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, text) for every string of an entry object: ``content``, ``tags``, ``extra.a.b``."""
    stack: list[tuple[str, Any]] = [(str(k), v) for k, v in obj.items()]
    stack.reverse()
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            yield where, value
        elif isinstance(value, dict):
            for key, child in reversed(list(value.items())):
                yield f"a key in {where}", str(key)
                stack.append((f"{where}.{key}"[:80], child))
        elif isinstance(value, list):
            stack.extend((where, child) for child in reversed(value))


def entry_findings(obj: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, message) for each field of an entry holding a suspected secret (full scan)."""
    if is_allowed(obj):
        return []
    found = []
    for where, value in _field_strings(obj):
        if where in ("id", "created", ALLOW_KEY):
            continue
        hits = scan(value, full=True)
        if hits:
            found.append((where, describe(where, value, hits)))
    return found


def allowed_findings(obj: Mapping[str, Any]) -> list[str]:
    """For an entry a person allowed: the fields the full scan would otherwise report."""
    if not is_allowed(obj):
        return []
    return [
        message for _, message in entry_findings({k: v for k, v in obj.items() if k != ALLOW_KEY})
    ]


def refusal(fields: Mapping[str, str | None], tags: Iterable[str]) -> str | None:
    """Why a new entry must be refused (its first field that holds a suspected secret), or None.

    The message names the field, the kind and the position, never the value.
    """
    for name in CHECKED_FIELDS:
        value = fields.get(name)
        if value:
            hits = scan(value)
            if hits:
                return (
                    f"{describe(name, value, hits)}: remove it (use an environment variable "
                    "or vault path instead)"
                )
    for tag in tags:
        hits = scan(tag)
        if hits:
            return f"{describe('a tag', tag, hits)}: remove it"
    return None


def refuse_secrets(fields: Mapping[str, str | None], tags: Iterable[str], allow: bool) -> bool:
    """Raise SecretFoundError for a suspected secret unless ``allow`` (a person's reviewed
    false positive); True if one was allowed."""
    from memsite.errors import SecretFoundError

    reason = refusal(fields, tags)
    if reason is not None and not allow:
        raise SecretFoundError(reason)
    return reason is not None


def describe(field: str, text: str, hits: list[SecretHit]) -> str:
    """Where the secrets are, for messages: kinds and character positions, never values."""
    places = ", ".join(f"{h.kind} at characters {h.start + 1}-{h.end}" for h in hits)
    return f"{field} holds what looks like a secret ({places})"
