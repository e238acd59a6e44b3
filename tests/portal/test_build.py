"""`memsite build` on the demo store: strict, complete, every link resolving, history both ways."""

from __future__ import annotations

import dataclasses
import gzip
import html
import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memsite.core.schema import ACTIVE
from tests.conftest import Invoke, make_entry, write_raw
from tests.portal.conftest import (
    Built,
    broken_links,
    build,
    copy_demo,
    html_pages,
    parse_page,
    resolve_link,
)
from tests.portal.searchfiles import read_search


def entry_links(site: Path, entry_id: str) -> set[str]:
    """Ids of the entries an entry page links to."""
    page = parse_page(site, site / "entries" / entry_id / "index.html")
    found = set()
    for _, attr, value in page.links:
        target = resolve_link(site, page.url, value)
        if attr == "href" and target is not None and target.parent.parent.name == "entries":
            found.add(target.parent.name)
    return found - {entry_id}


def test_demo_builds_strict_through_the_cli(runner: Invoke, tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "cli")
    out = tmp_path / "out"
    result = runner("--store", str(store), "build", "--strict", "--site-dir", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    answer = result.json()
    assert answer["entries"] == 64
    assert answer["warnings"] == []
    assert (out / "index.html").is_file()
    assert result.stderr == ""  # no progress counter with --json, no warnings


def test_default_output_is_the_store_site_folder(runner: Invoke, tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "demo")
    result = runner("--store", str(store), "build")
    assert result.exit_code == 0, result.stderr
    assert (store / "site" / "index.html").is_file()
    assert "Built the portal of 64 entries" in result.stdout


def test_every_internal_link_resolves(demo_site: Built) -> None:
    assert broken_links(demo_site.site) == []


def test_every_entry_has_a_page_and_json(demo_site: Built) -> None:
    result = demo_site.memory.state().result
    assert any(result.status[e.id] == ACTIVE for e in result.entries)
    for entry in result.entries:
        page = demo_site.site / "entries" / entry.id / "index.html"
        assert page.is_file(), entry.id
        data = json.loads((demo_site.site / "entries" / f"{entry.id}.json").read_text())
        assert data["id"] == entry.id
        assert data["content"] == entry.content
        assert data["status"] == result.status[entry.id]


def test_history_links_run_both_ways_along_whole_chains(demo_site: Built) -> None:
    result = demo_site.memory.state().result
    chains = [e for e in result.entries if result.edges.get(e.id)]
    assert chains, "the demo store has supersession chains"
    for entry in result.entries:
        links = entry_links(demo_site.site, entry.id)
        related = {e.id for e in result.replaced(entry.id)} | {
            e.id for e in result.replaced_by(entry.id)
        }
        assert related <= links, entry.id
    longest = max(chains, key=lambda e: len(result.replaced(e.id)))
    assert len(result.replaced(longest.id)) >= 2  # a chain of three or more, walked transitively


def test_superseded_pages_carry_a_banner_to_the_current_version(demo_site: Built) -> None:
    result = demo_site.memory.state().result
    for entry in result.entries:
        status = result.status[entry.id]
        html = (demo_site.site / "entries" / entry.id / "index.html").read_text()
        if status == ACTIVE:  # a status banner: none (a drifted or stale one may show)
            assert not re.search(r'admonition-title">(Superseded|Duplicate|Overridden)<', html)
            continue
        assert "memsite-banner" in html, entry.id
        banner = html.split("memsite-banner", 1)[1].split("</div>", 1)[0]
        if status == "superseded":
            heads = [e.id for e in result.replaced_by(entry.id) if result.status[e.id] == ACTIVE]
            assert all(f"../{i}/" in banner for i in heads)
        elif status == "retired":
            assert "Retired" in banner and "without a successor" in banner
        else:
            assert f"../{result.winner[entry.id]}/" in banner


def test_entries_stay_out_of_the_navigation(demo_site: Built) -> None:
    home = (demo_site.site / "index.html").read_text()
    nav = home.split('class="md-nav md-nav--primary"', 1)[1].split('class="md-content"', 1)[0]
    assert "entries/" not in nav
    for label in ("Categories", "Tags", "Timeline", "Review", "Search"):
        assert label in nav


def test_pages_and_raw_files(demo_site: Built) -> None:
    site = demo_site.site
    for path in ("", "tags/", "timeline/", "review/", "search/", "categories/conventions/"):
        assert (site / path / "index.html").is_file(), path
    result = demo_site.memory.state().result
    for tag in {t for e in result.entries for t in e.tags}:
        assert (site / "tags" / tag / "index.html").is_file(), tag
    index_md = (site / "index.md").read_text()
    assert index_md.startswith("<!-- Auto-generated. Do not edit.")
    llms = (site / "llms.txt").read_text()
    assert llms.startswith("# Acme Checkout")
    assert "(index.md)" in llms
    assert (site / "assets" / "memsite" / "search.js").is_file()
    assert not (site / "assets" / "memsite" / "lunr.js").exists()
    assert (site / ".nojekyll").exists()
    assert not (site / "entries" / "memsite-shell").exists()
    for page in html_pages(site):
        assert "memsite-slot" not in page.path.read_text(), page.url


def test_category_page_folds_inactive_entries(demo_site: Built) -> None:
    html = (demo_site.site / "categories" / "conventions" / "index.html").read_text()
    active, _, folded = html.partition("<details")
    result = demo_site.memory.state().result
    for entry in result.entries:
        if entry.category != "conventions":
            continue
        link = f"entries/{entry.id}/"
        if result.status[entry.id] == ACTIVE:
            assert link in active
        else:
            assert link in folded and link not in active
    # newest first
    order = [e.id for e in result.active("conventions")]
    positions = [active.index(f"entries/{i}/") for i in order]
    assert positions == sorted(positions)


def test_timeline_lists_every_entry_by_month_and_date(demo_site: Built) -> None:
    index = (demo_site.site / "timeline" / "index.html").read_text()
    result = demo_site.memory.state().result
    months = list(dict.fromkeys(e.created.strftime("%Y-%m") for e in result.entries))
    assert months == ["2026-11", "2026-10", "2026-09", "2026-08", "2026-07"]
    links = [index.index(f'href="{m}/"') for m in months]
    assert links == sorted(links) and "November 2026" in index
    for month in months:
        html = (demo_site.site / "timeline" / month / "index.html").read_text()
        mine = [e for e in result.entries if e.created.strftime("%Y-%m") == month]
        assert all(f"entries/{e.id}/" in html for e in mine)
        others = [e for e in result.entries if e not in mine]
        rows = re.sub(r" · replaces .*?</span>", "", html)  # a change names what it replaced
        assert not any(f"entries/{e.id}/" in rows for e in others)
        days = [e.created.strftime("%Y-%m-%d") for e in mine]
        positions = [html.index(f'id="d-{d}"') for d in dict.fromkeys(days)]
        assert positions == sorted(positions)


def test_review_page_shows_the_findings(demo_site: Built) -> None:
    html = (demo_site.site / "review" / "index.html").read_text()
    assert "Contradiction (1)" in html
    assert "lint-command" in html


def test_home_page_counts_and_recent_changes(demo_site: Built) -> None:
    html = (demo_site.site / "index.html").read_text()
    assert "51 active facts out of 64 entries" in html  # one fact of the demo is retired
    result = demo_site.memory.state().result
    assert f"entries/{result.entries[0].id}/" in html.split('id="recent-changes"', 1)[1]
    assert 'id="index"' in html  # index.md rendered


def test_sitemap_and_search_index(demo_site: Built) -> None:
    site = demo_site.site
    assert (
        gzip.decompress((site / "sitemap.xml.gz").read_bytes())
        == (site / "sitemap.xml").read_bytes()
    )
    # MkDocs' index holds the navigation pages and one document per fact, as memsite's own
    # (search/) holds every entry.
    material = json.loads((site / "search" / "search_index.json").read_text())
    locations = [d["location"] for d in material["docs"]]
    assert {"", "tags/", "timeline/", "review/", "search/"} <= set(locations)
    result = demo_site.memory.state().result
    facts = [d for d in material["docs"] if d["location"].startswith("entries/")]
    pages = sorted(f"entries/{e.id}/" for e in result.entries)
    assert sorted(d["location"] for d in facts) == pages
    assert len(locations) == len(set(locations))
    by_location = {d["location"]: d for d in facts}
    for entry in result.entries:
        doc = by_location[f"entries/{entry.id}/"]
        assert doc["status"] == result.status[entry.id]
        assert (doc["category"], doc["tags"]) == (entry.category, list(entry.tags))
        assert html.unescape(doc["text"]) == " ".join(entry.content.split())
        page = (site / "entries" / entry.id / "index.html").read_text()
        assert f"<title>{doc['title']} - " in page
    assert sorted(read_search(site).ids) == sorted(e.id for e in result.entries)


def test_sitemap_lists_every_page_with_a_site_url(tmp_path: Path) -> None:
    built = build(copy_demo(tmp_path), site_url="https://example.org/memory/")
    xml = (built.site / "sitemap.xml").read_text()
    assert "<loc>https://example.org/memory/</loc>" in xml
    result = built.memory.state().result
    assert xml.count("<loc>https://example.org/memory/entries/") == len(result.entries)
    html = (built.site / "entries" / result.entries[0].id / "index.html").read_text()
    assert (
        f'<link rel="canonical" href="https://example.org/memory/entries/{result.entries[0].id}/">'
        in html
    )


def test_rebuild_gives_the_same_bytes(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    first = build(store, tmp_path / "a").site
    second = build(store, tmp_path / "b").site
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel


@pytest.mark.parametrize("parallel", [False, True])
def test_serial_and_parallel_builds_agree(tmp_path: Path, parallel: bool) -> None:
    store = copy_demo(tmp_path)
    built = build(store, tmp_path / "site", parallel=parallel)
    reference = build(store, tmp_path / "ref", parallel=not parallel)
    for path in (built.site / "entries").rglob("*.html"):
        rel = path.relative_to(built.site)
        assert path.read_bytes() == (reference.site / rel).read_bytes()


def test_entry_pages_shared_with_the_worker_are_all_written_and_remembered(
    tmp_path: Path,
) -> None:
    """Over 400 entries, this process and a forked worker take the entry pages a chunk at a
    time: every page is written as a serial build writes it, and the site remembers the key
    of each (those the worker wrote too), so an update rewrites none of them."""
    import sys

    from memsite.memory import Memory
    from memsite.portal.build import CHUNK, build_site

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from gen_store import generate

    store = generate(3 * CHUNK + 17, tmp_path / "big")
    made = {}
    for parallel in (True, False):
        memory = Memory.open(str(store), {}, store.parent)
        site, portal, _ = build_site(memory, tmp_path / str(parallel), parallel=parallel)
        made[parallel] = site
    pages = [f"entries/{e.id}/index.html" for e in portal.entries]
    assert len(pages) > 400
    for rel in pages:
        assert made[True].written[rel] == made[False].written[rel], rel
        assert (tmp_path / "True" / rel).read_bytes() == (tmp_path / "False" / rel).read_bytes()
    assert made[True].update(portal) == 0


@pytest.mark.slow
def test_long_builds_say_each_step_and_count_pages(runner: Invoke, tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from gen_store import generate

    store = generate(1000, tmp_path / "big")
    result = runner("--store", str(store), "build", "--site-dir", str(tmp_path / "site"))
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == "Reading 1,000 entries…"  # the first thing it does, said first
    stages = ["Page frames (MkDocs)…", "Search index…", "Tag, category and month pages…"]
    stages += ["Entry pages…"]
    assert [line for line in lines if line in stages] == stages
    counters = [line for line in lines if line.startswith("Entry pages ")]
    assert counters[-1] == "Entry pages 1,000 / 1,000"
    assert 2 <= len(counters) <= 5  # a line per quarter when stderr is not a terminal
    assert lines[-1].startswith("Findings")
    for flag in ("--json", "--quiet"):
        quiet = runner("--store", str(store), "build", "--site-dir", str(tmp_path / "site"), flag)
        assert quiet.exit_code == 0 and quiet.stderr == ""
    # --clean builds beside the last site and removes it once the new one is in: said last
    clean = runner("--store", str(store), "build", "--clean", "--site-dir", str(tmp_path / "site"))
    assert clean.exit_code == 0, clean.stderr
    assert clean.stderr.splitlines()[-2:] == [lines[-1], "Removing the earlier site…"]
    assert (tmp_path / "site" / "index.html").is_file()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.building-")]


def test_llms_txt_counts_findings_in_words(tmp_path: Path) -> None:
    from memsite.portal.model import Portal
    from memsite.portal.render import Renderer

    renderer = Renderer()
    empty = Portal("M", None, [], {}, [], [], "", {}, {}, {}, {}, {})
    for count, words in ((0, "0 findings"), (1, "1 finding "), (2, "2 findings")):
        portal = dataclasses.replace(empty, findings=[object()] * count)  # type: ignore[list-item]
        assert words in renderer.llms_txt(portal)


def test_the_timeline_links_the_sessions_shared_in_git(store_root: Path, tmp_path: Path) -> None:
    from memsite.memory import Memory
    from memsite.portal.build import build_site

    (store_root / "config.json").write_text(
        json.dumps({"memory": {"trackDaily": True}}), encoding="utf-8"
    )
    memory = Memory.open(str(store_root))
    memory.add("Use pnpm", "conventions")
    memory.log("Wire the <login> page", "feature-a", kind="task")
    memory.log("The deploy key is AKIAZ7VQ3XK2P4L9WQ8M", "feature-a", allow_secret=True)
    site = tmp_path / "site"
    build_site(Memory.open(str(store_root)), site)
    html = (site / "timeline" / "index.html").read_text(encoding="utf-8")
    month = memory.list_entries()[0]["created"][:7]
    days = (site / "timeline" / month / "index.html").read_text(encoding="utf-8")
    assert '<a href="../../timeline/#s-feature-a">feature-a</a>' in days  # the day links it
    assert '<h3 id="s-feature-a">feature-a' in html
    assert "[task] Wire the &lt;login&gt; page" in html  # escaped, never markup
    assert "AKIAZ7VQ3XK2P4L9WQ8M" not in html  # redacted


def test_sessions_stay_off_the_portal_unless_shared_in_git(
    store_root: Path, tmp_path: Path
) -> None:
    from memsite.memory import Memory
    from memsite.portal.build import build_site

    memory = Memory.open(str(store_root))
    memory.add("Use pnpm", "conventions")
    memory.log("a local note", "feature-a")
    site = tmp_path / "site"
    build_site(Memory.open(str(store_root)), site)
    html = (site / "timeline" / "index.html").read_text(encoding="utf-8")
    assert "feature-a" not in html and "a local note" not in html


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("stop", [KeyboardInterrupt, MemoryError])
def test_a_build_stopped_halfway_leaves_the_previous_site_whole(
    store_root: Path, tmp_path: Path, stop: type[BaseException]
) -> None:
    """The site is built beside the old one and swapped in when done: a build interrupted
    (Ctrl-C, out of memory) in the middle of the entry pages changes nothing there."""
    from memsite.memory import Memory
    from memsite.portal.build import build_site

    memory = Memory.open(str(store_root))
    memory.add("Use pnpm", "conventions")
    site = tmp_path / "site"
    build_site(Memory.open(str(store_root)), site, parallel=False)
    before = _files(site)
    start = datetime(2026, 3, 7, 15, tzinfo=UTC)
    for n in range(450):  # progress is told every 200 pages
        created = start + timedelta(minutes=n)
        write_raw(store_root, make_entry(f"Deploy step {n} runs late", "operations", created))

    def halfway(done: int, total: int) -> None:
        if 0 < done < total:
            raise stop

    with pytest.raises(stop):
        build_site(Memory.open(str(store_root)), site, parallel=False, progress=halfway)
    assert _files(site) == before
    assert [p.name for p in tmp_path.iterdir() if p.name != ".memsite"] == [
        "site"
    ]  # none half-built
    _, _, result = build_site(Memory.open(str(store_root)), site, parallel=False)
    assert result.site_dir == site and result.entries == 451
    assert len([p for p in (site / "entries").iterdir() if p.is_dir()]) == 451


def test_what_a_killed_build_left_beside_the_site_goes_at_the_next(
    store_root: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    from memsite.memory import Memory
    from memsite.portal.build import build_site

    Memory.open(str(store_root)).add("Use pnpm", "conventions")
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    ).stdout.strip()
    left = tmp_path / f".site.building-{gone}-0badc0de"  # a build killed with SIGKILL
    (left / "entries").mkdir(parents=True)
    other = tmp_path / f".site.building-{os.getpid()}-cafe"  # a build still running: kept
    other.mkdir()
    build_site(Memory.open(str(store_root)), tmp_path / "site", parallel=False)
    assert not left.exists() and other.exists()
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_build_that_does_not_fork_leaves_this_process_s_priority(
    store_root: Path, tmp_path: Path
) -> None:
    """The entry pages' worker lowers its own priority; run inline (no fork, as in serve) it
    lowered the caller's for good, and serve went on at nice 10."""
    from memsite.memory import Memory
    from memsite.portal.build import build_site

    Memory.open(str(store_root)).add("Use pnpm", "conventions")
    before = os.nice(0)
    build_site(Memory.open(str(store_root)), tmp_path / "site", parallel=False)
    assert os.nice(0) == before


@pytest.mark.slow
def test_on_a_terminal_the_entry_pages_show_a_live_bar(tmp_path: Path) -> None:
    """Under a pseudo-terminal: click's progress bar, redrawn in place (carriage returns)."""
    import pty
    import subprocess
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from gen_store import generate

    from tests.conftest import clean_env

    store = generate(1000, tmp_path / "big")
    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "memsite", "--store", str(store), "build"]
    process = subprocess.Popen(
        [*command, "--site-dir", str(tmp_path / "site")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env={**clean_env(), "COLUMNS": "100"},
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the build is done
            break
        if not chunk:
            break
        shown += chunk
    assert process.wait(timeout=600) == 0
    os.close(leader)
    text = shown.decode("utf-8", "replace")
    assert text.startswith("Reading 1,000 entries…")
    bar = text[text.index("Entry pages…") :]
    drawn = [part for part in bar.split("\r") if "Entry pages  [" in part]
    assert len(drawn) >= 3 and "100%" in drawn[-1] and "#" in drawn[-1]  # redrawn in place
    assert sum("]    0%" in part for part in drawn) == 1  # one bar, not one more at the end
    assert sum("100%" in part for part in drawn) == 1
    assert "Entry pages 1,000 / 1,000" not in text  # the plain lines are for pipes
