"""The ledger of files memsite wrote in this clone: appended once per write, bound to the
clone, and believed only while a file holds the bytes written."""

from __future__ import annotations

import os
from pathlib import Path

from memsite.memory import Memory
from memsite.storage import ledger
from memsite.storage.layout import Store


def test_every_write_is_noted_and_confirmed_by_its_bytes(store_root: Path) -> None:
    memory = Memory.open(str(store_root), {}, store_root.parent)
    first = Path(memory.add("Releases are tagged", "conventions")["path"])
    second = Path(memory.add("Deploys go through staging", "operations")["path"])
    store = Store(store_root)
    written = ledger.written(store)
    assert list(written) == [first.name, second.name]
    assert ledger.unchanged(store, first.name, written[first.name])
    second.write_text(second.read_text().replace("staging", "production"))
    assert not ledger.unchanged(store, second.name, written[second.name])
    assert not ledger.unchanged(store, "../config.json", written[first.name])


def test_a_ledger_made_elsewhere_is_ignored_and_started_again(store_root: Path) -> None:
    store = Store(store_root)
    store.cache_dir.mkdir(exist_ok=True)
    store.written_ledger.write_text("memsite-ledger 1 1:2\nx.json 00000000\n")
    assert ledger.written(store) == {}
    memory = Memory.open(str(store_root), {}, store_root.parent)
    path = Path(memory.add("Releases are tagged", "conventions")["path"])
    assert list(ledger.written(store)) == [path.name]


def test_a_linked_ledger_is_neither_read_nor_written(store_root: Path, tmp_path: Path) -> None:
    store = Store(store_root)
    store.cache_dir.mkdir(exist_ok=True)
    elsewhere = tmp_path / "elsewhere.log"
    elsewhere.write_text(f"memsite-ledger 1 {store.home()}\nx.json 00000000\n")
    os.symlink(elsewhere, store.written_ledger)
    assert ledger.written(store) == {}
    memory = Memory.open(str(store_root), {}, store_root.parent)
    memory.add("Releases are tagged", "conventions")
    assert elsewhere.read_text().count("\n") == 2
