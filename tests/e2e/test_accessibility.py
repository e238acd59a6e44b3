"""axe-core in Chromium over the built portal, light and dark: no serious or critical violation.

Material's own ones (the unnamed search dialog and progress bar, low-contrast footer and search
results) are fixed in site-config/overrides/main.html and portal.css, so no allow-list is needed.
Also: the skip link works and shows on focus, and both search boxes show a focus ring.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e import test_portal_browser as portal_browser
from tests.e2e.conftest import VIEWPORT
from tests.portal.conftest import Built

pytestmark = [pytest.mark.browser, pytest.mark.slow]
demo = portal_browser.demo  # the demo store, built strict and served (module-scoped)

SCHEMES = {"light": "default", "dark": "slate"}  # prefers-color-scheme -> Material's scheme
SEVERE = ("serious", "critical")
# Transitions (Material fades colours for .25s) would let axe sample a colour half-way.
NO_MOTION = "*, *::before, *::after { transition: none !important; animation: none !important; }"
# Entry pages that show each optional part of entry.html (marker class -> page name).
ENTRY_PARTS = {
    "memsite-history": "entry-history",
    "memsite-anchors": "entry-claims",
    "memsite-links": "entry-links",
    "memsite-banner": "entry-banner",
}


@pytest.fixture(scope="module")
def paths(demo: tuple[Built, str]) -> dict[str, str]:
    """Page name -> path: the fixed pages, the biggest category, one entry per optional part."""
    site = demo[0].site
    found = {"home": "/", "timeline": "/timeline/", "review": "/review/", "tags": "/tags/"}
    found["404"] = "/404.html"
    found["month"] = (
        "/"
        + sorted(site.glob("timeline/2*/index.html"))[0].parent.relative_to(site).as_posix()
        + "/"
    )
    tags = sorted(site.glob("tags/*/index.html"))
    found["tag"] = (
        "/"
        + next(p for p in tags if "shell" not in p.parent.name).parent.relative_to(site).as_posix()
        + "/"
    )
    found["search"] = "/search/?query=redis&status="
    categories = sorted(site.glob("categories/*/index.html"))
    biggest = max(categories, key=lambda p: p.read_text(encoding="utf-8").count("memsite-card"))
    found["category"] = f"/categories/{biggest.parent.name}/"
    for path in sorted(site.glob("entries/*/index.html")):
        html = path.read_text(encoding="utf-8")
        for marker, name in ENTRY_PARTS.items():
            if re.search(f'class="(?:[^"]* )?{marker}[ "]', html):
                found.setdefault(name, f"/entries/{path.parent.name}/")
    missing = set(ENTRY_PARTS.values()) - set(found)
    assert not missing, f"the demo store has no entry page with {sorted(missing)}"
    return found


PAGES = (
    "home",
    "category",
    *ENTRY_PARTS.values(),
    "search",
    "timeline",
    "month",
    "tags",
    "tag",
    "review",
    "404",
)


@pytest.fixture(params=sorted(SCHEMES))
def scheme(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def page(browser: Any, scheme: str) -> Iterator[Any]:
    """A page whose system colour scheme is `scheme` (Material's palette follows the media)."""
    context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
    opened = context.new_page()
    try:
        yield opened
    finally:
        context.close()


def open_page(page: Any, url: str, scheme: str) -> None:
    page.goto(url)
    page.wait_for_load_state("load")
    page.add_style_tag(content=NO_MOTION)
    expected = SCHEMES[scheme]
    page.wait_for_function(
        f"() => document.body.getAttribute('data-md-color-scheme') === {expected!r}"
    )


def severe_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations, one line per element."""
    from axe_playwright_python.sync_playwright import Axe

    response = Axe().run(page).response
    return [
        f"{rule['id']} ({rule['impact']}) {node['target']}: {node['failureSummary']}"
        f"\n    {node['html'][:160]}"
        for rule in response["violations"]
        if rule["impact"] in SEVERE
        for node in rule["nodes"]
    ]


@pytest.mark.parametrize("name", PAGES)
def test_no_serious_violation(
    demo: tuple[Built, str], paths: dict[str, str], page: Any, scheme: str, name: str
) -> None:
    open_page(page, demo[1] + paths[name], scheme)
    if name == "search":
        page.wait_for_selector("#memsite-search[data-loaded=yes]")
        page.locator("#memsite-results li").first.wait_for()
    found = severe_violations(page)
    assert found == [], "\n".join(found)


def test_no_serious_violation_in_the_header_search(
    demo: tuple[Built, str], page: Any, scheme: str
) -> None:
    _, url = demo
    open_page(page, url + "/", scheme)
    portal_browser.header_search(page, "redis")
    found = severe_violations(page)
    assert found == [], "\n".join(found)


def test_the_arrow_selected_header_hit_passes_contrast(
    demo: tuple[Built, str], page: Any, scheme: str
) -> None:
    """Its muted line on the selection's tint was 4.48:1 (axe: color-contrast)."""
    _, url = demo
    open_page(page, url + "/", scheme)
    portal_browser.header_search(page, "redis")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(".md-search-result__link.memsite-selected")
    found = severe_violations(page)
    assert found == [], "\n".join(found)


def test_the_404_skip_link_has_a_target(demo: tuple[Built, str], page: Any, scheme: str) -> None:
    open_page(page, demo[1] + "/404.html", scheme)
    page.keyboard.press("Tab")
    assert page.locator("a.md-skip:focus").count() == 1
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.id === 'memsite-content'")


def test_content_links_are_underlined(
    demo: tuple[Built, str], paths: dict[str, str], page: Any, scheme: str
) -> None:
    """Not by colour alone (WCAG 1.4.1): axe passes any decoration change, so check it here."""
    open_page(page, demo[1] + paths["category"], scheme)
    plain = page.evaluate(
        """() => [...document.querySelectorAll('article.md-content__inner a[href]')]
            .filter(a => !getComputedStyle(a).textDecorationLine.includes('underline'))
            .map(a => a.outerHTML)"""
    )
    assert page.locator("article.md-content__inner a[href]").count() > 20
    assert plain == []


def test_skip_link_shows_on_focus_and_skips_the_header(
    demo: tuple[Built, str], paths: dict[str, str], page: Any, scheme: str
) -> None:
    open_page(page, demo[1] + paths["category"], scheme)
    page.keyboard.press("Tab")
    skip = page.locator("a.md-skip:focus")
    assert skip.inner_text() == "Skip to content"
    page.wait_for_function("() => getComputedStyle(document.activeElement).opacity === '1'")
    box = skip.bounding_box()
    assert box is not None and box["y"] >= 0 and box["width"] > 0
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.id === 'memsite-content'")
    page.keyboard.press("Tab")  # the next stop is the first link of the content
    assert page.evaluate("() => !!document.activeElement.closest('article.md-content__inner')")


@pytest.mark.parametrize(
    ("path", "box", "ring"),
    [("/search/", "#memsite-q", "#memsite-q"), ("/", ".md-search__input", ".md-search__form")],
)
def test_search_boxes_show_a_focus_ring(
    demo: tuple[Built, str], page: Any, scheme: str, path: str, box: str, ring: str
) -> None:
    _, url = demo
    open_page(page, url + path, scheme)
    outline = f"() => getComputedStyle(document.querySelector({ring!r})).outlineStyle"
    assert page.evaluate(outline) == "none"
    page.locator(box).first.focus()
    assert page.evaluate(outline) == "solid"
    width = f"() => parseFloat(getComputedStyle(document.querySelector({ring!r})).outlineWidth)"
    assert page.evaluate(width) >= 1.5
