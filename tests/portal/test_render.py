"""Portal pages from the Jinja templates: entry text escaped, never markup; review groups in
the order of core.review.KINDS; the small helpers the pages are laid out with."""

from __future__ import annotations

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
    TAG_SHELL,
    Renderer,
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
