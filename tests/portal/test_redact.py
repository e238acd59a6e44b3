"""Redaction for publishing: entries as they are when nothing is suspect or a person allowed
it, every string redacted otherwise, the full scan for flagged entries, each text once."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.entry import Entry, entry_from_object
from memsite.core.secrets import redact
from memsite.core.text import normalize
from memsite.portal.redact import Redactor
from tests.conftest import make_entry

GITHUB = "ghp_" + "A1b2C3d4E5" * 4
AWS = "AKIAIOSFODNN7EXAMPLE"
KEYWORD = "The staging DB password: Xk9mP2vL7qRt"


def entry(content: str, **extra: Any) -> Entry:
    entry_id = str(uuid.uuid4())
    obj = {**make_entry(content, id=entry_id), **extra}
    return entry_from_object(obj, f"2026-03-07T14-30-00Z-{entry_id[:8]}.json")


def test_an_entry_nothing_suspect_in_comes_back_as_is() -> None:
    plain = entry("Use pnpm, never npm.", agent="claude", reason="team call")
    assert Redactor().redact(plain, False) is plain
    full = Redactor().redact(plain, True)  # the full scan reads every string again
    assert full == plain and full.raw == plain.raw


@pytest.mark.parametrize("full", [False, True])
def test_an_allowed_entry_is_published_as_written(full: bool) -> None:
    allowed = entry(f"The AWS docs' example key {AWS}", allow_secret=True, note=GITHUB)
    assert Redactor(full_ids={allowed.id}).redact(allowed, full) is allowed
    assert AWS in allowed.content


@pytest.mark.parametrize("full", [False, True])
def test_every_string_of_a_suspect_entry_is_redacted(full: bool) -> None:
    suspect = entry(
        f"CI pushes with {GITHUB}",
        agent=f"bot {AWS}",
        reason=f"rotated {AWS}",
        extra={GITHUB: [1, {"deep": f"x {AWS}"}]},
    )
    out = Redactor().redact(suspect, full)
    assert out.content == redact(suspect.content, full=full) != suspect.content
    assert out.agent == "bot [redacted: aws-access-key]"
    assert out.reason == "rotated [redacted: aws-access-key]"
    dumped = json.dumps(out.raw)
    assert GITHUB not in dumped and AWS not in dumped
    assert out.raw["extra"] == {
        "[redacted: github-token]": [1, {"deep": "x [redacted: aws-access-key]"}]
    }
    assert (out.id, out.filename, out.created) == (suspect.id, suspect.filename, suspect.created)
    assert GITHUB in suspect.content  # the entry given is left as it was
    # What is derived from the content is made again from the redacted text, never copied.
    assert out.normalized == normalize(out.content)
    assert GITHUB.lower() not in out.normalized and GITHUB.lower() in suspect.normalized


def test_flagged_entries_get_the_full_scan() -> None:
    flagged = entry(KEYWORD)
    redactor = Redactor(full_ids={flagged.id})
    out = redactor(flagged)
    assert out.content == redact(KEYWORD, full=True)
    assert "Xk9mP2vL7qRt" not in out.content
    other = entry(KEYWORD)
    assert redactor(other).content == Redactor().redact(other, False).content


def test_each_text_is_scanned_once() -> None:
    redactor = Redactor()
    first = redactor.redact(entry(f"CI pushes with {GITHUB}"), False)
    second = redactor.redact(entry(f"CI pushes with {GITHUB}"), False)
    assert first.content is second.content  # the remembered answer, not a new scan
    assert redactor.text(f"CI pushes with {GITHUB}") is first.content
    assert redactor.text(f"CI pushes with {GITHUB}", full=True) == first.content


WORDS = st.text(alphabet="abc XYZ:=-_", max_size=15)


@settings(max_examples=60, deadline=None)
@given(
    before=WORDS,
    secret=st.sampled_from([GITHUB, AWS, "", KEYWORD]),
    after=WORDS,
    full=st.booleans(),
)
def test_redaction_is_idempotent(before: str, secret: str, after: str, full: bool) -> None:
    content = f"Fact {before} {secret} {after}".strip()
    redactor = Redactor()
    once = redactor.redact(entry(content, note=content), full)
    twice = redactor.redact(entry(once.content, note=once.raw["note"]), full)
    assert twice.content == once.content and twice.raw["note"] == once.raw["note"]
    assert GITHUB not in once.content and AWS not in once.content
