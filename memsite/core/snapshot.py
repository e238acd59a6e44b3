"""A slim, cached read model of the active entries, for the hot paths (`add`, `search`).

Compacting 10k entries costs more than the whole budget of `memsite add`, so after each full
compaction the service saves what the hot paths need: every id, and for each active entry its
category, a digest of its normalized content, key, file, time, confidence and search tokens.
It is stored in columns (plain lists) so that loading it creates no per-entry objects. The
snapshot is keyed by the fingerprint of entries/ and trusted only when that matches the folder
exactly; a writer that adds one entry updates it in place (its entry is the newest, so the
compaction rules reduce to a few removals). Pure, apart from marshal (de)serialisation.
"""

from __future__ import annotations

import hashlib
import marshal
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from memsite import __version__
from memsite.core.entry import CONFIDENCE_RANK, Entry
from memsite.core.ranking import SEP, Corpus, entry_tokens, pack_tokens
from memsite.core.text import word_tokens

if TYPE_CHECKING:
    from memsite.core.compaction import Compaction

_VERSION = 4


@dataclass
class Snapshot:
    """Active entries as columns, newest first, plus every id in the store."""

    fingerprint: str
    newest: float
    ids: set[str]
    id: list[str] = field(default_factory=list)
    category: list[str] = field(default_factory=list)
    digest: list[int] = field(default_factory=list)  # of the normalized content (dedup)
    key: list[str | None] = field(default_factory=list)
    filename: list[str] = field(default_factory=list)
    created: list[float] = field(default_factory=list)
    confidence: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    length: list[int] = field(default_factory=list)
    words: list[int] = field(default_factory=list)  # distinct content words (near-dup filter)
    ncontent: list[int] = field(default_factory=list)  # leading tokens that are content's

    def content_words(self, i: int) -> frozenset[str]:
        """The word set of entry ``i``'s content, from its packed search tokens."""
        return frozenset(self.tokens[i].split(SEP)[1::2][: self.ncontent[i]])

    def dump(self) -> bytes:
        """The fingerprint on a first line (to check freshness cheaply), then the columns."""
        columns = [getattr(self, f.name) for f in fields(self)[3:]]
        body = marshal.dumps(((_VERSION, __version__), self.newest, sorted(self.ids), columns))
        return self.fingerprint.encode() + b"\n" + body

    @classmethod
    def load(cls, data: bytes, fingerprint: str | None = None) -> Snapshot | None:
        """The snapshot in ``data``; None if unreadable, or not of ``fingerprint`` when given."""
        head, _, body = data.partition(b"\n")
        if fingerprint is not None and head != fingerprint.encode():
            return None
        try:
            version, newest, ids, columns = marshal.loads(body)
            if version != (_VERSION, __version__):
                return None
            return cls(head.decode(), newest, set(ids), *columns)
        except (EOFError, ValueError, TypeError, UnicodeDecodeError):
            return None

    @staticmethod
    def fingerprint_of(data: bytes) -> str:
        return data.partition(b"\n")[0].decode(errors="replace")

    def append(self, entry: Entry) -> None:
        tokens = entry_tokens(entry)
        self.id.append(entry.id)
        self.category.append(entry.category)
        self.digest.append(content_digest(entry.normalized))
        self.key.append(entry.key)
        self.filename.append(entry.filename)
        self.created.append(entry.created.timestamp())
        self.confidence.append(CONFIDENCE_RANK[entry.confidence])
        self.tokens.append(pack_tokens(tokens))
        self.length.append(len(tokens))
        content = word_tokens(entry.normalized)
        self.words.append(len(set(content)))
        self.ncontent.append(len(content))

    def rows(self, category: str | None = None) -> list[int]:
        """Positions of the active entries, optionally of one category."""
        if category is None:
            return list(range(len(self.id)))
        return [i for i, c in enumerate(self.category) if c == category]

    def corpus(self, category: str | None = None) -> Corpus:
        chosen = self.rows(category)
        return Corpus(
            tokens=[self.tokens[i] for i in chosen],
            length=[self.length[i] for i in chosen],
            created=[self.created[i] for i in chosen],
            ref=[self.id[i] for i in chosen],
            confidence=[self.confidence[i] for i in chosen],
            file=[self.filename[i] for i in chosen],
            line=[0] * len(chosen),
            text=[""] * len(chosen),
        )

    def with_new_entry(self, entry: Entry, fingerprint: str) -> Snapshot | None:
        """The snapshot after ``entry`` was written, or None when it cannot be derived.

        Valid only for an entry newer than every other: it then wins its duplicate and key
        groups and supersedes its targets, and nothing else changes.
        """
        created = entry.created.timestamp()
        if created <= self.newest or entry.id in self.ids:
            return None
        targets = set(entry.supersedes)
        keep = [
            i
            for i in range(len(self.id))
            if self.id[i] not in targets
            and not (
                self.category[i] == entry.category
                and (
                    self.digest[i] == content_digest(entry.normalized)
                    or (entry.key is not None and self.key[i] == entry.key)
                )
            )
        ]
        updated = Snapshot(fingerprint, created, self.ids | {entry.id})
        updated.append(entry)
        for column in fields(self)[3:]:
            old = getattr(self, column.name)
            getattr(updated, column.name).extend(old[i] for i in keep)
        return updated


def content_digest(normalized: str) -> int:
    """64 bits of BLAKE2b: equal digests are confirmed against the entry file before use."""
    return int.from_bytes(hashlib.blake2b(normalized.encode(), digest_size=8).digest(), "big")


def build_snapshot(result: Compaction, fingerprint: str) -> Snapshot:
    newest = max((e.created.timestamp() for e in result.entries), default=0.0)
    snapshot = Snapshot(fingerprint, newest, set(result.by_id))
    for entry in result.active():
        snapshot.append(entry)
    return snapshot
