"""The built portal in real Chromium: home, search page, entry history, header search, no XSS."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from memsite.core.stem import terms as analyze
from tests.e2e.conftest import SCREENSHOTS, PageWatch, serve_folder
from tests.portal.conftest import Built, build, copy_demo, hostile_entries
from tests.portal.searchfiles import read_search

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Built, str]]:
    built = build(copy_demo(tmp_path_factory.mktemp("browser")), strict=True)
    with serve_folder(built.site) as url:
        yield built, url


def target(built: Built) -> tuple[str, str]:
    """An active entry with a history, and a word found in no other entry."""
    result = built.memory.state().result
    postings = read_search(built.site).postings
    for entry in result.active():
        if not result.replaced(entry.id):
            continue
        for word in re.findall(r"[A-Za-z]{5,}", entry.content):
            terms = analyze(word)
            if len(terms) == 1 and postings[terms[0]][0] == 1:
                return entry.id, word
    raise AssertionError("no entry with history and a unique word in the demo store")


def header_search(page: Any, word: str) -> Any:
    """Type into the header search box; returns its result list once it shows ``word``'s."""
    page.locator("#memsite-header-q").click()
    page.keyboard.type(word, delay=20)
    page.wait_for_function(
        "q => document.getElementById('memsite-header-search').dataset.query === q", arg=word
    )
    return page.locator("#memsite-header-results")


def test_home_page(demo: tuple[Built, str], page: Any) -> None:
    _, url = demo
    watch = PageWatch(page)
    page.goto(url + "/")
    assert "Acme Checkout" in page.title()
    assert page.locator("text=51 active facts").count() == 1  # one demo fact is retired
    page.screenshot(path=str(SCREENSHOTS / "home.png"))
    assert watch.errors == []


def test_search_finds_the_entry_first_and_its_history(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    entry_id, word = target(built)
    watch = PageWatch(page)
    page.goto(url + "/search/")
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    page.fill("#memsite-q", word)
    page.wait_for_function("() => location.search.includes('query=')")  # results rendered
    first = page.locator("#memsite-results li a").first
    assert f"/entries/{entry_id}/" in (first.get_attribute("href") or "")
    first.click()
    page.wait_for_url(re.compile(f"/entries/{entry_id}/"))
    history = page.locator("ol.memsite-history li")
    result = built.memory.state().result
    assert history.count() == 1 + len(result.replaced(entry_id)) + len(result.replaced_by(entry_id))
    for older in result.replaced(entry_id):
        assert page.locator(f"ol.memsite-history a[href*='entries/{older.id}/']").count() >= 1
    page.screenshot(path=str(SCREENSHOTS / "entry.png"))
    assert watch.errors == []


def test_search_filters(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    page.goto(url + "/search/?query=redis+deploy&status=")
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    assert page.locator("#memsite-results li").count() >= 3
    page.screenshot(path=str(SCREENSHOTS / "search.png"))
    page.goto(url + "/search/?status=superseded")
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    result = built.memory.state().result
    superseded = [e for e in result.entries if result.status[e.id] == "superseded"]
    assert page.locator("#memsite-results li").count() == len(superseded)
    page.select_option("#memsite-status", "")
    page.select_option("#memsite-category", "decisions")
    page.wait_for_function("() => location.search.includes('category=decisions')")
    decisions = [e for e in result.entries if e.category == "decisions"]
    assert page.locator("#memsite-results li").count() == len(decisions)
    page.select_option("#memsite-tag", "redis")
    page.wait_for_function("() => location.search.includes('tag=redis')")
    rows = page.locator("#memsite-results li")
    expected = [e for e in decisions if "redis" in e.tags]
    assert rows.count() == len(expected) >= 1
    assert "tag=redis" in page.url


def test_header_search_finds_entries_too(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    entry_id, word = target(built)
    watch = PageWatch(page)
    page.goto(url + "/")
    hit = header_search(page, word).locator(f"a[href*='entries/{entry_id}/']")
    assert hit.count() >= 1
    assert watch.errors == []


def test_palette_toggle(demo: tuple[Built, str], page: Any) -> None:
    _, url = demo
    page.goto(url + "/")
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    before = page.evaluate(scheme)
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function(f"() => ({scheme})() !== {before!r}")
    assert page.evaluate(scheme) in ("default", "slate")


def test_instant_navigation_with_a_site_url(
    tmp_path_factory: pytest.TempPathFactory, page: Any
) -> None:
    store = copy_demo(tmp_path_factory.mktemp("instant"))
    folder = tmp_path_factory.mktemp("instant-site")
    with serve_folder(folder) as url:
        build(store, folder, site_url=url + "/")
        page.goto(url + "/")
        page.evaluate("() => { window.memsiteMarker = 42 }")
        page.locator("nav.md-nav--primary a[href$='timeline/']:visible").first.click()
        page.wait_for_url(re.compile("/timeline/$"))
        page.wait_for_selector("h1:has-text('Timeline')")
        assert page.evaluate("() => window.memsiteMarker") == 42  # no full page load


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Built, str]]:
    store = copy_demo(tmp_path_factory.mktemp("hostile-browser"))
    hostile_entries(store)
    built = build(store)
    with serve_folder(built.site) as url:
        yield built, url


def test_no_dialog_fires_anywhere(hostile: tuple[Built, str], page: Any) -> None:
    built, url = hostile
    watch = PageWatch(page)
    result = built.memory.state().result
    planted = [e for e in result.entries if e.created.year == 2026 and e.created.month == 5]
    paths = ["/", "/timeline/", "/review/", "/tags/"]
    paths += [f"/entries/{e.id}/" for e in planted]
    paths += [
        f"/{p.parent.relative_to(built.site).as_posix()}/"
        for p in built.site.glob("tags/_*/index.html")
    ]
    paths += [
        f"/{p.parent.relative_to(built.site).as_posix()}/"
        for p in built.site.glob("categories/*/index.html")
    ]
    for path in paths:
        page.goto(url + path)
        page.wait_for_load_state("load")
    for query in ("script alert", "onerror", "7*7", "javascript"):
        page.goto(url + "/search/?status=")
        page.wait_for_selector("#memsite-search[data-loaded=yes]")
        page.fill("#memsite-q", query)
        page.wait_for_function("() => location.search.includes('query=')")
        assert (
            page.locator(
                "#memsite-results img, #memsite-results script, #memsite-results b"
            ).count()
            == 0
        )
    page.goto(url + "/")
    results = header_search(page, "alert")
    assert results.locator("img, script, b").count() == 0
    page.wait_for_timeout(300)
    assert watch.dialogs == []
    assert [e for e in watch.errors if "alert" in e] == []


def test_screenshots_are_small() -> None:
    shots = sorted(SCREENSHOTS.glob("*.png"))
    if not shots:
        pytest.skip("screenshots are written by the other browser tests")
    for shot in shots:
        assert shot.stat().st_size < 400_000, shot
