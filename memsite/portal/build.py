"""Builds the memory portal into a folder: MkDocs + Material draw the frames, memsite fills them.

A cold build (:func:`build_site`) is one straight pipeline of named steps. Their order is set
by memory, not by taste: a forked worker shares the parent's pages only until either side
touches them, so what many views share is made before a fork, and a child forks while the
parent holds little.

1. :func:`start_findings`: the review's text pass (secrets, near-duplicates, conflicts)
   forks first, while this process holds next to nothing, and reads the index's rows on its
   own once the index is up to date (``memory.findings_later``);
2. :func:`gather`: the store read once, as the portal shows it (``gather.portal_for``:
   redacted views of every entry, each fact's claims);
3. :func:`draw_frames`: MkDocs builds the *frames*, one per navigation page (home, categories,
   tags, timeline, review, search), one shared by every entry page and one shared by every
   tag page, each with a slot where the body goes. Material's assets, 404 page and search
   settings come from this build. It costs the same at 10 entries as at 10,000: MkDocs never
   renders an entry page, where Material would draw its whole navigation once more;
4. :func:`write_shared`: what goes through every view, while the findings are made on the
   other core: the search index (each file written as it is made), the tag pages, the
   category, month and other pages, and the raw files (``outputs``);
5. :func:`write_entry_pages`: the entry pages, a chunk at a time, by this process and a
   forked worker that touches only its own chunks' views;
6. :func:`write_findings`: once the findings are in, the home and review pages and
   ``llms.txt``, which show them. Should the full secret scan redact an entry differently
   from the quick one, everything that shows it is written again;
7. the files of an earlier build that this one did not write are swept away.

:class:`~memsite.portal.site.Site` keeps the frames, the renderer and what it wrote, so
:meth:`~memsite.portal.site.Site.update` (used by ``serve``) rewrites only what a change touched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.core.review import Finding
from memsite.core.siteconfig import markup_problems
from memsite.errors import ConfigError, MemsiteError
from memsite.memory import provenance_ahead
from memsite.parallel import Task, can_fork, freeze_for_fork
from memsite.portal.cache import PortalCache
from memsite.portal.derive import full_scan_changes, with_findings
from memsite.portal.frames import Frames, render_frames
from memsite.portal.gather import portal_for
from memsite.portal.model import Portal
from memsite.portal.render import Renderer
from memsite.portal.reuse import SURVEY
from memsite.portal.searchpatch import write_index
from memsite.portal.site import MARKER, Site
from memsite.portal.swap import MARKER_TEXT, Stage, silent, staging_dir, swap_in

if TYPE_CHECKING:
    from memsite.memory import Later, Memory

Progress = Callable[[int, int], None]


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
        if not (site_dir / MARKER).is_file():  # kept: it names the build (``reuse``)
            (site_dir / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        return any(p.name != MARKER for p in site_dir.iterdir())
    except OSError as exc:
        raise MemsiteError(
            f"cannot write the site to {site_dir}: {exc.strerror}; choose another --site-dir"
        ) from None


def refuse_markup(memory: Memory) -> None:
    """``strict``: the site settings that would have carried markup (``<``, ``>``, ``"``,
    ``javascript:``) fail the build; a lenient build shows them escaped."""
    problems = markup_problems(memory.config.site)
    if problems:
        raise ConfigError(f"{memory.store.config_path.name}: " + "; ".join(problems))


@dataclass
class BuildResult:
    site_dir: Path
    entries: int
    pages: int
    warnings: list[str]
    findings: int
    search_bytes: int = 0
    releases: int = 0  # the releases shown (``build --releases``)


# Entry pages a process takes at a time: both take the next chunk as they finish one, so
# neither waits on the other at the end (a fixed half each left one core idle for seconds
# at 100k, the worker being slowed by the findings' worker).
CHUNK = 250


def _chunks(ids: Sequence[str], taken: Any) -> Iterator[Sequence[str]]:
    """The chunks of ``ids`` this process takes, ``taken`` (a shared, locked counter) being
    where the next one starts."""
    while True:
        with taken.get_lock():
            start = taken.value
            taken.value = start + CHUNK
        if start >= len(ids):
            return
        yield ids[start : start + CHUNK]


def _write_chunks(
    site: Site, portal: Portal, ids: Sequence[str], taken: Any, counter: Any
) -> dict[str, bytes]:
    """The forked worker's share of the entry pages: the chunks it takes; the key of each
    page it wrote, for the parent to remember."""

    def tick(n: int) -> None:
        counter.value += n

    # Should the findings' worker still be running, this one yields to it (and to the parent):
    # the findings' worker, with all it holds, is then gone sooner. (Only ever in a child:
    # inline it would lower the priority of a serve or a test session for good.)
    with contextlib.suppress(OSError):
        os.nice(10)
    mine: list[str] = []
    for chunk in _chunks(ids, taken):
        site.write_entries(portal, chunk, tick)
        mine += chunk
    return {rel: site.written[rel] for rel in (f"entries/{i}/index.html" for i in mine)}


def write_entry_pages(site: Site, portal: Portal, fork: bool, progress: Progress | None) -> None:
    """Step 5: every entry page, taken a chunk at a time by this process and, when there
    are enough, a forked worker."""
    import multiprocessing

    ids = [e.id for e in portal.entries]
    total = len(ids)
    context = multiprocessing.get_context()
    counter = context.Value("q", 0, lock=False)
    taken = context.Value("q", 0)
    forked = freeze_for_fork(fork and total >= 400)
    worker = Task(_write_chunks, site, portal, ids, taken, counter) if forked else None

    def tick(n: int) -> None:
        counter.value += n
        if progress is not None:
            progress(min(counter.value, total), total)

    for chunk in _chunks(ids, taken):
        site.write_entries(portal, chunk, tick)
    keys = worker.result() if worker is not None else {}  # remembered for later updates
    site.written.update(keys)
    site.touched.update(keys)
    if progress is not None:
        progress(total, total)


def start_findings(memory: Memory, fork: bool) -> Later:
    """Step 1: the review's findings, made in a forked child from here on."""
    return memory.findings_later(fork)


