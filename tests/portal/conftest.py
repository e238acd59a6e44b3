"""Fixtures of the portal tests: demo and hostile stores, built sites, an HTML link walker."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from memsite.memory import Memory
from memsite.portal.build import build_site

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo" / ".memsite"

# Payloads planted in entries: none may become markup anywhere.
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
JS_LINK = "[x](javascript:alert(1))"
RAW_LINK = '<a href="javascript:alert(2)">click</a>'
IMG_MD = '![](x" onerror="alert(3))'
JINJA = "{{ 7*7 }}"


def copy_demo(dest: Path) -> Path:
    """A private copy of the demo store (entries and config only) with the project files its
    facts are anchored to."""
    root = dest / ".memsite"
    (root / "entries").mkdir(parents=True)
    shutil.copy2(DEMO / "config.json", root / "config.json")
    for path in (DEMO / "entries").glob("*.json"):
        shutil.copy2(path, root / "entries" / path.name)
    for path in DEMO.parent.iterdir():
        if path.name != ".memsite":
            if path.is_dir():
                shutil.copytree(path, dest / path.name)
            else:
                shutil.copy2(path, dest / path.name)
    return root


def plant(store: Path, **fields: Any) -> dict[str, Any]:
    """Write an entry file as a foreign tool might (no validation), return its object."""
    obj: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "category": "conventions",
        "content": "planted",
        "created": "2026-05-01T10:00:00.000Z",
        "agent": None,
        "tags": [],
        "supersedes": None,
        "confidence": "medium",
    }
    obj.update(fields)
    name = f"{obj['created'][:19].replace(':', '-')}Z-{obj['id'][:8]}.json"
    (store / "entries" / name).write_text(json.dumps(obj, indent=2), encoding="utf-8")
    return obj


def hostile_entries(store: Path) -> list[dict[str, Any]]:
    """Entries whose every field tries to inject HTML, script or Jinja.

    Free text (content, agent, reason) must show literally; names that are not names
    (category, tag, key: they become paths and URLs) make the whole file invalid, reported by
    review and skipped.
    """
    made = [
        plant(store, content=f"Danger {SCRIPT} here", tags=["ok-tag"]),
        plant(store, content=f"Image {IMG} and {IMG_MD}", agent=f"agent {IMG}"),
        plant(store, content=f"Links {JS_LINK} and {RAW_LINK} and javascript:alert(4)"),
        # the newest fact of its category, so that index.md holds it whatever the random ids
        plant(
            store,
            content=f"Template {JINJA} stays literal",
            agent="<b>agent</b>",
            created="2026-11-30T10:00:00.000Z",
        ),
        plant(
            store,
            content="Foreign category",
            category='"><script>alert(5)</script>',
            tags=['"><img src=x onerror=alert(6)>'],
        ),
        plant(
            store,
            content="Reason carries HTML",
            reason=f"because {SCRIPT}",
            created="2026-05-02T10:00:00.000Z",
        ),
        plant(store, content="Backticks `<script>alert(7)</script>` in code"),
        plant(store, content="Foreign tag", tags=["<script>x</script>", "ok-tag"]),
        plant(store, content="Foreign key", key="<b>key</b>"),
    ]
    # make one supersede another so the reason shows in a history
    made[5]["supersedes"] = made[0]["id"]
    name = f"{made[5]['created'][:19].replace(':', '-')}Z-{made[5]['id'][:8]}.json"
    (store / "entries" / name).write_text(json.dumps(made[5], indent=2), encoding="utf-8")
    return made


@dataclass
class Built:
    store: Path
    site: Path
    memory: Memory


def build(store: Path, site: Path | None = None, **options: Any) -> Built:
    memory = Memory.open(str(store), {}, store.parent)
    target = site or store / "site"
    build_site(memory, target, **options)
    return Built(store, target, Memory.open(str(store), {}, store.parent))


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The demo store, built once (strict) for read-only tests."""
    store = copy_demo(tmp_path_factory.mktemp("demo"))
    return build(store, strict=True)


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    store = copy_demo(tmp_path_factory.mktemp("hostile"))
    hostile_entries(store)
    return build(store)


@pytest.fixture
def demo_store(tmp_path: Path) -> Path:
    return copy_demo(tmp_path)


# --- HTML walking -------------------------------------------------------------------------------


@dataclass
class ParsedPage:
    path: Path
    url: str
    links: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, attr, value)
    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    text: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self, page: ParsedPage) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.page.tags.append((tag, values))
        if values.get("id"):
            self.page.ids.add(str(values["id"]))
        for attr in ("href", "src"):
            value = values.get(attr)
            if value is not None:
                self.page.links.append((tag, attr, value))

    def handle_data(self, data: str) -> None:
        self.page.text.append(data)


def parse_page(site: Path, path: Path) -> ParsedPage:
    rel = path.relative_to(site).as_posix()
    url = "/" + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)
    page = ParsedPage(path, url)
    _Parser(page).feed(path.read_text(encoding="utf-8"))
    return page


def html_pages(site: Path) -> Iterator[ParsedPage]:
    for path in sorted(site.rglob("*.html")):
        yield parse_page(site, path)


def resolve_link(site: Path, page_url: str, value: str) -> Path | None:
    """The file an internal link points to (None for external or in-page links)."""
    if value.startswith(("http://", "https://", "mailto:", "data:")) or value.startswith("#"):
        return None
    target = urlsplit(urljoin("http://site" + page_url, value))
    if target.netloc != "site":
        return None
    path = site / unquote(target.path).lstrip("/")
    if target.path.endswith("/"):
        return path / "index.html"
    return path


def broken_links(site: Path) -> list[str]:
    broken = []
    for page in html_pages(site):
        for tag, attr, value in page.links:
            if value.lower().startswith("javascript:"):
                broken.append(f"{page.url}: {tag} {attr}={value!r} (javascript: link)")
                continue
            target = resolve_link(site, page.url, value)
            if target is not None and not target.exists():
                broken.append(f"{page.url}: {tag} {attr}={value!r}")
    return broken
