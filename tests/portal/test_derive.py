"""The portal's view of the memory, derived without MkDocs: statuses, groups, relations,
redaction of every entry string and of the sessions' lines, file links, findings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from memsite.core.compaction import Compaction
from memsite.core.entry import Entry
from memsite.core.review import Finding
from memsite.core.secrets import redact
from memsite.memory import Memory
from memsite.portal.cache import PortalCache
from memsite.portal.derive import build_portal, with_findings
from memsite.portal.redact import Redactor
from tests.portal.conftest import copy_demo, plant

GITHUB = "ghp_" + "A1b2C3d4E5" * 4
AWS = "AKIAIOSFODNN7EXAMPLE"
WEIGHTS = {"conventions": 1.0, "architecture": 1.0, "operations": 1.0, "decisions": 1.0}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Compaction:
    store = copy_demo(tmp_path_factory.mktemp("derive"))
    plant(store, content=f"CI pushes with {GITHUB}", key="ci-token", agent=f"bot {AWS}")
    plant(store, content="Keys rotate monthly", reason=f"the old one was {AWS}", tags=["keys"])
    return Memory.open(str(store), {}, store.parent).state().result


def test_views_carry_the_compactions_statuses_and_groups(demo: Compaction) -> None:
    portal = build_portal(demo, {}, WEIGHTS, "## Conventions\n")
    assert [v.id for v in portal.entries] == [e.id for e in demo.entries]
    assert {v.id: v.status for v in portal.entries} == demo.status
    assert portal.site_name == "Project memory" and portal.description is None
    assert portal.index_md == "## Conventions\n"
    assert [c.name for c in portal.categories] == list(WEIGHTS)
    assert all(c.configured for c in portal.categories)
    for category in portal.categories:
        assert all(v.active and v.category == category.name for v in category.active)
        assert all(not v.active for v in category.inactive)
    assert sum(c.total for c in portal.categories) == len(demo.entries)
    assert [t.name for t in portal.tags] == sorted(t.name for t in portal.tags)
    keys = next(t for t in portal.tags if t.name == "keys")
    assert [v.content for v in keys.active] == ["Keys rotate monthly"]


def test_winners_and_losers_mirror_each_other(demo: Compaction) -> None:
    portal = build_portal(demo, {"site_name": "Acme", "site_description": "Facts"}, WEIGHTS, "")
    assert (portal.site_name, portal.description) == ("Acme", "Facts")
    assert portal.winner == demo.winner and portal.winner
    for loser, winner in demo.winner.items():
        assert loser in portal.losers[winner]
    assert sum(map(len, portal.losers.values())) == len(demo.winner)
    assert portal.edges == dict(demo.edges) and portal.superseded_by == dict(demo.superseded_by)


def test_every_entry_string_is_redacted_and_statuses_kept(demo: Compaction) -> None:
    portal = build_portal(demo, {}, WEIGHTS, "")
    shown = json.dumps([dataclasses.astuple(v) for v in portal.entries])
    shown += "".join(source.text() for source in portal.json_sources.values())
    assert GITHUB not in shown and AWS not in shown
    ci = next(v for v in portal.entries if v.key == "ci-token")
    assert ci.content == redact(f"CI pushes with {GITHUB}") and ci.agent == redact(f"bot {AWS}")
    assert json.loads(portal.json_sources[ci.id].text())["status"] == demo.status[ci.id]
    assert any(e.content == f"CI pushes with {GITHUB}" for e in demo.entries)  # input untouched


class NameRedactor(Redactor):
    """A redactor that also hides file names (the link must then go, or it shows the name)."""

    def redact(self, entry: Entry, full: bool) -> Entry:
        out = super().redact(entry, full)
        return out.replace(filename=out.filename.replace("ddbc", "XXXX"))


def test_a_file_link_goes_when_redaction_changes_the_file_name(demo: Compaction) -> None:
    links = {e.filename: f"https://host/{e.filename}" for e in demo.entries}
    plain = build_portal(demo, {}, WEIGHTS, "", file_links=links)
    assert plain.file_links == {e.id: links[e.filename] for e in demo.entries}
    renamed = build_portal(demo, {}, WEIGHTS, "", PortalCache(NameRedactor()), file_links=links)
    hidden = {e.id for e in demo.entries if "ddbc" in e.filename}
    assert hidden and set(renamed.file_links) == {e.id for e in demo.entries} - hidden


def test_session_lines_are_redacted_and_printable(demo: Compaction) -> None:
    sessions = [
        ("beta", [("2026-03-08", ["# beta", f"- 10:00 pushed with {GITHUB}\x1b[2J", "- ok\t"])]),
        ("alpha", [("2026-03-07", ["- 09:00 note"]), ("2026-03-06", ["- 08:00 start"])]),
    ]
    portal = build_portal(demo, {}, WEIGHTS, "", sessions=sessions)
    beta, alpha = portal.sessions
    assert beta.name == "beta" and beta.days == ("2026-03-08",)
    assert beta.lines == ("- 10:00 pushed with [redacted: github-token][2J", "- ok")
    assert alpha.days == ("2026-03-07", "2026-03-06")
    assert alpha.lines == ("- 09:00 note", "- 08:00 start") and alpha.anchor == "s-alpha"


def test_with_findings_makes_a_new_portal_with_redacted_findings(demo: Compaction) -> None:
    portal = build_portal(demo, {}, WEIGHTS, "")
    first, second = demo.entries[0].id, demo.entries[1].id
    found = [
        Finding("secret", (first, first, "gone-id"), ("a.json",), f"holds {GITHUB}"),
        Finding("near_duplicate", (first, second), (f"{AWS}.json",), "almost the same"),
    ]
    shown = with_findings(portal, found)
    assert portal.findings == [] and shown is not portal
    secret, near = shown.findings
    assert secret.message == redact(f"holds {GITHUB}") and GITHUB not in secret.message
    assert [v.id for v in secret.entries] == [first]  # repeats and unknown ids dropped
    assert [v.id for v in near.entries] == [first, second] and AWS not in near.files[0]
    assert build_portal(demo, {}, WEIGHTS, "", findings=found).findings == shown.findings


def test_a_store_without_entries(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    for path in (store / "entries").glob("*.json"):
        path.unlink()
    result = Memory.open(str(store), {}, store.parent).state().result
    portal = build_portal(result, {}, {"conventions": 1.0}, "")
    assert portal.entries == [] and portal.tags == [] and portal.losers == {}
    assert [c.name for c in portal.categories] == list(WEIGHTS)
    assert [c.name for c in portal.categories if c.configured] == ["conventions"]
    assert all(c.total == 0 for c in portal.categories)
