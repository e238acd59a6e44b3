"""The portal cache of `serve`: redacted entries and views kept by what they are made from."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from memsite.core.entry import Entry, entry_from_object
from memsite.portal.cache import PortalCache
from tests.conftest import make_entry

GITHUB = "ghp_" + "A1b2C3d4E5" * 4


def entry(content: str, number: int = 0, **fields: Any) -> Entry:
    entry_id = str(uuid.UUID(int=number + 1))
    obj = make_entry(content, id=entry_id, **fields)
    return entry_from_object(obj, f"2026-03-07T14-30-00Z-{entry_id[:8]}.json")


def test_the_same_entry_gives_the_same_redacted_object() -> None:
    cache = PortalCache()
    secret = entry(f"CI pushes with {GITHUB}")
    key, redacted = cache.redacted(secret, False)
    assert GITHUB not in redacted.content and "[redacted: " in redacted.content
    assert cache.redacted(secret, False) == (key, redacted)
    assert cache.redacted(secret, False)[1] is redacted
    twin = entry(f"CI pushes with {GITHUB}")  # an equal object read again
    assert twin is not secret and cache.redacted(twin, False)[1] is redacted
    full_key, _ = cache.redacted(secret, True)
    assert full_key != key


@pytest.mark.parametrize(
    "change",
    [{"content": "Use yarn."}, {"tags": ["tooling"]}, {"agent": "bot"}, {"key": "pm"}],
)
def test_keys_change_with_any_part_of_the_object(change: dict[str, Any]) -> None:
    cache = PortalCache()
    key, _ = cache.redacted(entry("Use pnpm."), False)
    fields = {"content": "Use pnpm.", **change}
    other_key, other = cache.redacted(entry(fields.pop("content"), **fields), False)
    assert other_key != key and other_key[0] == key[0]  # same file name, other digest
    assert other.content == (change.get("content") or "Use pnpm.")


def test_views_and_json_sources_are_shared_for_equal_inputs() -> None:
    cache = PortalCache()
    key, redacted = cache.redacted(entry("Use pnpm."), False)
    view = cache.view(key, redacted, "active", ())
    assert cache.view(key, redacted, "active", []) is view
    assert view.title == "Use pnpm." and view.status == "active"
    superseded = cache.view(key, redacted, "superseded", ())
    assert superseded is not view and superseded.status == "superseded"
    source = cache.json_source(key, redacted, "active", ["x"])
    assert cache.json_source(key, redacted, "active", ("x",)) is source
    assert source.superseded_by == ("x",)
    assert cache.json_source(key, redacted, "active", ()) is not source


def test_keep_only_forgets_gone_entries_once_there_are_many() -> None:
    cache = PortalCache()
    entries = [entry(f"Fact number {n}.", n) for n in range(300)]
    keys = [cache.redacted(e, False)[0] for e in entries]
    views = [cache.view(k, e, "active", ()) for k, e in zip(keys, entries, strict=True)]
    cache.keep_only(set(keys))  # nothing gone: everything stays
    assert cache.redacted(entry("Fact number 7.", 7), False)[1] is entries[7]
    cache.keep_only({keys[0]})
    kept = entry("Fact number 0.", 0)
    assert cache.redacted(kept, False)[1] is entries[0]
    assert cache.view(keys[0], entries[0], "active", ()) is views[0]
    again = entry("Fact number 5.", 5)
    assert cache.redacted(again, False)[1] is again  # forgotten: redacted anew
    assert cache.view(keys[5], entries[5], "active", ()) is not views[5]


def test_keep_only_waits_for_enough_gone_entries() -> None:
    cache = PortalCache()
    entries = [entry(f"Fact number {n}.", n) for n in range(10)]
    for e in entries:
        cache.redacted(e, False)
    cache.keep_only(set())  # under the slack: not worth a pass
    assert cache.redacted(entry("Fact number 3.", 3), False)[1] is entries[3]