def gather(memory: Memory, cache: PortalCache) -> Portal:
    """Step 2: the store read once (before the entry pages fork: both processes share it)."""
    return portal_for(memory, cache)


def draw_frames(
    memory: Memory,
    portal: Portal,
    site_dir: Path,
    strict: bool,
    site_url: str | None,
    resume: dict[str, Any] | None = None,
) -> tuple[Site, Frames]:
    """Step 3: MkDocs renders the frames; the site starts with their shared files (going on
    from the last build's ``resume``, when given: see ``portal.reuse``)."""
    made = render_frames(portal, memory.config.site, site_dir, strict=strict, site_url=site_url)
    # The config's site_url wins over the caller's, as in the MkDocs config (portal_config).
    base_url: str | None = memory.config.site.get("site_url") or site_url
    site = Site(site_dir, made.frames, Renderer(), made.search_config, base_url)
    if resume is not None:
        site.resume(resume)
    # MkDocs' own files, just copied over whatever was there (memsite writes some of the
    # same names afterwards, such as sitemap.xml, and must write them again); swept like
    # the rest once MkDocs no longer makes them.
    for rel in made.copied:
        site.written[rel] = b""
        site.touched.add(rel)
    for rel, data in made.assets.items():
        site.put(rel, data)
    site.put(".nojekyll", b"")
    return site, made


def write_shared(site: Site, portal: Portal, stage: Stage) -> int:
    """Step 4: the search index, the tag pages and the rest but what shows the findings; the
    search index's size."""
    stage("Search index…")
    search_bytes = write_index(site, portal)
    stage("Tag, category and month pages…")
    site.write_tags(portal)
    site.write_rest(portal)
    return search_bytes


def write_findings(
    site: Site, memory: Memory, portal: Portal, cache: PortalCache, findings: Sequence[Finding]
) -> tuple[Portal, int | None]:
    """Step 6: what shows the findings; everything that shows an entry again when the full
    secret scan redacts it differently (then the search index's new size)."""
    if not full_scan_changes(cache, memory.state().result.entries, findings):
        shown = with_findings(portal, findings)
        site.write_findings(shown)
        return shown, None
    shown = portal_for(memory, cache, findings)
    site.write_entries(shown, [e.id for e in shown.entries])
    site.write_tags(shown)
    search_bytes = write_index(site, shown)
    site.write_rest(shown)
    return shown, search_bytes


def build_site(
    memory: Memory,
    site_dir: Path,
    *,
    strict: bool = False,
    site_url: str | None = None,
    progress: Progress | None = None,
    parallel: bool | None = None,
    cache: PortalCache | None = None,
    swap: bool = True,
    reuse: Callable[[str], None] | None = None,
    clean: bool = False,
    stage: Stage | None = None,
) -> tuple[Site, Portal, BuildResult]:
    """A build of the portal into ``site_dir`` (see the module docstring). ``swap``: the
    site is built in a folder of its own beside ``site_dir`` and swapped in whole when done,
    so a build killed halfway leaves the previous site as it was (serve, which updates its
    private site in place afterwards, builds in place).

    ``reuse`` (``memsite build``): go on from the last build into ``site_dir`` when its state
    may be believed (``portal.reuse``), updating the site in place, file by file; else build
    it whole. Either way, leave the state for the next build. ``reuse`` gets the one line
    saying why a state was not believed. ``clean``: build it whole all the same. ``stage``
    gets a line as each step begins. Builds into one folder that go on from the last take
    turns: one that finds another running is refused (a lock beside the state)."""
    from memsite.portal import reuse as state

    if strict:
        refuse_markup(memory)
    steps = _Steps(progress, stage or silent, parallel, cache or PortalCache())
    # Git's part of every fact's provenance (in a clone's first build, the history's log)
    # runs meanwhile, on the core that reading the store leaves idle.
    with provenance_ahead(memory):
        if reuse is None:
            return _build(memory, site_dir, strict, site_url, steps, swap, None, clean)
        with state.locked(memory, site_dir) as held:
            if held is False:
                raise MemsiteError(
                    f"another memsite build into {site_dir} is running: wait for it to finish, "
                    "or build into another --site-dir"
                )
            if held is None and not clean:  # no lock here, so no state either
                reuse(
                    f"builds into {site_dir} cannot take turns here (no file locks, or "
                    f"{memory.store.relative(memory.store.cache_dir)} cannot be written): "
                    "building the whole site"
                )
            going_on = reuse if held else None
            return _build(memory, site_dir, strict, site_url, steps, swap, going_on, clean)


