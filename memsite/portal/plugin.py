"""The ``memsite`` MkDocs plugin: mounts the memory portal under a path of an existing site.

::

    plugins:
      - search
      - memsite:
          store: .memsite      # default: the nearest .memsite/ from mkdocs.yml upwards
          path: memory         # where the portal's pages go (default: memory/)
          search_url: /search  # the search page's link for readers without JavaScript
                               # (default: /search under TechDocs, else none)

Every portal page (home, categories, entries, tags, timeline, review, search) is added as a
page of ready HTML (no Markdown), rendered from the same templates as ``memsite build``; entry
and tag pages stay out of the navigation. The raw files (``entries/<id>.json``, ``index.md``,
``llms.txt``, ``feed.xml``) and memsite's search index are written after the build (every
file comes from ``outputs``).

In the navigation the memory is one section (titled "Memory", or as the host's ``nav`` names
it) holding its pages in the portal's order, the categories in config order. Without a host
``nav`` it takes the place MkDocs gave the folder; with one, it replaces the entry that names
the portal's home (``- Memory: memory/index.md``), and the portal stays out of the nav if
none does. A host page linking the folder itself (``[memory](memory/)``) is pointed at the
portal's home, so MkDocs has no unrecognized link to report.
"""

from __future__ import annotations

import posixpath
import re
from functools import cache
from html import escape
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

from memsite.errors import MemsiteError
from memsite.files import write_atomic
from memsite.portal import lunrdocs
from memsite.portal.mkglue import add_ready_page, src_uri
from memsite.portal.model import Portal
from memsite.portal.outputs import ASSETS, STYLESHEET, nav_items, pages
from memsite.portal.outputs import files as files_of
from memsite.portal.render import PageOut, Renderer
from memsite.portal.resources import site_config_dir

TECHDOCS_PLUGIN = "techdocs-core"
TECHDOCS_SEARCH = "/search"  # Backstage's search page, which indexes every TechDocs site


class MemsitePluginConfig(Config):  # type: ignore[no-untyped-call]
    store = c.Optional(c.Type(str))
    path = c.Type(str, default="memory")
    # Where the search page sends readers without JavaScript; default: Backstage's search
    # page under TechDocs (whose reader removes scripts), else none.
    search_url = c.Optional(c.Type(str))


