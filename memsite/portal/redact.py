"""Redaction for publishing: every string of every entry, each distinct text scanned once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memsite.core.entry import Entry
from memsite.core.secrets import is_allowed, redact
from memsite.core.text import map_strings


class Redactor:
    """Redaction of entries for publishing, each distinct text scanned once per process.

    Entries go through :func:`memsite.core.secrets.redact` (its quick pre-filter decides when the
    detect-secrets library looks closer); entries in ``full_ids`` — those whose full library
    scan (``memsite review``) found something — are redacted with the full scan. Entries the
    team marked ``allow_secret`` (a reviewed false positive) are published as they are.
    """

    def __init__(self, full_ids: Iterable[str] = ()) -> None:
        self.full_ids = set(full_ids)
        self._memo: dict[tuple[str, bool], str] = {}

    def text(self, value: str, full: bool = False) -> str:
        key = (value, full)
        out = self._memo.get(key)
        if out is None:
            out = self._memo[key] = redact(value, full=full)
        return out

    def value(self, value: Any, full: bool) -> Any:
        return map_strings(value, lambda text: self.text(text, full))

    def __call__(self, entry: Entry) -> Entry:
        return self.redact(entry, entry.id in self.full_ids)

    def redact(self, entry: Entry, full: bool) -> Entry:
        """``entry`` with every string redacted (``full``: with the detect-secrets scan)."""
        if is_allowed(entry.raw):
            return entry
        if not full and not entry.is_suspect() and self.text(entry.category) == entry.category:
            # No string the quick scan reads may hold a secret (``Entry.is_suspect``; the
            # other checked values cannot): it would return every one of them unchanged.
            return entry
        text = self.text
        return entry.replace(
            category=text(entry.category, full),
            content=text(entry.content, full),
            tags=tuple(text(t, full) for t in entry.tags),
            agent=None if entry.agent is None else text(entry.agent, full),
            key=None if entry.key is None else text(entry.key, full),
            reason=None if entry.reason is None else text(entry.reason, full),
            raw=self.value(dict(entry.raw), full),
        )
