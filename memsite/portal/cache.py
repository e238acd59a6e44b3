"""What stays valid between builds of one store (``serve``): redacted entries and their views.

Keys hold everything an output is made from (the file name and a digest of its whole object,
the status, the supersession links, whether the full scan applies), so a hit is always right.
Views that come back identical keep every render cache downstream warm.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memsite.core.entry import Entry
from memsite.portal.model import EntryView, JsonSource, entry_view
from memsite.portal.redact import Redactor

if TYPE_CHECKING:
    from memsite.portal.standing import FactClaims


class PortalCache:
    """What stays valid between builds of one store (``serve``): see the module."""

    def __init__(self, redactor: Redactor | None = None, releases: str | None = None) -> None:
        """``releases``: the tags to show the memory at (a glob; ``build --releases``), over
        the config's ``site.releases``; "" shows none."""
        self.redactor = redactor or Redactor()
        self.releases = releases
        self._entries: dict[tuple[Any, ...], Entry] = {}
        self._views: dict[tuple[Any, ...], EntryView] = {}
        self._json: dict[tuple[Any, ...], JsonSource] = {}
        self.titles: dict[str, str] = {}
        # (id of an entry object, full) → (that object, its key, its redacted entry): an entry
        # met again as the same object (serve keeps unchanged ones) needs no key made.
        self._same: dict[tuple[int, bool], tuple[Entry, tuple[Any, ...], Entry]] = {}
        # The entry files' links on the repository host, and what they were read for (HEAD,
        # the store's folder in the repository, repo_url): see memory.portal_input.
        self.file_links: tuple[Any, dict[str, str]] = (None, {})
        self._releases: tuple[str, tuple[dict[str, Any], ...]] | None = None

    def redacted(self, entry: Entry, full: bool) -> tuple[tuple[Any, ...], Entry]:
        same = self._same.get((id(entry), full))
        if same is not None and same[0] is entry:  # the very object seen before (serve)
            return same[1], same[2]
        # A digest of the object, not its text: at 100k entries the texts held ~55 MB.
        digest = hashlib.blake2b(repr(entry.raw).encode("utf-8", "surrogatepass"), digest_size=16)
        key = (entry.filename, digest.digest(), full)
        found = self._entries.get(key)
        if found is None:
            found = self._entries[key] = self.redactor.redact(entry, full)
        self._same[id(entry), full] = (entry, key, found)
        return key, found

    def view(
        self,
        key: tuple[Any, ...],
        entry: Entry,
        status: str,
        edges: Sequence[str],
        claims: FactClaims | None = None,
        held: str | None = None,
    ) -> EntryView:
        badges = claims.badges if claims is not None else None
        vkey = (key, status, tuple(edges), badges, held)
        found = self._views.get(vkey)
        if found is None:
            found = entry_view(entry, status, edges, self.titles, badges, held)
            self._views[vkey] = found
        return found

    def json_source(
        self,
        key: tuple[Any, ...],
        entry: Entry,
        status: str,
        successors: Sequence[str],
        held: str | None = None,
        flags: tuple[tuple[str, bool], ...] = (),
    ) -> JsonSource:
        """What an entry's JSON file is made from, as one object per distinct input: the
        same object again for an unchanged entry, so the site can tell the file is written."""
        jkey = (key, status, tuple(successors), held, flags)
        found = self._json.get(jkey)
        if found is None:
            origin = repr(key).encode("utf-8", "surrogatepass")
            found = self._json[jkey] = JsonSource(entry, status, jkey[2], held, flags, origin)
        return found

    def known_releases(self, pattern: str | None) -> tuple[dict[str, Any], ...] | None:
        """The releases read for ``pattern`` before (none for no pattern; None: not read).

        They are read once per cache: at 10k facts and ten tags reading them takes seconds,
        and serve's updates change no tag's entry files (a tag made while it runs shows once
        the config changes, or at the next build)."""
        if not pattern:
            return ()
        known = self._releases
        return known[1] if known is not None and known[0] == pattern else None

    def remember_releases(
        self, pattern: str, releases: tuple[dict[str, Any], ...]
    ) -> tuple[dict[str, Any], ...]:
        self._releases = (pattern, releases)
        return releases

    def keep_only(self, keys: set[tuple[Any, ...]]) -> None:
        """Forget entries that are gone (long serve sessions), once there are enough of them
        to be worth a pass (at 100k entries one costs a few tenths of a second)."""
        slack = len(keys) // 10 + 256
        sizes = (len(self._entries), len(self._same), len(self._views), len(self._json))
        if max(sizes) <= len(keys) + slack:
            return
        self._same = {k: v for k, v in self._same.items() if v[1] in keys}
        self._entries = {k: v for k, v in self._entries.items() if k in keys}
        self._views = {k: v for k, v in self._views.items() if k[0] in keys}
        self._json = {k: v for k, v in self._json.items() if k[0] in keys}
