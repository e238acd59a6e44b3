"""The pure rules of import and export: which held facts an import replaces, and which files a
Markdown bundle's manifest may claim."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from memsite.core.entry import Entry, entry_from_object
from memsite.core.transfer import digest, displaced, manifest_files, manifest_text
from tests.conftest import make_entry

ALICE_ID = "0a11ce00-0000-4000-8000-000000000001"
BOB_ID = "0b0b0000-0000-4000-8000-000000000002"
NEW_ID = "0e770000-0000-4000-8000-000000000003"


def entry(content: str, created: str, **fields: Any) -> Entry:
    return entry_from_object(make_entry(content, created=created, **fields))


def held() -> list[Entry]:
    return [
        entry("Use pnpm", "2026-03-07T10:00:00.000Z", id=ALICE_ID, agent="alice", key="pm"),
        entry("Tabs, not spaces", "2026-03-07T11:00:00.000Z", id=BOB_ID, agent="bob"),
    ]


def test_an_entry_naming_a_fact_in_supersedes_displaces_it() -> None:
    new = entry("Spaces now", "2026-03-01T00:00:00.000Z", id=NEW_ID, supersedes=[BOB_ID])
    (found,) = displaced(held(), [new], "alice")
    assert (found.held.id, found.how, found.by.id) == (BOB_ID, "supersedes", NEW_ID)
    assert found.shown() == {
        "id": BOB_ID,
        "category": "conventions",
        "agent": "bob",
        "how": "supersedes",
        "by": NEW_ID,
    }


def test_the_same_key_displaces_only_when_the_import_wins() -> None:
    newer = entry("Use yarn", "2026-03-08T00:00:00.000Z", id=NEW_ID, key="pm")
    older = entry("Use npm", "2026-03-06T00:00:00.000Z", id=NEW_ID, key="pm")
    other = entry("Use yarn", "2026-03-08T00:00:00.000Z", id=NEW_ID, key="pm", category="ops")
    assert [d.how for d in displaced(held(), [newer], None)] == ["overrides"]
    assert displaced(held(), [older], None) == []  # the held fact wins: nothing is replaced
    assert displaced(held(), [other], None) == []  # keys are per category


def test_the_importers_own_facts_are_not_listed() -> None:
    new = entry("Use yarn", "2026-03-08T00:00:00.000Z", id=NEW_ID, key="pm", supersedes=[BOB_ID])
    assert [d.held.id for d in displaced(held(), [new], "alice")] == [BOB_ID]
    assert [d.held.id for d in displaced(held(), [new], "bob")] == [ALICE_ID]
    assert len(displaced(held(), [new], None)) == 2  # no name: every fact is another's


def test_a_fact_with_no_agent_is_always_another_authors() -> None:
    nobody = entry("Deploy on Fridays", "2026-03-07T09:00:00.000Z", id=ALICE_ID)
    new = entry("Never deploy on Fridays", "2026-03-08T00:00:00.000Z", supersedes=[ALICE_ID])
    assert [d.held.id for d in displaced([nobody], [new], "alice")] == [ALICE_ID]


def test_the_manifest_round_trips_and_is_deterministic() -> None:
    digests = {"2026-03-07T10-00-00Z-0a11ce00.md": digest(b"x")}
    text = manifest_text(digests)
    assert text == manifest_text(dict(reversed(list(digests.items()))))
    assert manifest_files(text) == digests


def test_a_manifest_claims_only_names_a_bundle_file_can_have() -> None:
    good = "2026-03-07T10-00-00Z-0a11ce00.md"
    sha = digest(b"x")
    claims = {
        good: sha,
        "notes.md": sha,  # a person's file
        "../2026-03-07T10-00-00Z-0a11ce00.md": sha,
        "2026-03-07T10-00-00Z-0a11ce00.md/../x": sha,
        "2026-03-07T10-00-00Z-0a11ce01.md": "not a digest",
        "2026-03-07T10-00-00Z-0a11ce02.md": 42,
    }
    assert manifest_files(json.dumps({"files": claims})) == {good: sha}


@given(st.text(max_size=300))
def test_a_manifest_of_any_text_never_raises(text: str) -> None:
    found = manifest_files(text)
    assert all(name.endswith(".md") and "/" not in name for name in found)


@given(st.recursive(st.none() | st.text(max_size=20) | st.integers(), st.lists, max_leaves=10))
def test_a_manifest_of_any_json_never_raises(value: object) -> None:
    manifest_files(json.dumps({"files": value}))
    manifest_files(json.dumps(value))


def test_a_markdown_file_carries_the_validity_window() -> None:
    from memsite.core.transfer import markdown_file

    windowed = entry("Deploys are frozen", "2026-03-07T10:00:00.000Z", valid_to="2026-03-31")
    text = markdown_file(windowed, windowed.raw, "active")
    assert 'valid_to: "2026-03-31"\n' in text and "valid_from" not in text
    plain = entry("Use pnpm", "2026-03-07T10:00:00.000Z")
    assert "valid_" not in markdown_file(plain, plain.raw, "active")
