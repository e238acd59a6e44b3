"""The trust gate on the portal: who added each fact, in which commit, its trust, a banner and
a mark on facts held back from agents, author names escaped, and "What agents load" byte for
byte the agents' index.md (the demo store, real git with a bare remote and two authors)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memsite.memory import Memory
from memsite.portal.cache import PortalCache
from memsite.portal.derive import build_portal
from memsite.portal.render import Renderer
from memsite.portal.site import unchanged_pages
from memsite.portal.trust import SIGNATURES, commit_href, origin_of, origins_of
from memsite.storage.layout import Store
from tests.conftest import Invoke, git
from tests.portal.conftest import Built, build, copy_demo

REPO_URL = "https://github.com/acme/checkout"
SHA = "0123456789abcdef0123456789abcdef01234567"
BOB = 'Bob "Bobby" O\'Brien & Co'  # git keeps quotes and ampersands inside a name
EVE = 'x" onmouseover="alert(1)" y=">b'  # only a crafted commit carries '>' in a name


def shown(
    author: str = "Alice", signature: str = "N", trust: str | None = "reviewed", **more: Any
) -> dict[str, Any]:
    """An entry's trust fields as ``memory.trust.fields_of`` gives them."""
    made = {
        "commit": SHA,
        "author": author,
        "email": "alice@example.com",
        "date": "2026-05-01T10:00:00+02:00",
        "signature": signature,
    }
    return {"provenance": made, "trust": trust, **more}


# --- origins, as values -------------------------------------------------------------------------


@pytest.mark.parametrize(("letter", "words"), [*SIGNATURES.items(), ("N", None), ("?", None)])
def test_signatures_in_words(letter: str, words: str | None) -> None:
    origin = origin_of(shown(signature=letter), "origin/main", None)
    assert origin is not None and origin.signature_label == words


def test_every_signature_letter_git_gives_has_words_but_none() -> None:
    assert set(SIGNATURES) == set("GBUXYRE")
    assert "expired" in SIGNATURES["X"] and "expired" in SIGNATURES["Y"]
    assert "revoked" in SIGNATURES["R"] and "cannot be checked" in SIGNATURES["E"]


@pytest.mark.parametrize(
    ("trust", "words"),
    [
        ("reviewed", "Reviewed: on origin/main"),
        ("local", "Written in this clone, not pushed yet"),
        ("unreviewed", "Not reviewed: origin/main does not hold it as it is here"),
        (None, None),
    ],
)
def test_trust_in_words(trust: str | None, words: str | None) -> None:
    origin = origin_of(shown(trust=trust), "origin/main", None)
    assert origin is not None
    label = origin.trust_label
    assert (label is None) if words is None else (label or "").startswith(words)


@pytest.mark.parametrize(
    ("held", "label", "reason"),
    [
        ("unreviewed", "not reviewed", "origin/main does not hold it as it is here"),
        ("hidden_text", "hidden text", "invisible or direction-changing characters"),
        ("suspicious:pipe-to-shell", "suspicious: pipe-to-shell", "(pipe-to-shell: runs a"),
        ("suspicious:agent-directive", "suspicious: agent-directive", "tells the agent"),
    ],
)
def test_why_a_fact_is_held_back(held: str, label: str, reason: str) -> None:
    origin = origin_of(shown(held_back=held), "origin/main", None)
    assert origin is not None and origin.held == held
    assert origin.held_label == label
    assert reason in origin.held_reason


def test_nothing_to_show_when_trust_is_off_and_nothing_is_committed() -> None:
    assert origin_of({"provenance": None, "trust": None}, None, REPO_URL) is None
    assert origins_of({"a": {"provenance": None, "trust": None}}, None, REPO_URL) == {}
    # trust off, committed: who added it still shows; uncommitted but held: the banner shows
    origin = origin_of(shown(trust=None), None, REPO_URL)
    assert origin is not None and origin.author == "Alice" and origin.trust_label is None
    held = origin_of({"provenance": None, "trust": None, "held_back": "hidden_text"}, None, None)
    assert held is not None and held.held == "hidden_text" and held.commit is None


