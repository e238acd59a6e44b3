"""The small derived caches under ``cache/`` (the index has its own package, ``readmodel``):
the views' freshness stamp and the secret-scan verdicts. Each is an optimisation: unreadable,
stale or missing means "rebuild", and a store whose cache cannot be written still works. No
file is written while cache/ is, or holds, a symbolic link (``Store.writable``).
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
from pathlib import Path
from typing import Any

from memsite.errors import StorageError
from memsite.files import replace_if_changed
from memsite.storage.layout import Store
from memsite.version import __version__

_SECRETS_VERSION = 2
# Set by the Pages workflow that `init --github-pages` writes, after it deleted whatever the
# checkout put in cache/ and restored its own files there: those may come from another clone.
RESTORED = "MEMSITE_CACHE_RESTORED"
Verdicts = dict[str, tuple[int, list[str]]]


class Caches:
    """The cache files of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.state_path = store.views_stamp
        self.secrets_path = store.secret_verdicts

    def _target(self, path: Path) -> Path:
        """``path`` in cache/, once cache/ is known to be a folder holding no link (so that
        neither the file nor the temporary in cache/tmp/ lands elsewhere)."""
        self.store.writable(self.store.cache_dir, children=True)
        return path

    def _save(self, path: Path, data: bytes) -> None:
        with contextlib.suppress(StorageError):
            replace_if_changed(self._target(path), data, tmp_dir=self.store.tmp_dir)

    # --- freshness of the views -------------------------------------------------------------

    def load_state(self) -> Any:
        try:
            return json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def save_state(self, stamp: dict[str, Any]) -> None:
        """Unlike the others this one must land: a view written without it looks stale."""
        replace_if_changed(
            self._target(self.state_path),
            (json.dumps(stamp, sort_keys=True) + "\n").encode(),
            tmp_dir=self.store.tmp_dir,
        )

    # --- the facts the full secret scan flagged -----------------------------------------------

    def flagged_bytes(self) -> bytes:
        """The flagged ids' file as it is (b"" when there is none): cheap to stamp with."""
        try:
            with open(self.store.secret_flagged, "rb") as handle:
                return handle.read(1 << 20)
        except OSError:
            return b""

    def flagged(self) -> set[str]:
        """The ids of the facts whose full secret scan found something a person did not
        allow: every output redacts them with the full scan too."""
        try:
            ids = json.loads(self.flagged_bytes() or b"[]")
        except ValueError:
            return set()
        return {i for i in ids if isinstance(i, str)} if isinstance(ids, list) else set()

    def save_flagged(self, ids: set[str]) -> None:
        self._save(self.store.secret_flagged, (json.dumps(sorted(ids)) + "\n").encode())

    # --- marshalled answers of the memory layer (the trust gate, conflict markers) -------------

    def load_bound(self, path: Path, version: int, *, restored: bool = False) -> dict[str, Any]:
        """A cache file :meth:`save_bound` wrote with ``version``, in this clone (else {}: a
        file that came with the files, committed or crafted, is never believed). ``restored``:
        also one another clone wrote, when the Pages workflow restored it (:data:`RESTORED`)."""
        if self.store.why_unsafe(path) is not None:
            return {}
        try:
            with open(path, "rb") as handle:
                saved = marshal.load(handle)
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not isinstance(saved, dict):
            return {}
        stamp, found = (version, __version__, self.store.home()), saved.get("version")
        elsewhere = restored and os.environ.get(RESTORED) == "1"  # the clone aside
        same = found == stamp or (elsewhere and isinstance(found, tuple) and found[:2] == stamp[:2])
        return saved if same else {}

    def save_bound(self, path: Path, version: int, data: dict[str, Any]) -> None:
        """Write ``data`` to ``path`` in cache/, stamped with ``version``, memsite's version
        and this clone; a cache, so a failure to write is let go."""
        stamp = (version, __version__, self.store.home())
        with contextlib.suppress(OSError):
            self._save(path, marshal.dumps({"version": stamp, **data}))

    # --- secret-scan verdicts ---------------------------------------------------------------

    def load_verdicts(self) -> Verdicts:
        try:
            version, cached = marshal.loads(self.secrets_path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if version != self._verdicts_version() or not isinstance(cached, dict):
            return {}
        return cached

    def save_verdicts(self, verdicts: Verdicts) -> None:
        self._save(self.secrets_path, marshal.dumps((self._verdicts_version(), verdicts)))

    def _verdicts_version(self) -> tuple[int, str, str]:
        """Bound to this clone (``Store.home``): verdicts that came with the files, committed
        or crafted ("nothing found in this file"), are never believed."""
        return (_SECRETS_VERSION, __version__, self.store.home())
