"""The portal's one reader of the memory: everything a build, ``serve`` or the MkDocs plugin
shows is asked of :class:`~memsite.memory.Memory` here, through its door (``portal_input``,
the findings), and made into a :class:`~memsite.portal.model.Portal` by ``derive``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memsite.core.review import Finding
from memsite.portal.cache import PortalCache
from memsite.portal.derive import build_portal, with_releases
from memsite.portal.model import Portal
from memsite.portal.standing import claims_of
from memsite.portal.trust import origins_of

if TYPE_CHECKING:
    from memsite.memory import Memory


def portal_for(
    memory: Memory,
    cache: PortalCache | None = None,
    findings: Sequence[Finding] = (),
    *,
    site_name: str | None = None,
) -> Portal:
    """The portal of ``memory`` as it is now: the one way every caller builds it."""
    config = memory.config
    site = dict(config.site)
    if site_name and not site.get("site_name"):
        site["site_name"] = site_name
    cache = cache or PortalCache()
    pattern: str | None = site.get("releases") if cache.releases is None else cache.releases
    releases = cache.known_releases(pattern)
    given = memory.portal_input(cache.file_links, pattern if releases is None else None)
    cache.file_links = given.file_links
    if releases is None:  # read once per cache: see PortalCache.known_releases
        releases = cache.remember_releases(str(pattern), given.releases)
    claims = claims_of(given.result, given.standings, given.retirements, given.blob_base)
    portal = build_portal(
        given.result,
        site,
        config.categories,
        given.index_md,
        cache,
        findings=findings,
        sessions=given.sessions,
        claims=claims,
        file_links=given.file_links[1],
        origins=origins_of(given.trust, given.trust_ref, site.get("repo_url")),
    )
    return with_releases(portal, releases, cache)


def findings(memory: Memory) -> list[Finding]:
    """Every finding of a review, as `memsite review` lists them."""
    return memory.findings()


def plugin_portal(store: str | None, base: Path) -> tuple[Portal, list[Path]]:
    """The portal of the store the MkDocs plugin names (``store``, relative to the folder of
    mkdocs.yml, ``base``), with its findings, and the paths ``mkdocs serve`` should watch."""
    from memsite.errors import StoreNotFoundError
    from memsite.memory import Memory

    explicit = str((base / store).resolve()) if store else None
    try:
        memory = Memory.open(explicit, os.environ, base)
    except StoreNotFoundError:
        where = f"at {explicit}" if explicit else f"in {base} or a folder above it"
        raise StoreNotFoundError(
            f"no memory store {where}: run `memsite init` in the repository first (it "
            "creates .memsite/), or point the plugin's `store:` option at the store"
        ) from None
    portal = portal_for(memory, findings=findings(memory), site_name="Memory")
    return portal, [memory.store.entries_dir, memory.store.config_path]  # LeanSpec: its own
