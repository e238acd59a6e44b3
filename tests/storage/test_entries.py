"""Entry files: created under a name no other writer can take, written under the store's lock
and taken into the index at once, deleted on request; read safely, whatever entries/ holds."""

from __future__ import annotations

import fcntl
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.entry import filename_for, parse_created
from memsite.core.ids import UUID_RE
from memsite.core.records import build_record
from memsite.core.validate import serialize
from memsite.errors import StorageError
from memsite.storage import entries as e
from memsite.storage.layout import Store
from memsite.storage.readmodel import Index
from tests.conftest import make_entry, write_raw

OTHER_ID = "0badc0de-0000-4000-8000-000000000001"


def name_of(obj: dict[str, Any]) -> str:
    return filename_for(parse_created(obj["created"]), obj["id"])


def locked(store: Store) -> bool:
    """Does someone hold the store's write lock (tried on a descriptor of our own)?"""
    fd = os.open(store.entries_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_write_entry_writes_the_object_under_its_name(store_root: Path) -> None:
    store = Store(store_root)
    obj = make_entry("Use pnpm")
    path, written = e.write_entry(store, obj)
    assert written is obj and path == store.entries_dir / name_of(obj)
    assert path.read_bytes() == serialize(obj)
    assert [entry.content for entry in e.scan(store).entries] == ["Use pnpm"]
    assert [p.name for p in store.tmp_dir.iterdir()] == []  # the temporary went


def test_a_name_clash_draws_a_new_id_and_never_overwrites(store_root: Path) -> None:
    store = Store(store_root)
    obj = make_entry("Mine")
    theirs = write_raw(store_root, {**obj, "content": "Theirs"}, name_of(obj))
    before = theirs.read_bytes()
    path, written = e.write_entry(store, obj, new_id=lambda: OTHER_ID)
    assert theirs.read_bytes() == before
    assert written == {**obj, "id": OTHER_ID} and path.name == name_of(written)
    assert path.read_bytes() == serialize(written)


def test_write_indexed_decides_under_the_lock_and_the_index_takes_the_file_in(
    store_root: Path,
) -> None:
    store = Store(store_root)
    index = Index(store)
    try:
        index.sync()
        planted = make_entry("Written by another process meanwhile")
        write_raw(store_root, planted)
        obj = make_entry("Mine", created="2026-03-07T15:00:00.000Z")
        seen: dict[str, bool] = {}

        def decide() -> dict[str, Any]:
            seen["locked"] = locked(store)
            seen["planted"] = index.entries.has_id(planted["id"])
            return obj

        done = e.write_indexed(store, index, decide)
        assert done is not None and done[1] is obj
        assert seen == {"locked": True, "planted": True}
        assert not locked(store)
        assert index.entries.has_id(obj["id"])
        assert index.entries.statuses() == {name_of(planted): "active", name_of(obj): "active"}
    finally:
        index.close()


def test_write_indexed_writes_nothing_when_decide_says_none(store_root: Path) -> None:
    store = Store(store_root)
    index = Index(store)
    try:
        assert e.write_indexed(store, index, lambda: None) is None
        assert list(store.entries_dir.iterdir()) == [] and not locked(store)
    finally:
        index.close()


def test_the_lock_is_released_when_the_block_fails(store_root: Path) -> None:
    store = Store(store_root)
    with pytest.raises(RuntimeError), e.write_lock(store):
        assert locked(store)
        raise RuntimeError("boom")
    assert not locked(store)
    store.entries_dir.rmdir()
    with pytest.raises(StorageError, match="cannot open"), e.write_lock(store):
        pass


def test_delete_entry_file(store_root: Path) -> None:
    store = Store(store_root)
    path = write_raw(store_root, make_entry("To go"))
    assert e.delete_entry_file(store, path.name) == path and not path.exists()
    with pytest.raises(StorageError, match="cannot delete"):
        e.delete_entry_file(store, path.name)
    with pytest.raises(StorageError, match="invalid entry file name"):
        e.delete_entry_file(store, "../config.json")


def test_scan_reports_what_is_not_an_entry_without_reading_it(store_root: Path) -> None:
    store = Store(store_root)
    folder = store.entries_dir
    good = write_raw(store_root, make_entry("A good fact"))
    record = build_record(
        "verify", make_entry("x")["id"], parse_created(make_entry("x")["created"])
    )
    write_raw(store_root, record, "2026-03-08T00-00-00Z-record00.json")
    os.symlink(good, folder / "2026-01-01T00-00-00Z-link.json")
    os.mkfifo(folder / "2026-01-01T00-00-00Z-fifo.json")  # opened, it would block
    with open(folder / "2026-01-01T00-00-00Z-huge.json", "wb") as handle:
        handle.truncate(store.max_entry_bytes + 1)  # sparse: never read
    (folder / "2026-01-01T00-00-00Z-bad.json").write_text("{ nope", encoding="utf-8")
    (folder / "notes.txt").write_text("not a candidate", encoding="utf-8")
    (folder / ".hidden.json").write_text("{ skipped", encoding="utf-8")
    found = e.scan(store)
    assert [entry.content for entry in found.entries] == ["A good fact"]
    assert [r.kind for r in found.records] == ["verify"]
    problems = dict(found.invalid)
    assert sorted(problems) == sorted(
        f"2026-01-01T00-00-00Z-{n}.json" for n in ("link", "fifo", "huge", "bad")
    )
    assert (
        problems["2026-01-01T00-00-00Z-link.json"] == "is a symbolic link (entries must be files)"
    )
    assert problems["2026-01-01T00-00-00Z-fifo.json"] == "is not a regular file"
    limit = store.max_entry_bytes
    assert problems["2026-01-01T00-00-00Z-huge.json"] == (
        f"is {limit + 1} bytes, over the {limit} byte limit of an entry file"
    )
    assert problems["2026-01-01T00-00-00Z-bad.json"].startswith("not valid JSON")


def test_listing_is_in_name_order(store_root: Path) -> None:
    for name in ("b.json", "a.json", "c.JSON", ".a.json", "d.json.tmp"):
        (store_root / "entries" / name).write_text("{}", encoding="utf-8")
    assert [name for name, _, _ in e.listing(Store(store_root))] == ["a.json", "b.json"]


@pytest.mark.parametrize(
    ("data", "name", "limit", "problem"),
    [
        (b"{}", "x.json", 1, "is 2 bytes, over the 1 byte limit of an entry file"),
        (b"{}", "bad-\udcff.json", 100, "has a file name that is not valid UTF-8 (rename it)"),
        (b"[1]", "x.json", 100, "not a JSON object"),
        (b'{"id": "x"}', "x.json", 100, "missing required key 'category'"),
    ],
)
def test_parse_file_says_why_a_file_is_unusable(
    data: bytes, name: str, limit: int, problem: str
) -> None:
    assert e.parse_file(data, name, limit) == (None, problem)


def test_load_of_a_missing_file(tmp_path: Path) -> None:
    data, problem = e.load(tmp_path / "gone.json", 100)
    assert data is None and problem is not None and problem.startswith("cannot be read")


@settings(max_examples=40)
@given(
    content=st.text(
        st.characters(exclude_categories=["Cs"], exclude_characters="\0"), max_size=80
    ).filter(str.strip),
    tags=st.lists(st.sampled_from(["pnpm", "ci", "db"]), unique=True),
    key=st.none() | st.just("package-manager"),
    confidence=st.sampled_from(["low", "medium", "high"]),
)
def test_an_entry_survives_its_row(
    content: str, tags: list[str], key: str | None, confidence: str
) -> None:
    obj = make_entry("placeholder", tags=tags, key=key, confidence=confidence)
    # Any text another tool may have written: hidden characters too, which memsite's own
    # writes refuse (core.hidden) but a reader must carry through its row unchanged.
    obj["content"] = content
    row, problem = e.parse_file(serialize(obj), name_of(obj), 1 << 20)
    assert problem is None
    entry = e.entry_from_row(row, name_of(obj))
    (direct, _) = e.parse_item(serialize(obj), name_of(obj), 1 << 20)
    assert entry == direct and entry.raw == direct.raw  # type: ignore[union-attr]
    assert entry.normalized == direct.normalized  # type: ignore[union-attr]


def test_new_ids_are_version_4_uuids_as_uuid_spells_them() -> None:
    made = [e.random_id() for _ in range(2000)]
    assert len(set(made)) == len(made)
    for value in made:
        parsed = uuid.UUID(value)
        assert str(parsed) == value and UUID_RE.fullmatch(value)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
    # every one of the 122 random bits varies
    bits = [int(v.replace("-", ""), 16) for v in made]
    fixed = (0xF << 76) | (0x3 << 62)  # the version nibble and the variant's two bits
    varying = 0
    for value in bits:
        varying |= value ^ bits[0]
    assert varying == ((1 << 128) - 1) & ~fixed
