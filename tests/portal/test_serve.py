"""serve's incremental path: after a change only the touched files are rewritten."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from memsite.memory import Memory
from memsite.portal.cache import PortalCache
from memsite.portal.serve import _Watch, background, cold_build, update
from tests.portal.conftest import broken_links, copy_demo
from tests.portal.searchfiles import read_search

URL = "http://127.0.0.1:8000/"


def mtimes(site: Path) -> dict[str, int]:
    return {str(p.relative_to(site)): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}


def test_one_new_entry_rewrites_only_what_shows_it(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    memory = Memory.open(str(store), {}, tmp_path)
    site_dir = tmp_path / "serve-site"
    session = cold_build(memory, site_dir, URL, PortalCache())
    before = mtimes(site_dir)
    logs: list[str] = []
    added = Memory.open(str(store), {}, tmp_path).add(
        "Feature branches are deleted after merge", "conventions", tags=["git"]
    )
    session = update(session, logs.append)
    after = mtimes(site_dir)
    changed = {k for k in after if before.get(k) != after[k]}
    new_id = added["id"]
    assert f"entries/{new_id}/index.html" in changed
    assert f"entries/{new_id}.json" in changed
    assert {"index.html", "categories/conventions/index.html", "timeline/index.html"} <= changed
    assert "tags/git/index.html" in changed
    untouched = [k for k in before if k.startswith("entries/") and k not in changed]
    assert len(untouched) >= 120  # the other 64 entry pages and JSON files stay as they were
    assert len(changed) < 20, sorted(changed)
    assert logs and logs[0].startswith("Rebuilt ")
    assert new_id in (site_dir / "index.html").read_text()
    assert broken_links(site_dir) == []
    background(session)
    assert read_search(site_dir).ids[-1] == new_id  # refs count from the oldest


def test_superseding_and_deleting_update_both_sides(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    memory = Memory.open(str(store), {}, tmp_path)
    site_dir = tmp_path / "serve-site"
    session = cold_build(memory, site_dir, URL, PortalCache())
    old = memory.state().result.active("operations")[0]
    writer = Memory.open(str(store), {}, tmp_path)
    new_id = writer.add("A better fact", "operations", supersedes=[old.id], reason="moved")["id"]
    session = update(session, lambda _: None)
    old_page = (site_dir / "entries" / old.id / "index.html").read_text()
    assert "memsite-banner" in old_page and f"../{new_id}/" in old_page
    Memory.open(str(store), {}, tmp_path).delete(new_id)
    session = update(session, lambda _: None)
    assert not (site_dir / "entries" / new_id).exists()
    assert not (site_dir / "entries" / f"{new_id}.json").exists()
    assert "memsite-banner" not in (site_dir / "entries" / old.id / "index.html").read_text()
    assert broken_links(site_dir) == []


def test_config_change_rebuilds_everything(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    memory = Memory.open(str(store), {}, tmp_path)
    site_dir = tmp_path / "serve-site"
    session = cold_build(memory, site_dir, URL, PortalCache())
    (store / "config.json").write_text(json.dumps({"site": {"site_name": "Renamed memory"}}))
    logs: list[str] = []
    session = update(session, logs.append)
    assert "Config changed" in logs[0]
    assert "<title>Renamed memory</title>" in (site_dir / "index.html").read_text()
    assert session.memory.config.site["site_name"] == "Renamed memory"


def test_watch_ignores_reads_and_temporaries(tmp_path: Path) -> None:
    entries = tmp_path / "entries"
    watch = _Watch(entries, tmp_path / "config.json")

    def event(kind: str, path: Path) -> SimpleNamespace:
        return SimpleNamespace(event_type=kind, src_path=str(path), is_directory=False)

    for ignored in (
        event("opened", entries / "a.json"),
        event("closed_no_write", entries / "a.json"),
        event("created", entries / ".tmp-1-abc"),
        event("created", entries / "notes.txt"),
        event("modified", tmp_path / "index.md"),
    ):
        watch.dispatch(ignored)
        assert not watch.dirty
    watch.dispatch(event("created", entries / "2026-01-01T00-00-00Z-abcd1234.json"))
    assert watch.dirty
    watch.dirty = False
    watch.dispatch(event("modified", tmp_path / "config.json"))
    assert watch.dirty


def test_updates_give_the_pages_of_a_cold_build(tmp_path: Path) -> None:
    """Pages serve skips without comparing (unchanged view, no relation) are what a cold
    build of the same store writes, after an addition and a supersession."""
    store = copy_demo(tmp_path)
    memory = Memory.open(str(store), {}, tmp_path)
    site_dir = tmp_path / "serve-site"
    session = cold_build(memory, site_dir, URL, PortalCache())
    writer = Memory.open(str(store), {}, tmp_path)
    text = "Releases are cut from main every Tuesday"
    first = writer.add(text, "conventions")
    session = update(session, lambda _: None)
    some = next(e for e in session.portal.entries if e.active and e.id != first["id"])
    Memory.open(str(store), {}, tmp_path).amend(some.id, some.content + " Checked again.")
    session = update(session, lambda _: None)
    fresh = tmp_path / "fresh"
    cold_build(Memory.open(str(store), {}, tmp_path), fresh, URL, PortalCache())
    pages = sorted(p.relative_to(fresh) for p in (fresh / "entries").glob("*/index.html"))
    assert len(pages) == 66
    for rel in pages:
        assert (site_dir / rel).read_bytes() == (fresh / rel).read_bytes(), rel


def test_after_updates_and_their_follow_up_the_site_is_a_cold_builds(tmp_path: Path) -> None:
    """Every file: the category, month and tag pages serve did not render again too (their
    entries unchanged), the search index, the raw files, the sitemap."""
    store = copy_demo(tmp_path)
    memory = Memory.open(str(store), {}, tmp_path)
    site_dir = tmp_path / "serve-site"
    session = cold_build(memory, site_dir, URL, PortalCache())
    writer = Memory.open(str(store), {}, tmp_path)
    writer.add("Releases are cut from main every Tuesday", "conventions", tags=["release"])
    session = update(session, lambda _: None)
    background(session)
    some = next(e for e in session.portal.entries if e.active and e.category == "decisions")
    Memory.open(str(store), {}, tmp_path).amend(some.id, some.content + " Checked again.")
    session = update(session, lambda _: None)
    background(session)
    fresh = tmp_path / "fresh"
    cold_build(Memory.open(str(store), {}, tmp_path), fresh, URL, PortalCache())

    def files(root: Path) -> set[Path]:
        return {p.relative_to(root) for p in root.rglob("*") if p.is_file()}

    assert files(site_dir) == files(fresh)
    for rel in sorted(files(fresh)):
        assert (site_dir / rel).read_bytes() == (fresh / rel).read_bytes(), rel


SERVE_WHILE_WRITING = """
import json, os, sys, uuid
from pathlib import Path
from memsite.memory import Memory
from memsite.portal.serve import serve

