"""The portal shows what is known of each fact beyond its status: Stale, Drifted, Retired and
Verified badges on entry pages and cards, a retirement banner, anchors with their state today
(linked to the repository host), typed links both ways, verifications, and review findings
grouped by kind. Built from a real store in a real git repository."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memsite.core.anchors import Anchor, Located
from memsite.core.urls import repo_blob_base
from memsite.memory import Memory
from memsite.portal.build import build_site
from memsite.portal.standing import FactClaims, anchor_view, redacted
from memsite.storage.layout import Store
from tests.conftest import Clock, git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git missing")

DB = "import os\n\ndef connect():\n    return 'postgres'\n\nPORT = 5432\n"
# connect() now returns mysql (lines 3-4 changed) and a line above PORT moved it to line 7.
DB_NOW = "import os\nimport sys\n\ndef connect():\n    return 'mysql'\n\nPORT = 5432\n"
SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
REPO_URL = "https://github.com/acme/checkout"


@dataclass
class ClaimsSite:
    root: Path
    site: Path
    memory: Memory
    head: str
    ids: dict[str, str]

    def page(self, name: str) -> str:
        return (self.site / "entries" / self.ids[name] / "index.html").read_text("utf-8")

    def html(self, rel: str) -> str:
        return (self.site / rel / "index.html").read_text("utf-8")


def make_store(root: Path, clock: Clock) -> tuple[Memory, dict[str, str], str]:
    """A git repository with a store of facts that are anchored, verified, retired, linked,
    stale and hostile; src/db.py changed after the anchors were pinned."""
    git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    (root / "src" / "db.py").write_text(DB)
    store_root, _ = Store.init(root / ".memsite")
    config_path = store_root.root / "config.json"
    config = json.loads(config_path.read_text())
    config["memory"]["reviewAfterDays"] = {"operations": 30}
    config["site"]["repo_url"] = REPO_URL + "/"
    config_path.write_text(json.dumps(config))
    store = Store(store_root.root)
    memory = Memory(store, store.load_config(), clock, cwd=root)
    ids = {
        "changed": memory.add(
            "connect() returns postgres", "architecture", anchors=["src/db.py:3-4"]
        )["id"],
        "moved": memory.add("The port is 5432", "architecture", anchors=["src/db.py:6"])["id"],
        "verified": memory.add("Services talk over HTTP", "architecture", tags=["http"])["id"],
        "retired": memory.add("We ship on Fridays", "operations")["id"],
        "stale": memory.add("Backups run nightly", "operations")["id"],
        "supports": memory.add("Use pnpm for installs", "conventions")["id"],
        "supported": memory.add("Lockfiles are committed", "conventions")["id"],
        "hostile": memory.add(f"Danger {SCRIPT} here", "conventions")["id"],
    }
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    (root / "src" / "db.py").write_text(DB_NOW)
    git(root, "commit", "-qam", "mysql")
    clock.tick(days=60)
    memory.verify(ids["verified"], f"checked api/client.py {SCRIPT}", repin=False)
    memory.retire(ids["retired"], f"release trains replaced Friday ships {SCRIPT}")
    memory.relate(ids["supports"], ids["supported"], "supports", reason=f"pnpm needs {SCRIPT}")
    (store.root / "entries" / "broken.json").write_text("{", encoding="utf-8")
    memory.invalidate()
    return memory, ids, git(root, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> ClaimsSite:
    root = tmp_path_factory.mktemp("claims")
    memory, ids, head = make_store(root, Clock(datetime(2026, 1, 1, 9, 0, tzinfo=UTC)))
    site = root / "site"
    build_site(memory, site, parallel=False)
    return ClaimsSite(root, site, memory, head, ids)


def test_an_anchored_fact_whose_file_changed_is_drifted(built: ClaimsSite) -> None:
    html = built.page("changed")
    assert 'memsite-badge--drifted"' in html and ">Drifted</span>" in html
    assert '<h2 id="anchors">Anchors</h2>' in html
    anchors = html.split('id="anchors"', 1)[1].split("</ul>", 1)[0]
    assert "<code>src/db.py:3-4</code>" in anchors
    assert ">Changed since it was pinned</span>" in anchors
    # its lines are gone: the link goes to the file at HEAD, without a line fragment
    assert f'href="{REPO_URL}/blob/{built.head}/src/db.py"' in anchors
    assert "memsite verify" in html.split('id="anchors"', 1)[1]


def test_a_moved_span_links_to_its_new_lines(built: ClaimsSite) -> None:
    html = built.page("moved")
    anchors = html.split('id="anchors"', 1)[1].split("</ul>", 1)[0]
    assert ">Moved</span> to lines 7-7" in anchors
    assert f'href="{REPO_URL}/blob/{built.head}/src/db.py#L7-L7"' in anchors
    assert ">Drifted</span>" not in html  # moved text is not drift


def test_a_verified_fact_shows_the_date_and_the_evidence(built: ClaimsSite) -> None:
    html = built.page("verified")
    assert ">Verified 2026-03-02</span>" in html
    verifications = html.split('id="verifications"', 1)[1]
    assert "2026-03-02 09:00 UTC" in verifications
    assert f"checked api/client.py {ESCAPED}" in verifications
    assert SCRIPT not in html
    assert html.index('id="history"') < html.index('id="verifications"')
    # cards show the badge too: on the category page and on the tag page
    for rel in ("categories/architecture", "tags/http"):
        card = built.html(rel).split(f"entries/{built.ids['verified']}/", 1)[1]
        assert card.split("</p>", 1)[0].count(">Verified 2026-03-02</span>") == 1, rel  # its card


def test_a_retired_fact_keeps_its_page_with_a_banner(built: ClaimsSite) -> None:
    html = built.page("retired")
    banner = html.split("memsite-banner--retired", 1)[1].split("</div>", 1)[0]
    assert '<p class="admonition-title">Retired</p>' in banner
    assert "Withdrawn on" in banner and ">2026-03-02</time>" in banner
    assert f"Reason: release trains replaced Friday ships {ESCAPED}" in banner
    assert SCRIPT not in html
    assert 'memsite-status--retired">Retired</span>' in html
    assert ">Stale</span>" not in html  # a fact no longer in force is not stale
    category = built.html("categories/operations")
    active, inactive = category.split('<details class="memsite-inactive">', 1)
    assert built.ids["retired"] not in active
    assert f"entries/{built.ids['retired']}/" in inactive
    assert ">Retired</span>" in inactive


def test_an_old_fact_is_stale_on_its_page_and_card(built: ClaimsSite) -> None:
    html = built.page("stale")
    assert 'memsite-badge--stale"' in html and ">Stale</span>" in html
    card = built.html("categories/operations").split(f"entries/{built.ids['stale']}/", 1)[1]
    assert ">Stale</span>" in card.split("</p>", 1)[0]
    # no review period for architecture: never stale
    assert ">Stale</span>" not in built.page("verified")


def banner_of(html: str, kind: str) -> str:
    return html.split(f"memsite-banner--{kind}", 1)[1].split("</div>", 1)[0]


def test_a_drifted_fact_has_a_banner_saying_what_changed_since_when_and_what_to_run(
    built: ClaimsSite,
) -> None:
    html = built.page("changed")
    banner = banner_of(html, "drifted")
    assert html.index("memsite-banner--drifted") < html.index("<h1")  # above the heading
    assert "<code>src/db.py:3-4</code> (changed since it was pinned)" in banner
    assert 'pinned on <time datetime="2026-01-01">2026-01-01</time>' in banner
    short = built.ids["changed"][:8]
    assert f"<code>memsite verify {short} --repin</code>" in banner
    assert f"<code>memsite retire {short}</code>" in banner
    assert "memsite-banner--drifted" not in built.page("moved")  # moved text is not drift


def test_a_stale_fact_has_a_banner_with_its_last_confirmation(built: ClaimsSite) -> None:
    html = built.page("stale")
    banner = banner_of(html, "stale")
    assert html.index("memsite-banner--stale") < html.index("<h1")
    assert 'verified on <time datetime="2026-01-01">2026-01-01</time>' in banner
    assert f"<code>memsite verify {built.ids['stale'][:8]}</code>" in banner
    assert "memsite-banner--stale" not in built.page("retired")  # no longer in force


def test_entry_json_carries_the_drifted_and_stale_flags(built: ClaimsSite) -> None:
    def flags(name: str) -> dict[str, object]:
        path = built.site / "entries" / f"{built.ids[name]}.json"
        obj = json.loads(path.read_text("utf-8"))
        return {k: obj[k] for k in ("drifted", "stale") if k in obj}

    assert flags("changed") == {"drifted": True}
    assert flags("stale") == {"stale": True}
    assert flags("moved") == flags("retired") == {}
    read = built.memory.read(built.ids["changed"])  # as `read --json` says
    assert read.get("drifted") is True


def test_links_show_both_ways(built: ClaimsSite) -> None:
    source, target = built.ids["supports"], built.ids["supported"]
    out = built.page("supports").split('id="links"', 1)[1].split("</ul>", 1)[0]
    assert "supports →" in out and f'href="../{target}/">Lockfiles are committed</a>' in out
    assert f"Reason: pnpm needs {ESCAPED}" in out
    back = built.page("supported").split('id="links"', 1)[1].split("</ul>", 1)[0]
    assert "← supported by" in back and f'href="../{source}/">Use pnpm for installs</a>' in back
    assert 'id="links"' not in built.page("stale")


def test_hostile_entry_text_is_escaped(built: ClaimsSite) -> None:
    for path in built.site.rglob("*.html"):
        assert SCRIPT not in path.read_text("utf-8"), path
    assert f"Danger {ESCAPED} here" in built.page("hostile")


def test_review_groups_findings_by_kind_claims_first(built: ClaimsSite) -> None:
    html = built.html("review")
    kinds = {f.kind for f in built.memory.findings()}
    assert {"drift", "stale", "invalid_file"} <= kinds
    assert '<h2 id="drift">Drift (1)</h2>' in html
    assert '<h2 id="stale">Stale (1)</h2>' in html
    assert html.index('id="drift"') < html.index('id="stale"') < html.index('id="invalid_file"')
    drift = html.split('id="drift"', 1)[1].split("<h2", 1)[0]
    assert 'class="memsite-advice">The files these facts are anchored to changed' in drift
    for finding in built.memory.findings():
        text = re.sub(r"<[^>]+>", "", html)  # ids are links, code spans code
        assert finding.message.replace("'", "&#39;").replace("`", "") in text, finding.message


def test_the_build_is_deterministic(built: ClaimsSite, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_site(built.memory, again, parallel=False)
    first = {
        p.relative_to(built.site): p.read_bytes() for p in built.site.rglob("*") if p.is_file()
    }
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []


def test_a_store_without_claims_reads_no_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memsite.memory.anchors

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("standings computed for a store without claims")

    monkeypatch.setattr(memsite.memory.anchors, "standings", refuse)
    store_root, _ = Store.init(tmp_path / ".memsite")
    store = Store(store_root.root)
    memory = Memory(store, store.load_config(), Clock())
    memory.add("Use pnpm", "conventions")
    memory.invalidate()
    assert memory.portal_input().standings == {}


@pytest.mark.parametrize(
    ("repo_url", "expected"),
    [
        (REPO_URL, f"{REPO_URL}/blob/{'a' * 40}/"),
        (REPO_URL + "/", f"{REPO_URL}/blob/{'a' * 40}/"),
        (REPO_URL + ".git", f"{REPO_URL}/blob/{'a' * 40}/"),
        ("http://git.example.com/x", f"http://git.example.com/x/blob/{'a' * 40}/"),
        ("javascript:alert(1)", None),
        ("https://", None),
        ("ftp://example.com/x", None),
        ('https://example.com/x"onmouseover="alert(1)', None),
        ("https://example.com/x?q=<b>", None),
        ("https://example.com/x#frag", None),
        (None, None),
        (42, None),
    ],
)
def test_repo_links_only_from_plain_http_urls(repo_url: object, expected: str | None) -> None:
    assert repo_blob_base(repo_url, "a" * 40) == expected


def test_repo_links_need_a_commit_and_keep_the_project_folder() -> None:
    assert repo_blob_base(REPO_URL, None) is None
    assert repo_blob_base(REPO_URL, "HEAD") is None
    assert repo_blob_base(REPO_URL, "b" * 40, "apps/web app/") == (
        f"{REPO_URL}/blob/{'b' * 40}/apps/web%20app/"
    )


BASE = f"{REPO_URL}/blob/{'c' * 40}/"
SPAN = Anchor("src/db.py", "d" * 40, (3, 4), "e" * 40)
WHOLE = Anchor("README.md", "d" * 40)


@pytest.mark.parametrize(
    ("anchor", "state", "href", "now"),
    [
        (SPAN, Located("unchanged", (3, 4)), BASE + "src/db.py#L3-L4", (None, None)),
        (SPAN, Located("moved", (8, 9)), BASE + "src/db.py#L8-L9", (None, "8-9")),
        (SPAN, Located("changed"), BASE + "src/db.py", (None, None)),
        (SPAN, Located("missing"), None, (None, None)),
        (
            SPAN,
            Located("renamed", (3, 4), "lib/db.py"),
            BASE + "lib/db.py#L3-L4",
            ("lib/db.py", None),
        ),
        (
            SPAN,
            Located("renamed", (5, 6), "lib/db.py"),
            BASE + "lib/db.py#L5-L6",
            ("lib/db.py", "5-6"),
        ),
        (SPAN, Located("renamed", None, "lib/db.py"), BASE + "lib/db.py", ("lib/db.py", None)),
        (WHOLE, Located("unchanged"), BASE + "README.md", (None, None)),
        (WHOLE, Located("changed"), BASE + "README.md", (None, None)),
        (
            Anchor("docs/a b#c.md", "d" * 40),
            Located("unchanged"),
            BASE + "docs/a%20b%23c.md",
            (None, None),
        ),
    ],
)
def test_anchor_links_go_where_the_text_is_now(
    anchor: Anchor, state: Located, href: str | None, now: tuple[str | None, str | None]
) -> None:
    view = anchor_view(anchor, state, BASE)
    assert view.href == href
    assert (view.now_path, view.now_lines) == now
    assert view.label == anchor.label
    assert anchor_view(anchor, state, None).href is None


def test_a_redacted_anchor_path_loses_its_link() -> None:
    claims = FactClaims(
        anchors=(
            anchor_view(Anchor("keys/secret.txt", "d" * 40), Located("unchanged"), BASE),
            anchor_view(WHOLE, Located("unchanged"), BASE),
        )
    )
    shown = redacted(claims, lambda text: text.replace("secret", "[REDACTED]"))
    assert [(a.path, a.href) for a in shown.anchors] == [
        ("keys/[REDACTED].txt", None),
        ("README.md", BASE + "README.md"),
    ]


def test_an_expired_fact_has_a_banner_its_window_and_a_badge(tmp_path: Path) -> None:
    """Rendered from a real store judged with a fixed clock (no site is built)."""
    from memsite.portal.gather import portal_for
    from memsite.portal.render import Renderer

    store_root, _ = Store.init(tmp_path / ".memsite")
    clock = Clock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    memory = Memory(Store(store_root.root), store_root.load_config(), clock, cwd=tmp_path)
    ids = {
        "freeze": memory.add("Deploys are frozen", "operations", valid_to="2026-03-31")["id"],
        "move": memory.add("The office moves", "operations", valid_from="2026-05-01")["id"],
        "plain": memory.add("Backups run nightly", "operations")["id"],
    }
    renderer = Renderer()

    def page(moment: datetime, name: str) -> str:
        clock.moment = moment
        portal = portal_for(memory.reopen())
        return renderer.entry_page(portal.page(ids[name])).body

    april = datetime(2026, 4, 2, tzinfo=UTC)
    html = page(april, "freeze")
    banner = banner_of(html, "expired")
    assert html.index("memsite-banner--expired") < html.index("<h1")
    assert '<p class="admonition-title">Expired: it no longer holds</p>' in banner
    assert '<time datetime="2026-03-31">2026-03-31</time>' in banner
    assert f"<code>memsite retire {ids['freeze'][:8]}</code>" in banner
    assert ">Expired</span>" in html
    assert '<tr><th>Valid</th><td>through <time datetime="2026-03-31">' in html
    assert "memsite-banner--expired" not in page(datetime(2026, 3, 31, 23, tzinfo=UTC), "freeze")
    upcoming = page(april, "move")
    assert "memsite-banner--upcoming" in upcoming and ">Upcoming</span>" in upcoming
    assert '<tr><th>Valid</th><td>from <time datetime="2026-05-01">' in upcoming
    plain = page(april, "plain")
    assert "<th>Valid</th>" not in plain and "memsite-banner--" not in plain
    # the category page's card marks it; index.md (the portal's too) leaves it out
    portal = portal_for(memory.reopen())
    (operations,) = [c for c in portal.categories if c.name == "operations"]
    cards = renderer.category_pages(operations)[0].body
    card = cards.split(f"entries/{ids['freeze']}/", 1)[1].split("</p>", 1)[0]
    assert ">Expired</span>" in card
    assert "Deploys are frozen" not in portal.index_md and "Backups run nightly" in portal.index_md
    flags = json.loads(portal.json_sources[ids["freeze"]].text())
    assert flags["expired"] is True and flags["valid_to"] == "2026-03-31"
    retired = memory.retire(ids["freeze"], "the freeze is over")
    assert retired
    gone = page(april, "freeze")
    assert "memsite-banner--expired" not in gone and ">Expired</span>" not in gone  # not in force
    assert '<tr><th>Valid</th><td>through <time datetime="2026-03-31">' in gone  # still shown