def test_the_commit_and_its_date() -> None:
    origin = origin_of(shown(), "origin/main", REPO_URL + ".git/")
    assert origin is not None
    assert origin.short_commit == SHA[:7]
    assert origin.commit_href == f"{REPO_URL}/commit/{SHA}"
    assert origin.when == "2026-05-01 10:00 +02:00"
    utc = origin._replace(date="2026-05-01T08:00:00+00:00")
    assert utc.when == "2026-05-01 08:00 UTC"
    assert origin._replace(date="yesterday").when == ""


@pytest.mark.parametrize(
    "repo_url",
    [
        None,
        "",
        "javascript:alert(1)",
        "https://user:token@github.com/acme/checkout",
        'https://github.com/acme/x"onclick="y',
        "https://github.com/acme/checkout?x=1",
        "//github.com/acme/checkout",
    ],
)
def test_commits_are_linked_only_on_a_usable_repo_url(repo_url: str | None) -> None:
    assert commit_href(repo_url, SHA) is None
    origin = origin_of(shown(), "origin/main", repo_url)
    assert origin is not None and origin.commit_href is None and origin.short_commit


def test_a_commit_that_is_not_a_commit_id_is_not_shown() -> None:
    bad = shown()
    bad["provenance"]["commit"] = "../../evil" + "0" * 30
    origin = origin_of(bad, "origin/main", REPO_URL)
    assert origin is not None and origin.commit is None and origin.author is None
    assert commit_href(REPO_URL, "abc123") is None


def test_author_names_lose_control_and_invisible_characters() -> None:
    origin = origin_of(shown(author="Eve\u202egnirts\x1b[31m\U000e0041"), None, None)
    assert origin is not None and origin.author == "Evegnirts[31m"
    blank = origin_of(shown(author="\u200b"), None, None)
    assert blank is not None and blank.author == "(no name)"


def test_entries_of_one_commit_share_one_origin() -> None:
    found = origins_of({"a": shown(), "b": shown(), "c": shown(trust="local")}, "origin/main", None)
    assert found["a"] is found["b"] and found["a"] != found["c"]


# --- rendered pages ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_portal(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[str]]:
    store = copy_demo(tmp_path_factory.mktemp("trust"))
    result = Memory.open(str(store), {}, store.parent).state().result
    active = [e.id for e in result.entries if result.status[e.id] == "active"]
    return result, active


def test_html_in_an_author_name_is_escaped_on_the_entry_page(
    demo_portal: tuple[Any, list[str]],
) -> None:
    result, active = demo_portal
    name = "<script>alert(1)</script><img src=x onerror=alert(2)> & \"Mallory\" 'M'"
    origins = origins_of({active[0]: shown(author=name)}, "origin/main", REPO_URL)
    portal = build_portal(result, {}, {}, "", origins=origins)
    body = Renderer().entry_page(portal.page(active[0])).body
    assert "<script>" not in body and "<img" not in body
    expected = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &amp; "
    assert expected + "&#34;Mallory&#34; &#39;M&#39;" in body
    assert f'<a href="{REPO_URL}/commit/{SHA}" rel="nofollow noopener noreferrer">' in body
    assert "alice@example.com" not in body


def test_author_names_are_redacted_like_entry_text(demo_portal: tuple[Any, list[str]]) -> None:
    result, active = demo_portal
    token = "ghp_" + "A1b2C3d4E5" * 4
    origins = origins_of({active[0]: shown(author=f"ci {token}")}, "origin/main", None)
    portal = build_portal(result, {}, {}, "", origins=origins)
    assert token not in (portal.origins[active[0]].author or "")
    assert token not in Renderer().entry_page(portal.page(active[0])).body


def test_a_held_back_fact_has_a_banner_and_a_mark_in_lists(
    demo_portal: tuple[Any, list[str]],
) -> None:
    result, active = demo_portal
    held, plain = active[0], active[1]
    trust = {held: shown(held_back="suspicious:pipe-to-shell"), plain: shown()}
    portal = build_portal(result, {}, {}, "", origins=origins_of(trust, "origin/main", None))
    renderer = Renderer()
    body = renderer.entry_page(portal.page(held)).body
    assert "Held back from agents: suspicious: pipe-to-shell" in body
    assert f"<code>memsite approve {held[:8]}</code>" in body
    assert "Held back from agents" not in renderer.entry_page(portal.page(plain)).body
    mark = "memsite-badge--held"
    assert mark in renderer.card(portal.by_id[held], "../../")
    assert mark in renderer.row(portal.by_id[held], "../../")
    assert mark not in renderer.card(portal.by_id[plain], "../../")
    assert json.loads(portal.json_sources[held].text())["held_back"] == "suspicious:pipe-to-shell"
    assert "held_back" not in json.loads(portal.json_sources[plain].text())


