"""Entry text is untrusted: nothing from an entry becomes markup, script or template code."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.portal.conftest import (
    IMG,
    JINJA,
    SCRIPT,
    Built,
    ParsedPage,
    broken_links,
    html_pages,
    parse_page,
)
from tests.portal.searchfiles import read_search

ALLOWED_SCRIPT_SOURCES = re.compile(
    r"(assets/memsite/(lunr|search|filter)\.js|(^|/)m/[0-9a-f]{8}\.js|bundle\.[0-9a-f]+\.min\.js)$"
)


def injected(page: ParsedPage, *, theme_scripts: bool = False) -> list[str]:
    """Markup on a page that could only have come from an entry.

    ``theme_scripts`` accepts any external script (another theme's own, in plugin tests).
    """
    found = []
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            if name.startswith("on"):
                found.append(f"{tag} {name}={value!r}")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                found.append(f"{tag} {name}={value!r}")
        source = str(attrs.get("src") or "")
        allowed = theme_scripts or ALLOWED_SCRIPT_SOURCES.search(source)
        if tag == "script" and source and not allowed:
            found.append(f"script src={source!r}")
        if tag == "img" and attrs.get("src") == "x":
            found.append("img src=x")
        if tag in ("b", "iframe", "object", "embed"):
            found.append(tag)
    return found


def test_the_checker_sees_injection(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text(
        f"<p>{IMG}</p><a href='javascript:alert(1)'>x</a><script src='evil.js'></script>"
    )
    assert len(injected(parse_page(tmp_path, page))) == 4


def test_no_page_carries_injected_markup(hostile_site: Built) -> None:
    problems = {}
    for page in html_pages(hostile_site.site):
        found = injected(page)
        if found:
            problems[page.url] = found
        # inline scripts are Material's and the live-reload one, never entry text
        raw = page.path.read_text()
        for script in re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", raw, re.S):
            assert "alert(" not in script, page.url
    assert problems == {}


def test_hostile_text_is_shown_literally(hostile_site: Built) -> None:
    site = hostile_site.site
    result = hostile_site.memory.state().result
    by_content = {e.content: e for e in result.entries}
    danger = next(e for c, e in by_content.items() if c.startswith("Danger"))
    html = (site / "entries" / danger.id / "index.html").read_text()
    assert "Danger &lt;script&gt;alert(1)&lt;/script&gt; here" in html
    assert SCRIPT not in html
    image = next(e for c, e in by_content.items() if c.startswith("Image"))
    html = (site / "entries" / image.id / "index.html").read_text()
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert IMG not in html
    assert "agent &lt;img src=x onerror=alert(1)&gt;" in html
    links = next(e for c, e in by_content.items() if c.startswith("Links"))
    html = (site / "entries" / links.id / "index.html").read_text()
    assert "[x](javascript:alert(1))" in html
    assert re.search(r"&lt;a href=(&#34;|&quot;)javascript:alert\(2\)\1&gt;click&lt;/a&gt;", html)


def test_jinja_in_entries_stays_literal(hostile_site: Built) -> None:
    result = hostile_site.memory.state().result
    entry = next(e for e in result.entries if JINJA in e.content)
    page = parse_page(hostile_site.site, hostile_site.site / "entries" / entry.id / "index.html")
    raw = page.path.read_text()
    fact = raw.split('class="memsite-entry-title">', 1)[1].split("</h1>", 1)[0]  # one sentence
    assert fact == "Template {{ 7*7 }} stays literal"
    assert "49" not in fact
    assert "&lt;b&gt;agent&lt;/b&gt;" in raw  # the agent, escaped
    assert "Template {{ 7*7 }} stays literal" in (hostile_site.site / "index.md").read_text()


def test_code_spans_escape_their_content(hostile_site: Built) -> None:
    result = hostile_site.memory.state().result
    entry = next(e for e in result.entries if e.content.startswith("Backticks"))
    raw = (hostile_site.site / "entries" / entry.id / "index.html").read_text()
    assert "<code>&lt;script&gt;alert(7)&lt;/script&gt;</code>" in raw


def test_names_that_are_not_names_are_reported_and_skipped(hostile_site: Built) -> None:
    site = hostile_site.site
    findings = hostile_site.memory.review()["findings"]
    invalid = {f["files"][0]: f["message"] for f in findings if f["kind"] == "invalid_file"}
    reasons = sorted(message.split(": ", 1)[1] for message in invalid.values())
    assert len(reasons) == 3, invalid
    assert any(r.startswith("'category' is not a valid name") for r in reasons)
    assert any(r.startswith("tag '<script>x</script>' is not a valid name") for r in reasons)
    assert any(r.startswith("'key' is not a valid name") for r in reasons)
    text = "\n".join(p.read_text(errors="replace") for p in site.rglob("*.html"))
    for skipped in ("Foreign category", "Foreign tag", "Foreign key"):
        assert skipped not in text
    assert not [p for p in (site / "categories").iterdir() if p.name.startswith("_")]
    assert not [p for p in (site / "tags").iterdir() if p.name.startswith("_")]
    review = parse_page(site, site / "review" / "index.html")
    assert injected(review) == []
    assert broken_links(site) == []


def test_titles_never_hold_markup(hostile_site: Built) -> None:
    for page in html_pages(hostile_site.site):
        raw = page.path.read_text()
        title = re.search(r"<title>(.*?)</title>", raw, re.S)
        assert title is not None
        assert not re.search(r"[<>\"]", title.group(1)), page.url


def test_search_data_carries_no_markup(hostile_site: Built) -> None:
    site = hostile_site.site
    material = json.loads((site / "search" / "search_index.json").read_text())
    facts = [doc for doc in material["docs"] if doc["location"].startswith("entries/")]
    assert len(facts) == len(hostile_site.memory.state().result.entries)
    # Themes show a document's text as HTML (Material does): no markup in any of it.
    assert all(not re.search(r"[<>]", doc["text"] + doc["title"]) for doc in material["docs"])
    assert any("&lt;img src=x onerror=alert(1)&gt;" in doc["text"] for doc in facts)
    found = read_search(site)
    titles = [row[1] for row in found.rows]
    assert all(not re.search(r"[<>\"'&]", t) for t in titles)
    # The text is data for textContent (search.js never sets HTML): kept as written.
    texts = [row[2] for row in found.rows]
    assert any("<img src=x onerror=alert(1)>" in t for t in texts)
    names = {p.relative_to(site / "search").as_posix() for p in (site / "search").rglob("*")}
    assert all(re.fullmatch(r"[a-z]/[a-z0-9-]+\.json|[a-z]|[a-z_]+\.(json|html)", n) for n in names)


def test_raw_json_keeps_the_text_as_data(hostile_site: Built) -> None:
    result = hostile_site.memory.state().result
    entry = next(e for e in result.entries if e.content.startswith("Danger"))
    data = json.loads((hostile_site.site / "entries" / f"{entry.id}.json").read_text())
    assert data["content"] == f"Danger {SCRIPT} here"
    image = next(e for e in result.entries if e.content.startswith("Image"))
    data = json.loads((hostile_site.site / "entries" / f"{image.id}.json").read_text())
    assert data["agent"] == f"agent {IMG}"


def test_llms_txt_holds_no_markup(hostile_site: Built) -> None:
    text = (hostile_site.site / "llms.txt").read_text()
    assert "<script" not in text and "<img" not in text


def test_site_has_no_unexpected_files(hostile_site: Built) -> None:
    names = {p.name for p in Path(hostile_site.site).iterdir()}
    assert {"index.html", "index.md", "llms.txt", "entries", "tags", "search"} <= names
