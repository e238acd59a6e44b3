"""The cold path of the index: files read once, texts tokenized once, statuses decided before
the rows go in, the views' bullets rendered on first use. Each shortcut gives what the long
way gives."""

from __future__ import annotations

import os
import random
import re
import shutil
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memsite.core.compaction import compact
from memsite.core.text import _CJK, normalize, one_line, word_tokens
from memsite.core.validate import serialize
from memsite.memory import Memory
from memsite.storage.entries import scan
from memsite.storage.layout import Store
from memsite.storage.readmodel import ingest, prepare
from tests.conftest import Clock, make_entry, write_raw
from tests.storage.readmodel.test_facade import CATEGORIES, WORDS, open_memory, views


@settings(max_examples=500)
@given(st.text())
@example("日本語のテキスト and ascii_words 123")
@example("ｆｕｌｌｗｉｄｔｈ ﬁ ligature")
def test_word_tokens_are_runs_of_word_characters_and_single_cjk(text: str) -> None:
    """The fast forms (plain ``\\w+`` for ASCII, one class otherwise) equal the rule's plain
    wording: a CJK character alone, else a run of word characters that are not CJK."""
    rule = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])\w)+")
    for value in (text, normalize(text)):
        assert word_tokens(value) == rule.findall(value)


@settings(max_examples=500)
@given(st.text(alphabet=st.characters(codec=None) | st.sampled_from("\x1c\x85\u3000\u00a0\t\n ")))
def test_one_line_folds_every_whitespace_run_as_the_pattern_does(text: str) -> None:
    assert one_line(text) == re.sub(r"\s+", " ", text).strip()


def _hostile_store(root: Path, clock: Clock, count: int) -> None:
    """Entries with supersessions, duplicates, contradicting keys, a repeated id, retire
    records, broken files and a FIFO: every rule of compaction has something to decide."""
    rng = random.Random(3)
    ids: list[str] = []
    for i in range(count):
        sup = rng.sample(ids, 1 if rng.random() < 0.8 else 2) if ids and rng.random() < 0.2 else []
        obj = make_entry(
            f"fact {rng.randrange(count // 3)} about {rng.choice(WORDS)}",
            rng.choice(CATEGORIES),
            created=clock.tick(seconds=rng.choice([0, 1, 60])),
            supersedes=sup,
            key=rng.choice([None, None, None, "db", "ci"]),
            tags=[rng.choice(WORDS)],
        )
        write_raw(root, obj)
        ids.append(obj["id"])
        if i % 97 == 0:  # a hostile copy repeating an id under another name
            copy = {**obj, "content": obj["content"] + " (copy)"}
            (root / "entries" / f"2030-01-01T00-00-{i % 60:02d}Z-{i:08x}.json").write_bytes(
                serialize(copy)
            )
    for target in rng.sample(ids, 20):
        record = {
            "record": "retire",
            "id": str(uuid.uuid4()),
            "target": target,
            "reason": "withdrawn",
            "created": (clock.moment + timedelta(seconds=1)).isoformat().replace("+00:00", "Z"),
        }
        (root / "entries" / f"2031-01-01T00-00-00Z-{record['id'][:8]}.json").write_bytes(
            serialize(record)
        )
    (root / "entries" / "2026-01-01T00-00-00Z-broken00.json").write_text("{ no", encoding="utf-8")
    os.mkfifo(root / "entries" / "2026-01-01T00-00-00Z-fifo0000.json")
    os.symlink("/etc/hostname", root / "entries" / "2026-01-01T00-00-00Z-link0000.json")


def _one_by_one(root: Path, tmp: Path, clock: Clock) -> tuple[dict[str, str | None], dict]:
    """Statuses and views of the same entries taken in by small, incremental syncs."""
    other = tmp / "incremental" / ".memsite"
    shutil.copytree(root, other, ignore=shutil.ignore_patterns("cache", "entries"))
    (other / "entries").mkdir()
    names = sorted(os.listdir(root / "entries"))
    for start in range(0, len(names), 300):
        for name in names[start : start + 300]:
            source = root / "entries" / name
            target = other / "entries" / name
            if source.is_symlink():
                os.symlink(os.readlink(source), target)
            elif source.is_fifo():
                os.mkfifo(target)
            else:
                shutil.copy(source, target)
        open_memory(other, clock).index().sync()
    memory = open_memory(other, clock)
    memory.compact(full=True)
    return memory.index().entries.statuses(), views(other)


