"""The portal's release pages (`build --releases`, `site.releases`): built by the CLI from a real
git history of three tags where facts were added, amended, retired and deleted between them;
tag names from git safely slugged and escaped; and the pure layout of a release's pages."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from memsite.cli.main import main
from memsite.portal.model import slug
from memsite.portal.releases import ReleaseFact, ReleaseRef, ReleaseView, release_sections
from tests.conftest import Result, git
from tests.portal.conftest import broken_links

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
HOSTILE = 'v9"><b>&x'  # a valid git tag name: markup characters, but no space or ".."
HOSTILE_SLUG = slug(HOSTILE)


def invoke(root: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """`memsite ARGS` in-process in ``root`` (as the `runner` fixture, for module fixtures)."""
    cli = CliRunner()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        clean = {"MEMSITE_STORE": None, "MEMSITE_AGENT": None, "MEMSITE_SESSION": None}
        with cli.isolation(env={**clean, **(env or {})}) as streams:
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            return Result(code, streams[0].getvalue().decode(), streams[1].getvalue().decode())
    finally:
        os.chdir(cwd)


def written(root: Path, *args: str) -> str:
    done = invoke(root, *args, "--json")
    assert done.exit_code == 0, done.stderr
    return str(done.json()["id"])


@dataclass
class History:
    """A project whose memory took three tagged commits: the ids of its facts, by name."""

    root: Path
    ids: dict[str, str]

    @property
    def store(self) -> Path:
        return self.root / ".memsite"

    def build(self, *args: str, env: dict[str, str] | None = None) -> tuple[Result, Path]:
        site = self.root / f"site-{len(list(self.root.glob('site-*')))}"
        done = invoke(self.root, "build", "--site-dir", str(site), *args, env=env)
        return done, site


def make_history(root: Path) -> History:
    """v1: pnpm, staging, sqlite, lint; v2: pnpm amended to pnpm 9, staging retired, sqlite
    deleted, docker added; v3: lint deleted, tracing added; then a hostile tag on v3."""
    root.mkdir()
    git(root, "init", "-q")
    assert invoke(root, "init").exit_code == 0
    ids = {
        "pnpm": written(root, "add", "Use pnpm for installs", "-c", "conventions"),
        "staging": written(root, "add", "Deploys go through staging", "-c", "operations"),
        "sqlite": written(root, "add", "Tests run on <SQLite> & friends", "-c", "decisions"),
        "lint": written(root, "add", "Run ruff before pushing", "-c", "conventions"),
    }
    commit_and_tag(root, "v1")
    ids["pnpm9"] = written(root, "amend", ids["pnpm"][:8], "Use pnpm 9 for installs")
    assert invoke(root, "retire", ids["staging"][:8], "--reason", "no staging").exit_code == 0
    assert invoke(root, "delete", ids["sqlite"][:8]).exit_code == 0
    ids["docker"] = written(root, "add", "Images build with docker buildx", "-c", "operations")
    commit_and_tag(root, "v2")
    assert invoke(root, "delete", ids["lint"][:8]).exit_code == 0
    ids["tracing"] = written(root, "add", "Traces go to tempo", "-c", "architecture")
    commit_and_tag(root, "v3")
    git(root, "tag", HOSTILE)
    return History(root, ids)


def commit_and_tag(root: Path, tag: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"memory at {tag}")
    git(root, "tag", tag)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    return make_history(tmp_path_factory.mktemp("releases") / "project")


@pytest.fixture(scope="module")
def site(history: History) -> Path:
    done, where = history.build("--releases", "v*")
    assert done.exit_code == 0, done.stderr
    return where


def article(path: Path) -> str:
    """The body memsite rendered into a page's frame."""
    text = path.read_text(encoding="utf-8")
    return text.split('id="memsite-content" tabindex="-1"></span>', 1)[1].split("</article>")[0]


def entry_href(entry_id: str) -> str:
    return f'href="../../entries/{entry_id}/"'


def section(body: str, anchor: str) -> str:
    """One section (from its heading to the next) of a release page."""
    return re.split(r"<h[23] ", body.split(f'id="{anchor}"', 1)[1], maxsplit=1)[0]


# --- the built site ----------------------------------------------------------------------------


