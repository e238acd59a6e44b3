"""The small caches under cache/: the views' stamp, the flagged ids and the secret-scan
verdicts. Each round-trips; unreadable, malformed or of another version means empty."""

from __future__ import annotations

import json
import marshal
from pathlib import Path

import pytest

from memsite.errors import StorageError
from memsite.storage import cache
from memsite.storage.cache import Caches
from memsite.storage.layout import Store
from memsite.version import __version__


@pytest.fixture
def caches(store_root: Path) -> Caches:
    return Caches(Store(store_root))


def test_nothing_saved_means_nothing_known(caches: Caches) -> None:
    assert caches.load_state() is None
    assert caches.flagged_bytes() == b"" and caches.flagged() == set()
    assert caches.load_verdicts() == {}


def test_the_state_round_trips_and_keeps_its_mtime_when_unchanged(caches: Caches) -> None:
    stamp = {"generation": 4, "instance": "abc", "categories": ["a", "b"]}
    caches.save_state(stamp)
    assert caches.load_state() == stamp
    path = caches.state_path
    assert path.read_text(encoding="utf-8") == json.dumps(stamp, sort_keys=True) + "\n"
    before = path.stat().st_mtime_ns
    path.touch()
    touched = path.stat().st_mtime_ns
    caches.save_state(dict(reversed(stamp.items())))  # same content: not written again
    assert path.stat().st_mtime_ns == touched >= before


@pytest.mark.parametrize("text", ["{ not json", ""])
def test_an_unreadable_state_is_none(caches: Caches, text: str) -> None:
    caches.state_path.parent.mkdir(parents=True, exist_ok=True)
    caches.state_path.write_text(text, encoding="utf-8")
    assert caches.load_state() is None


def test_the_state_must_land(store_root: Path) -> None:
    store = Store(store_root)
    store.cache_dir.write_text("not a folder", encoding="utf-8")
    with pytest.raises(StorageError):
        Caches(store).save_state({"generation": 1})


def test_flagged_ids_round_trip_sorted(caches: Caches) -> None:
    caches.save_flagged({"b-id", "a-id"})
    assert caches.flagged_bytes() == b'["a-id", "b-id"]\n'
    assert caches.flagged() == {"a-id", "b-id"}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'["x", 3, null, "y"]', {"x", "y"}),  # only strings are ids
        (b'{"x": 1}', set()),
        (b"[broken", set()),
        (b'"x"', set()),
    ],
)
def test_malformed_flagged_ids(caches: Caches, data: bytes, expected: set[str]) -> None:
    path = caches.store.secret_flagged
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    assert caches.flagged() == expected


def test_verdicts_round_trip(caches: Caches) -> None:
    verdicts = {"id-1": (123, ["AWS key"]), "id-2": (456, [])}
    caches.save_verdicts(verdicts)
    assert caches.load_verdicts() == verdicts


def test_verdicts_of_another_clone_are_empty(caches: Caches) -> None:
    """Verdicts that came with the files ("nothing found") are never believed."""
    theirs = (cache._SECRETS_VERSION, __version__, "64769:1")
    caches.secrets_path.parent.mkdir(parents=True, exist_ok=True)
    caches.secrets_path.write_bytes(marshal.dumps((theirs, {"id": (1, [])})))
    assert caches.store.home() not in ("", "64769:1")
    assert caches.load_verdicts() == {}


@pytest.mark.parametrize(
    "data",
    [
        marshal.dumps(((cache._SECRETS_VERSION + 1, __version__), {"id": (1, [])})),
        marshal.dumps(((cache._SECRETS_VERSION, "0.0.0-other"), {"id": (1, [])})),
        marshal.dumps(((cache._SECRETS_VERSION, __version__), ["not", "a", "dict"])),
        marshal.dumps("no version at all"),
        b"\x00garbage",
        b"",
    ],
)
def test_verdicts_of_another_version_or_unreadable_are_empty(caches: Caches, data: bytes) -> None:
    caches.secrets_path.parent.mkdir(parents=True, exist_ok=True)
    caches.secrets_path.write_bytes(data)
    assert caches.load_verdicts() == {}


def test_a_cache_that_cannot_be_written_is_ignored(store_root: Path) -> None:
    store = Store(store_root)
    store.cache_dir.write_text("not a folder", encoding="utf-8")
    caches = Caches(store)
    caches.save_verdicts({"id": (1, [])})  # no error: an optimisation only
    caches.save_flagged({"id"})
    assert caches.load_verdicts() == {} and caches.flagged() == set()
