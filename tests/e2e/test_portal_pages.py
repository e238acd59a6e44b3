"""The list pages, search page, review, timeline, home and 404 page as a person sees them in
Chromium, at 1280×900 and on a phone (390×844): what shows, what is hidden, what links where."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from memsite.memory import Memory
from memsite.portal.build import build_site
from tests.conftest import Clock
from tests.e2e import test_portal_browser as portal_browser
from tests.e2e.conftest import PageWatch, serve_folder
from tests.portal.conftest import Built

pytestmark = [pytest.mark.browser, pytest.mark.slow]
demo = portal_browser.demo  # the demo store, built strict and served (module-scoped)

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PROJECT = "/acme-checkout/"  # a GitHub Pages project site's sub-path


@pytest.fixture(params=["desktop", "phone"])
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page at each viewport."""
    viewport = DESKTOP if request.param == "desktop" else PHONE
    context = browser.new_context(viewport=viewport)
    opened = context.new_page()
    try:
        yield opened
    finally:
        context.close()


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A store whose operations category has two pages of cards."""
    base = tmp_path_factory.mktemp("pages")
    root = base / ".memsite"
    Memory.init(str(root), base)
    clock = Clock()
    opened = Memory.open(str(root))
    memory = Memory(opened.store, opened.config, clock)
    for n in range(130):
        clock.tick(minutes=1)
        memory.add(f"Worker {n} drains the `JOB_QUEUE_{n}` queue before shutdown", "operations")
    site = root / "site"
    build_site(Memory.open(str(root)), site)
    with serve_folder(site) as url:
        yield site, url


class _NotFound(SimpleHTTPRequestHandler):
    """GitHub Pages, locally: the site under PROJECT, its 404.html for any missing path."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def translate_path(self, path: str) -> str:
        inside = path.split("?", 1)[0]
        inside = inside[len(PROJECT) - 1 :] if inside.startswith(PROJECT) else "/nowhere/"
        return super().translate_path(inside)

    def send_head(self) -> Any:
        found = Path(self.translate_path(self.path))
        if found.is_dir():
            found = found / "index.html"
        if found.is_file():
            return super().send_head()
        body = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return _Body(body)


class _Body:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        data, self.data = self.data, b""
        return data

    def close(self) -> None:
        pass


