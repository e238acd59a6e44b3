"""What one operation knows of the store: the full compaction (read once, when needed) and the
slim snapshot that the hot paths (`add`, `search`) use instead of compacting.

The snapshot is keyed by the fingerprint of entries/ (names, sizes, mtimes) and trusted only when
that matches the folder exactly; a writer that adds one entry carries it over to the new
fingerprint (its entry is the newest, so the compaction rules reduce to a few removals).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.core.config import Config
from memsite.errors import MemsiteError
from memsite.storage.cache import Caches
from memsite.storage.entries import Scan, combine_stamps, file_stamp, fingerprint, scan
from memsite.storage.layout import Store

if TYPE_CHECKING:
    from memsite.core.compaction import Compaction
    from memsite.core.snapshot import Snapshot


@dataclass
class State:
    scan: Scan
    result: Compaction


class ReadModel:
    """The store as read by one operation; ``invalidate`` after writing to it."""

    def __init__(self, store: Store, config: Config) -> None:
        self.store = store
        self.config = config
        self.caches = Caches(store)
        self._state: State | None = None
        self._snapshot: Snapshot | None = None
        self._fingerprint: str | None = None

    def state(self) -> State:
        """Every entry read and compacted."""
        if self._state is None:
            from memsite.core.compaction import compact

            found = scan(self.store)
            self._state = State(found, compact(found.entries, self.config.categories))
        return self._state

    def loaded(self) -> State | None:
        """The state if this operation has read it already (else None: nothing is read)."""
        return self._state

    def fingerprint(self) -> str:
        """The fingerprint of entries/, computed once per operation."""
        if self._state is not None:
            return self._state.scan.fingerprint
        if self._fingerprint is None:
            self._fingerprint = fingerprint(self.store)
        return self._fingerprint

    def snapshot(self) -> Snapshot:
        """The slim read model of the active entries, rebuilt only when entries/ changed."""
        if self._snapshot is None:
            cached = self.caches.load_snapshot(self.fingerprint())
            if cached is None:
                from memsite.core.snapshot import build_snapshot

                state = self.state()
                cached = build_snapshot(state.result, state.scan.fingerprint)
                self.caches.save_snapshot(cached)
            self._snapshot = cached
        return self._snapshot

    def refresh_snapshot(self) -> None:
        """Rebuild a stale snapshot now (after a merge, say) rather than in the next `add`."""
        if self.caches.snapshot_fingerprint() != self.fingerprint():
            from memsite.core.snapshot import build_snapshot

            state = self.state()
            self.caches.save_snapshot(build_snapshot(state.result, state.scan.fingerprint))

    def wrote(self, snapshot: Snapshot, path: Path, obj: dict[str, Any]) -> None:
        """After writing ``obj`` to ``path``: forget what was read, carry the snapshot over."""
        from memsite.core.entry import entry_from_object

        self.invalidate()
        try:
            entry = entry_from_object(obj, path.name)
            stamp = combine_stamps([file_stamp(path)], start=snapshot.fingerprint)
        except (OSError, MemsiteError):
            return
        updated = snapshot.with_new_entry(entry, stamp)
        if updated is not None:
            self.caches.save_snapshot(updated)

    def invalidate(self) -> None:
        self._state = None
        self._snapshot = None
        self._fingerprint = None
