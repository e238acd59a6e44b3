"""Builds the memory portal into a folder: MkDocs + Material draw the frames, memsite fills them.

A cold build (:func:`build_site`) is one straight pipeline:

1. read the store (scan + compaction); the review findings start on the other core;
2. :func:`~memsite.site.model.build_portal`: redacted views of every entry;
3. MkDocs builds the *frames*: one per navigation page (home, categories, tags, timeline,
   review, search), one shared by every entry page and one shared by every tag page, each
   with a slot where the body goes. Material's assets, 404 page and search settings come from
   this build. It costs the same at 10 entries as at 10,000: MkDocs never renders an entry
   page, where Material would draw its whole navigation once more (plain ``mkdocs build`` pays
   that per page, and Markdown parsing on top);
4. page bodies rendered from ``templates/`` go into their frames; entry pages are split over
   both cores and the Lunr index is built at the same time;
5. raw files: ``entries/<id>.json``, ``index.md``, ``llms.txt``, ``sitemap.xml``, Material's
   search index (entry documents added directly, so its plugin parses no entry HTML).

:class:`Site` keeps the frames, the renderer and what it wrote, so :meth:`Site.update` (used by
``serve``) rewrites only the files a change touched.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.compaction import Finding
from memsite.errors import MemsiteError
from memsite.site.frames import SHELL_ID, Frame, render_frames
from memsite.site.model import Portal, PortalCache, build_portal, finding_views
from memsite.site.pages import PageOut, Renderer
from memsite.site.parallel import Task, can_fork
from memsite.site.resources import lunr_js
from memsite.site.searchdata import material_docs, search_files

if TYPE_CHECKING:
    from memsite.service import Memory

MARKER = ".memsite-site"
MARKER_TEXT = "Built by memsite (`memsite build`); the folder is replaced on every build.\n"
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
        (site_dir / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        return any(p.name != MARKER for p in site_dir.iterdir())
    except OSError as exc:
        raise MemsiteError(
            f"cannot write the site to {site_dir}: {exc.strerror}; choose another --site-dir"
        ) from None


def sitemap(paths: Iterable[str], site_url: str | None) -> bytes:
    """sitemap.xml as MkDocs writes it (no <loc> without a site_url), without build dates."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    if site_url:
        base = site_url.rstrip("/") + "/"
        for path in paths:
            lines.append(f"    <url>\n         <loc>{escape(base + path)}</loc>\n    </url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


@dataclass
class BuildResult:
    site_dir: Path
    entries: int
    pages: int
    warnings: list[str]
    findings: int
    lunr_bytes: int = 0


@dataclass
class Site:
    """A built portal: its frames and renderer, and what it wrote (for incremental updates)."""

    site_dir: Path
    frames: dict[str, Frame]
    renderer: Renderer
    search_config: dict[str, Any]
    site_url: str | None
    written: dict[str, Any] = field(default_factory=dict)
    _dirs: set[str] = field(default_factory=set)

    # --- writing ----------------------------------------------------------------------------

    def _write(self, rel: str, data: bytes, atomic: bool) -> None:
        path = os.path.join(self.site_dir, rel)
        folder = os.path.dirname(path)
        if folder not in self._dirs:
            os.makedirs(folder, exist_ok=True)
            self._dirs.add(folder)
        if atomic:
            tmp = f"{path}.memsite-tmp"
            with open(tmp, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        else:
            with open(path, "wb") as handle:
                handle.write(data)

    def put(self, rel: str, data: bytes, *, key: Any = None, atomic: bool = False) -> bool:
        """Write ``rel`` unless what was last written there had the same key (or bytes)."""
        if key is None:
            key = hashlib.blake2b(data, digest_size=16).digest()
        if self.written.get(rel) == key:
            return False
        try:
            self._write(rel, data, atomic)
        except OSError as exc:
            raise MemsiteError(f"cannot write {self.site_dir / rel}: {exc.strerror}") from None
        self.written[rel] = key
        return True

    def page_html(self, page: PageOut) -> bytes:
        frame = self.frames[page.shell]
        ident = page.path.rstrip("/").rsplit("/", 1)[-1] if page.shell != page.path else SHELL_ID
        return frame.fill(page.title, page.body, ident).encode("utf-8")

    def put_page(self, page: PageOut, *, key: Any = None, atomic: bool = False) -> bool:
        rel = f"{page.path}index.html"
        if key is not None and self.written.get(rel) == key:
            return False
        return self.put(rel, self.page_html(page), key=key, atomic=atomic)

    # --- pages ------------------------------------------------------------------------------

    def write_entries(
        self,
        portal: Portal,
        ids: Sequence[str],
        tick: Callable[[int], None] | None = None,
        *,
        atomic: bool = False,
    ) -> int:
        """Render and write the pages of ``ids`` whose data changed; returns how many."""
        changed = 0
        for number, entry_id in enumerate(ids, 1):
            data = portal.page(entry_id)
            rel = f"entries/{entry_id}/index.html"
            if self.written.get(rel) != data:
                self.put_page(self.renderer.entry_page(data), key=data, atomic=atomic)
                changed += 1
            if tick is not None and number % 200 == 0:
                tick(200)
        if tick is not None:
            tick(len(ids) % 200)
        return changed

    def write_tags(self, portal: Portal, *, atomic: bool = False) -> int:
        changed = 0
        for page, tag in zip(self.renderer.tag_pages(portal), portal.tags, strict=True):
            key = ("tag", tag.name, tuple(tag.active), tuple(tag.inactive))
            changed += self.put_page(page, key=key, atomic=atomic)
        return changed

    def write_rest(self, portal: Portal, *, atomic: bool = False) -> int:
        """Main pages, JSON files, raw files, sitemap and Material's search index."""
        changed = 0
        pages = self.renderer.main_pages(portal)
        for page in pages:
            changed += self.put_page(page, atomic=atomic)
        base = self.site_url.rstrip("/") + "/" if self.site_url else ""
        changed += self.put("index.md", portal.index_md.encode("utf-8"), atomic=atomic)
        llms = self.renderer.llms_txt(portal, base).encode("utf-8")
        changed += self.put("llms.txt", llms, atomic=atomic)
        for entry_id, text in portal.json_texts.items():
            rel = f"entries/{entry_id}.json"
            if self.written.get(rel) is not text:
                changed += self.put(rel, text.encode("utf-8"), key=text, atomic=atomic)
        paths = [p.path for p in pages]
        paths += [f"tags/{t.slug}/" for t in portal.tags]
        paths += [f"entries/{e.id}/" for e in portal.entries]
        xml = sitemap(paths, self.site_url)
        if self.put("sitemap.xml", xml, atomic=atomic):
            self.put("sitemap.xml.gz", _gzip(xml), atomic=atomic)
        docs = [{"location": p.path, "title": p.title, "text": ""} for p in pages]
        index = {"config": self.search_config, "docs": docs + material_docs(portal)}
        data = json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        changed += self.put("search/search_index.json", data, atomic=atomic)
        return changed

    def write_search(self, files: Mapping[str, bytes], *, atomic: bool = False) -> int:
        return sum(self.put(rel, data, atomic=atomic) for rel, data in files.items())

    def sweep(self, keep: set[str]) -> int:
        """Delete files of an earlier build that this one did not write."""
        removed = 0
        for folder, _, names in os.walk(self.site_dir, topdown=False):
            for name in names:
                rel = os.path.relpath(os.path.join(folder, name), self.site_dir)
                rel = rel.replace(os.sep, "/")
                if rel not in self.written and rel not in keep and rel != MARKER:
                    os.unlink(os.path.join(folder, name))
                    removed += 1
            if folder != str(self.site_dir):
                with _suppress_os_error():
                    os.rmdir(folder)  # only if empty
        return removed

    def remove_stale(self, portal: Portal) -> list[str]:
        """Delete files of entries and tags that are gone (serve: an entry file was deleted)."""
        keep = {f"entries/{e.id}/index.html" for e in portal.entries}
        keep |= {f"entries/{e.id}.json" for e in portal.entries}
        keep |= {f"tags/{t.slug}/index.html" for t in portal.tags}
        keep |= {f"categories/{c.slug}/index.html" for c in portal.categories}
        removed = []
        for rel in list(self.written):
            stale = rel not in keep and rel != "tags/index.html"
            if stale and rel.startswith(("entries/", "tags/", "categories/")):
                with _suppress_os_error():
                    os.unlink(self.site_dir / rel)
                    folder = (self.site_dir / rel).parent
                    if rel.endswith("index.html"):
                        shutil.rmtree(folder, ignore_errors=True)
                del self.written[rel]
                removed.append(rel)
        return removed

    def update(self, portal: Portal, *, atomic: bool = True) -> int:
        """Rewrite what changed since the last write of this site (serve's incremental path)."""
        changed = self.write_entries(portal, [e.id for e in portal.entries], atomic=atomic)
        changed += self.write_tags(portal, atomic=atomic)
        changed += self.write_rest(portal, atomic=atomic)
        changed += len(self.remove_stale(portal))
        self.renderer.forget_except(portal)
        return changed


class _suppress_os_error:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, value: object, tb: object) -> bool:
        return isinstance(value, OSError)


def _write_chunk(site: Site, portal: Portal, ids: Sequence[str], counter: Any) -> int:
    def tick(n: int) -> None:
        counter.value += n

    return site.write_entries(portal, ids, tick)


def _search_task(portal: Portal) -> dict[str, bytes]:
    return search_files(portal)


def secret_ids(findings: Iterable[Finding]) -> set[str]:
    """Entries whose full (detect-secrets) scan found something: redact them with it too."""
    return {i for f in findings if f.kind == "secret" for i in f.ids}


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
    import multiprocessing

    earlier = prepare_site_dir(site_dir)
    fork = can_fork() if parallel is None else parallel
    state = memory.state()
    config = memory.config
    findings_task: Task[list[Finding]] = Task(memory.findings, fork=fork)
    cache = cache or PortalCache()

    def make_portal(findings: Sequence[Finding] = ()) -> Portal:
        portal = build_portal(state.result, config.site, config.categories, config.budget, cache)
        portal.findings = finding_views(findings, portal)
        return portal

    portal = make_portal()
    search_task: Task[dict[str, bytes]] = Task(_search_task, portal, fork=fork)
    frames, search_config, warnings, copied = render_frames(
        portal, config.site, site_dir, strict=strict, site_url=site_url
    )
    site = Site(site_dir, frames, Renderer(), search_config, site_url)
    site.put("assets/memsite/lunr.js", lunr_js().read_bytes())
    site.put(".nojekyll", b"")

    ids = [e.id for e in portal.entries]
    total = len(ids)
    counter = multiprocessing.get_context().Value("q", 0, lock=False)
    half = total // 2 if fork and total >= 400 else 0
    worker: Task[int] = Task(_write_chunk, site, portal, ids[:half], counter, fork=fork)

    def tick(n: int) -> None:
        counter.value += n
        if progress is not None:
            progress(min(counter.value, total), total)

    site.write_entries(portal, ids[half:], tick)
    site.write_tags(portal)
    worker.result()
    for entry_id in ids[:half]:  # written by the worker: remember what, for later updates
        site.written[f"entries/{entry_id}/index.html"] = portal.page(entry_id)
    if progress is not None:
        progress(total, total)

    findings = findings_task.result()
    full = secret_ids(findings)
    search = search_task.result()
    if full:
        # The full scan found what the quick one let through: redact those entries with it
        # and rewrite whatever shows them (usually nothing else changes).
        cache.redactor.full_ids = full
        portal = make_portal(findings)
        site.write_entries(portal, ids)
        site.write_tags(portal)
        search = search_files(portal)
    else:
        portal.findings = finding_views(findings, portal)
    site.write_search(search)
    site.write_rest(portal)
    if earlier:
        site.sweep(copied)
    pages = 1 + len(portal.categories) + 4 + len(portal.tags) + total
    result = BuildResult(
        site_dir=site_dir,
        entries=total,
        pages=pages,
        warnings=warnings,
        findings=len(findings),
        lunr_bytes=len(search.get("search/memsite-lunr.json", b"")),
    )
    return site, portal, result
