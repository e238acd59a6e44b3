"""The derived views (``memory.views``): index.md for agents, redacted as the portal shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsite.memory import Memory
from tests.conftest import Clock, make_entry, write_raw

TWILIO = "SK0123456789abcdef0123456789abcdef"


def test_a_secret_only_the_full_scan_sees_leaves_index_md_once_reviewed(
    store_root: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gap is opened in the quick scan: the first index.md (quick scan only) shows the
    token; once a review's full scan flags the fact, the views are stale and the next
    context redacts it with the full scan, as the portal does."""
    from memsite.core import secrets

    quick = secrets.prefilter
    monkeypatch.setattr(secrets, "prefilter", lambda text: TWILIO not in text and quick(text))
    write_raw(store_root, make_entry(f"SMS through Twilio with {TWILIO} in prod", "operations"))
    memory = Memory.open(str(store_root), {}, store_root.parent, clock)
    assert TWILIO in memory.context()  # the gap: the quick scan lets it through
    kinds = [f["kind"] for f in memory.review()["findings"]]
    assert "secret" in kinds
    again = Memory.open(str(store_root), {}, store_root.parent, clock)
    assert again.status()["derived"] == "stale"
    text = again.context()
    assert TWILIO not in text and "[redacted: twilio-api-key]" in text
    assert TWILIO not in (store_root / "index.md").read_text(encoding="utf-8")


def test_index_text_is_what_compact_writes(store_root: Path, clock: Clock) -> None:
    memory = Memory.open(str(store_root), {}, store_root.parent, clock)
    memory.add("Always use pnpm", "conventions", tags=["tooling"])
    memory.add("Deploys run from main", "operations")
    memory.compact()
    assert memory.index_text() == (store_root / "index.md").read_text(encoding="utf-8")
    assert memory.index_text(30).count("\n- ") < 2  # a smaller budget holds fewer facts
