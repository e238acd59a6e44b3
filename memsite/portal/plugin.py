"""The ``memsite`` MkDocs plugin: mounts the memory portal under a path of an existing site.

::

    plugins:
      - search
      - memsite:
          store: .memsite      # default: the nearest .memsite/ from mkdocs.yml upwards
          path: memory         # where the portal's pages go (default: memory/)

Every portal page (home, categories, entries, tags, timeline, review, search) is added as a
page of ready HTML (no Markdown), rendered from the same templates as ``memsite build``; entry
and tag pages stay out of the navigation. The raw files (``entries/<id>.json``, ``index.md``,
``llms.txt``, the Lunr index) are written after the build.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files, InclusionLevel

from memsite.errors import MemsiteError
from memsite.portal.mkglue import add_ready_page
from memsite.portal.model import Portal
from memsite.portal.render import PageOut, Renderer, raw_files
from memsite.portal.resources import lunr_js, site_config_dir
from memsite.storage.files import write_atomic

ASSETS = ("assets/memsite/portal.css", "assets/memsite/search.js")


class MemsitePluginConfig(Config):  # type: ignore[no-untyped-call]
    store = c.Optional(c.Type(str))
    path = c.Type(str, default="memory")


class MemsitePlugin(BasePlugin[MemsitePluginConfig]):  # type: ignore[no-untyped-call]
    """Adds the pages of a memsite store's portal to an MkDocs site."""

    def __init__(self) -> None:
        self.watched: list[Path] = []
        self.portal: Portal | None = None
        self.renderer: Renderer | None = None
        self.prefix = "memory/"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        from memsite.memory import Memory
        from memsite.portal.build import portal_for
        from memsite.portal.searchdata import import_lunr

        import_lunr()
        path = self.config.path.strip().strip("/")
        if ".." in path.split("/"):
            raise PluginError(f"memsite plugin: 'path' must stay inside the site, got {path!r}")
        self.prefix = f"{path}/" if path else ""
        base = Path(config.config_file_path or ".").resolve().parent
        explicit = str((base / self.config.store).resolve()) if self.config.store else None
        try:
            memory = Memory.open(explicit, os.environ, base)
            portal = portal_for(memory, findings=memory.findings(), site_name="Memory")
        except MemsiteError as exc:
            raise PluginError(f"memsite plugin: {exc}") from None
        self.portal = portal
        self.renderer = Renderer()
        self.watched = [memory.store.entries_dir, memory.store.config_path]  # LeanSpec: its own
        config.extra_css.append(f"{self.prefix}assets/memsite/portal.css")
        return config

    def _add(self, files: Files, config: MkDocsConfig, page: PageOut, in_nav: bool) -> None:
        meta = {"title": page.title, "hide": ["toc"]}
        add_ready_page(
            files, config, self.prefix + page.path, page.title, page.body, meta, in_nav=in_nav
        )

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        portal, renderer = self.portal, self.renderer
        assert portal is not None and renderer is not None
        for page in renderer.main_pages(portal):
            configured = not page.path.startswith("categories/") or any(
                c.configured and page.path == f"categories/{c.slug}/" for c in portal.categories
            )
            self._add(files, config, page, in_nav=configured)
        for page in renderer.tag_pages(portal):
            self._add(files, config, page, in_nav=False)
        for entry in portal.entries:
            self._add(files, config, renderer.entry_page(portal.page(entry.id)), in_nav=False)
        sources = {name: site_config_dir() / "docs" / name for name in ASSETS}
        sources["assets/memsite/lunr.js"] = lunr_js()
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

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        """``mkdocs serve`` rebuilds when entries change, as it does for docs/."""
        for path in self.watched:
            if path.exists():
                server.watch(str(path))
        return server

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        from memsite.portal.searchdata import search_files

        portal, renderer = self.portal, self.renderer
        assert portal is not None and renderer is not None
        root = Path(config.site_dir) / self.prefix
        outputs = {rel: data for rel, data, _ in raw_files(portal, renderer)}
        outputs.update(search_files(portal))
        try:
            for rel, data in outputs.items():
                write_atomic(root / rel, data)
        except MemsiteError as exc:
            raise PluginError(f"memsite plugin: {exc}") from None
