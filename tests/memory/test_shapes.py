"""The memory's JSON answers: entries redacted in every string, write answers, links."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.entry import Entry, entry_from_object
from memsite.core.records import Record
from memsite.memory.shapes import (
    content_of,
    entry_json,
    linked,
    retirement,
    verifications,
    write_answer,
)
from tests.conftest import make_entry

GITHUB = "ghp_" + "A1b2C3d4E5" * 4
AWS = "AKIAIOSFODNN7EXAMPLE"
ID = "0f8c5a52-6c1e-4c55-9b7a-2f0d6b1e9c3d"


def entry(content: str, **fields: Any) -> Entry:
    extra = fields.pop("extra", {})
    obj = {**make_entry(content, id=ID, **fields), **extra}
    return entry_from_object(obj, "2026-03-07T14-30-00Z-0f8c5a52.json")


def record(kind: str, text: str | None) -> Record:
    moment = datetime(2026, 3, 8, tzinfo=UTC)
    raw = {"created": "2026-03-08T00:00:00.000Z"}
    return Record("1" * 8 + "-1111-4111-8111-" + "1" * 12, kind, ID, moment, text=text, raw=raw)


def test_a_plain_entry_is_its_object_plus_the_extra_fields() -> None:
    plain = entry("Use pnpm.", tags=["tooling"], extra={"x-origin": {"tool": "other"}})
    shown = entry_json(plain, status="active", score=0.5)
    assert shown == {**plain.raw, "status": "active", "score": 0.5}
    assert shown is not plain.raw and "status" not in plain.raw
    assert content_of(plain) == "Use pnpm."


@settings(max_examples=40, deadline=None)
@given(
    secret=st.sampled_from([GITHUB, AWS]),
    where=st.sampled_from(["content", "agent", "reason", "unknown key", "unknown value", "nested"]),
    words=st.text(alphabet="abc xyz", max_size=12),
)
def test_a_suspected_secret_is_redacted_wherever_it_is(secret: str, where: str, words: str) -> None:
    text = f"{words} {secret} {words}"
    fields: dict[str, Any] = {"extra": {}}
    content = text if where == "content" else "Deploys go through CI."
    if where in ("agent", "reason"):  # as another tool may have written it
        fields["extra"] = {where: text}
    elif where == "unknown key":
        fields["extra"] = {text: 1}
    elif where == "unknown value":
        fields["extra"] = {"x-note": text}
    elif where == "nested":
        fields["extra"] = {"x-meta": {"list": [1, {"deep": text}]}}
    shown = entry_json(entry(content, **fields), status="active")
    dumped = json.dumps(shown)
    assert secret not in dumped
    assert "[redacted: " in dumped
    assert shown["status"] == "active" and shown["id"] == ID


def test_an_allowed_secret_is_shown_as_written() -> None:
    allowed = entry(f"Example key from the docs: {AWS}", extra={"allow_secret": True})
    assert entry_json(allowed) == dict(allowed.raw)
    assert content_of(allowed) == f"Example key from the docs: {AWS}"
    assert AWS not in content_of(entry(f"Example key from the docs: {AWS}"))


@pytest.mark.parametrize("status", ["written", "duplicate"])
def test_write_answer_keys_and_order(status: str) -> None:
    near = [{"id": "abc", "similarity": 0.9}]
    answer = write_answer(status, ID, "/x.json", near, ["w"])
    assert list(answer) == ["status", "id", "path", "near_duplicates", "warnings"]
    assert answer == {
        "status": status,
        "id": ID,
        "path": "/x.json",
        "near_duplicates": near,
        "warnings": ["w"],
    }


@pytest.mark.parametrize(
    ("text", "evidence"),
    [(None, None), ("", None), ("tests pass", "tests pass"), (f"token {GITHUB}", "redacted")],
)
def test_verifications_redact_their_evidence(text: str | None, evidence: str | None) -> None:
    (shown,) = verifications([record("verify", text)])
    assert shown["created"] == "2026-03-08T00:00:00.000Z"
    if evidence == "redacted":
        assert GITHUB not in shown["evidence"] and "[redacted: " in shown["evidence"]
    else:
        assert shown["evidence"] == evidence
    assert retirement(record("retire", text))["reason"] == (shown["evidence"] or "")


def test_linked_with_and_without_the_other_fact() -> None:
    link = {"id": ID, "type": "supports", "direction": "out", "reason": f"see {AWS}"}
    other = entry(f"The key is {GITHUB}")
    shown = linked(link, other, "active")
    assert shown["type"] == "supports" and shown["status"] == "active"
    assert AWS not in shown["reason"] and GITHUB not in shown["content"]
    assert link["reason"] == f"see {AWS}"  # the link given is left as it was
    missing = linked({**link, "reason": None}, None, "active")
    assert missing["content"] is None and missing["status"] is None and missing["reason"] is None