def test_a_hidden_text_banner_names_the_characters(demo_portal: tuple[Any, list[str]]) -> None:
    result, active = demo_portal
    entry = next(e for e in result.entries if e.id == active[0])
    hidden = entry.replace(content="Run it\U000e0041\u200b now")
    changed = result.replace(entries=[hidden if e is entry else e for e in result.entries])
    trust = {entry.id: shown(held_back="hidden_text")}
    portal = build_portal(changed, {}, {}, "", origins=origins_of(trust, "origin/main", None))
    body = Renderer().entry_page(portal.page(entry.id)).body
    assert "U+E0041 (TAG LATIN CAPITAL LETTER A) at character 7" in body
    assert "U+200B (ZERO WIDTH SPACE) at character 8" in body


def test_a_push_rewrites_the_page_of_a_fact_whose_trust_changed(
    demo_portal: tuple[Any, list[str]],
) -> None:
    """serve: after a push a local fact is reviewed; its view is the same object (nothing on
    its cards changed), its page must be written again."""
    result, active = demo_portal
    cache = PortalCache()
    before = {active[0]: shown(trust="local"), active[1]: shown()}
    after = {active[0]: shown(trust="reviewed"), active[1]: shown()}
    old = build_portal(result, {}, {}, "", cache, origins=origins_of(before, "origin/main", None))
    new = build_portal(result, {}, {}, "", cache, origins=origins_of(after, "origin/main", None))
    assert old.by_id[active[0]] is new.by_id[active[0]]
    settled = unchanged_pages(old, new)
    assert active[0] not in settled and active[1] in settled


# --- "What agents load" is the agents' index.md, byte for byte ------------------------------------


def home_index(site: Path) -> str:
    home = (site / "index.html").read_text(encoding="utf-8")
    part = home.split('<pre class="memsite-index"><code>', 1)[1].split("</code></pre>", 1)[0]
    return html.unescape(re.sub(r'<a href="entries/[^"]+/">|</a>', "", part))  # bullets link


