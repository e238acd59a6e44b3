"""The portal's Atom feed (``feed.xml``): the latest 50 changes, newest first, parsed by a real
feed reader (feedparser) and by the standard library; entry text escaped; linked from the head
of every page; the same bytes from the same memory."""

from __future__ import annotations

import json
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import feedparser
import pytest

from memsite.core.entry import format_created
from memsite.memory import Memory
from memsite.portal.build import build_site
from memsite.portal.feed import FEED_SIZE, xml_text
from memsite.storage.layout import Store
from tests.conftest import Clock
from tests.portal.conftest import SCRIPT, Built, html_pages, plant, resolve_link

ATOM = "{http://www.w3.org/2005/Atom}"
START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
FILLERS = 52
# Free text a foreign tool may write: markup, an ampersand, controls XML 1.0 forbids (BEL, ESC,
# vertical tab, NUL) and whitespace it allows (tab, newline).
HOSTILE = f"Danger {SCRIPT} & <b>co</b>\x07 bell\x1b[31m red\x0b\x00 tab\tand\nnewline"
HOSTILE_SHOWN = f"Danger {SCRIPT} & <b>co</b> bell[31m red tab\tand\nnewline"


@dataclass
class FeedSite:
    root: Path
    memory: Memory
    site: Path
    ids: dict[str, str]
    fillers: list[str]

    @property
    def xml(self) -> bytes:
        return (self.site / "feed.xml").read_bytes()


def make_store(root: Path, clock: Clock) -> tuple[Memory, dict[str, str], list[str]]:
    """Old filler facts, then a fact replaced by an amendment, a retired fact and (newest) a
    hostile fact written as a foreign tool would: more changes than the feed holds."""
    store_root, _ = Store.init(root / ".memsite")
    store = Store(store_root.root)
    memory = Memory(store, store.load_config(), clock, cwd=root)
    fillers = []
    for n in range(FILLERS):
        fillers.append(memory.add(f"Service {n} listens on port {8000 + n}", "operations")["id"])
        clock.tick(minutes=1)
    ids = {"old": memory.add("Deploys run on Fridays", "operations", agent="ann")["id"]}
    clock.tick(minutes=1)
    ids["new"] = memory.amend(ids["old"], "Deploys run on Tuesdays", agent="bob")["id"]
    clock.tick(minutes=1)
    ids["gone"] = memory.add("We cache sessions in Redis 6", "architecture")["id"]
    clock.tick(minutes=1)
    memory.retire(ids["gone"], "sessions moved to Valkey", agent="cleo")
    clock.tick(minutes=1)
    ids["hostile"] = plant(
        store.root, content=HOSTILE, agent="<i>mallory</i>", created=format_created(clock())
    )["id"]
    memory.invalidate()
    return memory, ids, fillers


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> FeedSite:
    root = tmp_path_factory.mktemp("feed")
    memory, ids, fillers = make_store(root, Clock(START))
    site = root / "site"
    build_site(memory, site, parallel=False)
    return FeedSite(root, memory, site, ids, fillers)


def parse(xml: bytes) -> Any:
    parsed = feedparser.parse(xml)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    return parsed


def by_id(parsed: Any) -> dict[str, Any]:
    return {e.id: e for e in parsed.entries}


def urn(entry_id: str, fragment: str = "") -> str:
    return f"urn:uuid:{entry_id}" + (f"#{fragment}" if fragment else "")


# --- what a feed reader sees ---------------------------------------------------------------------


def test_a_feed_reader_reads_the_latest_changes_newest_first(built: FeedSite) -> None:
    parsed = parse(built.xml)
    assert parsed.feed.title == "Project memory"
    assert parsed.feed.generator == "memsite"
    assert len(parsed.entries) == FEED_SIZE
    times = [e.updated for e in parsed.entries]
    assert times == sorted(times, reverse=True)
    assert parsed.feed.updated == times[0]  # the newest change, not the build's time
    ids = [e.id for e in parsed.entries]
    assert len(set(ids)) == len(ids)
    # 57 changes: the newest 50 are kept, so the 7 oldest fillers fall out
    links = {e.link for e in parsed.entries}
    kept = {f"entries/{i}/" for i in built.fillers[7:]}
    dropped = {f"entries/{i}/" for i in built.fillers[:7]}
    assert kept <= links and not dropped & links


