"""Page frames: MkDocs + Material render each kind of portal page once, with slots to fill.

A frame is a complete Material page (header, navigation, search box, palette toggle, footer)
whose title, body and page id are placeholders. There is one frame per navigation page (home,
each category, tags, timeline, review, search), one shared by every entry page and one shared
by every tag page: all entry pages sit at the same depth and outside the navigation, so their
frames would be identical but for those slots. MkDocs thus renders about a dozen pages,
whatever the size of the memory, and never parses Markdown (see ``mkglue.ReadyPage``).

Every frame is then made lean (:mod:`memsite.portal.chrome`): icons in one shared sprite,
Material's inline scripts in shared files, whitespace folded; every frame keeps the header
(search box included) and the whole navigation; the entry frame writes its search box and
navigation from shared scripts and has no footer. An entry page is its body plus about 4 KB
(it was 17 KB).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from memsite.errors import MemsiteError
from memsite.portal.chrome import ENTRY, NAV, ChromeAssets, lean_frame, point_at_sprite
from memsite.portal.model import Portal
from memsite.portal.outputs import nav_items
from memsite.portal.releases import RELEASE_SHELL, RELEASES
from memsite.portal.render import ENTRY_SHELL, MONTH_SHELL, TAG_SHELL, root_for

TITLE_SLOT = "memsite-slot-title-7c1d0e"
BODY_SLOT = "<!--<h1>-->memsite-slot-body-7c1d0e"
SHELL_ID = "memsite-shell"
_SLOTS = re.compile(f"({re.escape(TITLE_SLOT)}|{re.escape(BODY_SLOT)}|{SHELL_ID})")


class Frame:
    """A page as MkDocs + Material rendered it, cut at its slots (title, body, page id)."""

    def __init__(self, html: str) -> None:
        self.parts = _SLOTS.split(html)
        if self.parts.count(BODY_SLOT) != 1:
            raise MemsiteError(
                "the theme did not render the page body exactly once: check site-config/"
            )

    def fill(self, title: str, body: str, ident: str = SHELL_ID) -> str:
        values = {TITLE_SLOT: escape(title, quote=False), BODY_SLOT: body, SHELL_ID: ident}
        return "".join(part if n % 2 == 0 else values[part] for n, part in enumerate(self.parts))


@dataclass(frozen=True)
class FrameSpec:
    path: str
    title: str
    in_nav: bool


@dataclass
class Frames:
    """What the MkDocs run gives a build: the frames, the shared files their lean chrome
    points at (sprite, scripts), Material's search settings, its warnings, and the files
    copied from its output (theme assets, 404 page)."""

    frames: dict[str, Frame]
    assets: dict[str, bytes]
    search_config: dict[str, Any]
    warnings: list[str]
    copied: set[str]


# The kind of chrome of each frame (see ``chrome``): the entry frame's is the leanest.
CHROME_KINDS = {ENTRY_SHELL: ENTRY}


def _frame_specs(portal: Portal) -> list[FrameSpec]:
    specs = [FrameSpec("", "Home", True)]
    specs += [FrameSpec(f"categories/{c.slug}/", c.title, c.configured) for c in portal.categories]
    specs += [
        FrameSpec("tags/", "Tags", True),
        FrameSpec("timeline/", "Timeline", True),
        FrameSpec("review/", "Review", True),
        FrameSpec("search/", "Search", True),
        FrameSpec(ENTRY_SHELL, TITLE_SLOT, False),
        FrameSpec(TAG_SHELL, TITLE_SLOT, False),
        FrameSpec(MONTH_SHELL, TITLE_SLOT, False),
    ]
    if portal.releases:  # their list, and one frame for every release's pages
        specs += [
            FrameSpec(RELEASES, "Releases", False),
            FrameSpec(RELEASE_SHELL, TITLE_SLOT, False),
        ]
    return specs


def _frames_plugin(specs: Sequence[FrameSpec]) -> Any:
    """An MkDocs plugin adding one slot page per frame and keeping its HTML instead of writing."""
    from mkdocs.plugins import BasePlugin

    from memsite.portal.mkglue import add_ready_page

    class FramesPlugin(BasePlugin):  # type: ignore[type-arg,no-untyped-call]
        def __init__(self) -> None:
            self.html: dict[str, str] = {}
            self.wanted = {spec.path for spec in specs}

        def on_files(self, files: Any, /, *, config: Any) -> Any:
            for spec in specs:
                meta: dict[str, Any] = {"search": {"exclude": True}, "hide": ["toc"]}
                if spec.path:
                    meta["title"] = spec.title
                add_ready_page(
                    files, config, spec.path, spec.title, BODY_SLOT, meta, in_nav=spec.in_nav
                )
            return files

        def on_post_page(self, output: str, /, *, page: Any, config: Any) -> str:
            path = page.file.src_uri.removesuffix("index.md")
            if path in self.wanted:
                self.html[path] = output
                return ""  # memsite writes the filled pages itself
            return output

    return FramesPlugin()


def render_frames(
    portal: Portal,
    site: Mapping[str, Any],
    site_dir: Path,
    *,
    strict: bool,
    site_url: str | None,
) -> Frames:
    """Run MkDocs (Material) over the frame pages and make each frame lean.

    MkDocs builds into a scratch folder (it would otherwise empty ``site_dir`` first, and
    deleting thousands of files of the last build costs more than the build); its theme
    assets, 404 page and search settings are then copied over.
    """
    import tempfile

    import jinja2
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.exceptions import MkDocsException

    from memsite.portal.mkglue import capture_mkdocs_log, nav_config, portal_config
    from memsite.portal.searchdata import import_lunr

    import_lunr()
    with tempfile.TemporaryDirectory(prefix="memsite-frames-") as scratch:
        built = Path(scratch)
        config = portal_config(
            site,
            site_dir=built,
            nav=nav_config(nav_items(portal)),
            strict=strict,
            site_url=site_url,
        )
        plugin = _frames_plugin(_frame_specs(portal))
        config.plugins["memsite/frames"] = plugin
        with capture_mkdocs_log() as messages:
            try:
                mkdocs_build(config)
                copied = _copy_tree(built, site_dir)
                index = json.loads((built / "search" / "search_index.json").read_text("utf-8"))
            except (MkDocsException, jinja2.TemplateError, OSError, ValueError) as exc:
                detail = "; ".join(messages) or str(exc)
                raise MemsiteError(f"MkDocs build failed: {detail}") from None
    assets = ChromeAssets()
    lean = {
        path: lean_frame(html, root_for(path), assets, CHROME_KINDS.get(path, NAV))
        for path, html in sorted(plugin.html.items())
    }
    frames = {path: Frame(point_at_sprite(html, assets)) for path, html in lean.items()}
    return Frames(frames, assets.files(), index.get("config", {}), messages, copied)


def _copy_tree(source: Path, target: Path) -> set[str]:
    """Copy MkDocs' output (theme assets, 404 page…) into the site; returns what was copied."""
    copied: set[str] = set()
    for folder, _, names in os.walk(source):
        rel_folder = os.path.relpath(folder, source)
        os.makedirs(os.path.join(target, rel_folder), exist_ok=True)
        for name in names:
            rel = os.path.normpath(os.path.join(rel_folder, name))
            shutil.copyfile(os.path.join(folder, name), os.path.join(target, rel))
            copied.add(rel.replace(os.sep, "/"))
    return copied
