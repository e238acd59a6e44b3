"""memsite's own search in real Chromium: the header box and the search page over search/.

The browser runs search.js; the CLI runs core.ranking over the SQLite index. They must agree:
same terms for the same text, the same facts first, typos, tags, keys and id prefixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from memsite.core.stem import stem
from memsite.core.stem import terms as analyze
from memsite.core.text import normalize, word_tokens
from tests.e2e.conftest import SCREENSHOTS, PageWatch, serve_folder
from tests.portal.conftest import Built, build, copy_demo
from tests.portal.searchfiles import read_search

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Texts whose analysis must match the CLI's: punctuation, code, paths, unicode, CJK, numbers.
TEXTS = [
    "Running the migrations/0042_add_accounts.sql file before deploying",
    "Ünïcode Straße naïve café ﬁle ＦＵＬＬＷＩＤＴＨ ΣΊΣΥΦΟΣ",
    "日本語のテキストと한국어 mixed with English words",
    "yelling yes yarn's yyy happily relational conditional generalization",
    "`pnpm test:int` --filter=@acme/api && ./scripts/ci.sh; x=1.5e-3 v2.10.0",
    "caresses ponies ties caress cats feed agreed plastered bled motoring sing",
    "conflated troubled sized hopping tanned falling hissing fizzed failing filing",
    "happy sky relational conditional rational valenci hesitanci digitizer",
    "conformabli radicalli differentli vileli analogousli vietnamization",
    "predication operator feudalism decisiveness hopefulness callousness",
    "formaliti sensitiviti sensibiliti triplicate formative formalize",
    "electriciti electrical hopeful goodness revival allowance inference",
    "airliner gyroscopic adjustable defensible irritant replacement",
    "adjustment dependent adoption homologou communism activate angulariti",
    "homologous effective bowdlerize probate rate cease controll roll",
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Built, str]]:
    built = build(copy_demo(tmp_path_factory.mktemp("search-browser")), strict=True)
    with serve_folder(built.site) as url:
        yield built, url


def engine_ids(page: Any, url: str, query: str, **filters: Any) -> list[str]:
    """The ids search.js ranks for ``query``, best first (the engine the boxes use)."""
    return list(
        page.evaluate(
            """async ([root, query, filters]) => {
                const engine = window.memsiteSearch.engine(root);
                const found = await engine.search(query, filters);
                const rows = await engine.rows(found.refs);
                return rows.map(row => row[0]);
            }""",
            [url + "/", query, filters],
        )
    )


def cli_ids(built: Built, query: str) -> list[str]:
    """The CLI's ranking by words: the one the portal's search runs in the browser (it has no
    vectors; the CLI's default, hybrid with the semantic extra, fuses meaning in too)."""
    return [hit["id"] for hit in built.memory.search(query, limit=50, mode="exact")]


def type_in_header(page: Any, query: str) -> None:
    page.locator("#memsite-header-q").click()
    page.keyboard.type(query, delay=15)
    page.wait_for_function(
        "q => document.getElementById('memsite-header-search').dataset.query === q", arg=query
    )


def test_analysis_matches_the_cli(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    page.goto(url + "/")
    texts = TEXTS + [e.content for e in built.memory.state().result.entries]
    browser = page.evaluate(
        "texts => texts.map(t => window.memsiteSearch.analysis.terms(t))", texts
    )
    assert browser == [analyze(t) for t in texts]
    words = sorted({w for t in texts for w in word_tokens(normalize(t))})
    assert len(words) > 300
    stems = page.evaluate("words => words.map(w => window.memsiteSearch.analysis.stem(w))", words)
    assert stems == [stem(w) for w in words]


def test_ranking_agrees_with_the_cli(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    page.goto(url + "/")
    result = built.memory.state().result
    queries = ["webhook retry", "redis", "deploy staging", "pnpm install", "tax rates"]
    queries += ["rate limit", "database migrations", "lint format", "node version", "feature"]
    for entry in result.active()[:30]:
        words = [w for w in re.findall(r"[A-Za-z]{6,}", entry.content)][:2]
        if len(words) == 2:
            queries.append(" ".join(words))
    first_same = 0
    for query in queries:
        cli, browser = cli_ids(built, query), engine_ids(page, url, query)
        assert set(browser) >= set(cli), query  # every fact the CLI finds, the portal finds
        assert cli[0] in browser[:3], (query, cli[:3], browser[:3])
        first_same += cli[0] == browser[0]
    # The portal lacks only the CLI's bonus for adjacent query words.
    assert first_same >= 0.9 * len(queries), (first_same, len(queries))


def test_typos_tags_keys_and_id_prefixes(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    page.goto(url + "/")
    result = built.memory.state().result
    assert engine_ids(page, url, "pnmp")[:3] == cli_ids(built, "pnmp")[:3]
    pnpm = [e.id for e in result.active() if "pnpm" in e.content.lower()]
    assert set(engine_ids(page, url, "pnmp")) >= set(pnpm) and pnpm
    tagged = next(e for e in result.active() if e.tags and e.tags[0] not in e.content.lower())
    assert tagged.id in engine_ids(page, url, tagged.tags[0])
    keyed = next(e for e in result.active() if e.key)
    assert keyed.id in engine_ids(page, url, keyed.key.replace("-", " "))[:3]
    some = result.entries[7]
    assert engine_ids(page, url, some.id[:8])[0] == some.id
    assert engine_ids(page, url, some.id[:4])[0].startswith(some.id[:4])
    inactive = next(e for e in result.entries if result.status[e.id] == "superseded")
    word = max(re.findall(r"[A-Za-z]{4,}", inactive.content), key=len)
    assert inactive.id not in engine_ids(page, url, word)  # active facts only, by default
    assert inactive.id in engine_ids(page, url, word, status=None)


def test_header_box_snippets_arrows_and_enter(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    watch = PageWatch(page)
    page.goto(url + "/")
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    type_in_header(page, "webhook retry")
    page.screenshot(path=str(SCREENSHOTS / "header-search.png"))
    links = page.locator("#memsite-header-results a.md-search-result__link")
    cli = cli_ids(built, "webhook retry")
    assert links.count() >= min(len(cli), 4)
    assert f"entries/{cli[0]}/" in (links.first.get_attribute("href") or "")
    marks = page.locator("#memsite-header-results mark").all_inner_texts()
    assert marks and all(stem(m.lower()) in {"webhook", "retri"} for m in marks), marks
    assert not [u for u in requested if u.endswith("search_index.json")]  # Material's stays idle
    assert any("/search/t/" in u for u in requested) and any("/search/d/" in u for u in requested)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    selected = page.locator("#memsite-header-results .memsite-selected")
    assert selected.count() == 1 and selected.get_attribute("id") == "memsite-hit-1"
    assert (
        page.locator("#memsite-header-q").get_attribute("aria-activedescendant") == "memsite-hit-1"
    )
    second = selected.get_attribute("href") or ""
    page.keyboard.press("Enter")
    page.wait_for_url(second.split("?")[0] + "*")
    marked = page.locator("article mark").all_inner_texts()
    assert marked, "the entry page marks the matched words"
    # Enter with nothing selected opens the first result.
    page.goto(url + "/timeline/")
    type_in_header(page, "pnmp")
    first = page.locator("#memsite-header-results a.md-search-result__link").first
    href = first.get_attribute("href") or ""
    page.keyboard.press("Enter")
    page.wait_for_url(href.split("?")[0] + "*")
    assert watch.errors == []


def test_enter_before_the_pause_ends_opens_the_search_page(
    demo: tuple[Built, str], page: Any
) -> None:
    """Enter on a query whose pause has not ended (the list shows an earlier query's
    results) opens the search page for what was typed, not the earlier query's first hit."""
    built, url = demo
    watch = PageWatch(page)
    page.goto(url + "/timeline/")
    type_in_header(page, "pnmp")
    # One task of the page: the typing pause's timer cannot end between the key and Enter.
    page.evaluate(
        """() => {
            const input = document.getElementById('memsite-header-q');
            input.value = 'webhook retry';
            input.dispatchEvent(new Event('input', {bubbles: true}));
            input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
        }"""
    )
    page.wait_for_url(re.compile(r".*/search/\?query=webhook%20retry$"))
    page.wait_for_function(
        "() => document.getElementById('memsite-search').dataset.query === 'webhook retry'"
    )
    first = page.locator("#memsite-results li a").first.get_attribute("href") or ""
    assert f"entries/{cli_ids(built, 'webhook retry')[0]}/" in first
    assert watch.errors == []


def test_slash_opens_the_box_and_escape_closes_it(demo: tuple[Built, str], page: Any) -> None:
    _, url = demo
    page.goto(url + "/timeline/")
    page.locator("body").press("/")
    page.wait_for_function("() => document.activeElement.id === 'memsite-header-q'")
    assert page.evaluate("() => document.getElementById('__search').checked")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.getElementById('__search').checked")


def test_search_page_snippets_and_more(demo: tuple[Built, str], page: Any) -> None:
    built, url = demo
    page.goto(url + "/search/?query=the&status=")
    page.wait_for_selector("#memsite-search[data-loaded=yes]")
    everything = engine_ids(page, url, "the", status=None)
    rows = page.locator("#memsite-results li")
    assert rows.count() == min(20, len(everything))
    if len(everything) > 20:
        page.locator("#memsite-more").click()
        page.wait_for_function(
            "n => document.querySelectorAll('#memsite-results li').length > n", arg=20
        )
        assert rows.count() == min(40, len(everything))
    page.fill("#memsite-q", "redis")
    page.wait_for_function(
        "() => document.getElementById('memsite-search').dataset.query === 'redis'"
    )
    assert page.locator("#memsite-results mark").count() >= 1
    found = read_search(built.site)
    assert (
        page.locator("#memsite-summary")
        .inner_text()
        .startswith(str(len(engine_ids(page, url, "redis", status=None))))
    )
    assert found.meta["documents"] == len(built.memory.state().result.entries)


def test_header_search_on_a_phone(demo: tuple[Built, str], browser: Any) -> None:
    built, url = demo
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        watch = PageWatch(page)
        page.goto(url + "/")
        page.locator("label.md-header__button[for=__search]").click()
        page.wait_for_function("() => document.activeElement.id === 'memsite-header-q'")
        page.keyboard.type("pnmp", delay=15)
        page.wait_for_function(
            "() => document.getElementById('memsite-header-search').dataset.query === 'pnmp'"
        )
        assert page.locator("#memsite-header-results a.md-search-result__link").first.is_visible()
        page.screenshot(path=str(SCREENSHOTS / "search-mobile.png"))
        entry = built.memory.state().result.active()[0]
        page.goto(f"{url}/entries/{entry.id}/")
        page.screenshot(path=str(SCREENSHOTS / "entry-mobile.png"))
        assert watch.errors == []
    finally:
        context.close()


def search_bytes(page: Any) -> list[int]:
    """A list that grows with the size of each search file the page fetches (search/)."""
    sizes: list[int] = []

    def seen(response: Any) -> None:
        if "/search/" in response.url and response.ok:
            sizes.append(len(response.body()))

    page.on("response", seen)
    return sizes


def test_a_superseded_query_fetches_nothing_more(demo: tuple[Built, str], browser: Any) -> None:
    """Two queries one after the other from one box: the first ends as superseded, and
    everything fetched is what the second alone needs (in a fresh browser). A query of the
    other box of the page (its own lane) is not superseded."""
    _, url = demo
    script = """async ([root, older]) => {
        const engine = window.memsiteSearch.engine(root);
        await engine.meta;
        const before = engine.bytes;
        const lane = {};
        const first = older ? engine.newest(lane).search(older) : null;
        const newer = engine.newest(lane);
        const found = await newer.search("deploy staging");
        await newer.rows(found.refs.slice(0, 8));
        let ended = "none";
        if (first) {
            try { await first; ended = "answered"; } catch (error) { ended = error.message; }
        }
        const fetched = engine.bytes - before;
        const mine = engine.newest({}).search("redis cache");
        const theirs = engine.newest({}).search("webhook retry");
        const both = await Promise.all([mine, theirs]);
        return [ended, fetched, found.refs.length, both.map(r => r.refs.length)];
    }"""
    outcomes = []
    for older in ("database migration rollback", ""):
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(url + "/")
            outcomes.append(page.evaluate(script, [url + "/", older]))
        finally:
            context.close()
    (ended, both, hits, lanes), (_, alone, _, _) = outcomes
    assert ended == "superseded by a newer query"
    assert hits > 0 and both == alone > 0
    assert all(count > 0 for count in lanes)  # two boxes' queries: neither cancelled


@pytest.mark.parametrize("query", ["deploy staging", "database migration", "webhook retry"])
def test_typing_fetches_little_more_than_the_final_query(
    demo: tuple[Built, str], browser: Any, query: str
) -> None:
    """Typed a key at a time, a query fetches at most 1.5 times what it needs typed at once
    (a fresh browser each, so that nothing is cached)."""
    _, url = demo
    fetched = []
    for typing in (True, False):
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(url + "/")
            sizes = search_bytes(page)
            box = page.locator("#memsite-header-q")
            box.click()
            if typing:
                page.keyboard.type(query, delay=30)
            else:
                box.fill(query)
            page.wait_for_function(
                "q => document.getElementById('memsite-header-search').dataset.query === q",
                arg=query,
            )
            page.wait_for_load_state("networkidle")
            fetched.append(sum(sizes))
        finally:
            context.close()
    typed, whole = fetched
    assert whole > 0 and typed <= 1.5 * whole, (typed, whole)
