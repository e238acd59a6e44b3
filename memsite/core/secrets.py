"""Secret detection and redaction for entry text, built on detect-secrets.

Two tiers, because importing detect-secrets costs ~150 ms and `memsite add` has 150 ms in all:

* ``core.prefilter`` — cheap patterns, run on every write and every output;
* :func:`scan` — detect-secrets' token-format plugins (AWS, GitHub, GitLab, Slack, Stripe,
  private keys, JWTs, basic-auth URLs, npm, PyPI, OpenAI, SendGrid, Twilio…), its keyword
  detector (run in its YAML/INI mode, which catches ``password = …`` but not prose about
  passwords) and a tuned entropy check (base64-like runs of 32+ characters mixing cases and
  digits with Shannon entropy ≥ 4.5; hex digests, UUIDs and SRI hashes stay ordinary text).
  It is imported only when the prefilter finds a candidate, or when ``full=True`` (review,
  build).

No function here ever returns or formats a secret's value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any

from memsite.core.prefilter import (
    SecretHit,
    compiled,
    credential_like,
    entropy_runs,
    match_shape,
    placeholder,
    prefilter,
    remembered,
    short_scans,
    url_credentials,
)

ALLOW_KEY = "allow_secret"

# Library matches that are ordinary text: Artifactory's "AP<hex><8+ alnum>" password pattern
# takes invoice and order numbers ("AP20240517001").
_IGNORED_VALUE = r"AP[\dABCDEF][a-zA-Z0-9]{8,}"
# Every pattern of detect-secrets' keyword detector holds a term of its denylist ("api_?key",
# "db_?pass", "password", "pwd", "secret", "contraseña", ...), matched ignoring case, and each
# term holds one of these: a line none of them matches (with the same case rule) is not
# worth the detector's dozen slow patterns. tests/core/test_prefilter.py checks both
# claims.
_KEYWORD_HINT = r"(?i)key|pass|pwd|secret|contrase"
_SKIPPED_PLUGINS = {
    "KeywordDetector",  # run separately, in its assignment-aware mode
    "Base64HighEntropyString",  # replaced by the tuned check below
    "HexHighEntropyString",  # hex digests are ordinary facts ("sha256 9f86…")
    "IPPublicDetector",  # an address is not a credential
}


def slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


@cache
def _library() -> tuple[list[Any], Any, Any]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.keyword import KeywordDetector
    from detect_secrets.util.code_snippet import get_code_snippet

    classes: list[Any] = list(get_mapping_from_secret_type_to_class().values())
    plugins = [cls() for cls in classes if cls.__name__ not in _SKIPPED_PLUGINS]
    return plugins, KeywordDetector(), get_code_snippet


def _library_values(text: str) -> Iterator[tuple[str, str]]:
    """(kind, value) pairs detect-secrets finds in ``text``."""
    plugins, keyword, snippet = _library()
    for line in text.splitlines():
        if not line.strip():
            continue
        for plugin in plugins:
            for value in plugin.analyze_string(line):
                # A credential holds no space, but some patterns run on to the end of the line
                # (npm's .npmrc one); private-key values are armour markers, kept whole.
                if plugin.secret_type != "Private Key" and value.split():
                    value = value.split()[0]
                if not placeholder(value) and not compiled(_IGNORED_VALUE).fullmatch(value):
                    yield slug(plugin.secret_type), value
        if compiled(_KEYWORD_HINT).search(line):  # else no pattern of the keyword detector matches
            yield from _keyword_values(keyword, snippet, line)
        for match in entropy_runs(line):
            yield "high-entropy-string", match.group().rstrip("=")


def _keyword_values(keyword: Any, snippet: Any, line: str) -> Iterator[tuple[str, str]]:
    """The values detect-secrets' keyword detector finds in one line."""
    context = snippet([line], 1)
    for found in keyword.analyze_line(
        filename="memsite.yaml", line=line, line_number=1, context=context
    ):
        # In its config mode the detector takes the rest of the line ("see 1Password
        # (vault …)"): the first word is the value.
        words = (found.secret_value or "").split()
        value = words[0].strip("\"'`,;") if words else ""
        if credential_like(value):
            yield "secret-keyword", value


def scan(text: str, *, full: bool = False) -> list[SecretHit]:
    """Suspected secrets in ``text``, in order, never overlapping.

    Without ``full`` the library is consulted only when the prefilter finds a candidate.
    """
    if not text or (not full and not prefilter(text)):
        return []
    found: tuple[SecretHit, ...] = remembered(short_scans, text, _scan)
    return list(found)


def _scan(text: str) -> tuple[SecretHit, ...]:
    spans = [*match_shape(text), *url_credentials(text)]
    for kind, value in _library_values(text):
        if len(value) < 4:
            continue
        # A URL password is replaced where it stands (before "@"), not wherever the word occurs.
        pattern = re.escape(value) + ("(?=@)" if kind == "basic-auth-credentials" else "")
        for m in re.finditer(pattern, text):
            spans.append(SecretHit(kind, m.start(), m.end()))
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
