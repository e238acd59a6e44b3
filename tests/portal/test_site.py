"""A built portal on disk: each file written once per key, the sitemap, the sweep, and an update
after one new entry that rewrites only what changed and gives a cold build's bytes."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from memsite.memory import Memory
from memsite.portal.cache import PortalCache
from memsite.portal.frames import Frames, render_frames
from memsite.portal.gather import portal_for
from memsite.portal.outputs import sitemap
from memsite.portal.render import Renderer
from memsite.portal.reuse import survey
from memsite.portal.site import MARKER, Site
from tests.portal.conftest import copy_demo

URL = "https://memory.example.com/docs/"


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> Frames:
    root = tmp_path_factory.mktemp("site-frames")
    store = copy_demo(root)
    memory = Memory.open(str(store), {}, store.parent)
    return render_frames(portal_for(memory), {}, root / "scratch", strict=True, site_url=URL)


def new_site(site_dir: Path, frames: Frames) -> Site:
    return Site(site_dir, frames.frames, Renderer(), frames.search_config, URL)


def on_disk(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def inodes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_ino for p in root.rglob("*") if p.is_file()}


def test_put_writes_once_per_key(tmp_path: Path, frames: Frames) -> None:
    site = new_site(tmp_path, frames)
    assert site.put("a/b.txt", b"one") is True
    assert site.put("a/b.txt", b"one") is False
    assert site.put("a/b.txt", b"two", atomic=True) is True
    assert (tmp_path / "a" / "b.txt").read_bytes() == b"two"
    assert site.put("c.txt", b"first", key="k") is True
    assert site.put("c.txt", b"second", key="k") is False  # same key: not even looked at
    assert (tmp_path / "c.txt").read_bytes() == b"first"
    assert site.put("c.txt", b"second", key="k2") is True
    assert (tmp_path / "c.txt").read_bytes() == b"second"


@pytest.mark.parametrize(
    ("site_url", "locs"),
    [
        (None, []),
        ("", []),
        ("https://m.example/", ["https://m.example/", "https://m.example/tags/a&amp;b/"]),
        ("https://m.example/x", ["https://m.example/x/", "https://m.example/x/tags/a&amp;b/"]),
    ],
)
def test_sitemap(site_url: str | None, locs: list[str]) -> None:
    xml = sitemap(["", "tags/a&b/"], site_url).decode()
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset ')
    assert xml.endswith("</urlset>\n")
    assert [line.strip()[5:-6] for line in xml.splitlines() if "<loc>" in line] == locs
    assert "lastmod" not in xml  # no build dates: the same memory gives the same bytes


def test_sweep_deletes_only_what_it_did_not_write(tmp_path: Path, frames: Frames) -> None:
    site = new_site(tmp_path, frames)
    site.put("index.html", b"home")
    site.put("entries/x/index.html", b"entry")
    (tmp_path / MARKER).write_text("built by memsite")
    (tmp_path / "kept.txt").write_text("asked to keep")
    (tmp_path / "old" / "deep").mkdir(parents=True)
    (tmp_path / "old" / "deep" / "gone.html").write_text("stale")
    (tmp_path / "entries" / "y").mkdir()
    (tmp_path / "entries" / "y" / "index.html").write_text("stale")
    assert site.sweep({"kept.txt"}) == 2
    assert sorted(on_disk(tmp_path)) == [MARKER, "entries/x/index.html", "index.html", "kept.txt"]
    assert not (tmp_path / "old").exists() and not (tmp_path / "entries" / "y").exists()
    assert site.listing == survey(tmp_path)[0]  # what the build state records


def test_a_sweep_from_the_survey_leaves_what_a_walk_would(tmp_path: Path, frames: Frames) -> None:
    """A build that went on from the last sweeps from the folder as it began, and records
    each kept file's size and time as a new survey finds them, files it wrote twice too."""
    last = new_site(tmp_path, frames)
    for rel, data in [("index.html", b"home"), ("review/index.html", b"review"),
                      ("entries/x/index.html", b"x"), ("entries/y/index.html", b"y"),
                      ("same.txt", b"same"), ("assets/app.css", b"css")]:  # fmt: skip
        last.put(rel, data)
    (tmp_path / MARKER).write_text("built by memsite")
    (tmp_path / "stray" / "deep").mkdir(parents=True)
    (tmp_path / "stray" / "deep" / "gone.html").write_text("not written by any build")
    (tmp_path / "empty").mkdir()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            os.utime(path, (1_000_000_000, 1_000_000_000))  # long ago: a rewrite shows
    found = survey(tmp_path)
    site = new_site(tmp_path, frames)
    site.resume({"written": last.written, "tags": {}, "groups": {}, "lunr": {}})
    site.put("index.html", b"home, changed")
    site.put("review/index.html", b"review, without findings")
    site.put("review/index.html", b"review")  # as it was, but written again
    site.put("same.txt", b"same")  # the same key: not written
    site.put("entries/z/index.html", b"z")  # a new folder
    (tmp_path / "assets" / "app.css").write_bytes(b"css by MkDocs")  # copied over
    del site.written["entries/y/index.html"]  # a fact gone (sweep_untouched drops it)
    assert site.sweep_surveyed(found, last.written, {"assets/app.css"}) == 2
    assert sorted(on_disk(tmp_path)) == [
        MARKER, "assets/app.css", "entries/x/index.html", "entries/z/index.html",
        "index.html", "review/index.html", "same.txt",
    ]  # fmt: skip
    assert not (tmp_path / "stray").exists() and not (tmp_path / "entries" / "y").exists()
    assert not (tmp_path / "empty").exists()  # as the walk removes it
    assert site.listing == survey(tmp_path).files
    assert site.listing["same.txt"][1] == 1_000_000_000