def _build(
    memory: Memory,
    site_dir: Path,
    strict: bool,
    site_url: str | None,
    steps: _Steps,
    swap: bool,
    reuse: Callable[[str], None] | None,
    clean: bool,
) -> tuple[Site, Portal, BuildResult]:
    """:func:`build_site` once it knows whether it may go on from the last (``reuse``)."""
    from memsite.portal import reuse as state

    earlier = prepare_site_dir(site_dir)
    fork = can_fork() if steps.parallel is None else steps.parallel
    steps.stage(f"Reading {_entry_files(memory):,} entries…")
    # First: the text pass is the longest step of a build after a change (a category's near
    # duplicates and conflicts found again); it runs while the last build is surveyed.
    later = start_findings(memory, fork)
    resume = None
    if reuse and earlier and not clean:
        resume = state.load(memory, site_dir, reuse)
    if reuse:
        state.forget(memory, site_dir)  # a build killed from here on leaves none
    into = staging_dir(site_dir) if swap and resume is None else site_dir
    try:
        site, portal, result = _build_into(
            memory, into, strict, site_url, steps, resume, earlier and not swap, (later, fork)
        )
        line = state.marker_line(site.written) if reuse else ""
        if reuse:  # the marker names this build, for the next to go on from
            (into / MARKER).write_text(MARKER_TEXT + line, "utf-8")
        if into != site_dir:
            swap_in(into, site_dir, steps.stage)
    except BaseException:
        if into != site_dir:
            shutil.rmtree(into, ignore_errors=True)
        raise
    if reuse:
        listing = site.listing if into == site_dir else None
        state.save(memory, site_dir, site.state(), listing, line.strip())
    return site, portal, dataclasses.replace(result, site_dir=site_dir)


@dataclass
class _Steps:
    """How a build reports and works: its counter of entry pages, its stage lines, whether
    it forks (None: where it can), and its portal cache."""

    progress: Progress | None
    stage: Stage
    parallel: bool | None
    cache: PortalCache


def _build_into(
    memory: Memory,
    site_dir: Path,
    strict: bool,
    site_url: str | None,
    steps: _Steps,
    resume: dict[str, Any] | None,
    sweep: bool,
    started: tuple[Later, bool],
) -> tuple[Site, Portal, BuildResult]:
    """Steps 2 to 7 (``started``: the findings on their way, and whether to fork)."""
    later, fork = started
    cache, stage = steps.cache, steps.stage
    portal = gather(memory, cache)
    stage("Page frames (MkDocs)…")
    site, made = draw_frames(memory, portal, site_dir, strict, site_url, resume)
    try:
        search_bytes = write_shared(site, portal, stage)
        stage("Entry pages…")
        write_entry_pages(site, portal, fork, steps.progress)
        stage("Findings (near duplicates, conflicts, secrets)…")
        findings = later.result()
    finally:
        gc.unfreeze()  # serve goes on in this process: its garbage is collected again
    portal, rewritten = write_findings(site, memory, portal, cache, findings)
    site.last = portal
    if resume is not None:  # what the last build wrote and this one did not, then strays
        site.sweep_untouched(list(resume["written"]))
        site.sweep_surveyed(resume[SURVEY], resume["written"], made.copied)
    elif sweep:
        site.sweep(made.copied)
    total = len(portal.entries)
    result = BuildResult(
        site_dir=site_dir,
        entries=total,
        pages=1 + len(portal.categories) + 4 + len(portal.tags) + total + _releases(portal),
        warnings=made.warnings,
        findings=len(findings),
        search_bytes=search_bytes if rewritten is None else rewritten,
        releases=len(portal.releases),
    )
    return site, portal, result


def _entry_files(memory: Memory) -> int:
    """How many entry files the store holds (for the first stage line, before any is read)."""
    try:
        with os.scandir(memory.store.entries_dir) as found:
            return sum(1 for item in found if item.name.endswith(".json"))
    except OSError:
        return 0


def _releases(portal: Portal) -> int:
    """The release pages' count: their list, and each release's first page."""
    return len(portal.releases) + 1 if portal.releases else 0
