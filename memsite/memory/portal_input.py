"""What the portal is built from, read once: :class:`PortalInput`. The portal reads the memory
through this value only (``portal.gather``), and never opens a file of the store itself.

It holds the compaction, index.md exactly as agents get it, each fact's standing where it
has one to show (anchors against today's files, verifications, links, retirement), the
sessions' logs when they are shared in git, and where the repository host shows each entry
file and anchored file (``site.repo_url``: one ``git log`` for the store, remembered while
HEAD stays).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote

from memsite.core.records import Record, first_retirements
from memsite.core.schema import ACTIVE, RETIRED
from memsite.core.urls import linkable, repo_blob_base

if TYPE_CHECKING:
    from memsite.core.compaction import Compaction
    from memsite.core.standing import Standing
    from memsite.memory import Memory

# The entry files' links, and what they were read for: (HEAD, the store's folder in the
# repository, repo_url), {file name: link}.
FileLinks = tuple[Any, dict[str, str]]
NO_LINKS: FileLinks = (None, {})


class PortalInput(NamedTuple):
    """Everything the portal shows of one store, as it is now."""

    result: Compaction
    records: list[Record]
    standings: dict[str, Standing]  # facts with something to show beyond their status
    retirements: dict[str, Record]  # retired fact → the record that retired it
    blob_base: str | None  # where anchored files are linked at HEAD (None: not linked)
    file_links: FileLinks
    sessions: list[tuple[str, list[tuple[str, list[str]]]]]
    index_md: str  # index.md as compaction writes it: what agents load, byte for byte
    # entry id → its provenance (the commit that added its file, or None), trust and, when the
    # gate keeps it from agents, held_back (why): see ``memory.trust.fields_of``
    trust: dict[str, dict[str, Any]]
    trust_ref: str | None  # the reviewed ref (None: trust is off)
    # each release's facts and changes, oldest first (``memory.releases``; none unless asked)
    releases: tuple[dict[str, Any], ...] = ()


def portal_input(
    memory: Memory, known_links: FileLinks = NO_LINKS, releases: str | None = None
) -> PortalInput:
    """The portal's input (``known_links``: the file links of the last build, kept while
    HEAD, the store's place and repo_url stay; ``releases``: the tags to show the memory
    at, a glob)."""
    from memsite.memory.releases import releases as at_releases

    state = memory.state()
    found = _standings(memory)
    anchored = any(s.anchors for s in found.values())
    return PortalInput(
        result=state.result,
        records=state.scan.records,
        standings=found,
        retirements=first_retirements(state.scan.records),
        blob_base=_blob_base(memory) if anchored else None,
        file_links=_file_links(memory, known_links),
        sessions=_shared_sessions(memory),
        index_md=memory.index_text(),
        trust=_trust(memory),
        trust_ref=_trust_ref(memory),
        releases=tuple(at_releases(memory, releases)) if releases else (),
    )


def _trust(memory: Memory) -> dict[str, dict[str, Any]]:
    from memsite.memory.trust import fields_of

    return fields_of(memory, [(e.id, e.filename) for e in memory.state().result.entries])


def _trust_ref(memory: Memory) -> str | None:
    from memsite.memory.trust import current

    gate = current(memory)
    return gate.survey.ref if gate.on else None


def _standings(memory: Memory) -> dict[str, Standing]:
    """The standing of every fact that may have one to show, computed once for the store.

    Only facts with anchors or a validity window, facts named by a record and (when a review
    period applies to their category) active facts are looked at; a store with none of these
    reads nothing.
    """
    from memsite.memory.anchors import standings

    state = memory.state()
    result, records, config = state.result, state.scan.records, memory.config
    named = {r.target for r in records} | {r.other for r in records if r.other is not None}
    periods = config.review_after is not None
    chosen = [
        e
        for e in result.entries
        if e.id in named
        or e.raw.get("anchors")
        or e.raw.get("valid_from")
        or e.raw.get("valid_to")
        or (
            periods and result.status[e.id] == ACTIVE and config.review_days(e.category) is not None
        )
    ]
    if not chosen:
        return {}
    found = standings(memory, chosen, records)
    kept = {}
    for entry in chosen:
        standing = found[entry.id]
        bare = not (
            standing.stale
            or standing.anchors
            or standing.verified
            or standing.links
            or standing.valid_from
            or standing.valid_to
        )
        if not bare or result.status[entry.id] == RETIRED:
            kept[entry.id] = standing
    return kept


def _blob_base(memory: Memory) -> str | None:
    """Where anchored files are shown on the repository host (``site.repo_url``) at the
    project's HEAD commit; None without a usable http(s) ``repo_url``, git or a commit."""
    from memsite.storage.git import prefix_and_head

    repo_url = memory.config.site.get("repo_url")
    if not linkable(repo_url):
        return None  # no URL to link to: spare the git call
    found = prefix_and_head(memory.store.project_root)
    if found is None:
        return None
    prefix, commit = found
    return repo_blob_base(repo_url, commit, prefix)


def _file_links(memory: Memory, known: FileLinks) -> FileLinks:
    """Where each committed entry file is shown on the repository host: the file at the
    commit that added it, by file name; none without a usable ``repo_url`` or git."""
    from memsite.storage.git import added_commits, prefix_and_head

    repo_url = memory.config.site.get("repo_url")
    if not linkable(repo_url):
        return NO_LINKS  # no URL to link to: spare the git calls
    folder = memory.store.entries_dir
    where = prefix_and_head(folder)
    if where is None:
        return NO_LINKS
    prefix, head = where
    key = (head, prefix, repo_url)
    if known[0] == key:
        return known
    links = {}
    for name, sha in added_commits(folder).items():
        base = repo_blob_base(repo_url, sha, prefix)
        if base is not None:
            links[name] = base + quote(name)
    return key, links


def _shared_sessions(memory: Memory) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """The sessions' daily logs, newest first, when they are shared in git
    (``memory.trackDaily``); otherwise none: a published site shows only what git holds."""
    if not memory.config.track_daily:
        return []
    from memsite.memory.sessions import session_logs_text

    return session_logs_text(memory)
