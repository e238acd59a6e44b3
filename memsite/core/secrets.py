"""Secret detection and redaction for entry text, built on detect-secrets.

Two tiers, because importing detect-secrets costs ~150 ms and `memsite add` has 150 ms in all:

* ``prefilter`` — a handful of compiled regexes for known token prefixes and shapes, key-like
  assignments, credentials in URLs and long high-entropy runs. It runs on every write.
* ``scan`` — detect-secrets' token-format plugins (AWS, GitHub, GitLab, Slack, Stripe, private
  keys, JWTs, basic-auth URLs, npm, PyPI, OpenAI, SendGrid, Twilio…), its keyword detector
  (run in its YAML/INI mode, which catches ``password = …`` but not prose about passwords) and
  a tuned entropy check (base64-like runs of 32+ characters mixing cases and digits with
  Shannon entropy ≥ 4.5; hex digests, UUIDs and SRI hashes stay ordinary text). It is imported
  only when the prefilter finds a candidate, or when ``full=True`` (review, build).

Distinctive vendor prefixes the library has no plugin for (e.g. Google API keys) are trusted
from the prefilter alone, and so are passwords in URLs (the library's pattern skips legal
characters such as "!"). The prefilter also mirrors the library's patterns that have no
distinctive literal (Twilio, Mailchimp, Discord, Telegram): whatever the full scan finds, the
prefilter must let through, or a view would publish what ``review`` reports (Artifactory's
API-key pattern is mirrored for the same reason; its "AP…" password pattern, which takes
invoice numbers, is ignored). Values that only
name a secret (``${DB_PASSWORD}``, ``os.environ[…]``, ``<paste here>``) and labelled public
digests and keys (``h1:…``, ``SHA256:…``, ``ssh-ed25519 AAAA…``) are not findings.
No function here ever returns or formats a secret's value.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import Any, NamedTuple, TypeVar

ALLOW_KEY = "allow_secret"

# Distinctive formats: a match is a finding even without the library's confirmation. Each has
# the literals one of which it must contain: a substring test (fast, in C) decides whether the
# regex is worth compiling and running.
_SHAPES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "aws-access-key",
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b",
    ),
    (
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("gitlab-token", ("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("slack-token", ("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    (
        "slack-webhook",
        ("hooks.slack.com",),
        r"hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
    ),
    ("stripe-key", ("_live_", "_test_"), r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    (
        "private-key",
        ("PRIVATE KEY",),
        # PEM ("-----BEGIN RSA PRIVATE KEY-----") and SSH2 ("---- BEGIN SSH2 … ----") armour;
        # an unterminated block runs to the end of the text.
        r"-{4,5} ?BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)? ?-{4,5}"
        r"(?:[\s\S]*?-{4,5} ?END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)? ?-{4,5}|[\s\S]*)",
    ),
    (
        "private-key",
        ("PuTTY-User-Key-File-",),
        r"PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC: *[0-9a-fA-F]+|$)",
    ),
    (
        "json-web-token",
        ("eyJ",),
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    ("google-api-key", ("AIza",), r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("npm-token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", ("pypi-",), r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    ("sendgrid-api-key", ("SG.",), r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"),
    ("openai-token", ("sk-",), r"\bsk-(?:proj-|ant-[a-z0-9]+-)?[A-Za-z0-9_-]{20,}"),
    # The library's own patterns for formats without a distinctive literal: the prefilter must
    # see everything its confirmation step would find.
    ("twilio-api-key", ("AC", "SK"), r"(?:AC|SK)[a-z0-9]{32}"),
    ("mailchimp-access-key", ("-us",), r"[0-9a-z]{32}-us[0-9]{1,2}"),
    (
        "discord-bot-token",
        (".",),
        r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}",
    ),
    ("telegram-bot-token", (":",), r"\d{8,10}:[0-9A-Za-z_-]{35}"),
    ("artifactory-credentials", ("AKC",), r"(?:(?<=[\s=:\"])|^)AKC[a-zA-Z0-9]{10,}(?=[\s\"]|$)"),
)
# The longest run of [A-Za-z0-9+/_-] that a match of each format must hold (its prefix, body
# and the separators of that class; a test checks each against matches of its pattern). A
# fact whose runs are all shorter cannot hold the format: most facts are prose with short
# runs, and a few C-speed string operations spare them the regexes. The armoured formats
# hold spaces; their literals decide.
_MIN_RUN = {
    "aws-access-key": 20,
    "github-token": 33,
    "gitlab-token": 26,
    "slack-token": 15,
    "slack-webhook": 14,
    "stripe-key": 24,
    "private-key": 0,
    "json-web-token": 11,
    "google-api-key": 39,
    "npm-token": 40,
    "pypi-token": 58,
    "sendgrid-api-key": 43,
    "openai-token": 23,
    "twilio-api-key": 34,
    "mailchimp-access-key": 32,
    "discord-bot-token": 27,
    "telegram-bot-token": 35,
    "artifactory-credentials": 13,
}
_ENTROPY_RUN = 32  # the shortest run ``_RUN`` takes
# The UTF-8 bytes of a text with every other ASCII character as a space: its runs are the
# words of the result (joined across non-ASCII characters, which only makes a run look
# longer, never shorter).
_RUN_CHARACTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_RUNS = bytes(c if c in _RUN_CHARACTERS or c >= 128 else 32 for c in range(256))
# user:password@ in a URL. The password alone is the finding (when it is not a placeholder): the
# library's pattern skips passwords holding RFC 3986 sub-delimiters ("!", "*", "$"…), which
# are legal there.
_URL_CREDENTIALS = r"://[^\s/:@]*:([^\s/@]+)@"
_PLACEHOLDER_WORDS = frozenset({"pass", "passwd", "password", "pwd", "secret", "token"})
# Candidates that need the library to confirm them.
_ASSIGNMENT = (
    r"(?i:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|access[_-]?key|credential|auth"
    r"|private[_-]?key|accountkey)[\w.-]*[\"']?\s*(?:[:=]|=>)\s*[\"']?([^\s\"']+)"
)
_KEYWORDS = ("pass", "secret", "token", "key", "credential", "auth")
# "=" only as trailing padding, so that in "name=VALUE" the run is VALUE alone.
_RUN = r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}=*"
# A run right after one of these is a published digest or public key, not a secret: go.sum
# "h1:", SSH fingerprints "SHA256:", "sha512:" digests, "ssh-ed25519 AAAA…" public keys.
_PUBLIC_LABEL = (
    r"(?i:\b(?:sha(?:1|224|256|384|512)|sha3-(?:256|512)|md5|h1|blake2[bs]?|blake3)[:-]"
    r"|\b(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp(?:256|384|521)"
    r"|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+)$"
)
# A value naming where the secret comes from, not the secret: os.environ[…], getenv(…),
# process.env.DB_PASSWORD, settings.SECRET, DB_PASSWORD.
_REFERENCE = (
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:[\[(].*)?|[A-Za-z_]\w*[\[(].*|[A-Z]+(?:_[A-Z0-9]+)*"
)
# Library matches that are ordinary text: Artifactory's "AP<hex><8+ alnum>" password pattern
# takes invoice and order numbers ("AP20240517001").
_IGNORED_VALUE = r"AP[\dABCDEF][a-zA-Z0-9]{8,}"
_SRI = r"(?i:sha(?:1|256|384|512)-)"
ENTROPY_LIMIT = 4.5
# Every pattern of detect-secrets' keyword detector holds a term of its denylist ("api_?key",
# "db_?pass", "password", "pwd", "secret", "contraseña", ...), matched ignoring case, and each
# term holds one of these: a line none of them matches (with the same case rule) is not
# worth the detector's dozen slow patterns. tests/core/test_secrets_prefilter.py checks both
# claims.
_KEYWORD_HINT = r"(?i)key|pass|pwd|secret|contrase"
_SKIPPED_PLUGINS = {
    "KeywordDetector",  # run separately, in its assignment-aware mode
    "Base64HighEntropyString",  # replaced by the tuned check below
    "HexHighEntropyString",  # hex digests are ordinary facts ("sha256 9f86…")
    "IPPublicDetector",  # an address is not a credential
}


class SecretHit(NamedTuple):
    """Where a suspected secret sits in a text, and what kind it looks like."""

    kind: str
    start: int
    end: int


@cache
def _re(pattern: str) -> re.Pattern[str]:
    """Compile on first use: most texts never need most patterns, and import stays cheap."""
    return re.compile(pattern)


def prefilter(text: str) -> bool:
    """True when ``text`` might hold a secret: cheap, run on every write and every output.

    Substring tests (fast, in C) decide which of the regexes are worth running at all. Short
    texts (tags, keys, agent names) repeat from entry to entry: their answers are kept.
    """
    return _remembered(_short_answers, text, _prefilter)


_SHORT = 64
_SHORT_MEMO = 1 << 16
_short_answers: dict[str, bool] = {}
_short_scans: dict[str, tuple[SecretHit, ...]] = {}
_T = TypeVar("_T")


def _remembered(memo: dict[str, _T], text: str, compute: Callable[[str], _T]) -> _T:
    """``compute(text)``, kept in ``memo`` when ``text`` is short: short texts (tags, keys,
    agent names) repeat from entry to entry."""
    if len(text) > _SHORT:
        return compute(text)
    found = memo.get(text)
    if found is None:
        if len(memo) >= _SHORT_MEMO:
            memo.clear()
        found = memo[text] = compute(text)
    return found


def _prefilter(text: str) -> bool:
    longest = longest_run(text)
    if any(_shapes(text, longest)) or (
        "://" in text
        and any(not placeholder(m.group(1)) for m in _re(_URL_CREDENTIALS).finditer(text))
    ):
        return True
    if (
        ("=" in text or ":" in text)
        and _names_a_secret(text.lower())
        and any(credential_like(m.group(1)) for m in _re(_ASSIGNMENT).finditer(text))
    ):
        return True
    return longest >= _ENTROPY_RUN and any(_entropy_runs(text))


def _names_a_secret(lowered: str) -> bool:
    return any(word in lowered for word in _KEYWORDS)


def longest_run(text: str) -> int:
    """At least the length of the longest run of ``[A-Za-z0-9+/_-]`` in ``text``."""
    runs = text.encode("utf-8", "surrogatepass").translate(_RUNS).split()
    return max(map(len, runs), default=0)


def match_shape(text: str) -> Iterator[SecretHit]:
    """Spans of the distinctive token formats in ``text``."""
    return _shapes(text, longest_run(text))


def _shapes(text: str, longest: int) -> Iterator[SecretHit]:
    for kind, needles, pattern in _SHAPES:
        if _MIN_RUN[kind] > longest:
            continue
        for needle in needles:
            if needle in text:
                for m in _re(pattern).finditer(text):
                    yield SecretHit(kind, m.start(), m.end())
                break


def url_credentials(text: str) -> Iterator[SecretHit]:
    """Spans of the passwords in ``scheme://user:password@`` URLs (placeholders left out)."""
    if "://" in text:
        for m in _re(_URL_CREDENTIALS).finditer(text):
            if credential_like(m.group(1)):
                yield SecretHit("basic-auth-credentials", m.start(1), m.end(1))