@pytest.mark.parametrize("parallel", [True, False])
def test_a_first_build_decides_as_the_long_way(
    store_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool
) -> None:
    clock = Clock()
    _hostile_store(store_root, clock, 1500)
    monkeypatch.setattr(prepare, "PARALLEL", 500 if parallel else 10**9)
    monkeypatch.setattr(ingest, "PARALLEL", 500 if parallel else 10**9)
    memory = open_memory(store_root, clock)
    memory.compact()
    statuses = memory.index().entries.statuses()
    assert {s for s in statuses.values()} >= {"active", "superseded", "duplicate", None}
    assert "retired" in statuses.values() and "overridden" in statuses.values()
    found = scan(Store(store_root))
    retired = {r.target for r in found.records if r.kind == "retire"}
    result = compact(found.entries, (), retired)
    winners = {e.filename: result.status[e.id] for e in result.entries}
    assert {f: s for f, s in statuses.items() if s is not None} == winners
    invalid = {i.filename: i.message for i in memory.index().entries.invalid()}
    assert invalid["2026-01-01T00-00-00Z-fifo0000.json"] == "is not a regular file"
    assert "symbolic link" in invalid["2026-01-01T00-00-00Z-link0000.json"]
    assert "not valid JSON" in invalid["2026-01-01T00-00-00Z-broken00.json"]
    monkeypatch.setattr(prepare, "PARALLEL", 10**9)
    monkeypatch.setattr(ingest, "PARALLEL", 10**9)
    their_statuses, their_views = _one_by_one(store_root, tmp_path, clock)
    assert statuses == their_statuses
    assert views(store_root) == their_views


def test_bullets_are_rendered_once_and_kept(store_root: Path) -> None:
    clock = Clock()
    memory = open_memory(store_root, clock)
    for i in range(5):
        memory.add(f"fact number {i} about {WORDS[i]}", "conventions", tags=["t"])
    index = memory.index()
    pending = "SELECT count(*) FROM entries WHERE index_cost IS NULL AND status = 'active'"
    assert index.db.execute(pending).fetchone()[0] == 5  # nothing rendered by writing
    bullets = index.views.view_bullets("conventions")
    assert index.db.execute(pending).fetchone()[0] == 0
    assert len(bullets) == 5 and all(b.startswith("- fact number") for b in bullets)


def test_bullets_missing_inside_a_read_are_rendered_there(store_root: Path) -> None:
    clock = Clock()
    first = open_memory(store_root, clock)
    first.add("Use pnpm, never npm", "conventions")
    expected_items = first.index().views.index_items()
    expected_views = first.index().views.view_bullets("conventions")
    expected_bullets = first.index().views.index_bullets(
        [i.id for i in expected_items["conventions"]]
    )
    shutil.rmtree(store_root / "cache")
    memory: Memory = open_memory(store_root, clock)
    index = memory.index()
    index.db.execute("BEGIN")  # a read in progress: nothing is written, all is still answered
    try:
        assert index.views.index_items() == expected_items
        assert index.views.view_bullets("conventions") == expected_views
        ids = [i.id for i in expected_items["conventions"]]
        assert index.views.index_bullets(ids) == expected_bullets
    finally:
        index.db.execute("COMMIT")
    rows = index.db.execute("SELECT count(*) FROM entries WHERE index_cost IS NULL")
    assert rows.fetchone()[0] == 1


def test_a_store_without_entries_builds_its_indexes(store_root: Path) -> None:
    index = open_memory(store_root, Clock()).index()
    names = {r[0] for r in index.db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"entries_order", "entries_unshown", "sup_src", "records_target"} <= names
    assert Store(store_root).cache_dir.is_dir()


def test_files_in_the_page_cache_are_not_read_ahead_again(tmp_path: Path) -> None:
    """The read-ahead helper starts only when some sampled file would come from the disk: a
    fresh clone's files (just written) are in memory, and warming them costs a core."""
    names = [f"{n:04d}.json" for n in range(64)]
    for name in names:
        (tmp_path / name).write_text('{"id": 1}')
    assert prepare._cached(tmp_path, names)
    evicted = tmp_path / names[32]  # one of the sampled files
    fd = os.open(evicted, os.O_RDONLY)
    try:
        os.fsync(fd)  # a clean page can be dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    assert not prepare._cached(tmp_path, names)
