"""MkDocs glue: pages whose HTML memsite made, and the portal's MkDocs configuration.

:class:`ReadyPage` is an MkDocs page that skips Markdown: its content is HTML memsite rendered
(escaped entry text included), so MkDocs never parses or rewrites it. :func:`portal_config`
merges ``site-config/mkdocs.yml`` with the store's ``site`` settings and memsite's navigation:
validated again (``core.siteconfig``: a caller may hand any mapping), and every free text in
them escaped, for Material puts site_name, copyright and nav titles into its pages raw.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from memsite.core.siteconfig import TEXT_KEYS, URL_KEYS, extra_nav_problem, site_problems
from memsite.core.text import one_line
from memsite.core.urls import url_problem
from memsite.errors import ConfigError
from memsite.portal.resources import site_config_dir


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
    return url_problem(url, relative=True) is None


def extra_nav(value: Any) -> list[dict[str, str]]:
    """Validate ``site.extra_nav``: a list of ``{"Title": "https://…"}`` links."""
    problem = extra_nav_problem(value)
    if problem:
        raise ConfigError(problem)
    return [dict(item) for item in value or []]


def _text(value: Any) -> Markup:
    """A setting's text, escaped for a page. Material puts site_name, copyright, nav titles
    and the palette toggles' names into pages raw; as ``Markup`` it is never escaped twice
    where Material escapes (``| e``), and it reaches no ``striptags`` (only page titles do)."""
    return escape(str(value))


def _palette(palette: Any) -> Any:
    """The palette setting with its toggles' names escaped (its other values are Material's
    own names, see ``siteconfig``)."""

    def option(value: Any) -> Any:
        toggle = value.get("toggle") if isinstance(value, dict) else None
        if isinstance(toggle, dict) and "name" in toggle:
            return {**value, "toggle": {**toggle, "name": _text(toggle["name"])}}
        return value

    if isinstance(palette, list):
        return [option(o) for o in palette]
    return option(palette)


def _site_data(site: Mapping[str, Any], data: dict[str, Any], site_url: str | None) -> None:
    """Merge the store's site settings into MkDocs' ``data``: validated (``siteconfig``), the
    free text escaped."""
    problems = site_problems(site)
    why = url_problem(site_url) if site_url else None
    if why:
        problems.append(f"the site URL {str(site_url)[:80]!r} {why}: give an http(s) URL")
    if problems:
        raise ConfigError("; ".join(problems))
    for key in TEXT_KEYS:
        if site.get(key) is not None:
            data[key] = _text(site[key])
    for key in URL_KEYS:
        if site.get(key) is not None:
            data[key] = site[key]
    if site_url and not data.get("site_url"):
        data["site_url"] = site_url
    theme = dict(data.get("theme") or {})
    if site.get("palette") is not None:
        theme["palette"] = _palette(site["palette"])
    if site.get("language"):
        theme["language"] = site["language"]
    data["theme"] = theme
    links = [{_text(t): u for t, u in link.items()} for link in extra_nav(site.get("extra_nav"))]
    data["nav"] = list(data.get("nav") or []) + links


def _check_language(config: MkDocsConfig, language: Any) -> None:
    """The configured language must be one of the theme's (Material's partials/languages/)."""
    if not language:
        return
    dirs = [Path(folder) / "partials" / "languages" for folder in config.theme.dirs]
    if not any((folder / f"{language}.html").is_file() for folder in dirs):
        raise ConfigError(
            f"'site.language' {str(language)[:40]!r} is not a language of the Material theme: "
            "use one of its codes, such as en, fr, de or pt-BR"
        )


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
    data["nav"] = nav
    _site_data(site, data, site_url)
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
    _check_language(config, site.get("language"))
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