def test_sweep_removes_a_stray_link_without_following_it(tmp_path: Path, frames: Frames) -> None:
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "keep.txt").write_text("not the site's")
    folder = tmp_path / "site"
    site = new_site(folder, frames)
    site.put("index.html", b"home")
    (folder / "to-folder").symlink_to(outside, target_is_directory=True)
    (folder / "to-file").symlink_to(outside / "deep" / "keep.txt")
    assert site.sweep(set()) == 2
    assert sorted(on_disk(folder)) == ["index.html"]
    assert (outside / "deep" / "keep.txt").read_text() == "not the site's"
    assert site.listing == survey(folder)[0]
    (folder / "kept").symlink_to(outside, target_is_directory=True)
    assert site.sweep({"kept"}) == 0
    assert site.listing is None  # a link kept: the state surveys the folder itself (and stops)


def test_an_update_rewrites_only_what_changed_as_a_cold_build(
    tmp_path: Path, frames: Frames
) -> None:
    store = copy_demo(tmp_path / "project")
    cache = PortalCache()
    memory = Memory.open(str(store), {}, store.parent).reopen(remember=True)
    warm = new_site(tmp_path / "warm", frames)
    portal = portal_for(memory, cache)
    assert warm.update(portal) > 2 * len(portal.entries)  # every page and JSON file
    before = inodes(tmp_path / "warm")
    added = memory.add("Feature branches are deleted after merge", "conventions", tags=["git"])
    memory = memory.reopen(remember=True)
    portal = portal_for(memory, cache)
    assert warm.update(portal) > 0
    after = inodes(tmp_path / "warm")
    changed = {rel for rel, ino in after.items() if before.get(rel) != ino}
    new = added["id"]
    assert {f"entries/{new}/index.html", f"entries/{new}.json", "tags/git/index.html"} <= changed
    assert {"index.html", "categories/conventions/index.html", "sitemap.xml"} <= changed
    assert "categories/operations/index.html" not in changed
    others = [rel for rel in before if rel.startswith("entries/")]
    assert len(others) == 128 and not changed & set(others)  # no other entry's files
    cold = new_site(tmp_path / "cold", frames)
    cold.update(portal_for(Memory.open(str(store), {}, store.parent)))
    assert on_disk(tmp_path / "warm") == on_disk(tmp_path / "cold")
    xml = (tmp_path / "cold" / "sitemap.xml").read_bytes()
    assert f"<loc>{URL}entries/{new}/</loc>".encode() in xml
    assert gzip.decompress((tmp_path / "cold" / "sitemap.xml.gz").read_bytes()) == xml
    page = (tmp_path / "cold" / "entries" / new / "index.html").read_text()
    assert f'rel="canonical" href="{URL}entries/{new}/"' in page  # the shell's id filled in