def test_a_replacement_is_one_change_from_the_old_fact_to_the_new(built: FeedSite) -> None:
    old, new = built.ids["old"], built.ids["new"]
    entries = by_id(parse(built.xml))
    change = entries[urn(old, f"replaced-by-{new}")]
    assert change.title == "Deploys run on Fridays replaced by Deploys run on Tuesdays"
    assert change.link == f"entries/{new}/"
    assert change.summary == "Deploys run on Tuesdays"
    assert change.author == "bob"
    assert [t.term for t in change.tags] == ["operations"]
    assert change.updated == "2026-01-01T09:53:00.000Z"
    assert urn(new) not in entries  # the new fact's creation is the replacement itself
    assert entries[urn(old)].title == "Deploys run on Fridays"  # the old fact's own creation


def test_a_retirement_is_dated_by_its_record(built: FeedSite) -> None:
    gone = built.ids["gone"]
    entries = by_id(parse(built.xml))
    change = entries[urn(gone, "retired")]
    assert change.title == "Retired: We cache sessions in Redis 6"
    assert change.link == f"entries/{gone}/"
    assert change.updated == "2026-01-01T09:55:00.000Z"
    assert change.author == "cleo"
    assert entries[urn(gone)].updated == "2026-01-01T09:54:00.000Z"  # and its creation


def test_hostile_text_is_escaped_and_stripped_of_what_xml_forbids(built: FeedSite) -> None:
    xml = built.xml
    assert b"<script>" not in xml and b"<b>" not in xml and b"<i>" not in xml
    assert b"\x07" not in xml and b"\x1b" not in xml and b"\x0b" not in xml and b"\x00" not in xml
    entries = parse(xml).entries
    change = entries[0]
    assert change.id == urn(built.ids["hostile"])
    assert change.summary == HOSTILE_SHOWN
    assert change.summary_detail.type == "text/plain"
    assert change.author == "<i>mallory</i>"
    assert "<" not in change.title  # the portal's safe title: look-alikes, never markup


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain", "plain"),
        ("tab\tnewline\ncr\r", "tab\tnewline\ncr\r"),
        ("nul\x00bel\x07esc\x1bvt\x0bff\x0cus\x1f", "nulbelescvtffus"),
        ("del\x7f nel\x85 kept", "del\x7f nel\x85 kept"),
        ("lone \ud800 surrogate \udfff", "lone  surrogate "),
        ("nonchars \ufffe\uffff end", "nonchars  end"),
        ("astral 🧠 and é", "astral 🧠 and é"),
        ("<b>&amp;</b>", "<b>&amp;</b>"),  # escaping is the template's job
    ],
)
def test_xml_text_removes_only_what_xml_1_0_cannot_hold(text: str, shown: str) -> None:
    assert xml_text(text) == shown


# --- the document itself --------------------------------------------------------------------------


def test_the_feed_is_well_formed_atom_with_every_required_element(built: FeedSite) -> None:
    root = ET.fromstring(built.xml)
    assert root.tag == f"{ATOM}feed"
    assert built.xml.startswith(b'<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns=')
    for name in ("title", "id", "updated", "generator"):
        assert (root.findtext(f"{ATOM}{name}") or "").strip(), name
    assert root.findtext(f"{ATOM}author/{ATOM}name") == "Project memory"
    links = {link.get("rel"): link.get("href") for link in root.findall(f"{ATOM}link")}
    assert links == {"self": "feed.xml", "alternate": "./"}
    feed_id = root.findtext(f"{ATOM}id") or ""
    assert feed_id.startswith("urn:uuid:") and uuid.UUID(feed_id[9:])
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == FEED_SIZE
    for entry in entries:
        for name in ("id", "title", "updated", "summary"):
            assert entry.find(f"{ATOM}{name}") is not None, name
        entry_id = entry.findtext(f"{ATOM}id") or ""
        assert entry_id.startswith("urn:uuid:") and uuid.UUID(entry_id[9:].split("#")[0])
        assert entry.findtext(f"{ATOM}author/{ATOM}name")
        category = entry.find(f"{ATOM}category")
        assert category is not None and category.get("term")
        link = entry.find(f"{ATOM}link")
        assert link is not None
        href = link.get("href") or ""
        assert href.startswith("entries/") and (built.site / href / "index.html").is_file()
    times = [e.findtext(f"{ATOM}updated") or "" for e in entries]
    assert times == sorted(times, reverse=True)
    assert root.findtext(f"{ATOM}updated") == times[0]


