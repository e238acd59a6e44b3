"""The cheap tier of secret detection: a handful of compiled regexes for known token prefixes
and shapes, key-like assignments, credentials in URLs and long high-entropy runs. Pure.

It runs on every write and every output (``secrets.scan`` without ``full``), and decides when
detect-secrets (~150 ms to import) is worth asking. Distinctive vendor prefixes the library
has no plugin for (e.g. Google API keys) are trusted from it alone, and so are passwords in
URLs (the library's pattern skips legal characters such as "!"). It also mirrors the
library's patterns that have no distinctive literal (Twilio, Mailchimp, Discord, Telegram):
whatever the full scan finds, the prefilter must let through, or a view would publish what
``review`` reports (Artifactory's API-key pattern is mirrored for the same reason). Values
that only name a secret (``${DB_PASSWORD}``, ``os.environ[…]``, ``<paste here>``) and labelled
public digests and keys (``h1:…``, ``SHA256:…``, ``ssh-ed25519 AAAA…``) are not findings.
Every search takes time linear in the text (a pattern that reads on through a run goes through
:func:`anchored`): an entry file may hold a MiB. No function here ever returns or formats a
secret's value.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from typing import NamedTuple, TypeVar

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


# Formats searched with :func:`anchored`: (anchor, run). A JSON web token's first part runs
# to the end of its run of ``[A-Za-z0-9_-]`` whatever ``eyJ`` it starts at, and
# ``'eyJ-' * N`` holds one at every fourth character.
_SKIPS = {"json-web-token": (r"\beyJ", r"[A-Za-z0-9_-]*")}


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


# Candidates that need the library to confirm them: a name holding one of these, then an
# assignment. Every term of detect-secrets' keyword denylist ("pwd", "contraseña",
# "service_key"…) is among them: what its keyword detector finds, this must let through.
_SECRET_NAME = (
    r"(?i:pass(?:word|wd|phrase)?|pwd|contrase[ñn]a|secret|token|credential|auth"
    r"|(?:api|access|account|service|client|private|priv|db|database)[_-]?key)"
)


# The rest of an assignment. A name's run of ``[\w.-]`` holds every later occurrence of a
# name that starts in it, and all of them end the run at the same place: when the tail fails
# after one, it fails after each later one (see :func:`anchored`).
_ASSIGNMENT_TAIL = r"[\w.-]*[\"']?\s*(?:[:=]|=>)\s*[\"']?([^\s\"']+)"


_ASSIGNMENT = _SECRET_NAME + _ASSIGNMENT_TAIL


_NAME_RUN = r"[\w.-]*"


_KEYWORDS = ("pass", "pwd", "contrase", "secret", "token", "key", "credential", "auth")


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


_SRI = r"(?i:sha(?:1|256|384|512)-)"


ENTROPY_LIMIT = 4.5


class SecretHit(NamedTuple):
    """Where a suspected secret sits in a text, and what kind it looks like."""

    kind: str
    start: int
    end: int


@cache
def compiled(pattern: str) -> re.Pattern[str]:
    """Compile on first use: most texts never need most patterns, and import stays cheap."""
    return re.compile(pattern)


def prefilter(text: str) -> bool:
    """True when ``text`` might hold a secret: cheap, run on every write and every output.

    Substring tests (fast, in C) decide which of the regexes are worth running at all. Short
    texts (tags, keys, agent names) repeat from entry to entry: their answers are kept.
    """
    return remembered(_short_answers, text, _prefilter)


_SHORT = 64


_SHORT_MEMO = 1 << 16


_short_answers: dict[str, bool] = {}


short_scans: dict[str, tuple[SecretHit, ...]] = {}


_T = TypeVar("_T")


def remembered(memo: dict[str, _T], text: str, compute: Callable[[str], _T]) -> _T:
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
        and any(not placeholder(m.group(1)) for m in compiled(_URL_CREDENTIALS).finditer(text))
    ):
        return True
    if (
        ("=" in text or ":" in text)
        and _names_a_secret(text.lower())
        and any(credential_like(m.group(1)) for m in assignments(text))
    ):
        return True
    return longest >= _ENTROPY_RUN and any(entropy_runs(text))


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
                skip = _SKIPS.get(kind)
                found = (
                    compiled(pattern).finditer(text)
                    if skip is None
                    else anchored(skip[0], pattern, skip[1], text)
                )
                for m in found:
                    yield SecretHit(kind, m.start(), m.end())
                break


def assignments(text: str) -> Iterator[re.Match[str]]:
    """``re.finditer(_ASSIGNMENT, text)``, in time linear in ``text``: group 1 is the value."""
    return anchored(_SECRET_NAME, _ASSIGNMENT, _NAME_RUN, text)


_Regex = str | re.Pattern[str]


def anchored(anchor: _Regex, pattern: _Regex, run: _Regex, text: str) -> Iterator[re.Match[str]]:
    """``re.finditer(pattern, text)``, for a ``pattern`` that starts with ``anchor`` and that,
    failing at one anchor, fails at every later anchor in the same run of ``run`` characters
    (as when what follows the anchor reads on through the run: a later anchor has less of
    it). The search goes on from the run's end instead of trying each anchor in it, each of
    which would read the rest of the run again: ``'token' * 199_000 + '='`` took over 120 s
    as one ``finditer``, and takes ~0.1 s this way.
    """
    find, whole, skip = (
        p if isinstance(p, re.Pattern) else compiled(p) for p in (anchor, pattern, run)
    )
    pos = 0
    while (start := find.search(text, pos)) is not None:
        at = start.start()
        m = whole.match(text, at)
        if m is not None:
            yield m
            pos = max(m.end(), at + 1)
        else:
            end = skip.match(text, at)
            pos = max(end.end() if end else at, at + 1)


def url_credentials(text: str) -> Iterator[SecretHit]:
    """Spans of the passwords in ``scheme://user:password@`` URLs (placeholders left out)."""
    if "://" in text:
        for m in compiled(_URL_CREDENTIALS).finditer(text):
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
    if (
        len(value) < 6
        or placeholder(value)
        or "://" in value
        or compiled(_REFERENCE).fullmatch(value)
    ):
        return False
    has_digit = any(c.isdigit() for c in value)
    # Path and identifier punctuation alone ("tests/test_x.py", "my-app.name") is not enough.
    has_symbol = any(not c.isalnum() and c not in "/._-" for c in value)
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return has_digit or has_symbol or mixed


def high_entropy(run: str) -> bool:
    """A long base64-like run (of ``[A-Za-z0-9+/_-]``) mixing cases and digits, with high
    entropy; not an SRI hash."""
    if compiled(_SRI).match(run):
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


def entropy_runs(text: str) -> Iterator[re.Match[str]]:
    """High-entropy runs of ``text`` that no public label (digest, public key) introduces."""
    for m in compiled(_RUN).finditer(text):
        if high_entropy(m.group()) and not compiled(_PUBLIC_LABEL).search(
            text, max(0, m.start() - 40), m.start()
        ):
            yield m


def shannon_entropy(value: str) -> float:
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())
