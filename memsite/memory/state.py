"""What one operation knows of the store: the indexed read model (``storage.readmodel``, kept
in step with entries/ by taking in only what changed) and, when a command needs every entry
with every finding (review, status, the portal), the full compaction, built from its rows.

A :class:`ReadModel` is complete when it is made: a long-lived reader (``serve``) hands the
objects it kept to the next one at construction (``known``), never by setting a field later.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.core.config import Config
from memsite.storage.cache import Caches
from memsite.storage.entries import Scan
from memsite.storage.layout import Store
from memsite.storage.readmodel import Index

if TYPE_CHECKING:
    from memsite.core.compaction import Compaction
    from memsite.core.entry import Entry

# File name → (hash of its index row's data, its Entry): see ``Index.all_entries``.
Known = dict[str, tuple[int, "Entry"]]


class State(NamedTuple):
    """Every entry read and compacted: the scan (entries, unusable files, records) and the
    compaction's result."""

    scan: Scan
    result: Compaction


class ReadModel:
    """The store as read by one operation; ``invalidate`` after writing to it.

    ``known``: entries' objects kept between reads by a long-lived reader, so that an
    unchanged row gives its earlier ``Entry`` again (caches keyed by it stay warm)."""

    def __init__(self, store: Store, config: Config, known: Known | None = None) -> None:
        self.store = store
        self.config = config
        self.caches = Caches(store)
        self.index = Index(store)
        self.index.tell = _tell
        self.known = known
        self._state: State | None = None
        self._markers: dict[str, str] | None = None
        self.trust: Any = None  # memory.trust's answer for the operation, with its key
        self.provenance: Any = None  # memory.trust.provenance's, with its key

    def synced(self, *, full: bool = False) -> Index:
        """The index, brought up to date with entries/ (notices about the cache printed once)."""
        self.index.sync(full=full)
        for notice in self.index.notices:
            _tell(notice)
        self.index.notices.clear()
        return self.index

    def state(self) -> State:
        """Every entry read and compacted."""
        if self._state is None:
            from memsite.core.compaction import compact

            index = self.synced()
            found = Scan(
                index.entries.all(self.known), index.entries.invalid(), index.records.all()
            )
            retired = {r.target for r in found.records if r.kind == "retire"}
            self._state = State(found, compact(found.entries, self.config.categories, retired))
        return self._state

    def markers(self, find: Callable[[], dict[str, str]]) -> dict[str, str]:
        """index.md's markers (drift, staleness: id → marker), found by ``find`` once per
        operation (`context` asks for freshness, then compacts, then renders)."""
        if self._markers is None:
            self._markers = find()
        return self._markers

    def fingerprint(self) -> str:
        """Changes whenever the entries change; computed from the index, no file is read."""
        return self.synced().fingerprint()

    def facts_fingerprint(self) -> str:
        """Changes whenever the entries or records change, not when lines are counted."""
        return self.synced().facts_fingerprint()

    def invalidate(self) -> None:
        """Forget what was read (after another writer may have added files)."""
        self.written()
        self.index.forget()

    def written(self) -> None:
        """This operation wrote a file and the index took it in: forget the compaction."""
        self._state = None
        self._markers = None
        self.trust = None


def _tell(text: str) -> None:
    """A line of the index's at once, on stderr (stdout is the command's answer)."""
    print(f"memsite: {text}", file=sys.stderr, flush=True)