def test_the_same_memory_gives_the_same_bytes(built: FeedSite, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_site(built.memory, again, parallel=False)
    assert (again / "feed.xml").read_bytes() == built.xml


def test_the_feed_is_not_in_the_sitemap(built: FeedSite) -> None:
    assert "feed.xml" not in (built.site / "sitemap.xml").read_text("utf-8")


def test_a_site_url_makes_the_links_absolute(built: FeedSite, tmp_path: Path) -> None:
    site = tmp_path / "hosted"
    build_site(built.memory, site, parallel=False, site_url="https://example.org/memory/")
    root = ET.fromstring((site / "feed.xml").read_bytes())
    links = {link.get("rel"): link.get("href") for link in root.findall(f"{ATOM}link")}
    assert links == {
        "self": "https://example.org/memory/feed.xml",
        "alternate": "https://example.org/memory/",
    }
    first = root.find(f"{ATOM}entry/{ATOM}link")
    assert first is not None
    assert first.get("href") == f"https://example.org/memory/entries/{built.ids['hostile']}/"
    local = ET.fromstring(built.xml).findtext(f"{ATOM}id")
    assert root.findtext(f"{ATOM}id") != local  # the id follows the site's address
    sitemap = (site / "sitemap.xml").read_text("utf-8")
    assert "<loc>https://example.org/memory/</loc>" in sitemap and "feed.xml" not in sitemap


def test_the_configured_site_url_wins_over_the_callers(built: FeedSite, tmp_path: Path) -> None:
    config_path = built.memory.store.config_path
    saved = config_path.read_bytes()
    config = json.loads(saved)
    config["site"]["site_url"] = "https://docs.example.com/"
    try:
        config_path.write_text(json.dumps(config), encoding="utf-8")
        store = Store(built.memory.store.root)
        memory = Memory(store, store.load_config(), Clock(START + timedelta(days=9)))
        build_site(memory, tmp_path / "site", parallel=False, site_url="http://127.0.0.1:8000/")
    finally:
        config_path.write_bytes(saved)
    root = ET.fromstring((tmp_path / "site" / "feed.xml").read_bytes())
    self_link = root.find(f"{ATOM}link[@rel='self']")
    assert self_link is not None and self_link.get("href") == "https://docs.example.com/feed.xml"


def test_an_empty_memory_has_a_valid_feed(tmp_path: Path) -> None:
    store_root, _ = Store.init(tmp_path / ".memsite")
    store = Store(store_root.root)
    build_site(Memory(store, store.load_config(), Clock()), tmp_path / "site", parallel=False)
    parsed = parse((tmp_path / "site" / "feed.xml").read_bytes())
    assert parsed.entries == [] and parsed.feed.updated == "1970-01-01T00:00:00.000Z"


# --- the link in every page's head ----------------------------------------------------------------


def feed_links(tags: list[tuple[str, dict[str, str | None]]]) -> list[str]:
    return [
        str(attrs.get("href"))
        for tag, attrs in tags
        if tag == "link"
        and attrs.get("rel") == "alternate"
        and attrs.get("type") == "application/atom+xml"
    ]


def test_every_page_links_the_feed_from_its_head(demo_site: Built) -> None:
    site = demo_site.site
    assert parse((site / "feed.xml").read_bytes()).entries
    seen = set()
    for page in html_pages(site):
        hrefs = feed_links(page.tags)
        assert len(hrefs) == 1, page.url
        assert resolve_link(site, page.url, hrefs[0]) == site / "feed.xml", (page.url, hrefs[0])
        html = page.path.read_text("utf-8")
        assert html.index('type="application/atom+xml"') < html.index("</head>"), page.url
        seen.add(page.url.split("/")[1] if page.url.count("/") > 1 else page.url)
    assert {"/", "/404.html", "categories", "entries", "tags", "timeline", "review"} <= seen
    assert "search" in seen
