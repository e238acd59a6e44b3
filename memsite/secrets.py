"""Secret detection and redaction for entry text. Pure (the detector library loads lazily).

Work in progress: the token-shape pre-filter is here; the detect-secrets confirmation comes
with the secret-safety work. ``redact`` is the one function every publishing path calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Token shapes with a documented, recognisable format. Each is (kind, pattern).
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    (
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    ),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("stripe-key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("private-key", re.compile(r"-----BEGIN[A-Z ]{0,20} PRIVATE KEY(?: BLOCK)?-----")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("url-credentials", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@[^\s/]+")),
)


@dataclass(frozen=True)
class SecretHit:
    kind: str
    start: int
    end: int


def find_secrets(text: str) -> list[SecretHit]:
    """Spans of ``text`` that look like credentials, in order, never overlapping."""
    hits = [
        SecretHit(kind, m.start(), m.end())
        for kind, pattern in _SHAPES
        for m in pattern.finditer(text)
    ]
    hits.sort(key=lambda h: (h.start, -h.end))
    merged: list[SecretHit] = []
    for hit in hits:
        if merged and hit.start < merged[-1].end:
            continue
        merged.append(hit)
    return merged


def redact(text: str) -> str:
    """``text`` with every suspected secret replaced by ``[redacted: <kind>]``."""
    hits = find_secrets(text)
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
