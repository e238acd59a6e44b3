"""Builds the memory portal into a folder: MkDocs + Material draw the frames, memsite fills them.

A cold build (:func:`build_site`) is one straight pipeline:

1. the review's text pass (secrets, near-duplicates, conflicts) forks first, while this
   process holds next to nothing, and reads the index's rows on its own once the index is up
   to date (a child forked later would share the entries, and either side touching one
   copies its memory page); then this process reads the store (scan + compaction);
2. :func:`portal_for`: redacted views of every entry (one constructor, used by every caller),
   with each fact's standing (anchors against today's files, verifications, links,
   retirement: :func:`claims_for`, computed once for the whole store);
3. MkDocs builds the *frames*: one per navigation page (home, categories, tags, timeline,
   review, search), one shared by every entry page and one shared by every tag page, each
   with a slot where the body goes. Material's assets, 404 page and search settings come from
   this build. It costs the same at 10 entries as at 10,000: MkDocs never renders an entry
   page, where Material would draw its whole navigation once more (plain ``mkdocs build`` pays
   that per page, and Markdown parsing on top);
4. page bodies rendered from ``templates/`` go into their frames. What goes through every view
   comes first, while the findings are made on the other core: the search index
   (``searchdata``, each file written as it is made), the tag pages, the category, month and
   other pages, and the raw files (``entries/<id>.json``, ``index.md``, ``feed.xml`` (Atom:
   the latest changes), ``sitemap.xml``, Material's search index with the navigation pages).
   Then the entry pages, half of them in a forked worker: a page of memory touched while a
   worker shares it is copied, so the worker touches only its own entries' views;
5. once the findings are in: the home and review pages and ``llms.txt``, which show them
   (step 4 does not wait for them). Should the full secret scan redact an entry differently
   from the quick one, everything that shows it is written again.

:class:`~memsite.portal.site.Site` keeps the frames, the renderer and what it wrote, so
:meth:`~memsite.portal.site.Site.update` (used by ``serve``) rewrites only what a change touched.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from memsite.core.compaction import ACTIVE, RETIRED, Finding
from memsite.core.records import first_retirements
from memsite.errors import MemsiteError
from memsite.memory import upkeep
from memsite.memory.upkeep import ScanFindings, scan_findings_from_index
from memsite.portal.frames import render_frames
from memsite.portal.model import Portal, PortalCache, build_portal, full_scan_changes
from memsite.portal.render import Renderer
from memsite.portal.searchdata import search_file_stream
from memsite.portal.site import MARKER, Site
from memsite.portal.standing import FactClaims, fact_claims, repo_blob_base
from memsite.parallel import Gate, Task, can_fork

if TYPE_CHECKING:
    from memsite.memory import Memory

MARKER_TEXT = "Built by memsite (`memsite build`); the folder is replaced on every build.\n"
Progress = Callable[[int, int], None]


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
    result = memory.state().result
    cache = cache or PortalCache()
    return build_portal(
        result,
        site,
        config.categories,
        config.budget,
        cache,
        findings=findings,
        sessions=shared_sessions(memory),
        claims=claims_for(memory),
        file_links=file_links(memory, cache),
    )


def claims_for(memory: Memory) -> dict[str, FactClaims]:
    """The standing of every fact that has one to show, computed once for the whole store.

    Only facts with anchors, facts named by a record and (when a review period applies to
    their category) active facts are looked at; a store with none of these reads nothing.
    """
    state = memory.state()
    result, records, config = state.result, state.scan.records, memory.config
    named = {r.target for r in records} | {r.other for r in records if r.other is not None}
    periods = config.review_after is not None
    chosen = [
        e
        for e in result.entries
        if e.id in named
        or e.raw.get("anchors")
        or (
            periods and result.status[e.id] == ACTIVE and config.review_days(e.category) is not None
        )
    ]
    if not chosen:
        return {}
    from memsite.memory.claims import standings

    found = standings(memory, chosen, records)
    anchored = any(found[e.id].anchors for e in chosen)
    base = blob_base(memory) if anchored else None
    retired = first_retirements(records)
    claims = {}
    for entry in chosen:
        status, standing = result.status[entry.id], found[entry.id]
        bare = not (standing.stale or standing.anchors or standing.verified or standing.links)
        if bare and status != RETIRED:
            continue  # most facts under a review period: confirmed in time, nothing to show
        claim = fact_claims(
            standing,
            active=status == ACTIVE,
            retirement=retired.get(entry.id) if status == RETIRED else None,
            base=base,
        )
        if claim != FactClaims():
            claims[entry.id] = claim
    return claims


def blob_base(memory: Memory) -> str | None:
    """Where anchored files are shown on the repository host (``site.repo_url``) at the
    project's HEAD commit; None without a usable http(s) ``repo_url``, git or a commit."""
    repo_url = memory.config.site.get("repo_url")
    if repo_blob_base(repo_url, "0" * 40) is None:
        return None  # no URL to link to: spare the git call
    from memsite.storage.git import run_git

    try:
        done = run_git(memory.store.project_root, "rev-parse", "--show-prefix", "HEAD", check=False)
    except MemsiteError:
        return None
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != 2:
        return None
    prefix, commit = lines[0].strip(), lines[1].strip()
    return repo_blob_base(repo_url, commit, prefix)


