"""Portal pages from the Jinja templates: entry text escaped, never markup; review groups in
the order of core.review.KINDS; the small helpers the pages are laid out with."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from memsite.core.review import KINDS
from memsite.memory import Memory
from memsite.portal.gather import portal_for
from memsite.portal.model import FindingView, Portal
from memsite.portal.render import (
    ENTRY_SHELL,
    REVIEW_PER_PAGE,
    TAG_SHELL,
    Renderer,
    finding_html,
    index_lines,
    month_title,
    review_groups,
    root_for,
)
from tests.portal.conftest import JINJA, SCRIPT, copy_demo, hostile_entries


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Portal, dict[str, str]]:
    store = copy_demo(tmp_path_factory.mktemp("render"))
    made = hostile_entries(store)
    portal = portal_for(Memory.open(str(store), {}, store.parent))
    by_content = {m["content"]: m["id"] for m in made}
    return portal, by_content


def tags_in(html: str) -> Iterator[tuple[str, dict[str, str | None]]]:
    found: list[tuple[str, dict[str, str | None]]] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, dict(attrs)))

    Tags().feed(html)
    yield from found


def test_an_entry_page_shows_its_text_literally(hostile: tuple[Portal, dict[str, str]]) -> None:
    portal, ids = hostile
    renderer = Renderer()
    danger = renderer.entry_page(portal.page(ids[f"Danger {SCRIPT} here"]))
    assert danger.path == f"entries/{ids[f'Danger {SCRIPT} here']}/"
    assert danger.shell == ENTRY_SHELL
    assert "<script" not in danger.body and "&lt;script&gt;alert(1)&lt;/script&gt;" in danger.body
    template = renderer.entry_page(portal.page(ids[f"Template {JINJA} stays literal"])).body
    assert "Template {{ 7*7 }} stays literal" in template and "Template 49" not in template
    assert "&lt;b&gt;agent&lt;/b&gt;" in template
    for entry in portal.entries:
        tags = list(tags_in(renderer.entry_page(portal.page(entry.id)).body))
        assert not {"script", "img", "iframe"} & {tag for tag, _ in tags}, entry.id
        for _, attrs in tags:
            assert not any(name.startswith("on") for name in attrs), entry.id
            links = [attrs.get("href") or "", attrs.get("src") or ""]
            assert not any(v.strip().lower().startswith("javascript:") for v in links), entry.id


def test_pages_render_the_same_twice(hostile: tuple[Portal, dict[str, str]]) -> None:
    portal, _ = hostile
    first, second = Renderer(), Renderer()
    home = first.home_page(portal)
    assert home.path == "" and home.title == portal.site_name
    assert home.body == second.home_page(portal).body
    assert first.feed_xml(portal) == second.feed_xml(portal)
    tag = portal.tags[0]
    (page, *_) = first.tag_page_list(tag)
    assert (page.path, page.title, page.shell) == (f"tags/{tag.slug}/", f"#{tag.name}", TAG_SHELL)
    entry = portal.entries[0]
    assert first.card(entry, "../") is first.card(entry, "../")  # a fragment made once
    assert first.card(entry, "../") == second.card(entry, "../")


@pytest.mark.parametrize(
    ("path", "root"),
    [("", ""), ("tags/", "../"), ("entries/abc/", "../../"), ("timeline/2026-03~2/", "../../")],
)
def test_root_for(path: str, root: str) -> None:
    assert root_for(path) == root


@pytest.mark.parametrize(
    ("month", "title"),
    [("2026-01", "January 2026"), ("2026-11", "November 2026"), ("1999-12", "December 1999")],
)
def test_month_title(month: str, title: str) -> None:
    assert month_title(month) == title


def finding(kind: str, message: str) -> FindingView:
    return FindingView(kind, message, (), ())


def test_review_groups_follow_the_kinds_order() -> None:
    kinds = list(KINDS)
    given = [
        finding("invented", "x1"),
        finding(kinds[-1], "last"),
        finding(kinds[3], "a"),
        finding("other", "y"),
        finding(kinds[0], "first"),
        finding(kinds[3], "b"),
        finding("invented", "x2"),
    ]
    groups = review_groups(given)
    assert [kind for kind, _, _ in groups] == [kinds[0], kinds[3], kinds[-1], "invented", "other"]
    assert [f.message for f in groups[1][2]] == ["a", "b"]  # each kind keeps its order
    assert groups[0][1] == KINDS[kinds[0]] and groups[3][1] == ""
    assert review_groups([]) == []


def test_a_renderer_with_its_own_templates(tmp_path: Path) -> None:
    from memsite.portal.resources import templates_dir

    for path in templates_dir().iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / "llms.txt").write_text("custom {{ portal.site_name }}\n")
    portal = portal_for(Memory.open(str(copy_demo(tmp_path / "demo")), {}, tmp_path / "demo"))
    assert Renderer(tmp_path).llms_txt(portal) == f"custom {portal.site_name}"


# --- lists, review, timeline and home (issue 27) ---------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Portal:
    store = copy_demo(tmp_path_factory.mktemp("render-demo"))
    return portal_for(Memory.open(str(store), {}, store.parent))


def test_cards_link_their_id_not_their_text_and_code_stays_unlinked(demo: Portal) -> None:
    renderer = Renderer()
    entry = next(e for e in demo.entries if e.active and "`" in e.content)
    html = str(renderer.card(entry, "../../"))
    assert f'<a href="../../entries/{entry.id}/">{entry.short_id}</a>' in html
    fact = html.split('<div class="memsite-fact">', 1)[1].split("</div>", 1)[0]
    assert "<code>" in fact and "<a " not in fact.split("http", 1)[0]


def test_rows_show_a_status_chip_only_when_not_active(demo: Portal) -> None:
    renderer = Renderer()
    active = next(e for e in demo.entries if e.active)
    old = next(e for e in demo.entries if e.status == "superseded")
    assert "memsite-status" not in str(renderer.row(active, ""))
    assert "memsite-status--superseded" in str(renderer.row(old, ""))


def test_month_rows_name_what_they_replaced_and_no_date_twice(demo: Portal) -> None:
    renderer = Renderer()
    pages = [page for _, make in renderer.main_page_groups(demo) for page in make()]
    months = [p for p in pages if p.path.startswith("timeline/2")]
    body = "".join(p.body for p in months)
    assert 'class="memsite-date"' not in body
    newer = next(e for e in demo.entries if e.supersedes)
    row = body.split(f'href="../../entries/{newer.id}/"', 1)[1].split("</li>", 1)[0]
    old = newer.supersedes[0]
    assert f'replaces <a href="../../entries/{old}/">{old[:8]}</a>' in row


def test_top_and_bottom_pagers_have_distinct_labels(demo: Portal) -> None:
    from memsite.portal.model import CategoryView

    renderer = Renderer()
    category = demo.categories[0]
    many = CategoryView(**{**vars(category), "active": category.active * 30})
    body = renderer.category_pages(many)[0].body
    labels = re.findall(r'<nav class="memsite-pager" aria-label="([^"]+)"', body)
    assert len(labels) == 2 and len(set(labels)) == 2


def test_the_home_page_links_index_bullets_and_drops_empty_columns(demo: Portal) -> None:
    html = Renderer().home_page(demo).body
    index = html.split('class="memsite-index"', 1)[1]
    bullets = [line for line in demo.index_md.splitlines() if line.startswith("- ")]
    assert bullets and index.count('- <a href="entries/') == len(bullets)
    head = html.split('class="memsite-counts"', 1)[1].split("</thead>", 1)[0]
    counts = demo.counts()
    for status in ("superseded", "duplicate", "overridden", "retired"):
        assert (f"<th>{status.capitalize()}</th>" in head) == bool(counts[status])
    assert "<th>Active</th>" in head


def test_index_lines_match_cut_bullets_too(demo: Portal) -> None:
    entry = next(e for e in demo.entries if e.active and len(e.content) > 60)
    cut = f"- {entry.content[:40]}…"
    assert index_lines(f"## X\n{cut}\n- not a fact\n", demo.entries) == [
        ("## X", None),
        (cut, entry.id),
        ("- not a fact", None),
    ]


def test_finding_messages_link_their_ids_and_render_code(demo: Portal) -> None:
    entry = demo.entries[0]
    message = f"{entry.short_id}: check it with `memsite verify {entry.short_id}` <b>now</b>"
    html = str(finding_html(message, (entry,), "../"))
    assert html.startswith(f'<a href="../entries/{entry.id}/">{entry.short_id}</a>:')
    assert f"<code>memsite verify {entry.short_id}</code>" in html  # not linked inside code
    assert "&lt;b&gt;now&lt;/b&gt;" in html
    assert str(finding_html("deadbeef", (entry,), "")) == "deadbeef"  # not one of its entries


def test_review_pages_are_paged_by_kind(demo: Portal) -> None:
    import dataclasses

    entry = demo.entries[0]
    kinds = list(KINDS)
    findings = [FindingView(kinds[0], f"{entry.short_id} a{n}", (entry,), ()) for n in range(70)]
    findings += [FindingView(kinds[1], f"b{n}", (), ()) for n in range(40)]
    pages = Renderer().review_pages(dataclasses.replace(demo, findings=findings))
    assert [p.path for p in pages] == ["review/", "review~2/", "review~3/"]
    assert {p.shell for p in pages} == {"review/"}
    first, second = pages[0].body, pages[1].body
    assert first.count("<li><p>") == REVIEW_PER_PAGE and second.count("<li><p>") == 50
    assert f'<a href="#{kinds[0]}">' in first and f'href="../review~2/#{kinds[1]}"' in first
    assert 'href="../review~2/"' in first  # the pager
    assert f'<a href="../entries/{entry.id}/">{entry.short_id}</a> a0' in first
    assert "memsite review</code> lists" not in "".join(p.body for p in pages)
