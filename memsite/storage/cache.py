"""The derived caches under ``cache/``: the read model snapshot, the views' freshness stamp and the
secret-scan verdicts. Each is an optimisation: unreadable, stale or missing means "rebuild",
and a store whose cache cannot be written still works.
"""

from __future__ import annotations

import contextlib
import json
import marshal
from typing import TYPE_CHECKING, Any

from memsite import __version__
from memsite.errors import StorageError
from memsite.storage.files import replace_if_changed
from memsite.storage.layout import Store

if TYPE_CHECKING:
    from memsite.core.snapshot import Snapshot

STATE_FILE = "state.json"
SNAPSHOT_FILE = "snapshot.marshal"
SECRETS_FILE = "secrets.marshal"
_SECRETS_VERSION = 2
Verdicts = dict[str, tuple[int, list[str]]]


class Caches:
    """The cache files of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.snapshot_path = store.cache_dir / SNAPSHOT_FILE
        self.state_path = store.cache_dir / STATE_FILE
        self.secrets_path = store.cache_dir / SECRETS_FILE

    def _save(self, path: Any, data: bytes) -> None:
        with contextlib.suppress(StorageError):
            replace_if_changed(path, data, tmp_dir=self.store.tmp_dir)

    # --- the read model ---------------------------------------------------------------------

    def load_snapshot(self, fingerprint: str) -> Snapshot | None:
        from memsite.core.snapshot import Snapshot

        try:
            with open(self.snapshot_path, "rb") as handle:
                return Snapshot.load(handle.read(), fingerprint)
        except OSError:
            return None

    def snapshot_fingerprint(self) -> str:
        """The fingerprint the saved snapshot was made for (its first line), or ''."""
        from memsite.core.snapshot import Snapshot

        try:
            with open(self.snapshot_path, "rb") as handle:
                return Snapshot.fingerprint_of(handle.read(64))
        except OSError:
            return ""

    def save_snapshot(self, snapshot: Snapshot) -> None:
        self._save(self.snapshot_path, snapshot.dump())

    # --- freshness of the views -------------------------------------------------------------

    def load_state(self) -> Any:
        try:
            return json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def save_state(self, stamp: dict[str, str]) -> None:
        """Unlike the others this one must land: a view written without it looks stale."""
        replace_if_changed(
            self.state_path,
            (json.dumps(stamp, sort_keys=True) + "\n").encode(),
            tmp_dir=self.store.tmp_dir,
        )

    # --- secret-scan verdicts ---------------------------------------------------------------

    def load_verdicts(self) -> Verdicts:
        try:
            version, cached = marshal.loads(self.secrets_path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if version != (_SECRETS_VERSION, __version__) or not isinstance(cached, dict):
            return {}
        return cached

    def save_verdicts(self, verdicts: Verdicts) -> None:
        self._save(self.secrets_path, marshal.dumps(((_SECRETS_VERSION, __version__), verdicts)))