@needs_git
def test_the_list_shows_each_release_newest_first_with_its_counts(site: Path) -> None:
    body = article(site / "as-of" / "index.html")
    rows = re.findall(r'<tr><td><a href="([^"]+)/">([^<]+)</a></td>(.*?)</tr>', body)
    assert [(href, tag) for href, tag, _ in rows] == [
        (HOSTILE_SLUG, "v9&#34;&gt;&lt;b&gt;&amp;x"),
        ("v3", "v3"),
        ("v2", "v2"),
        ("v1", "v1"),
    ]
    counts = {href: re.findall(r"<td>(\d+)</td>", cells) for href, _, cells in rows}
    # active, then added, replaced, retired, removed since the release before
    assert counts["v3"] == ["3", "1", "0", "0", "1"]
    assert counts["v2"] == ["3", "2", "1", "1", "1"]
    assert counts["v1"] == ["4"] and "the first release" in rows[-1][2]
    assert re.search(r"<code>[0-9a-f]{12}</code>", rows[-1][2])


@needs_git
def test_a_release_page_lists_its_changes_then_its_facts_by_category(
    history: History, site: Path
) -> None:
    ids = history.ids
    body = article(site / "as-of" / "v2" / "index.html")
    assert 'Since <a href="../v1/">v1</a>: 2 added, 1 replaced, 1 retired, 1 removed.' in body
    added = section(body, "added")
    assert entry_href(ids["pnpm9"]) in added and entry_href(ids["docker"]) in added
    replaced = section(body, "replaced")
    assert re.search(
        f"{entry_href(ids['pnpm'])}>Use pnpm for installs</a> → "
        f"<a {entry_href(ids['pnpm9'])}>Use pnpm 9 for installs</a>",
        replaced,
    )
    assert entry_href(ids["staging"]) in section(body, "retired")
    removed = section(body, "removed")
    assert "Tests run on ‹SQLite› ＆ friends <code>" in removed
    assert f"<code>{ids['sqlite'][:8]}</code>" in removed and "(no longer in the memory)" in removed
    # active at v2, by category in config order; the lint fact, deleted since, as text
    headings = re.findall(r'<h3 id="c-([a-z]+)">', body)
    assert headings == ["conventions", "operations"]
    conventions = section(body, "c-conventions")
    assert entry_href(ids["pnpm9"]) in conventions
    assert "Run ruff before pushing <code>" in conventions
    assert entry_href(ids["lint"]) not in body
    assert entry_href(ids["docker"]) in section(body, "c-operations")


@needs_git
def test_the_first_release_lists_its_facts_and_no_changes(history: History, site: Path) -> None:
    body = article(site / "as-of" / "v1" / "index.html")
    assert "The first release: none before it to compare with." in body
    assert 'id="changes"' not in body
    assert re.findall(r'<h3 id="c-([a-z]+)">', body) == ["conventions", "operations", "decisions"]
    for name in ("pnpm", "staging"):
        assert entry_href(history.ids[name]) in body
    # deleted since: never linked, shown as escaped text with its short id
    decisions = section(body, "c-decisions")
    assert "entries/" not in decisions
    assert f"Tests run on ‹SQLite› ＆ friends <code>{history.ids['sqlite'][:8]}</code>" in decisions


@needs_git
def test_entry_pages_say_in_which_releases_the_fact_was_active(
    history: History, site: Path
) -> None:
    def releases_of(name: str) -> list[tuple[str, str]]:
        page = site / "entries" / history.ids[name] / "index.html"
        found = re.search(r"Active in releases: (.*?)</p>", page.read_text(encoding="utf-8"))
        if found is None:
            return []
        return re.findall(r'<a href="../../as-of/([^"]+)/">([^<]+)</a>', found.group(1))

    hostile = (HOSTILE_SLUG, "v9&#34;&gt;&lt;b&gt;&amp;x")
    assert releases_of("pnpm") == [("v1", "v1")]
    assert releases_of("staging") == [("v1", "v1")]
    assert releases_of("pnpm9") == [("v2", "v2"), ("v3", "v3"), hostile]
    assert releases_of("tracing") == [("v3", "v3"), hostile]
    # the timeline links the releases
    timeline = article(site / "timeline" / "index.html")
    assert '<a href="../as-of/">Releases</a>: the memory at each of 4 tagged releases' in timeline


