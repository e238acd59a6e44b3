"""What one operation knows of the store: the indexed read model (``storage.index``, kept in
step with entries/ by taking in only what changed) and, when a command needs every entry with
every finding (review, status, the portal), the full compaction, built from the index's rows.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NamedTuple

from memsite.core.config import Config
from memsite.storage.cache import Caches
from memsite.storage.entries import Scan
from memsite.storage.index import Index
from memsite.storage.layout import Store

if TYPE_CHECKING:
    from memsite.core.compaction import Compaction
    from memsite.core.entry import Entry


class State(NamedTuple):
    scan: Scan
    result: Compaction


class ReadModel:
    """The store as read by one operation; ``invalidate`` after writing to it."""

    def __init__(self, store: Store, config: Config) -> None:
        self.store = store
        self.config = config
        self.caches = Caches(store)
        self.index = Index(store)
        self._state: State | None = None
        # Set by a long-lived reader (serve) to keep unchanged entries' objects between reads:
        # see Index.all_entries.
        self.known: dict[str, tuple[int, Entry]] | None = None
        # index.md's markers (drift, staleness), once per operation: see upkeep._flags
        self.flags: dict[str, str] | None = None

    def synced(self, *, full: bool = False) -> Index:
        """The index, brought up to date with entries/ (notices about the cache printed once)."""
        self.index.sync(full=full)
        for notice in self.index.notices:
            print(f"memsite: {notice}", file=sys.stderr)
        self.index.notices.clear()
        return self.index

    def state(self) -> State:
        """Every entry read and compacted."""
        if self._state is None:
            from memsite.core.compaction import compact

            index = self.synced()
            found = Scan(index.all_entries(self.known), index.invalid(), index.all_records())
            retired = {r.target for r in found.records if r.kind == "retire"}
            self._state = State(found, compact(found.entries, self.config.categories, retired))
        return self._state

    def loaded(self) -> State | None:
        """The state if this operation has read it already (else None: nothing is read)."""
        return self._state

    def fingerprint(self) -> str:
        """Changes whenever the entries change; computed from the index, no file is read."""
        return self.synced().fingerprint()

    def invalidate(self) -> None:
        self._state = None
        self.flags = None
        self.index.forget()
