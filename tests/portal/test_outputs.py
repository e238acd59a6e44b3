"""Every file of the portal, listed once: pages, raw files, the search index, the assets."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from memsite.memory import Memory
from memsite.portal.gather import portal_for
from memsite.portal.model import JsonSource, Portal
from memsite.portal.outputs import ASSETS, files, nav_items, pages, raw_files
from memsite.portal.render import ENTRY_SHELL, MONTH_SHELL, TAG_SHELL, Renderer
from memsite.portal.resources import site_config_dir
from tests.portal.conftest import copy_demo, plant

NAV_PAGES = {"", "tags/", "timeline/", "review/", "search/"}


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> Portal:
    store = copy_demo(tmp_path_factory.mktemp("outputs"))
    plant(store, content="A category no config names", category="extras", tags=["odd"])
    memory = Memory.open(str(store), {}, store.parent)
    return portal_for(memory, findings=memory.findings())


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer()


def test_every_page_once_with_a_page_per_entry(portal: Portal, renderer: Renderer) -> None:
    made = list(pages(portal, renderer))
    counted = Counter(page.path for page in made)
    assert [path for path, n in counted.items() if n > 1] == []
    paths = set(counted)
    assert {f"entries/{e.id}/" for e in portal.entries} <= paths
    assert {f"tags/{t.slug}/" for t in portal.tags} <= paths
    assert {f"categories/{c.slug}/" for c in portal.categories} <= paths
    assert paths >= NAV_PAGES
    assert {e.day[:7] for e in portal.entries} == {
        p.split("/")[1] for p in paths if p.startswith("timeline/") and p != "timeline/"
    }
    for page in made:
        if page.path.startswith("entries/"):
            assert page.shell == ENTRY_SHELL
        elif page.path.startswith("tags/") and page.path != "tags/":
            assert page.shell == TAG_SHELL
        elif page.path.startswith("timeline/") and page.path != "timeline/":
            assert page.shell == MONTH_SHELL
        else:
            first = page.path.split("~")[0] + "/" if "~" in page.path else page.path
            assert page.shell == first, page.path


def test_files_are_the_raw_files_then_the_search_index(portal: Portal, renderer: Renderer) -> None:
    made = dict(files(portal, renderer, "https://memory.example.com/"))
    names = list(made)
    assert names[:3] == ["index.md", "llms.txt", "feed.xml"]
    entry_files = {f"entries/{e.id}.json" for e in portal.entries}
    assert set(names[3 : 3 + len(entry_files)]) == entry_files
    rest = names[3 + len(entry_files) :]
    assert rest and all(name.startswith("search/") for name in rest)
    assert rest[-1] == "search/meta.json"
    assert made["index.md"] == portal.index_md.encode("utf-8")
    assert "](https://memory.example.com/index.md)" in made["llms.txt"].decode()
    for entry in portal.entries:
        data = json.loads(made[f"entries/{entry.id}.json"])
        assert (data["id"], data["status"]) == (entry.id, entry.status)
        assert data["superseded_by"] == portal.superseded_by.get(entry.id, [])
    relative = dict(files(portal, renderer))
    assert "](index.md)" in relative["llms.txt"].decode()


def test_raw_files_are_made_only_when_asked(portal: Portal, renderer: Renderer) -> None:
    listed = list(raw_files(portal, renderer))
    assert [key for _, key, _ in listed[:3]] == [None, None, None]
    keys = [key for _, key, _ in listed[3:]]
    assert all(isinstance(key, JsonSource) for key in keys)
    assert keys == list(portal.json_sources.values())  # the very objects: unchanged = written
    assert listed[3][2]() == keys[0].text()


def test_nav_lists_configured_categories_only(portal: Portal) -> None:
    items = dict(nav_items(portal))
    assert list(items) == ["Home", "Categories", "Tags", "Timeline", "Review", "Search"]
    categories = items["Categories"]
    assert isinstance(categories, list)
    assert [path for _, path in categories] == [
        f"categories/{c.slug}/" for c in portal.categories if c.configured
    ]
    assert "categories/extras/" not in [path for _, path in categories]
    assert any(c.name == "extras" for c in portal.categories)


@pytest.mark.parametrize("asset", ASSETS)
def test_assets_ship_in_site_config(asset: str) -> None:
    path = site_config_dir() / "docs" / asset
    assert path.is_file() and path.stat().st_size > 0
