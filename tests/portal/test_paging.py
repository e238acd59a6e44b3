"""Long lists over several pages: category and tag pages of at most 100 cards, the timeline by
month, the tags index by use; every page linked, none left behind when a list shrinks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memsite.memory import Memory
from memsite.portal.build import build_site
from memsite.portal.cache import PortalCache
from memsite.portal.paging import chunks, page_path, pager, split_cards_and_rows
from memsite.portal.serve import cold_build, update
from tests.conftest import Clock
from tests.portal.conftest import broken_links


def test_page_paths_and_pager() -> None:
    assert page_path("categories/ops/", 1) == "categories/ops/"
    assert page_path("categories/ops/", 3) == "categories/ops~3/"
    single = pager("tags/x/", 1, 1)
    assert not single.many and single.previous is None and single.next is None
    middle = pager("categories/ops/", 5, 9)
    assert [(link.label, link.href) for link in middle.links] == [
        ("1", "../ops/"),
        ("…", None),
        ("3", "../ops~3/"),
        ("4", "../ops~4/"),
        ("5", None),
        ("6", "../ops~6/"),
        ("7", "../ops~7/"),
        ("…", None),
        ("9", "../ops~9/"),
    ]
    assert (middle.previous, middle.next) == ("../ops~4/", "../ops~6/")
    assert [link.current for link in middle.links].count(True) == 1


@pytest.mark.parametrize(
    ("cards", "rows", "expected"),
    [
        (0, 0, [(0, 0)]),
        (250, 30, [(100, 0), (100, 0), (50, 30)]),
        (250, 900, [(100, 0), (100, 0), (50, 0), (0, 400), (0, 400), (0, 100)]),
        (0, 10, [(0, 10)]),
        (100, 1, [(100, 0), (0, 1)]),
    ],
)
def test_cards_then_rows(cards: int, rows: int, expected: list[tuple[int, int]]) -> None:
    pieces = split_cards_and_rows(list(range(cards)), list(range(rows)))
    assert [(len(a), len(b)) for a, b in pieces] == expected
    assert [x for a, _ in pieces for x in a] == list(range(cards))
    assert [x for _, b in pieces for x in b] == list(range(rows))
    assert chunks([], 5) == [[]]


def pager_of(html: str) -> str:
    return html.split('<nav class="memsite-pager"', 1)[1].split("</nav>", 1)[0]


def cards_in(html: str) -> int:
    return html.count('class="memsite-card"')


@pytest.fixture
def big(store_root: Path) -> Memory:
    clock = Clock()
    memory = Memory(Memory.open(str(store_root)).store, Memory.open(str(store_root)).config, clock)
    for n in range(250):
        clock.tick(minutes=1)
        tags = ["queue"] if n % 2 else []
        memory.add(f"Worker {n} drains queue {n * 7} before shutdown", "operations", tags=tags)
    for n in range(30):
        clock.tick(minutes=1)
        old = memory.add(f"Old rule {n} about retries", "operations")["id"]
        memory.amend(old, f"New rule {n} about retries and backoff")
    return memory


def test_long_lists_are_paged_and_every_page_is_linked(big: Memory, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(big, site)
    category = site / "categories"
    pages = sorted(p.name for p in category.iterdir() if p.name.startswith("operations"))
    assert pages == ["operations", "operations~2", "operations~3"]
    htmls = [(category / name / "index.html").read_text() for name in pages]
    assert [cards_in(h) for h in htmls] == [100, 100, 80]  # 280 active facts
    assert "30 inactive entries" in htmls[2] and "30 inactive entries" not in htmls[0]
    pagers = [pager_of(h) for h in htmls]
    assert 'href="../operations~2/" rel="next"' in pagers[0] and 'rel="prev"' not in pagers[0]
    assert 'href="../operations~2/" rel="prev"' in pagers[2] and 'rel="next"' not in pagers[2]
    assert "page 2 of 3" in htmls[1]
    assert 'aria-current="page">2<' in pagers[1]
    tag = sorted(p.name for p in (site / "tags").iterdir() if p.name.startswith("queue"))
    assert tag == ["queue", "queue~2"]  # 125 tagged
    assert [cards_in((site / "tags" / n / "index.html").read_text()) for n in tag] == [100, 25]
    sitemap = (site / "sitemap.xml").read_text()
    assert sitemap.count("<url>") == 0  # no site_url: no <loc>, but the file is there
    assert broken_links(site) == []
    sizes = [p.stat().st_size for p in site.rglob("*.html")]
    assert max(sizes) < 300_000


def test_the_tags_index_puts_the_most_used_first(store_root: Path, tmp_path: Path) -> None:
    memory = Memory.open(str(store_root))
    for n in range(3):
        memory.add(f"Fact {n} about builds", "operations", tags=["build"])
    memory.add("One fact about docs", "operations", tags=["docs"])
    for n in range(2):
        memory.add(f"Fact {n} about ci", "operations", tags=["ci"])
    site = tmp_path / "site"
    build_site(Memory.open(str(store_root)), site)
    html = (site / "tags" / "index.html").read_text()
    order = re.findall(r'class="memsite-tag" href="([a-z]+)/"', html)
    assert order == ["build", "ci", "docs"]


def test_pages_of_a_shrunk_list_are_removed_by_serve(big: Memory, tmp_path: Path) -> None:
    site = tmp_path / "site"
    session = cold_build(big, site, "http://127.0.0.1:8000/", PortalCache())
    assert (site / "categories" / "operations~3" / "index.html").is_file()
    workers = [e for e in big.list_entries() if e["content"].startswith("Worker")]
    for entry in workers[:100]:  # 280 active facts become 180: two pages
        big.delete(entry["id"])
    big.invalidate()
    update(session, lambda _: None)
    assert not (site / "categories" / "operations~3").exists()
    assert (site / "categories" / "operations~2" / "index.html").is_file()
    assert broken_links(site) == []


def test_the_review_page_stays_small(store_root: Path, tmp_path: Path) -> None:
    clock = Clock()
    memory = Memory(Memory.open(str(store_root)).store, Memory.open(str(store_root)).config, clock)
    for n in range(130):  # 130 duplicate pairs written by another tool: 130 findings
        clock.tick(minutes=1)
        for copy in range(2):
            obj = {
                "id": f"{n:08x}-0000-4000-8000-{copy:012x}",
                "category": "operations",
                "content": f"Fact number {n} is written twice",
                "created": f"2026-03-{1 + copy:02d}T10:{n // 60:02d}:{n % 60:02d}Z",
            }
            (store_root / "entries" / f"x-{n}-{copy}.json").write_text(json.dumps(obj))
    for n in range(20):
        clock.tick(minutes=1)
        memory.add(f"The pool size is {n}", "architecture")
    site = tmp_path / "site"
    build_site(Memory.open(str(store_root)), site)
    html = (site / "review" / "index.html").read_text()
    assert "Duplicate (130)" in html
    pages = sorted(p.name for p in site.iterdir() if p.name.startswith("review"))
    assert pages == ["review", "review~2", "review~3"]  # 131 findings, 50 a page
    rest = "".join((site / name / "index.html").read_text() for name in pages[1:])
    assert "and 8 more</li>" in html + rest  # one possible-conflict group of 20 facts, 12 shown
    assert broken_links(site) == []
