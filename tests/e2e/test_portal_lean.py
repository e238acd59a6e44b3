"""Lean pages in real Chromium: the in-page filter of category and tag pages, and entry pages
(shared icon sprite, moved scripts) through Material's instant navigation and palette toggle."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import VIEWPORT, PageWatch, serve_folder
from tests.portal.conftest import build, copy_demo

pytestmark = [pytest.mark.browser, pytest.mark.slow]
# Every icon of the page resolves to a symbol of the sprite it names (fetched as the page would).
# (``scope``: the header stays through instant navigation, with the links of the page it came
# from; the container is the page's own.)
ICONS_RESOLVE = """async (scope) => {
  const uses = [...document.querySelectorAll(scope + " svg use")];
  for (const use of uses) {
    const ref = new URL(use.getAttribute("xlink:href"), location.href);
    const text = await (await fetch(ref)).text();
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    if (!doc.getElementById(ref.hash.slice(1))) return ref.href;
  }
  return uses.length;
}"""


@pytest.fixture(scope="module")
def lean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    store = copy_demo(tmp_path_factory.mktemp("lean-browser"))
    folder = tmp_path_factory.mktemp("lean-site")
    with serve_folder(folder) as url:
        built = build(store, folder, site_url=url + "/")  # a site_url: instant navigation
        yield built, url


def visible_cards(page: Any) -> int:
    return int(
        page.evaluate(
            "() => [...document.querySelectorAll('.memsite-card')]"
            ".filter(c => c.offsetParent !== null).length"
        )
    )


def test_the_filter_narrows_the_cards_of_the_page(lean: tuple[Any, str], page: Any) -> None:
    built, url = lean
    watch = PageWatch(page)
    result = built.memory.state().result
    active = [e for e in result.active() if e.category == "decisions"]
    word = "redis"
    expected = [e for e in active if word in e.content.lower() or word in e.tags]
    assert 0 < len(expected) < len(active)
    page.goto(url + "/categories/decisions/")
    box = page.get_by_label("Filter this page")
    box.wait_for(state="visible")
    assert visible_cards(page) == len(active)
    box.fill(word)
    page.wait_for_function(
        f"() => document.querySelector('.memsite-filter__count').textContent"
        f".startsWith('{len(expected)} of ')"
    )
    assert visible_cards(page) == len(expected)
    box.fill("zzz-nothing-matches")
    page.locator(".memsite-filter__none").wait_for(state="visible")
    assert visible_cards(page) == 0
    box.fill("")
    page.wait_for_function(
        "() => document.querySelector('.memsite-filter__count').textContent === ''"
    )
    assert visible_cards(page) == len(active)
    assert watch.errors == []


def test_the_filter_works_after_instant_navigation(lean: tuple[Any, str], page: Any) -> None:
    _, url = lean
    watch = PageWatch(page)
    page.goto(url + "/tags/")
    page.evaluate("() => { window.memsiteMarker = 42 }")
    page.locator("a.memsite-tag[href$='tags/redis/']").first.click()
    page.wait_for_url(re.compile("/tags/redis/$"))
    box = page.get_by_label("Filter this page")
    box.wait_for(state="visible")
    total = visible_cards(page)
    box.fill("#redis")
    page.wait_for_function(
        "() => document.querySelector('.memsite-filter__count').textContent !== ''"
    )
    assert visible_cards(page) == total  # every card of the page holds its own tag
    assert page.evaluate("() => window.memsiteMarker") == 42  # no full page load
    assert watch.errors == []


def test_without_javascript_the_box_stays_hidden(lean: tuple[Any, str], browser: Any) -> None:
    _, url = lean
    context = browser.new_context(viewport=VIEWPORT, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(url + "/categories/decisions/")
        assert page.locator(".memsite-card").count() > 0
        assert not page.locator("#memsite-filter").is_visible()
    finally:
        context.close()


def test_entry_pages_through_instant_navigation(lean: tuple[Any, str], page: Any) -> None:
    built, url = lean
    watch = PageWatch(page)
    entry = next(iter(built.memory.state().result.active()))
    page.goto(f"{url}/entries/{entry.id}/")
    # The logo's, the drawer's and the search button's icons point at the sprite; the palette
    # toggle is written back by a shared script, with its icons drawn inline.
    assert page.evaluate(ICONS_RESOLVE, "body") >= 3
    toggle = page.locator("form[data-md-component=palette] label:visible svg").first
    box = toggle.bounding_box()
    assert box is not None and box["width"] >= 16 and box["height"] >= 16
    assert toggle.locator("path").count() >= 1
    page.evaluate("() => { window.memsiteMarker = 42 }")
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    before = page.evaluate(scheme)
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function(f"() => ({scheme})() !== {before!r}")
    page.locator("header a.md-logo").click()  # entry page → home, instantly
    page.wait_for_url(url + "/")
    # The address changes before the new container is in: wait for the home page's content.
    page.wait_for_selector("[data-md-component=container] #recent-changes")
    assert page.evaluate(ICONS_RESOLVE, "[data-md-component=container]") >= 1
    # The header stays (the entry page's): its search box still finds facts from here.
    page.locator("#memsite-header-q").fill("pnpm")
    hit = page.locator("#memsite-header-results a").first
    hit.wait_for(state="attached")
    assert hit.evaluate("a => a.href").startswith(url + "/entries/")
    page.locator("#memsite-header-q").press("Escape")  # close the search box
    page.locator("nav.md-nav--primary a[href$='timeline/']:visible").first.click()
    page.wait_for_url(re.compile("/timeline/$"))
    page.wait_for_selector("h1:has-text('Timeline')")
    page.goto(url + "/")
    page.evaluate("() => { window.memsiteMarker = 43 }")
    page.locator(f"a[href$='entries/{entry.id}/']").first.click()  # home → entry, instantly
    page.wait_for_url(re.compile(f"/entries/{entry.id}/$"))
    page.wait_for_selector("table.memsite-meta")
    assert page.evaluate("() => window.memsiteMarker") == 43
    assert watch.errors == []
