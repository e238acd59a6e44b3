"""The portal's Atom feed (RFC 4287): the latest changes of the memory, each a fact created,
replaced or retired. Pure: the feed is dated by its newest change, never by the build, so the
same memory gives the same bytes (``Renderer.feed_xml`` renders it)."""

from __future__ import annotations

import heapq
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from memsite.portal.model import EntryView, Portal

FEED_SIZE = 50


# Names feed ids (urn:uuid:) of sites without a site_url: a stable id from the site name.
FEED_NAMESPACE = uuid.UUID("8f0c6b5e-3a55-4d0e-9a47-6c1f2e7d9b13")


# What XML 1.0 cannot hold even as a character reference: most C0 controls, lone surrogates,
# U+FFFE and U+FFFF (a feed reader would reject the whole document).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(value: object) -> str:
    """``value`` as text XML 1.0 can hold: the characters it forbids removed (escaping is the
    template's: autoescape)."""
    return _NOT_XML.sub("", str(value))


@dataclass(frozen=True)
class FeedChange:
    """One change of the memory as the feed shows it: ``entry`` is the fact its link, text and
    category are taken from (for a replacement, the new fact)."""

    id: str  # the Atom id: urn:uuid:<fact>, with a fragment for a replacement or retirement
    kind: str  # "created", "replaced" or "retired"
    updated: str  # RFC 3339, UTC
    title: str
    entry: EntryView
    author: str | None


def _change_keys(portal: Portal) -> Iterator[tuple[str, str, str, str]]:
    """(time, kind, fact id, new fact id) of every change: each entry's creation (as the
    replacement of each fact it supersedes, when it supersedes any here) and each retirement."""
    for entry in portal.entries:
        older = [i for i in entry.supersedes if i in portal.by_id]
        for old in older:
            yield (entry.created, "replaced", old, entry.id)
        if not older:
            yield (entry.created, "created", entry.id, "")
    for fact_id, claims in portal.claims.items():
        if claims.retired is not None and fact_id in portal.by_id:
            yield (claims.retired.created, "retired", fact_id, "")


def feed_changes(portal: Portal, limit: int = FEED_SIZE) -> list[FeedChange]:
    """The ``limit`` latest changes, newest first (ties in a fixed order): only those are
    made into views, whatever the size of the memory."""
    changes = []
    for updated, kind, fact_id, new_id in heapq.nlargest(limit, _change_keys(portal)):
        fact = portal.by_id[fact_id]
        urn = f"urn:uuid:{fact_id.lower()}"
        if kind == "replaced":
            new = portal.by_id[new_id]
            change = FeedChange(
                f"{urn}#replaced-by-{new_id.lower()}",
                kind,
                updated,
                f"{fact.title} replaced by {new.title}",
                new,
                new.agent,
            )
        elif kind == "retired":
            retired = portal.claims[fact_id].retired
            agent = retired.agent if retired is not None else None
            change = FeedChange(
                f"{urn}#retired", kind, updated, f"Retired: {fact.title}", fact, agent
            )
        else:
            change = FeedChange(urn, kind, updated, fact.title, fact, fact.agent)
        changes.append(change)
    return changes