@needs_git
def test_a_hostile_tag_name_is_slugged_and_escaped(site: Path) -> None:
    assert re.fullmatch(r"_[0-9a-f]{12}", HOSTILE_SLUG)
    assert sorted(p.name for p in (site / "as-of").iterdir()) == sorted(
        ["index.html", "v1", "v2", "v3", HOSTILE_SLUG]
    )
    page = (site / "as-of" / HOSTILE_SLUG / "index.html").read_text(encoding="utf-8")
    assert "<b>" not in page and '">' + "<b>" not in page
    assert "Release v9&#34;&gt;&lt;b&gt;&amp;x</h1>" in page
    assert "<title>Release v9”›‹b›＆x" in page  # the page title: look-alikes, as every title
    for path in site.rglob("*.html"):
        assert "<b>&x" not in path.read_text(encoding="utf-8"), path
    assert broken_links(site) == []


@pytest.mark.parametrize(
    "tag", ["../../x", "..", "<script>alert(1)</script>", "a/b", "V1", "v1~2", "memsite-shell/x"]
)
def test_a_tag_that_is_no_name_gets_a_hashed_slug(tag: str) -> None:
    made = slug(tag)
    assert re.fullmatch(r"_[0-9a-f]{12}", made)  # one path segment: no "/", "..", "~" or markup


@needs_git
def test_the_sitemap_lists_the_release_pages(history: History) -> None:
    done, where = history.build("--releases", "v*", env={"MEMSITE_SITE_URL": "https://m.test/"})
    assert done.exit_code == 0, done.stderr
    sitemap = (where / "sitemap.xml").read_text(encoding="utf-8")
    for path in ("as-of/", "as-of/v1/", "as-of/v3/", f"as-of/{HOSTILE_SLUG}/"):
        assert f"<loc>https://m.test/{path}</loc>" in sitemap


# --- turning it on and off ----------------------------------------------------------------------


@pytest.fixture
def configured(history: History) -> Iterator[History]:
    """The history with ``site.releases`` set in its config (restored afterwards)."""
    path = history.store / "config.json"
    before = path.read_text(encoding="utf-8")
    config = json.loads(before)
    config.setdefault("site", {})["releases"] = "v[12]"
    path.write_text(json.dumps(config), encoding="utf-8")
    yield history
    path.write_text(before, encoding="utf-8")


@needs_git
def test_site_releases_in_the_config_is_used_without_the_option(configured: History) -> None:
    done, where = configured.build("--json")
    assert done.exit_code == 0, done.stderr
    assert done.json()["releases"] == 2
    assert sorted(p.name for p in (where / "as-of").iterdir()) == ["index.html", "v1", "v2"]
    done, where = configured.build("--releases", "v3")  # the option wins over the config
    assert done.exit_code == 0, done.stderr
    assert sorted(p.name for p in (where / "as-of").iterdir()) == ["index.html", "v3"]
    done, where = configured.build("--releases", "")  # and "" turns them off
    assert done.exit_code == 0, done.stderr
    assert not (where / "as-of").exists()


@needs_git
def test_without_releases_the_site_has_no_trace_of_them(history: History) -> None:
    done, where = history.build()
    assert done.exit_code == 0, done.stderr
    assert not (where / "as-of").exists()
    for path in where.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert "as-of/" not in text and "Active in releases" not in text, path
    assert "as-of" not in (where / "sitemap.xml").read_text(encoding="utf-8")


@needs_git
def test_a_pattern_no_tag_matches_builds_with_a_warning(history: History) -> None:
    done, where = history.build("--releases", "nope*")
    assert done.exit_code == 0, done.stderr
    assert done.stderr.strip() == (
        "Warning: no git tag matches 'nope*': the portal has no release pages"
    )
    assert not (where / "as-of").exists()


@needs_git
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--releases", "-v*"), "Error: invalid releases pattern '-v*': give a tag glob"),
        (("--releases", "v\x01"), "Error: invalid releases pattern 'v\\x01': give a tag glob"),
    ],
)
def test_a_bad_pattern_is_one_clear_line(
    history: History, args: tuple[str, ...], message: str
) -> None:
    done, where = history.build(*args)
    assert done.exit_code == 1
    assert done.stderr.startswith(message) and len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr and not (where / "index.html").exists()


