"""One operation's read model: the compaction made once, forgotten on writes, objects kept."""

from __future__ import annotations

from pathlib import Path

from memsite.core.schema import ACTIVE, RETIRED
from memsite.memory import Memory
from memsite.memory.state import ReadModel
from memsite.storage.layout import Store
from tests.conftest import Clock, make_entry, write_raw


def open_memory(store_root: Path, clock: Clock) -> Memory:
    return Memory.open(str(store_root), {}, store_root.parent, now=clock)


def test_state_is_made_once_until_invalidated(store_root: Path) -> None:
    write_raw(store_root, make_entry("Use pnpm."))
    model = ReadModel(Store(store_root), Store(store_root).load_config())
    first = model.state()
    assert model.state() is first
    assert [e.content for e in first.scan.entries] == ["Use pnpm."]
    write_raw(store_root, make_entry("Use ruff.", created="2026-03-07T15:00:00.000Z"))
    assert model.state() is first  # another writer's file: unseen until invalidated
    model.invalidate()
    second = model.state()
    assert second is not first
    assert sorted(e.content for e in second.scan.entries) == ["Use pnpm.", "Use ruff."]
    assert sorted(second.result.status.values()) == [ACTIVE, ACTIVE]


def test_a_write_forgets_the_compaction_and_the_markers(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    calls: list[int] = []

    def find() -> dict[str, str]:
        calls.append(1)
        return {"x": "(stale)"}

    before = memory.state()
    assert memory.model.markers(find) == {"x": "(stale)"}
    assert memory.model.markers(lambda: {}) == {"x": "(stale)"}  # found once per operation
    assert calls == [1]
    memory.add("Releases are cut on Tuesdays.", "operations")
    after = memory.state()
    assert after is not before and len(after.result.entries) == len(before.result.entries) + 1
    assert memory.model.markers(lambda: {}) == {}


def test_the_scan_holds_invalid_files_and_records(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    fact = memory.add("The API is versioned in the path.", "architecture")["id"]
    clock.tick(minutes=1)
    memory.retire(fact, "we moved to headers")
    (store_root / "entries" / "broken.json").write_text("{not json")
    memory.invalidate()
    state = memory.state()
    assert [r.kind for r in state.scan.records] == ["retire"]
    assert state.result.status[fact] == RETIRED
    assert [name for name, _ in state.scan.invalid] == ["broken.json"]


def test_fingerprint_follows_the_entries(store_root: Path) -> None:
    model = ReadModel(Store(store_root), Store(store_root).load_config())
    empty = model.fingerprint()
    assert model.fingerprint() == empty
    path = write_raw(store_root, make_entry("Use pnpm."))
    model.invalidate()
    one = model.fingerprint()
    assert one != empty
    path.unlink()
    model.invalidate()
    assert model.fingerprint() != one


def test_a_remembering_reader_reuses_unchanged_entries(store_root: Path, clock: Clock) -> None:
    keep = write_raw(store_root, make_entry("Use pnpm.", created="2026-03-01T10:00:00.000Z"))
    edit = write_raw(store_root, make_entry("Use ruff.", created="2026-03-02T10:00:00.000Z"))
    first = open_memory(store_root, clock).reopen(remember=True)
    assert first.model.known == {}
    old = {e.filename: e for e in first.state().scan.entries}
    assert set(first.model.known or {}) == {keep.name, edit.name}
    edit.write_text(edit.read_text().replace("Use ruff.", "Use ruff and mypy."))
    second = first.reopen(remember=True)
    assert second.model.known is first.model.known
    second.model.synced(full=True)  # files are never edited: only a full sync sees it
    new = {e.filename: e for e in second.state().scan.entries}
    assert new[keep.name] is old[keep.name]
    assert new[edit.name] is not old[edit.name] and new[edit.name].content == "Use ruff and mypy."
    forgetful = {e.filename: e for e in second.reopen().state().scan.entries}
    assert forgetful[keep.name] is not old[keep.name]  # without remember: fresh objects