def placeholder(value: str) -> bool:
    """A stand-in for a value ("${DB_PASSWORD}", "<token>", "****", "password"), not one."""
    value = value.strip("\"'`,;")
    return (
        not value
        or value[0] in "$<{%("
        or set(value) <= {"*", "x", "X", "."}
        or value.lower() in _PLACEHOLDER_WORDS
    )


def credential_like(value: str) -> bool:
    """Could this assigned value be a real credential (not a word, path or placeholder)?"""
    value = value.strip("\"'`,;")
    if len(value) < 6 or placeholder(value) or "://" in value or _re(_REFERENCE).fullmatch(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    # Path and identifier punctuation alone ("tests/test_x.py", "my-app.name") is not enough.
    has_symbol = any(not c.isalnum() and c not in "/._-" for c in value)
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return has_digit or has_symbol or mixed


def high_entropy(run: str) -> bool:
    """A long base64-like run (of ``[A-Za-z0-9+/_-]``) mixing cases and digits, with high
    entropy; not an SRI hash."""
    if _re(_SRI).match(run):
        return False
    value = run.rstrip("=")
    # For an ASCII run: a lower-case letter, an upper-case one and a digit (string methods
    # in C rather than a loop over the characters)
    mixed = (
        value.upper() != value
        and value.lower() != value
        and any(digit in value for digit in "0123456789")
    )
    return mixed and shannon_entropy(value) >= ENTROPY_LIMIT


def _entropy_runs(text: str) -> Iterator[re.Match[str]]:
    """High-entropy runs of ``text`` that no public label (digest, public key) introduces."""
    for m in _re(_RUN).finditer(text):
        if high_entropy(m.group()) and not _re(_PUBLIC_LABEL).search(
            text, max(0, m.start() - 40), m.start()
        ):
            yield m


def slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def shannon_entropy(value: str) -> float:
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


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
                if not placeholder(value) and not _re(_IGNORED_VALUE).fullmatch(value):
                    yield slug(plugin.secret_type), value
        if _re(_KEYWORD_HINT).search(line):  # else no pattern of the keyword detector matches
            yield from _keyword_values(keyword, snippet, line)
        for match in _entropy_runs(line):
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
    found: tuple[SecretHit, ...] = _remembered(_short_scans, text, _scan)
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
