"""A built portal on disk: its page frames, its renderer and what it wrote, so that an update
(``serve``) rewrites only the files a change touched."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memsite.files import storage_errors, write_atomic
from memsite.portal import lunrdocs
from memsite.portal.frames import SHELL_ID, Frame
from memsite.portal.keys import key_of
from memsite.portal.model import Portal
from memsite.portal.outputs import gzipped, raw_files, sitemap
from memsite.portal.render import PageGroup, PageOut, Renderer
from memsite.portal.reuse import MARKER as MARKER  # (where builds and tests take it from)
from memsite.portal.reuse import Survey


def _folder_of(rel: str) -> str:
    """The folder holding ``rel`` as a survey names it: "" for the top, else "path/"."""
    parent = rel.rpartition("/")[0]
    return parent + "/" if parent else ""


@dataclass
class Site:
    """A built portal: its frames and renderer, and what it wrote (for incremental updates).

    ``written`` holds, for each file, the stable key (``portal.keys``) of what it was made
    from, or of its bytes: a build in another process can go on from it (``portal.reuse``).
    """

    site_dir: Path
    frames: dict[str, Frame]
    renderer: Renderer
    search_config: dict[str, Any]
    site_url: str | None
    written: dict[str, bytes] = field(default_factory=dict)
    last: Portal | None = None  # the portal the last update (or build) wrote
    in_place: bool = False  # a live site updated where it is: each file replaced atomically
    touched: set[str] = field(default_factory=set)  # every file this build wrote or kept
    wrote: set[str] = field(default_factory=set)  # every file this process wrote (or replaced)
    # After a sweep: every file the folder holds (rel → size, mtime in whole seconds) as
    # ``portal.reuse.survey`` gives them; None before one, or when the folder holds a link.
    listing: dict[str, tuple[int, int]] | None = None
    _same: dict[str, Any] = field(default_factory=dict)  # rel → the key object last seen
    _salt: bytes = b""
    _dirs: set[str] = field(default_factory=set)
    _page_paths: set[str] = field(default_factory=set)  # every page the last write_rest made
    # Tag pages, and category and month pages, as last written: group key → (path, title) of
    # each page (see _write_groups).
    _tags: dict[Any, list[tuple[str, str]]] = field(default_factory=dict)
    _groups: dict[Any, list[tuple[str, str]]] = field(default_factory=dict)
    _lunr: dict[Any, bytes] = field(default_factory=dict)  # MkDocs' index in pieces (serve)
    search_memo: dict[str, Any] = field(default_factory=dict)  # its files' (searchpatch.Memo)

    # --- writing ----------------------------------------------------------------------------

    @property
    def salt(self) -> bytes:
        """What every page shows besides its own data: the frames (MkDocs' config, the theme)
        and the site's URL. Mixed into each page's key, so a new frame draws every page."""
        if not self._salt:
            digest = hashlib.blake2b(repr(self.site_url).encode(), digest_size=16)
            for name in sorted(self.frames):
                digest.update(repr((name, self.frames[name].parts)).encode("utf-8", "replace"))
            self._salt = digest.digest()
        return self._salt

    def _write(self, rel: str, data: bytes, atomic: bool) -> None:
        path = os.path.join(self.site_dir, rel)
        self.wrote.add(rel)
        if atomic or self.in_place:  # serve: an open browser must never read half a page
            write_atomic(Path(path), data)
            return
        folder = os.path.dirname(path)
        if folder not in self._dirs:
            os.makedirs(folder, exist_ok=True)
            self._dirs.add(folder)
        with open(path, "wb") as handle:
            handle.write(data)

    def put(self, rel: str, data: bytes, *, key: Any = None, atomic: bool = False) -> bool:
        """Write ``rel`` unless what was last written there had the same key (or bytes)."""
        if key is None:
            key = hashlib.blake2b(data, digest_size=16).digest()
        self.touched.add(rel)
        if self.written.get(rel) == key:
            return False
        with storage_errors("write", self.site_dir / rel):
            self._write(rel, data, atomic)
        self.written[rel] = key
        return True

    def put_chunks(self, rel: str, chunks: Iterable[bytes]) -> bool:
        """Write ``rel`` from pieces (a file too large to hold whole): into a temporary file
        beside it, renamed over it unless it came out as what was last written there."""
        path = self.site_dir / rel
        self.touched.add(rel)
        digest = hashlib.blake2b(digest_size=16)
        with storage_errors("write", path):
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            try:
                with open(temporary, "wb") as handle:
                    for chunk in chunks:
                        digest.update(chunk)
                        handle.write(chunk)
                key = digest.digest()
                if self.written.get(rel) == key:
                    return False
                os.replace(temporary, path)
                self.wrote.add(rel)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary)
        self.written[rel] = key
        return True

    def read_written(self, rel: str) -> bytes | None:
        """``rel`` as this site wrote it (None: it wrote none, or the bytes are not those)."""
        key = self.written.get(rel)
        try:
            with open(os.path.join(self.site_dir, rel), "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        return data if key == hashlib.blake2b(data, digest_size=16).digest() else None

    def page_html(self, page: PageOut) -> bytes:
        frame = self.frames[page.shell]
        ident = page.path.rstrip("/").rsplit("/", 1)[-1] if page.shell != page.path else SHELL_ID
        return frame.fill(page.title, page.body, ident).encode("utf-8")

    def put_page(self, page: PageOut, *, key: bytes | None = None, atomic: bool = False) -> bool:
        rel = f"{page.path}index.html"
        if key is not None and self.written.get(rel) == key:
            self.touched.add(rel)
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
        salt = self.salt
        for number, entry_id in enumerate(ids, 1):
            data = portal.page(entry_id)
            rel = f"entries/{entry_id}/index.html"
            key = key_of(data, salt)
            if self.written.get(rel) != key:
                self.put_page(self.renderer.entry_page(data), key=key, atomic=atomic)
                changed += 1
            self.touched.add(rel)
            if tick is not None and number % 200 == 0:
                tick(200)
        if tick is not None:
            tick(len(ids) % 200)
        return changed

    def _write_groups(
        self, groups: Iterable[PageGroup], last: dict[Any, list[tuple[str, str]]], atomic: bool
    ) -> tuple[int, dict[Any, list[tuple[str, str]]], list[tuple[str, str]]]:
        """Pages by keyed groups (``Renderer.main_page_groups``): a group whose key is in
        ``last`` was written as it is and is not rendered again. Returns how many files
        changed, the groups now known (key → (path, title) of each page; never their bodies:
        at 100k entries those would hold hundreds of MB) and every page's (path, title)."""
        changed = 0
        known: dict[Any, list[tuple[str, str]]] = {}
        every: list[tuple[str, str]] = []
        for group, render in groups:
            key = key_of(group, self.salt) if group is not None else None
            shown = last.get(key) if key is not None else None
            if shown is None:
                pages = render()
                changed += sum(self.put_page(page, atomic=atomic) for page in pages)
                shown = [(page.path, page.title) for page in pages]
            else:
                self.touched.update(f"{path}index.html" for path, _ in shown)
            if key is not None:
                known[key] = shown
            every += shown
        return changed, known, every

    def write_tags(self, portal: Portal, *, atomic: bool = False) -> int:
        """Each tag's pages, rendered again only when its entries' views changed."""
        groups = self.renderer.tag_page_groups(portal)
        changed, self._tags, _ = self._write_groups(groups, self._tags, atomic)
        return changed

    def write_rest(self, portal: Portal, *, atomic: bool = False) -> int:
        """Main pages, JSON files, raw files, sitemap and MkDocs' search index (``lunrdocs``)."""
        groups = self.renderer.main_page_groups(portal)
        changed, self._groups, shown = self._write_groups(groups, self._groups, atomic)
        for rel, source, render in raw_files(portal, self.renderer, self._base):
            if source is None:
                changed += self.put(rel, render().encode("utf-8"), atomic=atomic)
                continue
            self.touched.add(rel)
            if self._same.get(rel) is source:  # the very object written last (serve)
                continue
            key = key_of(source)
            if self.written.get(rel) != key:
                changed += self.put(rel, render().encode("utf-8"), key=key, atomic=atomic)
            self._same[rel] = source
        paths = [path for path, _ in shown]
        paths += [path for pages in self._tags.values() for path, _ in pages]
        paths += [f"entries/{e.id}/" for e in portal.entries]
        self._page_paths = set(paths)
        xml = sitemap(paths, self.site_url)
        if self.put("sitemap.xml", xml, atomic=atomic):
            self.put("sitemap.xml.gz", gzipped(xml), atomic=atomic)
        self.touched.add("sitemap.xml.gz")
        # Its pieces are kept between updates (serve) and builds (``portal.reuse``).
        chunks = lunrdocs.index_chunks(self.search_config, shown, portal.entries, known=self._lunr)
        changed += self.put_chunks(lunrdocs.INDEX, chunks)
        return changed

    @property
    def _base(self) -> str:
        """What raw files' links start with: the site's URL, else nothing (relative)."""
        return self.site_url.rstrip("/") + "/" if self.site_url else ""

    def write_findings(self, portal: Portal, *, atomic: bool = False) -> int:
        """What shows the review's findings (the home and review pages, llms.txt), after
        :meth:`write_rest` wrote everything else without them (a build writes the rest while
        the findings are still being made)."""
        changed = int(self.put_page(self.renderer.home_page(portal), atomic=atomic))
        changed += sum(self.put_page(p, atomic=atomic) for p in self.renderer.review_pages(portal))
        llms = self.renderer.llms_txt(portal, self._base).encode("utf-8")
        return changed + self.put("llms.txt", llms, atomic=atomic)

    def write_search(self, files: Mapping[str, bytes], *, atomic: bool = False) -> int:
        self.search_memo = {}  # (the files are no longer those it describes)
        return sum(self.put(rel, data, atomic=atomic) for rel, data in files.items())

    def sweep(self, keep: set[str]) -> int:
        """Delete files of an earlier build that this one did not write, and the folders
        left empty; :attr:`listing` then holds what the folder keeps."""
        with storage_errors("clean", self.site_dir):
            return self._sweep(keep)

    def _sweep(self, keep: set[str]) -> int:
        # One pass of scandir, which also gives each kept file's size and time for the build
        # state (``portal.reuse.save``): at 100k entries, os.walk and relpath took 5.9 s and
        # the state's own walk 1.7 s more.
        files: dict[str, tuple[int, int]] = {}
        linked = False
        folders: list[str] = []  # parents before their children
        held: dict[str, int] = {}  # folder → how many names it still holds
        removed = 0
        pending = [""]
        while pending:
            prefix = pending.pop()
            folders.append(prefix)
            count = 0
            with os.scandir(os.path.join(self.site_dir, prefix)) as items:
                for item in items:
                    rel = prefix + item.name
                    count += 1
                    if item.is_dir(follow_symlinks=False):
                        pending.append(rel + "/")
                    elif rel not in self.written and rel not in keep and rel != MARKER:
                        os.unlink(item.path)  # a link is removed, never followed
                        removed += 1
                        count -= 1
                    elif item.is_symlink():
                        linked = True
                    else:
                        info = item.stat(follow_symlinks=False)
                        files[rel] = (info.st_size, int(info.st_mtime))
            held[prefix] = count
        for prefix in reversed(folders[1:]):  # children first
            if held[prefix] == 0:
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(self.site_dir, prefix))
                    parent = prefix[:-1].rpartition("/")[0]
                    held[parent + "/" if parent else ""] -= 1
        self.listing = None if linked else files
        return removed

    def sweep_surveyed(self, found: Survey, before: Mapping[str, bytes], keep: set[str]) -> int:
        """:meth:`sweep` for a build that went on from the last: ``found`` is the folder as
        the build began (``portal.reuse.survey``) and ``before`` the keys it went on from,
        so the folder is not walked again (5 s at 100k entries). Only files this build wrote
        (a new key, or :attr:`wrote`: some are written twice, the second time as they were)
        and those in ``keep`` (MkDocs copied them over) are looked at again."""
        with storage_errors("clean", self.site_dir):
            return self._sweep_surveyed(found, before, keep)

    def _sweep_surveyed(self, found: Survey, before: Mapping[str, bytes], keep: set[str]) -> int:
        held, written, top = dict(found.folders), self.written, self.site_dir
        files: dict[str, tuple[int, int]] = {}
        fresh = [rel for rel in written if rel not in found.files]
        again = self.wrote.union(keep, (MARKER,))
        removed = 0
        for rel, seen in found.files.items():
            if rel not in written and rel not in keep and rel != MARKER:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(top, rel))
                removed += 1
                held[_folder_of(rel)] -= 1
            elif rel in again or before.get(rel) != written.get(rel):
                fresh.append(rel)  # written again by this build, or by MkDocs
            else:
                files[rel] = seen
        for rel in fresh:
            with contextlib.suppress(FileNotFoundError):
                info = os.lstat(os.path.join(top, rel))
                files[rel] = (info.st_size, int(info.st_mtime))
        for prefix in sorted(held, key=lambda p: -p.count("/")):  # children first
            if prefix and held[prefix] == 0:
                with contextlib.suppress(OSError):  # (not empty: this build wrote into it)
                    os.rmdir(os.path.join(top, prefix))
                    held[_folder_of(prefix[:-1])] -= 1
        self.listing = files
        return removed

    def remove_stale(self, portal: Portal) -> list[str]:
        """Delete files of entries and tags that are gone (serve: an entry file was deleted)."""
        keep = {f"{path}index.html" for path in self._page_paths}
        keep |= {f"entries/{e.id}.json" for e in portal.entries}
        removed = []
        for rel in list(self.written):
            stale = rel not in keep and rel != "tags/index.html"
            if stale and rel.startswith(
                ("entries/", "tags/", "categories/", "timeline/", "as-of/")
            ):
                with contextlib.suppress(OSError):
                    os.unlink(self.site_dir / rel)
                    folder = (self.site_dir / rel).parent
                    if rel.endswith("index.html"):
                        shutil.rmtree(folder, ignore_errors=True)
                del self.written[rel]
                self._same.pop(rel, None)
                removed.append(rel)
        return removed

    # --- a build that goes on from the last one (``portal.reuse``) ------------------------------

    def state(self) -> dict[str, Any]:
        """What a later build needs of this one: plain data (``marshal``), no objects."""
        return {
            "written": self.written,
            "tags": self._tags,
            "groups": self._groups,
            "lunr": self._lunr,
            "search": self.search_memo,
        }

    def resume(self, state: Mapping[str, Any]) -> None:
        """Go on from ``state`` (:meth:`state` of a build of this folder): what it wrote
        is not written again."""
        self.written = dict(state["written"])
        self._tags = dict(state["tags"])
        self._groups = dict(state["groups"])
        self._lunr = dict(state["lunr"])
        self.search_memo = dict(state.get("search") or {})
        self.in_place = True

    def sweep_untouched(self, earlier: Iterable[str]) -> int:
        """Delete the files of ``earlier`` (those the build went on from) that this build
        neither wrote nor kept, and the folders they leave empty."""
        gone = [rel for rel in earlier if rel not in self.touched and rel != MARKER]
        with storage_errors("clean", self.site_dir):
            for rel in gone:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.site_dir / rel)
                self.written.pop(rel, None)
                folder = (self.site_dir / rel).parent
                while folder != self.site_dir and not any(folder.iterdir()):
                    folder.rmdir()
                    folder = folder.parent
        return len(gone)

    def update(self, portal: Portal, *, atomic: bool = True) -> int:
        """Rewrite what changed since the last write of this site (serve's incremental path)."""
        self.touched.clear()  # (a build's record: not kept growing over a serve session)
        self.wrote.clear()
        settled = unchanged_pages(self.last, portal)
        ids = [e.id for e in portal.entries if e.id not in settled]
        changed = self.write_entries(portal, ids, atomic=atomic)
        changed += self.write_tags(portal, atomic=atomic)
        changed += self.write_rest(portal, atomic=atomic)
        changed += len(self.remove_stale(portal))
        self.renderer.forget_except(portal)
        self.last = portal
        return changed


def unchanged_pages(old: Portal | None, new: Portal) -> set[str]:
    """Entries whose page data cannot differ from what ``old`` gave them: the same view
    object (the portal cache gives an unchanged entry its old one), the same file link and
    origin (``portal.trust``), and no part in any relation a page shows (history, duplicates,
    claims) in either portal. Their pages are not even compared (at 100k entries that would
    cost a second)."""
    if old is None:
        return set()
    related: set[str] = set()
    for portal in (old, new):
        for links in (portal.edges, portal.superseded_by, portal.losers):
            related.update(links)
            for ids in links.values():
                related.update(ids)
        related.update(portal.winner)
        related.update(portal.winner.values())
        related.update(portal.claims)
    before, hrefs, now = old.by_id, old.file_links, new.file_links
    was, came = old.origins, new.origins
    return {
        e.id
        for e in new.entries
        if before.get(e.id) is e
        and e.id not in related
        and hrefs.get(e.id) == now.get(e.id)
        and was.get(e.id) == came.get(e.id)
        and old.active_in.get(e.id) == new.active_in.get(e.id)
    }
