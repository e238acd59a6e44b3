"""The `memsite` MkDocs plugin mounts the portal inside an existing docs site (real mkdocs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.portal.conftest import broken_links, copy_demo, hostile_entries, html_pages
from tests.portal.searchfiles import read_search
from tests.portal.test_security import injected


def project(tmp_path: Path, plugin: str, theme: str = "material") -> Path:
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Our docs\n\nRead the [memory](memory/index.md).\n")
    (root / "docs" / "guide.md").write_text("# Guide\n\nHow we work.\n")
    (root / "mkdocs.yml").write_text(
        f"site_name: Sample project\ntheme:\n  name: {theme}\nplugins:\n  - search\n{plugin}"
    )
    return root


def mkdocs_build(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("MEMSITE_STORE", None)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", *extra],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


def test_plugin_mounts_the_portal_under_memory(tmp_path: Path) -> None:
    root = project(tmp_path, "  - memsite\n")
    copy_demo(root)
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    site = root / "site"
    assert "Our docs" in (site / "index.html").read_text()
    assert (site / "guide" / "index.html").is_file()
    portal = site / "memory"
    for path in ("", "tags/", "timeline/", "review/", "search/", "categories/conventions/"):
        assert (portal / path / "index.html").is_file(), path
    entries = [p for p in (portal / "entries").iterdir() if p.is_dir()]
    assert len(entries) == 64
    assert (portal / "index.md").is_file() and (portal / "llms.txt").is_file()
    assert (portal / "assets" / "memsite" / "search.js").is_file()
    assert len(read_search(portal).rows) == 64
    assert broken_links(site) == []
    home = (site / "index.html").read_text()
    nav = home.split('class="md-nav md-nav--primary"', 1)[1].split('class="md-content"', 1)[0]
    assert "memory/timeline/" in nav and "memory/entries/" not in nav


def test_plugin_options_store_and_path_with_another_theme(tmp_path: Path) -> None:
    root = project(
        tmp_path, "  - memsite:\n      store: knowledge/.memsite\n      path: kb\n", "mkdocs"
    )
    store = copy_demo(root / "knowledge")
    hostile_entries(store)
    (root / "docs" / "index.md").write_text("# Our docs\n\nRead the [memory](kb/index.md).\n")
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    site = root / "site"
    assert (site / "kb" / "index.html").is_file()
    assert not (site / "memory").exists()
    assert broken_links(site) == []
    for page in html_pages(site):  # the mkdocs theme puts titles through striptags
        assert injected(page, theme_scripts=True) == [], page.url
        title = re.search(r"<title>(.*?)</title>", page.path.read_text(), re.S)
        assert title is None or not re.search(r"[<>\"]", title.group(1)), page.url


def test_plugin_reports_a_missing_store(tmp_path: Path) -> None:
    root = project(tmp_path, "  - memsite:\n      store: nowhere\n")
    done = mkdocs_build(root)
    assert done.returncode != 0
    assert "memsite plugin: no memory store at " in done.stderr
    assert "run `memsite init` in the repository first" in done.stderr
    assert "--store" not in done.stderr  # a command-line option: no use in mkdocs.yml


def test_a_repository_without_a_store_is_told_what_to_run(tmp_path: Path) -> None:
    root = project(tmp_path, "  - memsite\n")
    done = mkdocs_build(root)
    assert done.returncode != 0
    assert "memsite plugin: no memory store in " in done.stderr
    assert "run `memsite init` in the repository first" in done.stderr
    assert "Traceback" not in done.stderr


def test_plugin_refuses_a_path_outside_the_site(tmp_path: Path) -> None:
    root = project(tmp_path, "  - memsite:\n      path: ../out\n")
    copy_demo(root)
    done = mkdocs_build(root)
    assert done.returncode != 0 and "'path' must stay inside the site" in done.stderr


@pytest.mark.parametrize("name", ["memsite"])
def test_entry_point_is_registered(name: str) -> None:
    from importlib.metadata import entry_points

    found = [e for e in entry_points(group="mkdocs.plugins") if e.name == name]
    assert found and found[0].value == "memsite.portal.plugin:MemsitePlugin"


def nav_of(page: Path) -> str:
    html = page.read_text()
    return html.split('class="md-nav md-nav--primary"', 1)[1].split('class="md-content"', 1)[0]


def nav_labels(html: str) -> list[str]:
    """The visible labels of a Material navigation, in order (titles without markup)."""
    found = re.findall(r'<span class="md-ellipsis">\s*(.*?)\s*</span>', html, re.S)
    labels = [re.sub(r"<[^>]+>", "", label).strip() for label in found]
    # Material repeats a section's title as the title of its drawer: count it once.
    return [label for i, label in enumerate(labels) if i == 0 or labels[i - 1] != label]


def test_the_memory_is_one_section_in_config_order(tmp_path: Path) -> None:
    root = project(tmp_path, "  - memsite\n")
    (root / "docs" / "index.md").write_text("# Our docs\n\nRead the [memory](memory/).\n")
    copy_demo(root)
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    assert "unrecognized relative link" not in done.stderr  # memory/ goes to its home
    assert 'href="memory/"' in (root / "site" / "index.html").read_text()
    labels = nav_labels(nav_of(root / "site" / "index.html"))
    start = labels.index("Memory")
    assert labels[start : start + 11] == [
        "Memory",
        "Overview",
        "Categories",
        "Conventions",
        "Architecture",
        "Operations",
        "Decisions",
        "Tags",
        "Timeline",
        "Review",
        "Search",
    ]
    assert labels.count("Operations") == 1 and labels.count("Memory") == 1
    assert "Guide" in labels


def test_a_host_nav_names_where_the_memory_goes(tmp_path: Path) -> None:
    root = project(tmp_path, "  - memsite\n")
    with (root / "mkdocs.yml").open("a") as handle:
        handle.write(
            "nav:\n  - Home: index.md\n  - Team knowledge: memory/index.md\n  - Guide: guide.md\n"
        )
    copy_demo(root)
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    assert 'not included in the "nav"' not in done.stderr
    labels = nav_labels(nav_of(root / "site" / "guide" / "index.html"))
    assert labels[:3] == ["Home", "Team knowledge", "Overview"]
    assert labels[-1] == "Guide" and "Timeline" in labels and "Memory" not in labels
    without = project(tmp_path / "other", "  - memsite\n")
    with (without / "mkdocs.yml").open("a") as handle:
        handle.write("nav:\n  - Home: index.md\n  - Guide: guide.md\n")
    copy_demo(without)
    done = mkdocs_build(without)
    assert done.returncode == 0, done.stderr
    assert nav_labels(nav_of(without / "site" / "index.html")) == ["Home", "Guide"]
    assert (without / "site" / "memory" / "timeline" / "index.html").is_file()


@pytest.mark.parametrize("directory_urls", [True, False])
def test_every_page_links_the_feed_in_its_head(tmp_path: Path, directory_urls: bool) -> None:
    root = project(tmp_path, "  - memsite\n")
    if not directory_urls:
        with (root / "mkdocs.yml").open("a") as config:
            config.write("use_directory_urls: false\n")
    copy_demo(root)
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    site = root / "site"
    feed = site / "memory" / "feed.xml"
    assert feed.is_file()
    # 404.html is a template, not a page (served at any URL: no relative link holds there)
    pages = [page for page in html_pages(site) if page.path.name != "404.html"]
    assert len(pages) > 64
    for page in pages:
        head = page.path.read_text(encoding="utf-8").split("</head>", 1)[0]
        links = re.findall(r'<link rel="alternate" type="application/atom\+xml"[^>]*>', head)
        assert len(links) == 1, page.url
        assert 'title="Sample project: latest changes"' in links[0]
        href = re.search(r'href="([^"]+)"', links[0])
        assert href is not None
        assert (page.path.parent / href.group(1)).resolve() == feed.resolve(), page.url


@pytest.mark.parametrize("theme", ["material", "mkdocs"])
def test_the_host_search_index_has_one_document_per_fact(tmp_path: Path, theme: str) -> None:
    """Material's search plugin or MkDocs' own: whatever it made of the entry pages (a
    document per heading, the page's table text) is one document per fact."""
    root = project(tmp_path, "  - memsite\n", theme)
    store = copy_demo(root)
    hostile_entries(store)
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    index = json.loads((root / "site" / "search" / "search_index.json").read_text())
    docs = index["docs"]
    facts = [d for d in docs if d["location"].startswith("memory/entries/")]
    entries = [p.name for p in (root / "site" / "memory" / "entries").iterdir() if p.is_dir()]
    assert sorted(d["location"] for d in facts) == sorted(f"memory/entries/{i}/" for i in entries)
    assert {"status", "category", "tags", "title", "text"} <= set(facts[0])
    assert any(d["location"] == "guide/" for d in docs)  # the host's pages stay
    assert any(d["location"].startswith("memory/categories/") for d in docs)
    assert all(not re.search(r"[<>]", d["text"]) for d in facts)


def test_the_search_page_links_the_host_search_for_readers_without_javascript(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, "  - memsite:\n      search_url: /find/\n")
    copy_demo(root)
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    page = (root / "site" / "memory" / "search" / "index.html").read_text()
    static = page.split('id="memsite-search-static"', 1)[1].split("</div>", 1)[0]
    assert '<a href="/find/">' in static
    # memsite's stylesheet is linked by the name TechDocs' reader keeps (main.<hex>.min.css)
    assert re.search(r'href="\.\./assets/memsite/main\.[0-9a-f]{8}\.min\.css"', page)


def test_a_search_url_with_a_scheme_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path, "  - memsite:\n      search_url: javascript:alert(1)\n")
    copy_demo(root)
    done = mkdocs_build(root)
    assert done.returncode != 0 and "'search_url' is not an http(s) URL" in done.stderr