def test_releases_without_git_are_one_clear_line(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    env = {"GIT_CEILING_DIRECTORIES": str(tmp_path)}  # no repository above the test's folder
    assert invoke(root, "init", env=env).exit_code == 0
    done = invoke(root, "build", "--releases", "v*", env=env)
    assert done.exit_code == 1
    assert done.stderr == (
        "Error: releases are git tags: this store is not in a git work tree "
        "(leave out --releases and site.releases)\n"
    )


def test_site_releases_must_be_a_string(store_root: Path, tmp_path: Path) -> None:
    config = json.loads((store_root / "config.json").read_text(encoding="utf-8"))
    config.setdefault("site", {})["releases"] = ["v*"]
    (store_root / "config.json").write_text(json.dumps(config), encoding="utf-8")
    done = invoke(tmp_path, "build")
    assert done.exit_code == 1 and len(done.stderr.splitlines()) == 1
    assert "'site.releases' must be a string or null" in done.stderr


@needs_git
def test_serve_follows_site_releases_and_updates_what_a_change_touches(tmp_path: Path) -> None:
    from memsite.memory import Memory
    from memsite.portal.cache import PortalCache
    from memsite.portal.serve import cold_build, update

    project = make_history(tmp_path / "project")
    config_path = project.store / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config.setdefault("site", {})["releases"] = "v*"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    url, site_dir, docker = "http://127.0.0.1:8000/", tmp_path / "served", project.ids["docker"]
    memory = Memory.open(str(project.store), {}, project.root)
    session = cold_build(memory, site_dir, url, PortalCache())
    v2 = site_dir / "as-of" / "v2" / "index.html"
    assert entry_href(docker) in v2.read_text(encoding="utf-8")
    Memory.open(str(project.store), {}, project.root).delete(docker)  # not committed: v2 had it
    update(session, lambda _: None)
    assert entry_href(docker) not in v2.read_text(encoding="utf-8")
    assert f"<code>{docker[:8]}</code> <span" in v2.read_text(encoding="utf-8")
    fresh = tmp_path / "fresh"
    cold_build(Memory.open(str(project.store), {}, project.root), fresh, url, PortalCache())
    pages = sorted(p.relative_to(fresh) for p in fresh.rglob("*.html"))
    assert sorted(p.relative_to(site_dir) for p in site_dir.rglob("*.html")) == pages
    for rel in pages:
        assert (site_dir / rel).read_bytes() == (fresh / rel).read_bytes(), rel


# --- the layout of a release's pages (pure) ----------------------------------------------------


def fact(n: int, linked: bool = True) -> ReleaseFact:
    return ReleaseFact(f"{n:08x}-0000", f"fact {n}", "ops", "Ops", linked)


def view(changes: int, active: int) -> ReleaseView:
    return ReleaseView(
        tag="v2",
        slug="v2",
        commit="0" * 40,
        day="2026-03-07",
        previous=ReleaseRef("v1", "v1"),
        categories=(
            ("Ops", "ops", tuple(fact(n) for n in range(active))),
            ("Web", "web", (fact(99),)),
        ),
        added=tuple(fact(n) for n in range(changes)),
        replaced=(),
        retired=(),
        removed=(fact(50, linked=False),),
    )


def test_a_long_release_goes_on_over_pages_and_says_what_continues() -> None:
    pages = release_sections(view(changes=3, active=5), per_page=4)
    shown = [[(s.anchor, len(s.rows), s.continued, s.part_continued) for s in p] for p in pages]
    assert shown == [
        [("added", 3, False, False), ("removed", 1, False, False)],
        [("c-ops", 4, False, False)],
        [("c-ops", 1, True, True), ("c-web", 1, False, True)],
    ]
    assert all(s.total == 5 for s in pages[2] if s.anchor == "c-ops")


def test_a_short_release_is_one_page() -> None:
    (page,) = release_sections(view(changes=1, active=2))
    assert [s.kind for s in page] == ["added", "removed", "active", "active"]
    assert [s.part for s in page] == ["changes", "changes", "active", "active"]


def test_release_views_are_hashable_page_keys() -> None:
    assert hash(view(1, 2)) == hash(view(1, 2)) and view(1, 2) == view(1, 2)
    assert view(1, 2) != view(1, 3)