store = Path(sys.argv[1])
written = []

def log(line):
    print(line, flush=True)
    if line.startswith("Built "):  # the first build is done, the watcher not yet started
        for n in range(20):
            ident = str(uuid.uuid4())
            obj = {"id": ident, "category": "operations", "confidence": "medium",
                   "content": f"Fact {n} written while the portal was being built",
                   "created": f"2026-03-07T16:{n:02d}:00.000Z"}
            tmp = store / "entries" / f".{ident}.tmp"
            tmp.write_text(json.dumps(obj))
            os.replace(tmp, store / "entries" / f"2026-03-07T16-{n:02d}-00Z-{ident[:8]}.json")
            written.append(ident)
        print("WROTE " + " ".join(written), flush=True)

serve(Memory.open(str(store)), "127.0.0.1", 0, log, lambda line: print(line, flush=True),
      ready=lambda url: print("URL " + url, flush=True))
"""


def test_facts_written_during_the_first_build_reach_the_site(tmp_path: Path) -> None:
    """The watcher starts after the first build: what was written meanwhile is taken in as
    soon as it starts, not at the next change (there may be none for hours)."""
    import subprocess
    import sys
    import time
    import urllib.request

    from tests.conftest import clean_env

    store = copy_demo(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE_WHILE_WRITING, str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=clean_env(),
    )
    try:
        assert proc.stdout is not None
        ids: list[str] = []
        url = ""
        while not (ids and url):
            line = proc.stdout.readline()  # ends (with "") should the process end
            assert line, "serve ended before it served"
            if line.startswith("WROTE "):
                ids = line.split()[1:]
            elif line.startswith("URL "):
                url = line.split()[1]
        missing = set(ids)
        deadline = time.monotonic() + 120
        while missing:
            assert time.monotonic() < deadline, f"{len(missing)} facts never reached the site"
            for ident in sorted(missing):
                try:
                    with urllib.request.urlopen(f"{url}entries/{ident}/", timeout=5) as page:
                        if page.status == 200:
                            missing.discard(ident)
                except OSError:
                    pass
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.communicate(timeout=30)