def file_links(memory: Memory, cache: PortalCache | None = None) -> dict[str, str]:
    """Where each committed entry file is shown on the repository host (``site.repo_url``):
    the file at the commit that added it, by file name. One ``git log`` for the whole store
    (remembered in ``cache`` while HEAD stays); none without a usable ``repo_url`` or git, and
    none for a file not committed."""
    repo_url = memory.config.site.get("repo_url")
    if repo_blob_base(repo_url, "0" * 40) is None:
        return {}  # no URL to link to: spare the git calls
    from memsite.storage.git import run_git

    folder = memory.store.entries_dir
    try:
        where = run_git(folder, "rev-parse", "--show-prefix", "HEAD", check=False)
        lines = where.stdout.splitlines()
        if where.returncode != 0 or len(lines) != 2:
            return {}
        prefix, head = lines[0].strip(), lines[1].strip()
        if cache is not None and cache.file_links[0] == (head, prefix, repo_url):
            return cache.file_links[1]
        # Newest first; --relative: names relative to entries/, other folders left out.
        done = run_git(
            folder,
            "-c",
            "core.quotePath=false",
            "log",
            "--diff-filter=A",
            "--no-renames",
            "--relative",
            "--name-only",
            "--format=%H",
            "--",
            ".",
            check=False,
        )
    except MemsiteError:
        return {}
    if done.returncode != 0:
        return {}
    added: dict[str, str] = {}
    commit = ""
    for line in done.stdout.splitlines():
        if len(line) in (40, 64) and all(c in "0123456789abcdef" for c in line):
            commit = line
        elif line and "/" not in line and not line.startswith('"') and commit:
            added.setdefault(line, commit)  # the latest addition of the file
    links = {}
    for name, sha in added.items():
        base = repo_blob_base(repo_url, sha, prefix)
        if base is not None:
            links[name] = base + quote(name)
    if cache is not None:
        cache.file_links = ((head, prefix, repo_url), links)
    return links


def shared_sessions(memory: Memory) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """The sessions' daily logs, newest first, when they are shared in git
    (``memory.trackDaily``); otherwise none: a published site shows only what git holds."""
    if not memory.config.track_daily:
        return []
    from memsite.memory.sessions import session_logs_text

    return session_logs_text(memory)


