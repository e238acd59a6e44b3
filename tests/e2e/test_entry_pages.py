"""Entry pages, where shared links land, in real Chromium at a desktop and a phone viewport:
the header search box and its ``/`` shortcut, the navigation (sidebar and drawer), the status
banner above a short heading in the first screen, and a history diff screen readers can tell
apart (issue 27, items 13, 15 and 16)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from memsite.core.entry import Entry
from memsite.core.schema import SUPERSEDED
from memsite.memory import Memory
from tests.e2e.conftest import PageWatch, serve_folder
from tests.portal.conftest import Built, build, copy_demo

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Two versions of a fact whose first sentences are the same.
SAME = "The release checklist lives in docs/release.md and every release follows it."
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
# The primary navigation's links a reader can see (the sidebar, or the open drawer; a closed
# drawer lies off the screen).
NAV_LINKS = """() => [...document.querySelectorAll("nav.md-nav--primary .md-nav__link")]
  .filter(a => { const r = a.getBoundingClientRect();
    return r.width > 0 && r.right > 0 && r.left < innerWidth
      && getComputedStyle(a).visibility !== "hidden"; })
  .map(a => a.textContent.trim())"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Built, str]]:
    store = copy_demo(tmp_path_factory.mktemp("entry-pages"))
    memory = Memory.open(str(store), {}, store.parent)
    first = memory.add(f"{SAME} Step 3 runs the smoke tests.", "operations")
    memory.amend(first["id"], f"{SAME} Step 3 runs the smoke tests, then step 4 tags it.")
    folder = tmp_path_factory.mktemp("entry-pages-site")
    with serve_folder(folder) as url:
        yield build(store, folder, site_url=url + "/"), url  # a site_url: instant navigation


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """Opens a fresh page at a given viewport (closed at the end of the test)."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int]) -> Any:
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def entries(built: Built) -> list[Entry]:
    return list(built.memory.state().result.entries)


def superseded_with_long_text(built: Built) -> Entry:
    result = built.memory.state().result
    old = [e for e in result.entries if result.status[e.id] == SUPERSEDED]
    return max(old, key=lambda e: len(e.content))


def chained(built: Built) -> Entry:
    """The newest entry that replaced another (its page shows a diff)."""
    return next(e for e in entries(built) if e.supersedes and SAME not in e.content)


@VIEWPORTS
def test_the_header_search_box_is_there_and_slash_focuses_it(
    site: tuple[Built, str], open_page: Any, viewport: dict[str, int]
) -> None:
    built, url = site
    page = open_page(viewport)
    watch = PageWatch(page)
    page.goto(f"{url}/entries/{entries(built)[0].id}/")
    assert page.locator("header #memsite-header-q").count() == 1
    page.locator("h1").click()  # focus in the page, not in a field
    page.keyboard.press("/")
    page.wait_for_function("() => document.activeElement?.id === 'memsite-header-q'")
    assert page.locator("#memsite-header-q").is_visible()
    page.keyboard.type("pnpm")
    page.wait_for_function("() => document.querySelectorAll('#memsite-header-results a').length")
    assert watch.errors == []


@VIEWPORTS
def test_the_navigation_is_the_same_as_on_every_page(
    site: tuple[Built, str], open_page: Any, viewport: dict[str, int]
) -> None:
    built, url = site
    page = open_page(viewport)
    watch = PageWatch(page)
    page.goto(f"{url}/entries/{entries(built)[0].id}/")
    if viewport is PHONE:
        page.locator("header label[for=__drawer]").click()  # open the drawer
        page.wait_for_function(
            "() => document.querySelector('.md-sidebar--primary').getBoundingClientRect().left >= 0"
        )
    page.wait_for_function(f"() => ({NAV_LINKS})().includes('Timeline')")
    shown = page.evaluate(NAV_LINKS)
    assert {"Home", "Categories", "Tags", "Timeline", "Review", "Search"} <= set(shown)
    for other in ("tags/", "timeline/"):  # the same on the pages of a tag or a month
        page.goto(f"{url}/{other}")
        link = page.locator(f"{'article' if other == 'tags/' else 'article li'} a").first
        link.click()
        page.wait_for_selector("article h1")
        labels = page.evaluate(
            "() => [...document.querySelectorAll('nav.md-nav--primary .md-nav__link')]"
            ".map(a => a.textContent.trim())"
        )
        assert "Categories" in labels, page.url
    assert watch.errors == []


def test_instant_navigation_to_an_entry_page_brings_its_navigation(
    site: tuple[Built, str], open_page: Any
) -> None:
    built, url = site
    page = open_page(DESKTOP)
    watch = PageWatch(page)
    page.goto(url + "/")
    page.evaluate("() => { window.memsiteMarker = 7 }")
    target = entries(built)[0]
    page.locator(f"a[href$='entries/{target.id}/']").first.click()
    page.wait_for_url(re.compile(f"/entries/{target.id}/$"))
    page.wait_for_selector("table.memsite-meta")
    page.wait_for_function(f"() => ({NAV_LINKS})().includes('Timeline')")
    assert page.evaluate("() => window.memsiteMarker") == 7  # no full page load
    assert page.locator("nav.md-nav--primary").count() == 1  # written once
    assert watch.errors == []


@VIEWPORTS
def test_the_banner_comes_first_and_the_heading_is_short(
    site: tuple[Built, str], open_page: Any, viewport: dict[str, int]
) -> None:
    built, url = site
    page = open_page(viewport)
    old = superseded_with_long_text(built)
    page.goto(f"{url}/entries/{old.id}/")
    banner = page.locator(".memsite-banner").first.bounding_box()
    heading = page.locator("h1.memsite-entry-title").bounding_box()
    assert banner is not None and heading is not None
    assert banner["y"] + banner["height"] <= heading["y"]
    assert banner["y"] + banner["height"] <= viewport["height"]  # in the first screen
    line = float(page.locator("h1").evaluate("h => parseFloat(getComputedStyle(h).lineHeight)"))
    assert heading["height"] <= 4 * line  # a few lines at most, even on a phone
    full = page.locator(".memsite-fact--main").inner_text()
    assert full.replace("`", "").split()[:5] == old.content.replace("`", "").split()[:5]


def test_versions_of_a_chain_have_distinct_headings(
    site: tuple[Built, str], open_page: Any
) -> None:
    built, url = site
    page = open_page(DESKTOP)
    newest = next(e for e in entries(built) if e.content.startswith(SAME) and e.supersedes)
    chain = built.memory.state().result.chain(newest.id)
    assert len(chain) == 2  # two versions of one first sentence
    headings = set()
    for entry in chain:
        page.goto(f"{url}/entries/{entry.id}/")
        headings.add(page.locator("h1").inner_text())
    assert len(headings) == len(chain), headings


def test_the_history_diff_marks_changes_for_everyone(
    site: tuple[Built, str], open_page: Any
) -> None:
    built, url = site
    page = open_page(DESKTOP)
    watch = PageWatch(page)
    newest = chained(built)
    page.goto(f"{url}/entries/{newest.id}/")
    diff = page.locator(".memsite-history-self .memsite-diff").first
    assert diff.locator("ins").count() >= 1 and diff.locator("del").count() >= 1
    said = diff.evaluate(
        """d => [...d.querySelectorAll("ins, del")].map(x =>
             getComputedStyle(x, "::before").content)"""
    )
    assert all(("added" in s) or ("removed" in s) for s in said), said
    weight = diff.evaluate("d => getComputedStyle(d).fontWeight")
    assert weight == "400"  # the current entry's diff is not all bold
    assert diff.locator("code").count() >= 1  # code spans as code, not raw backticks
    assert "`" not in diff.inner_text()
    assert watch.errors == []
