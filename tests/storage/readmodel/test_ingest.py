"""What a listing of entries/ brings in: files added, removed and replaced under their names
(a new inode, as git writes them), names that are not valid UTF-8 among them."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memsite.storage.layout import Store
from memsite.storage.readmodel import Index
from memsite.storage.readmodel.ingest import _known, changes
from tests.conftest import make_entry, write_raw

NAMES = st.sampled_from([f"{n}.json" for n in range(12)] + ["\udcff\udcfe.json"])
LISTINGS = st.dictionaries(NAMES, st.integers(1, 4))


@given(LISTINGS, LISTINGS)
def test_changes_are_the_names_whose_file_differs(
    listed: dict[str, int], known: dict[str, int]
) -> None:
    """The set operations give what a comparison name by name gives."""
    added, removed = changes(listed, known)
    assert added == sorted(n for n, ino in listed.items() if known.get(n) != ino)
    assert removed == sorted(n for n, ino in known.items() if listed.get(n) != ino)


def test_a_listing_takes_in_a_file_replaced_under_its_name(tmp_path: Path) -> None:
    store, _ = Store.init(tmp_path / ".memsite")
    kept = write_raw(
        store.root, make_entry("The port is 8080", id="11111111-1111-4111-8111-111111111111")
    )
    raw = os.fsencode(store.entries_dir) + b"/2026-01-01T00-00-00Z-\xff\xfe.json"
    with open(raw, "wb") as handle:
        handle.write(b"{}")
    index = Index(store)
    index.sync()
    assert changes(_listing(store), _known(index.db)) == ([], [])  # the odd name is known
    obj = json.loads(kept.read_text())
    fresh = kept.with_name(".replacement")
    fresh.write_text(json.dumps({**obj, "content": "The port is 9090"}))
    os.replace(fresh, kept)  # a new inode under the same name
    assert changes(_listing(store), _known(index.db)) == ([kept.name], [kept.name])
    index.forget()
    (row,) = index.entries.active_in_files([kept.name]).items()
    assert index.entries.with_ids({row[0]})[0].content == "The port is 9090"
    index.close()


def _listing(store: Store) -> dict[str, int]:
    with os.scandir(store.entries_dir) as items:
        return {item.name: item.inode() for item in items if item.name.endswith(".json")}
