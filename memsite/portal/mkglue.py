"""MkDocs glue: pages whose HTML memsite made, and the portal's MkDocs configuration.

:class:`ReadyPage` is an MkDocs page that skips Markdown: its content is HTML memsite rendered
(escaped entry text included), so MkDocs never parses or rewrites it. :func:`portal_config`
merges ``site-config/mkdocs.yml`` with the store's ``site`` settings and memsite's navigation.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from memsite.core.text import one_line
from memsite.errors import ConfigError
from memsite.portal.resources import site_config_dir

_BAD_URL_CHARS = re.compile(r"[\s\"'<>`\\]")


class ReadyPage(Page):
    """A page whose HTML is ready: no Markdown source, no Markdown rendering."""

    def __init__(
        self, title: str, file: File, config: MkDocsConfig, html: str, meta: Mapping[str, Any]
    ) -> None:
        super().__init__(title, file, config)
        self.ready_html = html
        self.ready_meta = dict(meta)

    def read_source(self, config: MkDocsConfig) -> None:
        self.markdown = ""
        self.meta = dict(self.ready_meta)

    def render(self, config: MkDocsConfig, files: Files) -> None:
        self.content = self.ready_html
        self.toc = get_toc([])
        self.present_anchor_ids = set()
        self.links_to_anchors = {}


def src_uri(path: str) -> str:
    """The virtual Markdown source of a page at folder URL ``path``."""
    return f"{path}index.md"


def add_ready_page(
    files: Files,
    config: MkDocsConfig,
    path: str,
    title: str,
    html: str,
    meta: Mapping[str, Any],
    *,
    in_nav: bool,
) -> ReadyPage:
    inclusion = InclusionLevel.UNDEFINED if in_nav else InclusionLevel.NOT_IN_NAV
    file = File.generated(config, src_uri(path), content="", inclusion=inclusion)
    files.append(file)
    return ReadyPage(title, file, config, html, meta)


def _nav_entry(title: str, target: str | Sequence[tuple[str, str]], prefix: str) -> dict[str, Any]:
    if isinstance(target, str):
        return {title: src_uri(prefix + target)}
    return {title: [_nav_entry(t, p, prefix) for t, p in target]}


def nav_config(
    items: Sequence[tuple[str, str | Sequence[tuple[str, str]]]], prefix: str = ""
) -> list[dict[str, Any]]:
    """MkDocs ``nav`` for the portal's pages (empty sections left out)."""
    return [_nav_entry(title, target, prefix) for title, target in items if target != []]


def _safe_link(url: str) -> bool:
    """An http(s) URL or a scheme-less path: never ``javascript:`` or another scheme."""
    if not url or _BAD_URL_CHARS.search(url):
        return False
    if url.lower().startswith(("http://", "https://")):
        return True
    return ":" not in url.split("/", 1)[0] and not url.startswith("//")


def extra_nav(value: Any) -> list[dict[str, str]]:
    """Validate ``site.extra_nav``: a list of ``{"Title": "https://…"}`` links."""
    if value is None:
        return []
    problem = (
        "'site.extra_nav' must be a list of one-key objects like "
        '{"Source": "https://github.com/org/repo"} (http(s) or relative links)'
    )
    if not isinstance(value, list):
        raise ConfigError(problem)
    out: list[dict[str, str]] = []
    for item in value:
        if not (isinstance(item, dict) and len(item) == 1):
            raise ConfigError(problem)
        ((title, url),) = item.items()
        if not (isinstance(title, str) and isinstance(url, str) and title.strip()):
            raise ConfigError(problem)
        if not _safe_link(url):
            raise ConfigError(f"{problem}; got {url!r}")
        out.append({title: url})
    return out


def portal_config(
    site: Mapping[str, Any],
    *,
    site_dir: Path,
    nav: list[dict[str, Any]],
    strict: bool,
    site_url: str | None = None,
) -> MkDocsConfig:
    """The MkDocs configuration of a portal build, validated; problems are ConfigErrors."""
    from mkdocs.utils.yaml import yaml_load

    defaults_path = site_config_dir() / "mkdocs.yml"
    data: dict[str, Any] = yaml_load(defaults_path.read_text(encoding="utf-8"))
    for key in ("site_name", "site_url", "repo_url", "site_description", "copyright"):
        if site.get(key) is not None:
            data[key] = site[key]
    if site_url and not data.get("site_url"):
        data["site_url"] = site_url
    theme = dict(data.get("theme") or {})
    if site.get("palette") is not None:
        theme["palette"] = site["palette"]
    if site.get("language"):
        theme["language"] = site["language"]
    data["theme"] = theme
    data["nav"] = nav + extra_nav(site.get("extra_nav"))
    data["docs_dir"] = str(site_config_dir() / "docs")
    data["site_dir"] = str(site_dir)
    data["strict"] = strict
    config = MkDocsConfig(config_file_path=str(defaults_path))
    config.load_dict(data)
    with capture_mkdocs_log() as messages:
        errors, warnings = config.validate()
    problems = [f"{name}: {error}" for name, error in errors]
    if problems:
        raise ConfigError("site settings rejected by MkDocs: " + "; ".join(problems))
    if strict and (warnings or messages):
        found = [f"{name}: {w}" for name, w in warnings] + messages
        raise ConfigError("site settings gave MkDocs warnings (strict): " + "; ".join(found))
    return config


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(one_line(record.getMessage()))


@contextmanager
def capture_mkdocs_log() -> Iterator[list[str]]:
    """Collect MkDocs' warnings and errors instead of letting them print."""
    logger = logging.getLogger("mkdocs")
    collector = _Collector()
    saved = logger.propagate
    logger.addHandler(collector)
    logger.propagate = False
    try:
        yield collector.messages
    finally:
        logger.removeHandler(collector)
        logger.propagate = saved
