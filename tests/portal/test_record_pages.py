"""Entry pages that read like records: the fact as the heading, breadcrumbs, what replaced
what by its text, a word diff between versions, a copy-id button; cards link by their text."""

from __future__ import annotations

from pathlib import Path

from memsite.memory import Memory
from memsite.portal.build import build_site
from memsite.portal.text import split_sentence, word_diff
from tests.conftest import Clock
from tests.portal.conftest import Built


def test_split_sentence_and_word_diff() -> None:
    assert split_sentence("Use pnpm.") == ("Use pnpm.", "")
    assert split_sentence("Deploys run from CI only. Never from a laptop.") == (
        "Deploys run from CI only.",
        "Never from a laptop.",
    )
    # a period inside a code span ends nothing; a short first sentence heads nothing alone
    assert split_sentence("Run `make a. B` first. Then test.")[0] == "Run `make a. B` first."
    assert split_sentence("Yes. It is so.") == ("Yes. It is so.", "")
    assert str(word_diff("Postgres 15 <b>", "Postgres 16 <b>")) == (
        "Postgres <del>15</del><ins>16</ins> &lt;b&gt;"
    )


def test_entry_pages_read_like_records(store_root: Path, tmp_path: Path) -> None:
    clock = Clock()
    memory = Memory(Memory.open(str(store_root)).store, Memory.open(str(store_root)).config, clock)
    old = memory.add("The database is Postgres 15. It runs in <eu-west-1>.", "architecture")
    clock.tick(minutes=5)
    new = memory.amend(old["id"], "The database is Postgres 16. It runs in <eu-west-1>.")
    site = tmp_path / "site"
    build_site(Memory.open(str(store_root)), site)
    html = (site / "entries" / new["id"] / "index.html").read_text()
    heading = html.split('class="memsite-entry-title">', 1)[1].split("</h1>", 1)[0]
    day = memory.read(new["id"])["created"][:10]
    version = f'<span class="memsite-version">version 2 of 2 · {day}</span>'
    assert heading == f"The database is Postgres 16. {version}"
    old_page = (site / "entries" / old["id"] / "index.html").read_text()
    assert "version 1 of 2" in old_page.split("</h1>", 1)[0]  # versions told apart
    assert old_page.index("memsite-banner") < old_page.index("<h1")  # the banner first
    full = html.split('class="memsite-fact memsite-fact--main">', 1)[1].split("</div>", 1)[0]
    assert full == "The database is Postgres 16. It runs in &lt;eu-west-1&gt;."
    crumbs = html.split('class="memsite-breadcrumbs"', 1)[1].split("</nav>", 1)[0]
    assert 'href="../../categories/architecture/">Architecture</a> ›' in crumbs
    assert f'data-clipboard-text="{new["id"]}"' in html
    history = html.split('id="history"', 1)[1]
    assert f'Replaces <a href="../{old["id"]}/">The database is Postgres 15' in history
    assert "Postgres <del>15.</del><ins>16.</ins> It runs in &lt;eu-west-1&gt;." in history
    assert "<eu-west-1>" not in html
    category = (site / "categories" / "architecture" / "index.html").read_text()
    card = category.split('class="memsite-fact"', 1)[1].split("</div>", 1)[0]
    assert card.endswith(">The database is Postgres 16. It runs in &lt;eu-west-1&gt;.")
    assert f'<a href="../../entries/{new["id"]}/">{new["id"][:8]}</a>' in category


def test_overridden_pages_do_not_contradict_their_banner(demo_site: Built) -> None:
    result = demo_site.memory.state().result
    overridden = [e for e in result.entries if result.status[e.id] == "overridden"]
    assert overridden
    for entry in overridden:
        html = (demo_site.site / "entries" / entry.id / "index.html").read_text("utf-8")
        history = html.split('id="history"', 1)[1]
        assert "neither replaced nor was replaced" not in history, entry.id
        assert "lost to a newer entry with the same key" in history