@contextmanager
def serve_project(folder: Path) -> Iterator[str]:
    handler = functools.partial(_NotFound, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{PROJECT}"
    finally:
        server.shutdown()
        server.server_close()


# --- search page ---------------------------------------------------------------------------


def test_more_results_shows_only_when_there_are_more(demo: tuple[Built, str], page: Any) -> None:
    _, url = demo
    page.goto(url + "/search/?query=redis")
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    assert page.locator("#memsite-results li").count() < 20
    assert not page.locator("#memsite-more").is_visible()
    page.goto(url + "/search/?query=the&status=")
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    more = page.locator("#memsite-more")
    assert more.is_visible()
    more.click()
    page.wait_for_function("() => document.querySelectorAll('#memsite-results li').length > 20")


def test_code_spans_show_as_code_in_results(demo: tuple[Built, str], page: Any) -> None:
    _, url = demo
    page.goto(url + "/search/?query=testcontainers")
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    hit = page.locator("#memsite-results li").first
    assert hit.locator("code").first.inner_text() == "pnpm test:int"
    assert "`" not in hit.inner_text()


def test_a_superseded_hit_says_so_in_the_header_box(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    old = next(e for e in built.memory.state().result.entries if e.supersedes)
    older = old.supersedes if isinstance(old.supersedes, str) else old.supersedes[0]
    page.goto(url + "/")
    if page.viewport_size["width"] < 600:
        page.locator("label[for=__search]").first.click()
    results = portal_browser.header_search(page, older[:8])
    results.locator("a").first.wait_for()
    status = results.locator("a").first.locator(".memsite-status")
    assert status.inner_text() == "superseded" and status.is_visible()


# --- category cards, pagers and the in-page filter -----------------------------------------


def test_cards_link_their_id_and_show_every_underscore(big: tuple[Path, str], page: Any) -> None:
    _, url = big
    page.goto(url + "/categories/operations/")
    card = page.locator(".memsite-card").first
    assert card.locator(".memsite-fact a").count() == 0
    assert card.locator(".memsite-fact code").inner_text().startswith("JOB_QUEUE_")
    link = card.locator(".memsite-card-meta a").first
    assert len(link.inner_text()) == 8  # the short id
    decoration = card.locator("code").evaluate("c => getComputedStyle(c).textDecorationLine")
    assert "underline" not in decoration


def test_pager_links_are_24px_targets_with_distinct_labels(
    big: tuple[Path, str], page: Any
) -> None:
    _, url = big
    page.goto(url + "/categories/operations/")
    pagers = page.locator("nav.memsite-pager")
    assert pagers.count() == 2
    labels = [pagers.nth(n).get_attribute("aria-label") for n in range(2)]
    assert len(set(labels)) == 2
    targets = page.locator("nav.memsite-pager a")
    assert targets.count() >= 2
    for n in range(targets.count()):
        box = targets.nth(n).bounding_box()
        assert box is not None and box["width"] >= 24 and box["height"] >= 24


def test_an_empty_filter_links_to_the_search_of_the_category(
    big: tuple[Path, str], page: Any
) -> None:
    _, url = big
    page.goto(url + "/categories/operations/")
    page.fill("#memsite-filter-q", "nosuchword")
    link = page.locator("a.memsite-filter__all")
    link.wait_for(state="visible")
    link.click()
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    assert page.locator("#memsite-category").input_value() == "operations"
    assert page.locator("#memsite-q").input_value() == "nosuchword"


# --- home, timeline, review -----------------------------------------------------------------


def test_the_home_page_fits_a_phone_and_links_what_agents_load(
    demo: tuple[Built, str], page: Any
) -> None:
    _, url = demo
    page.goto(url + "/")
    table = page.locator("table.memsite-counts")
    width = table.evaluate("t => t.getBoundingClientRect().right")
    content = page.locator("article.md-content__inner").evaluate(
        "a => a.getBoundingClientRect().right"
    )
    assert width <= content + 1
    assert page.locator("pre.memsite-index a[href*='entries/']").count() >= 10


def test_month_rows_name_what_they_replaced(demo: tuple[Built, str], page: Any) -> None:
    _, url = demo
    page.goto(url + "/timeline/2026-10/")
    rows = page.locator("ul.memsite-rows li")
    assert rows.count() > 0 and page.locator("ul.memsite-rows .memsite-date").count() == 0
    replacing = page.locator("ul.memsite-rows li", has_text="replaces")
    assert replacing.count() >= 1
    replacing.first.locator("a", has_text="").last.click()
    page.wait_for_url("**/entries/**")


def test_review_ids_link_to_their_entries(demo: tuple[Built, str], page: Any) -> None:
    _, url = demo
    page.goto(url + "/review/")
    message = page.locator("ul.memsite-findings > li > p").first
    assert message.locator("a[href*='entries/']").count() >= 1


# --- the 404 page under a project sub-path --------------------------------------------------


def test_the_404_page_under_a_sub_path_is_styled_and_its_search_works(
    demo: tuple[Built, str], page: Any
) -> None:
    built, _ = demo
    with serve_project(built.site) as url:
        watch = PageWatch(page)
        page.goto(url + "entries/no-such-fact/")
        assert page.locator("h1", has_text="404").count() == 1
        header = page.locator("header.md-header")
        assert header.evaluate("h => getComputedStyle(h).position") == "sticky"
        if page.viewport_size["width"] < 600:
            page.locator("label[for=__search]").first.click()
        results = portal_browser.header_search(page, "redis")
        first = results.locator("a").first
        first.wait_for()
        assert (first.get_attribute("href") or "").startswith(url + "entries/")
        page.goto(url + "entries/no-such-fact/")
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.activeElement.id === 'memsite-content'")
        assert [e for e in watch.errors if "404" not in e] == []


# --- single-key shortcuts can be turned off (WCAG 2.1.4) -------------------------------------


def test_single_key_shortcuts_can_be_turned_off(demo: tuple[Built, str], page: Any) -> None:
    _, url = demo
    page.goto(url + "/")
    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.id") == "memsite-header-q"
    page.goto(url + "/search/")
    toggle = page.locator("#memsite-shortcuts")
    assert toggle.is_visible() and toggle.is_checked()
    toggle.uncheck()
    page.goto(url + "/")
    page.keyboard.press("s")
    assert page.evaluate("() => document.activeElement.id") != "memsite-header-q"


# --- what needs JavaScript shows only with it (TechDocs' reader removes every script) -------


def test_without_javascript_the_search_page_says_where_to_search(
    demo: tuple[Built, str], browser: Any
) -> None:
    built, url = demo
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(url + "/search/")
        assert page.locator("#memsite-search-static").is_visible()
        assert not page.locator("#memsite-search-live").is_visible()
        assert page.locator("#memsite-search-static a[href$='tags/']").count() == 1
        page.goto(url + f"/entries/{built.memory.state().result.entries[0].id}/")
        assert page.locator("button.memsite-copy").count() == 1
        assert not page.locator("button.memsite-copy").is_visible()  # it would do nothing
    finally:
        context.close()


def test_with_javascript_the_form_and_the_copy_button_show(
    demo: tuple[Built, str], page: Any
) -> None:
    built, url = demo
    page.goto(url + "/search/?query=redis")
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    assert page.locator("#memsite-search-live").is_visible()
    assert not page.locator("#memsite-search-static").is_visible()
    first = built.memory.state().result.entries[0].id
    page.goto(url + f"/entries/{first}/")
    copy = page.locator("button.memsite-copy")
    copy.wait_for(state="visible")
    assert copy.get_attribute("data-clipboard-text") == first