@pytest.mark.parametrize("budget", [None, 20_000])
def test_what_agents_load_is_index_md_byte_for_byte_on_the_demo(
    runner: Invoke, tmp_path: Path, budget: int | None
) -> None:
    """The demo store (its packages/tax fact drifted), compacted by `memsite compact` and
    built by `memsite build`: the site's index.md and its home page's "What agents load" are
    .memsite/index.md; with room for every fact, the drifted one carries its marker in both."""
    store = copy_demo(tmp_path / "project")
    if budget is not None:
        config = json.loads((store / "config.json").read_text(encoding="utf-8"))
        config["memory"]["autoInjectTokenBudget"] = budget
        (store / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert runner("--store", str(store), "compact").exit_code == 0
    agents = (store / "index.md").read_bytes()
    site = tmp_path / "site"
    done = runner("--store", str(store), "build", "--site-dir", str(site))
    assert done.exit_code == 0, done.stderr
    assert (site / "index.md").read_bytes() == agents
    assert home_index(site).encode("utf-8") == agents
    assert (store / "index.md").read_bytes() == agents  # the build left it as it was
    marker = "(check: packages/tax/src/rates.ts changed)"
    if budget is not None:
        assert marker in agents.decode("utf-8") and marker in home_index(site)


# --- real git: a bare remote, two authors, a branch merged without review, a local fact ----------


def as_author(root: Path, name: str, email: str, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", f"user.name={name}", "-c", f"user.email={email}", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def commit(root: Path, name: str, email: str, message: str) -> str:
    as_author(root, name, email, "add", "-A")
    as_author(root, name, email, "commit", "-q", "-m", message)
    return as_author(root, name, email, "rev-parse", "HEAD")


def open_store(root: Path) -> Memory:
    return Memory.open(str(root / ".memsite"), env={}, cwd=root)


class Team:
    """Alice's clone: a fact she pushed (reviewed), Bob's fact from a branch he pushed but
    nobody merged on the remote, merged here by Alice (unreviewed), and a fact Alice has not
    committed (local). Facts go in through `memsite add` in each one's own clone."""

    def __init__(self, tmp_path: Path) -> None:
        remote = tmp_path / "remote.git"
        git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
        self.root = alice = tmp_path / "alice"
        git(tmp_path, "clone", "-q", str(remote), str(alice))
        git(alice, "checkout", "-q", "-b", "main")
        Store.init(alice / ".memsite")
        config_path = alice / ".memsite" / "config.json"
        config = json.loads(config_path.read_text(encoding="utf-8"))
        config.setdefault("site", {})["repo_url"] = REPO_URL
        config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
        self.reviewed = open_store(alice).add("Tests run with pytest -n auto", "conventions")["id"]
        self.alice_commit = commit(alice, "Alice", "alice@example.com", "first fact")
        git(alice, "push", "-q", "origin", "main")
        bob = tmp_path / "bob"
        git(tmp_path, "clone", "-q", str(remote), str(bob))
        git(bob, "checkout", "-q", "-b", "tokens")
        self.unreviewed = open_store(bob).add(
            "API tokens are JWTs signed with RS256", "architecture"
        )["id"]
        self.bob_commit = commit(bob, BOB, "bob@example.com", "tokens")
        git(bob, "push", "-q", "origin", "tokens")
        git(alice, "fetch", "-q", "origin")
        as_author(
            alice,
            "Alice",
            "alice@example.com",
            "merge",
            "-q",
            "--no-edit",
            "--no-ff",
            "origin/tokens",
        )
        self.local = open_store(alice).add("Deploys go through staging first", "operations")["id"]

    def build(self, site: Path) -> Built:
        open_store(self.root).compact()
        return build(self.root / ".memsite", site)


@pytest.fixture
def team(tmp_path: Path) -> Team:
    return Team(tmp_path)


def page(built: Built, entry_id: str) -> str:
    return (built.site / "entries" / entry_id / "index.html").read_text(encoding="utf-8")


def meta(body: str, heading: str) -> str | None:
    """The text of the entry table's row ``heading`` (None: no such row)."""
    found = re.search(rf"<tr><th>{heading}</th><td>(.*?)</td></tr>", body)
    return None if found is None else html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_each_fact_shows_who_added_it_and_its_trust(team: Team, tmp_path: Path) -> None:
    built = team.build(tmp_path / "site")
    alice = page(built, team.reviewed)
    added = meta(alice, "Added by") or ""
    assert added.startswith(f"Alice in commit {team.alice_commit[:7]}, 20")
    assert "signature" not in added.lower()  # unsigned: nothing said
    assert f'href="{REPO_URL}/commit/{team.alice_commit}"' in alice
    assert meta(alice, "Trust") == "Reviewed: on origin/main"
    assert "Held back" not in alice

    bob = page(built, team.unreviewed)
    assert (meta(bob, "Added by") or "").startswith(f"{BOB} in commit {team.bob_commit[:7]}")
    assert "Bob &#34;Bobby&#34; O&#39;Brien &amp; Co in commit" in bob
    assert f'href="{REPO_URL}/commit/{team.bob_commit}"' in bob
    assert meta(bob, "Trust") == "Not reviewed: origin/main does not hold it as it is here"

    local = page(built, team.local)
    assert meta(local, "Trust") == "Written in this clone, not pushed yet"
    assert meta(local, "Commit") == "Not committed yet"
    assert meta(local, "Added by") is None

    for path in built.site.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".json", ".txt", ".md", ".xml"):
            text = path.read_text(encoding="utf-8")
            assert "@example.com" not in text, path  # no author's email, anywhere


def test_the_fact_merged_without_review_is_held_back_on_the_portal(
    team: Team, tmp_path: Path
) -> None:
    built = team.build(tmp_path / "site")
    bob = page(built, team.unreviewed)
    banner = bob.split('memsite-banner--held">', 1)[1].split("</div>", 1)[0]
    assert "Held back from agents: not reviewed" in banner
    assert "because origin/main does not hold it as it is here: nobody reviewed it" in banner
    assert f"<code>memsite approve {team.unreviewed[:8]}</code>" in banner
    category = (built.site / "categories" / "architecture" / "index.html").read_text("utf-8")
    card = category.split(f"entries/{team.unreviewed}/", 1)[1].split("</p>", 1)[0]
    assert "memsite-badge--held" in card and ">Held back</span>" in card
    conventions = (built.site / "categories" / "conventions" / "index.html").read_text("utf-8")
    assert "memsite-badge--held" not in conventions
    data = json.loads((built.site / "entries" / f"{team.unreviewed}.json").read_text("utf-8"))
    assert data["held_back"] == "unreviewed"
    home = (built.site / "index.html").read_text(encoding="utf-8")
    assert "1 held back from agents" in home
    assert "1 active fact did not reach index.md" in (built.site / "llms.txt").read_text("utf-8")
    # what agents load: the gated index, as they get it
    agents = (team.root / ".memsite" / "index.md").read_bytes()
    assert (built.site / "index.md").read_bytes() == agents
    assert home_index(built.site).encode("utf-8") == agents
    text = agents.decode("utf-8")
    assert "RS256" not in text and "pytest -n auto" in text and "staging first" in text
    assert "1 fact held back until a person reviews it" in text


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen")
def test_a_signed_commit_says_so(team: Team, tmp_path: Path) -> None:
    key = tmp_path / "alice-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    allowed = tmp_path / "allowed-signers"
    allowed.write_text(f"alice@example.com {key.with_suffix('.pub').read_text()}", "utf-8")
    git(team.root, "config", "gpg.ssh.allowedSignersFile", str(allowed))
    fact = open_store(team.root).add("Releases are tagged vYYYY.MM.N", "conventions")["id"]
    signing = ("-c", "gpg.format=ssh", "-c", f"user.signingkey={key}")
    as_author(team.root, "Alice", "alice@example.com", "add", "-A")
    as_author(team.root, "Alice", "alice@example.com", *signing, "commit", "-q", "-S", "-m", "x")
    built = team.build(tmp_path / "site")
    assert (meta(page(built, fact), "Added by") or "").endswith(" · Good signature")
    assert "signature" not in (meta(page(built, team.reviewed), "Added by") or "").lower()


def test_once_approved_the_mark_and_the_banner_go(team: Team, tmp_path: Path) -> None:
    open_store(team.root).approve([team.unreviewed[:8]], reason="checked with the API team")
    built = team.build(tmp_path / "site")
    bob = page(built, team.unreviewed)
    assert "memsite-banner--held" not in bob and "memsite-badge--held" not in bob
    trust = "Not reviewed: origin/main does not hold it as it is here; approved: agents get it"
    assert meta(bob, "Trust") == trust
    category = (built.site / "categories" / "architecture" / "index.html").read_text("utf-8")
    assert "memsite-badge--held" not in category
    assert "RS256" in home_index(built.site)
    assert "held back from agents" not in (built.site / "index.html").read_text("utf-8")


def test_a_crafted_author_name_cannot_break_out_of_the_page(team: Team, tmp_path: Path) -> None:
    """git keeps '<' out of names, but a crafted commit object can carry '>' and quotes."""
    root = team.root
    entry = open_store(root).add("Payouts run nightly at 03:00 UTC", "operations")["id"]
    git(root, "add", "-A")
    tree = git(root, "write-tree")
    parent = git(root, "rev-parse", "HEAD")
    body = (
        f"tree {tree}\nparent {parent}\nauthor {EVE} <eve@example.com> 1767000000 +0100\n"
        "committer Eve <eve@example.com> 1767000000 +0100\n\ncrafted\n"
    )
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=root,
        input=body,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(root, "merge", "-q", "--ff-only", made)
    built = team.build(tmp_path / "site")
    shown_page = page(built, entry)
    assert (meta(shown_page, "Added by") or "").startswith(f"{EVE} in commit ")
    assert 'onmouseover="alert(1)"' not in shown_page
    assert "x&#34; onmouseover=&#34;alert(1)&#34; y=&#34;&gt;b" in shown_page


def test_no_git_no_remote_nothing_is_said(tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "project")
    built = build(store, tmp_path / "site")
    result = built.memory.state().result
    body = page(built, result.entries[0].id)
    for heading in ("Added by", "Commit", "Trust"):
        assert meta(body, heading) is None
    assert "Held back" not in body