def prepare_site_dir(site_dir: Path) -> bool:
    """Make sure ``site_dir`` can be (re)built: new, empty, or made by memsite before.

    Returns whether it holds files of an earlier build (to be swept afterwards).
    """
    if site_dir.exists() and not site_dir.is_dir():
        raise MemsiteError(f"cannot build into {site_dir}: it is a file; choose another --site-dir")
    if site_dir.is_dir() and not (site_dir / MARKER).is_file():
        try:
            occupied = any(site_dir.iterdir())
        except OSError as exc:
            raise MemsiteError(f"cannot read {site_dir}: {exc.strerror}") from None
        if occupied:
            raise MemsiteError(
                f"refusing to build into {site_dir}: it is not empty and memsite did not create it "
                f"(no {MARKER} file); choose an empty or new folder with --site-dir"
            )
    try:
        site_dir.mkdir(parents=True, exist_ok=True)
        (site_dir / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        return any(p.name != MARKER for p in site_dir.iterdir())
    except OSError as exc:
        raise MemsiteError(
            f"cannot write the site to {site_dir}: {exc.strerror}; choose another --site-dir"
        ) from None


@dataclass
class BuildResult:
    site_dir: Path
    entries: int
    pages: int
    warnings: list[str]
    findings: int
    search_bytes: int = 0


def _frozen(fork: bool) -> bool:
    """Before a fork: the objects made so far are left out of garbage collection, so that a
    collection in either process does not write to (and so copy) the pages both share."""
    if fork:
        gc.freeze()
    return fork


def _write_chunk(site: Site, portal: Portal, ids: Sequence[str], counter: Any) -> None:
    """The worker's share of the entry pages."""

    def tick(n: int) -> None:
        counter.value += n

    # Should the findings' worker still be running, this one yields to it (and to the parent):
    # the findings' worker, with all it holds, is then gone sooner.
    with contextlib.suppress(OSError):
        os.nice(10)
    site.write_entries(portal, ids, tick)


def _write_search(site: Site, portal: Portal) -> int:
    """The search index, each file written as it comes (never all held at once); its size."""
    size = 0
    for rel, data in search_file_stream(portal):
        site.put(rel, data)
        size += len(data)
    return size


def _write_entry_pages(site: Site, portal: Portal, fork: bool, progress: Progress | None) -> None:
    """Every entry page, half of them in a forked worker when there are enough to split."""
    import multiprocessing

    ids = [e.id for e in portal.entries]
    total = len(ids)
    counter = multiprocessing.get_context().Value("q", 0, lock=False)
    half = total // 2 if fork and total >= 400 else 0
    worker: Task[None] = Task(_write_chunk, site, portal, ids[:half], counter, fork=_frozen(fork))

    def tick(n: int) -> None:
        counter.value += n
        if progress is not None:
            progress(min(counter.value, total), total)

    site.write_entries(portal, ids[half:], tick)
    worker.result()
    for entry_id in ids[:half]:  # written by the worker: remember what, for later updates
        site.written[f"entries/{entry_id}/index.html"] = portal.page(entry_id)
    if progress is not None:
        progress(total, total)


def build_site(
    memory: Memory,
    site_dir: Path,
    *,
    strict: bool = False,
    site_url: str | None = None,
    progress: Progress | None = None,
    parallel: bool | None = None,
    cache: PortalCache | None = None,
) -> tuple[Site, Portal, BuildResult]:
    """A cold build of the portal into ``site_dir`` (see the module docstring)."""
    earlier = prepare_site_dir(site_dir)
    fork = can_fork() if parallel is None else parallel
    # The review's text pass forks first, while this process holds next to nothing, and reads
    # the index once it is up to date (see upkeep.scan_findings_from_index).
    gate = Gate()
    scan_task: Task[ScanFindings | None] | None = None
    if fork:
        scan_task = Task(scan_findings_from_index, memory, gate.wait, fork=_frozen(fork))
    with gate:
        gate.open(not memory.index().in_memory)
    memory.state()  # read once, before the entry pages fork: both processes share it
    cache = cache or PortalCache()
    portal = portal_for(memory, cache)
    made = render_frames(portal, memory.config.site, site_dir, strict=strict, site_url=site_url)
    # The config's site_url wins over the caller's, as in the MkDocs config (portal_config).
    base_url: str | None = memory.config.site.get("site_url") or site_url
    site = Site(site_dir, made.frames, Renderer(), made.search_config, base_url)
    for rel, data in made.assets.items():
        site.put(rel, data)
    site.put(".nojekyll", b"")
    try:
        # What goes through every view comes before the entry pages fork (a page touched
        # while a worker shares it is copied): the search index, the tags, and the rest but
        # what shows the findings, while the findings' worker makes them on the other core.
        search_bytes = _write_search(site, portal)
        site.write_tags(portal)
        site.write_rest(portal)
        _write_entry_pages(site, portal, fork, progress)
        findings = upkeep.findings(memory, scan_task.result() if scan_task else None)
    finally:
        gc.unfreeze()  # serve goes on in this process: its garbage is collected again
    if not full_scan_changes(cache, memory.state().result.entries, findings):
        portal = portal.with_findings(findings)
        site.write_findings(portal)
    else:
        # The full scan found what the quick one let through: those entries are redacted with
        # it now; rewrite whatever shows them (usually nothing else changes).
        portal = portal_for(memory, cache, findings)
        site.write_entries(portal, [e.id for e in portal.entries])
        site.write_tags(portal)
        search_bytes = _write_search(site, portal)
        site.write_rest(portal)
    site.last = portal
    if earlier:
        site.sweep(made.copied)
    total = len(portal.entries)
    result = BuildResult(
        site_dir=site_dir,
        entries=total,
        pages=1 + len(portal.categories) + 4 + len(portal.tags) + total,
        warnings=made.warnings,
        findings=len(findings),
        search_bytes=search_bytes,
    )
    return site, portal, result