class MemsitePlugin(BasePlugin[MemsitePluginConfig]):  # type: ignore[no-untyped-call]
    """Adds the pages of a memsite store's portal to an MkDocs site."""

    def __init__(self) -> None:
        self.watched: list[Path] = []
        self.portal: Portal | None = None
        self.renderer: Renderer | None = None
        self.prefix = "memory/"
        self.locations: dict[str, str] = {}  # entry id → the URL of its page

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        from memsite.portal.gather import plugin_portal
        from memsite.portal.searchdata import import_lunr

        import_lunr()
        path = self.config.path.strip().strip("/")
        if ".." in path.split("/"):
            raise PluginError(f"memsite plugin: 'path' must stay inside the site, got {path!r}")
        self.prefix = f"{path}/" if path else ""
        base = Path(config.config_file_path or ".").resolve().parent
        try:
            self.portal, self.watched = plugin_portal(self.config.store, base)
        except MemsiteError as exc:
            raise PluginError(f"memsite plugin: {exc}") from None
        self.renderer = Renderer(host_search=self._host_search(config))
        self.locations = {}
        config.extra_css.append(self.prefix + stylesheet_name())
        return config

    def _host_search(self, config: MkDocsConfig) -> str | None:
        from memsite.core.urls import url_problem

        url = self.config.search_url
        if url is None:
            return TECHDOCS_SEARCH if _under_techdocs(config) else None
        problem = url_problem(url, relative=True)
        if problem:
            raise PluginError(f"memsite plugin: 'search_url' {problem}")
        return url

    def _add(self, files: Files, config: MkDocsConfig, page: PageOut, in_nav: bool) -> None:
        meta: dict[str, Any] = {"title": page.title, "hide": ["toc"]}
        entry_id = page.path.removeprefix("entries/").rstrip("/") if _is_entry(page) else None
        if entry_id:  # one search document per fact, made by on_post_build (see lunrdocs)
            meta["search"] = {"exclude": True}
        ready = add_ready_page(
            files, config, self.prefix + page.path, page.title, page.body, meta, in_nav=in_nav
        )
        if entry_id:
            self.locations[entry_id] = ready.file.url

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        portal, renderer = self.portal, self.renderer
        assert portal is not None and renderer is not None
        # With a host nav, pages it does not list would be reported as omitted: the section
        # is put in place by on_nav instead.
        own_nav = config.nav is None
        in_nav = {
            path
            for _, target in nav_items(portal)
            for path in ([target] if isinstance(target, str) else [p for _, p in target])
        }
        for page in pages(portal, renderer):
            self._add(files, config, page, in_nav=page.path in in_nav and own_nav)
        sources = {name: site_config_dir() / "docs" / name for name in ASSETS}
        sources[stylesheet_name()] = sources[STYLESHEET]
        for name, source in sources.items():
            files.append(
                File.generated(
                    config,
                    self.prefix + name,
                    abs_src_path=str(source),
                    inclusion=InclusionLevel.NOT_IN_NAV,
                )
            )
        return files

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> Navigation:
        """The portal's pages as one section, in the portal's order (see the module)."""
        from mkdocs.structure.nav import (
            _add_parent_links,
            _add_previous_and_next_links,
            _get_by_type,
        )

        portal = self.portal
        assert portal is not None
        home = src_uri(self.prefix)
        pages = {f.src_uri: f.page for f in files if f.src_uri.startswith(self.prefix) and f.page}
        if home not in pages:
            return nav
        section = Section("Memory", [])
        placed = False

        def ours(item: Any) -> bool:
            return isinstance(item, Page) and item.file.src_uri.startswith(self.prefix)

        def strip(items: list[Any]) -> list[Any]:
            """``items`` without the portal's pages and the sections they alone filled; the
            section goes where the first of them was."""
            nonlocal placed
            kept: list[Any] = []
            for item in items:
                emptied = False
                if isinstance(item, Section):
                    before = len(item.children)
                    item.children = strip(item.children)
                    emptied = before > 0 and not item.children
                if ours(item) or emptied:
                    if ours(item) and item.file.src_uri == home and config.nav is not None:
                        section.title = _nav_title(config.nav, home) or section.title
                    if not placed:
                        kept.append(section)
                        placed = True
                    continue
                kept.append(item)
            return kept

        items = strip(list(nav.items))
        if not placed:
            return nav  # a host nav that does not name the portal: it stays out
        section.children += _section_children(portal, pages, self.prefix)
        every = _get_by_type(items, Page)
        _add_parent_links(items)
        _add_previous_and_next_links(every)
        return Navigation(items, every)

    def on_page_markdown(
        self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        """A host page's link to the portal's folder (``memory/``) goes to its home page."""
        if page.file.src_uri.startswith(self.prefix):
            return markdown
        folder = posixpath.dirname(page.file.src_uri)
        target = posixpath.relpath(self.prefix or ".", folder or ".")
        home = posixpath.relpath(src_uri(self.prefix), folder or ".")
        pattern = re.compile(r"(\]\(\s*)(?:\./)?" + re.escape(target.rstrip("/")) + r"/?(\s*\))")
        return pattern.sub(lambda m: f"{m.group(1)}{home}{m.group(2)}", markdown)

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        """Every page links the portal's Atom feed in its head, as ``memsite build``'s do."""
        cut = output.find("</head>")
        if cut < 0:
            return output
        folder = page.url if page.url.endswith("/") else posixpath.dirname(page.url)
        href = posixpath.relpath(f"{self.prefix}feed.xml", folder.rstrip("/") or ".")
        title = escape(f"{config.site_name}: latest changes")
        link = f'<link rel="alternate" type="application/atom+xml" title="{title}" href="{href}">'
        return output[:cut] + link + output[cut:]

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        """``mkdocs serve`` rebuilds when entries change, as it does for docs/."""
        for path in self.watched:
            if path.exists():
                server.watch(str(path))
        return server

    @event_priority(-100)  # after the search plugin has written its index
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        portal, renderer = self.portal, self.renderer
        assert portal is not None and renderer is not None
        root = Path(config.site_dir) / self.prefix
        try:
            for rel, data in files_of(portal, renderer):
                write_atomic(root / rel, data)
            self._search_documents(Path(config.site_dir) / lunrdocs.INDEX)
        except MemsiteError as exc:
            raise PluginError(f"memsite plugin: {exc}") from None

    def _search_documents(self, path: Path) -> None:
        """The host's search index (when its search plugin wrote one) with one document per
        fact, as ``memsite build`` writes it: Backstage's TechDocs collator reads it."""
        import json

        portal = self.portal
        assert portal is not None
        try:
            index = json.loads(path.read_bytes())
        except FileNotFoundError:
            return  # no search plugin on the host site: no index to complete
        except (OSError, ValueError) as exc:
            raise MemsiteError(f"cannot read the search index {path}: {exc}") from None
        if not isinstance(index, dict):
            return
        done = lunrdocs.with_facts(index, portal.entries, self.locations)
        write_atomic(path, lunrdocs.dump(done).encode("utf-8"))


@cache
def stylesheet_name() -> str:
    """The name the portal's stylesheet is linked by in a host site: ``main.<8 hex>.min.css``
    (a digest of its bytes). TechDocs' reader removes every ``<link>`` of a page but those
    to Material's own stylesheet, which it finds by that pattern of name (and Google Fonts):
    memsite's styles reach a Backstage reader only under such a name."""
    import hashlib

    data = (site_config_dir() / "docs" / STYLESHEET).read_bytes()
    return f"assets/memsite/main.{hashlib.sha256(data).hexdigest()[:8]}.min.css"


def _under_techdocs(config: MkDocsConfig) -> bool:
    """Is TechDocs building the site? techdocs-core is among the plugins until its own
    on_config, which removes itself and adds techdocs_metadata.json to the theme."""
    static = config.theme.static_templates if config.theme is not None else ()
    return TECHDOCS_PLUGIN in config.plugins or "techdocs_metadata.json" in static


def _is_entry(page: PageOut) -> bool:
    return page.path.startswith("entries/") and page.path.count("/") == 2


def _section_children(portal: Portal, pages: dict[str, Any], prefix: str) -> list[Any]:
    """The memory section's pages and sub-sections, in the portal's order."""
    children: list[Any] = []
    for name, target in nav_items(portal):
        if isinstance(target, str):
            page = pages.get(src_uri(prefix + target))
            if page is not None:
                page.title = "Overview" if target == "" else name
                children.append(page)
            continue
        group: list[Any] = []
        for sub, path in target:
            page = pages.get(src_uri(prefix + path))
            if page is not None:
                page.title = sub
                group.append(page)
        if group:
            children.append(Section(name, group))
    return children


def _nav_title(nav: Any, target: str) -> str | None:
    """The title a host's ``nav`` gives to ``target`` (``- Title: path``), if it gives one."""
    for item in nav if isinstance(nav, list) else []:
        if isinstance(item, dict):
            for title, value in item.items():
                if value == target:
                    return str(title)
                found = _nav_title(value, target)
                if found is not None:
                    return found
    return None
