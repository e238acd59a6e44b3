"""The indexed read model (cache/index.sqlite3): incremental upkeep that matches a full rebuild
byte for byte, and a cache that may be deleted, damaged or raced at any time."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memsite.core.compaction import compact
from memsite.memory import Memory
from memsite.storage.entries import scan
from memsite.storage.layout import Store
from memsite.storage.readmodel import facade
from memsite.storage.readmodel.statuses import component
from tests.conftest import Clock, Invoke, clean_env, make_entry, write_raw

CATEGORIES = ("conventions", "architecture", "operations", "decisions")
WORDS = "pnpm docker redis postgres deploy staging tests lint cache queue retry webhook".split()


def open_memory(root: Path, clock: Clock) -> Memory:
    store = Store(root)
    return Memory(store, store.load_config(), clock)


def views(root: Path) -> dict[str, bytes]:
    found = {"index.md": (root / "index.md").read_bytes()}
    for path in sorted((root / "compacted").glob("*.md")):
        found[f"compacted/{path.name}"] = path.read_bytes()
    return found


def full_statuses(root: Path) -> dict[str, str]:
    result = compact(scan(Store(root)).entries, ())
    return {e.filename: result.status[e.id] for e in result.entries}


def rebuilt(root: Path, clock: Clock) -> tuple[dict[str, bytes], dict[str, str | None]]:
    """The views and statuses memsite makes from entries/ alone, with no cache or view left."""
    shutil.rmtree(root / "cache", ignore_errors=True)
    shutil.rmtree(root / "compacted", ignore_errors=True)
    (root / "index.md").unlink(missing_ok=True)
    memory = open_memory(root, clock)
    memory.compact(full=True)
    return views(root), memory.index().entries.statuses()


class Scenario:
    """Random writes, deletes, supersessions, merges, contradictions, cycles, older entries
    arriving (as from a merge), broken files and a deleted cache, applied to one store."""

    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.clock = Clock()
        self.ids: list[str] = []

    def text(self) -> str:
        return " ".join(self.rng.sample(WORDS[:5], 2))  # few choices: duplicates happen

    def step(self) -> None:
        rng = self.rng
        memory = open_memory(self.root, self.clock)
        self.clock.tick(minutes=rng.randint(1, 90))
        kind = rng.choice(
            ["add"] * 5
            + ["supersede", "merge", "key", "delete", "older", "cycle", "broken"]
            + ["drop-cache"]
        )
        category = rng.choice(CATEGORIES)
        if kind == "add":
            self.ids.append(memory.add(self.text(), category, tags=[rng.choice(WORDS)])["id"])
        elif kind in ("supersede", "merge") and self.ids:
            targets = rng.sample(self.ids, min(len(self.ids), 1 if kind == "supersede" else 2))
            self.ids.append(memory.add(self.text(), category, supersedes=targets)["id"])
        elif kind == "key":
            key = rng.choice(["db", "ci", "pm"])
            self.ids.append(memory.add(self.text(), category, key=key)["id"])
        elif kind == "delete" and self.ids:
            victim = self.ids.pop(rng.randrange(len(self.ids)))
            if memory.index().entries.has_id(victim):
                memory.delete(victim)
        elif kind == "older":  # an entry from another branch, older than what is here
            moment = self.clock.moment - timedelta(days=rng.randint(1, 30))
            sup = rng.sample(self.ids, 1) if self.ids and rng.random() < 0.5 else []
            obj = make_entry(self.text(), category, created=moment, supersedes=sup)
            write_raw(self.root, obj)
            self.ids.append(obj["id"])
        elif kind == "cycle" and self.ids:  # two entries superseding each other (and one more)
            first, second = (str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in "ab")
            moment = self.clock.moment
            a = make_entry(self.text(), category, created=moment, id=first)
            a["supersedes"] = [second, self.ids[-1]]
            write_raw(self.root, a)
            b = make_entry(self.text(), category, created=moment + timedelta(seconds=1), id=second)
            b["supersedes"] = [first]
            write_raw(self.root, b)
            self.ids += [first, second]
        elif kind == "broken":
            name = f"2026-01-01T00-00-00Z-{rng.getrandbits(32):08x}.json"
            (self.root / "entries" / name).write_text("{ not json", encoding="utf-8")
        elif kind == "drop-cache":
            shutil.rmtree(self.root / "cache", ignore_errors=True)
        if rng.random() < 0.6:
            open_memory(self.root, self.clock).compact()


@pytest.mark.parametrize("seed", range(8))
def test_incremental_views_match_a_full_rebuild(store_root: Path, seed: int) -> None:
    scenario = Scenario(store_root, seed)
    for round_ in range(3):
        for _ in range(15):
            scenario.step()
        memory = open_memory(store_root, scenario.clock)
        memory.compact()
        incremental = views(store_root)
        statuses = memory.index().entries.statuses()
        assert statuses == full_statuses(store_root)
        rebuilt_views, rebuilt_statuses = rebuilt(store_root, scenario.clock)
        assert incremental == rebuilt_views, f"seed {seed}, round {round_}"
        assert statuses == rebuilt_statuses


def test_the_scenarios_reach_every_status(tmp_path: Path) -> None:
    seen: set[str | None] = set()
    for seed in range(8):
        root, _ = Store.init(tmp_path / str(seed) / ".memsite")
        scenario = Scenario(root.root, seed)
        for _ in range(45):
            scenario.step()
        seen.update(open_memory(root.root, scenario.clock).index().entries.statuses().values())
    assert {"active", "superseded", "duplicate", "overridden"} <= seen


def test_many_changes_at_once_take_the_bulk_path_and_agree(store_root: Path) -> None:
    clock = Clock()
    memory = open_memory(store_root, clock)
    memory.add("seed fact", "conventions")
    memory.compact()
    rng = random.Random(7)
    ids: list[str] = []
    for _i in range(1200):  # over the bulk threshold: every status is decided again at once
        sup = [rng.choice(ids)] if ids and rng.random() < 0.2 else []
        obj = make_entry(
            f"fact {rng.randrange(400)} about {rng.choice(WORDS)}",
            rng.choice(CATEGORIES),
            created=clock.tick(minutes=1),
            supersedes=sup,
            key=rng.choice([None, None, None, "db"]),
        )
        write_raw(store_root, obj)
        ids.append(obj["id"])
    memory = open_memory(store_root, clock)
    memory.compact()
    assert memory.index().entries.statuses() == full_statuses(store_root)
    incremental = views(store_root)
    assert incremental == rebuilt(store_root, clock)[0]


def test_the_cache_can_go_at_any_moment(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    memory.add("The queue is RabbitMQ", "architecture")
    memory.index()
    shutil.rmtree(store_root / "cache")  # while this process holds the index open
    clock.tick()
    memory.add("The cache is Redis", "architecture")
    fresh = open_memory(store_root, clock)
    assert {e["content"] for e in fresh.list_entries()} == {
        "The queue is RabbitMQ",
        "The cache is Redis",
    }
    assert (store_root / "cache" / "index.sqlite3").is_file()


def test_a_damaged_cache_is_rebuilt_with_a_one_line_notice(store_root: Path) -> None:
    env = {**clean_env(), "MEMSITE_STORE": str(store_root)}
    memsite = [sys.executable, "-m", "memsite"]
    subprocess.run([*memsite, "add", "Use pnpm", "-c", "conventions"], env=env, check=True)
    database = store_root / "cache" / "index.sqlite3"
    database.write_bytes(b"this is not a database" * 100)
    done = subprocess.run(
        [*memsite, "search", "pnpm", "--json"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert [hit["content"] for hit in json.loads(done.stdout)] == ["Use pnpm"]
    notice = done.stderr.strip().splitlines()
    assert len(notice) == 1 and "cache" in notice[0] and "rebuilding" in notice[0], notice
    assert "Traceback" not in done.stderr
    again = subprocess.run(
        [*memsite, "search", "pnpm"], env=env, capture_output=True, text=True, check=True
    )
    assert again.stderr == ""


def test_a_large_first_read_says_so_before_it_starts(
    store_root: Path, runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many new entry files (a clone, a large merge) take seconds to read into the cache: one
    line on stderr says so as it begins; a command with little to read says nothing."""
    monkeypatch.setattr(facade, "ANNOUNCE_FROM", 20)
    clock = Clock()
    for i in range(25):
        write_raw(store_root, make_entry(f"fact number {i}", "operations", created=clock.tick()))
    first = runner("list", "--json")
    assert first.exit_code == 0 and len(json.loads(first.stdout)) == 25
    lines = first.stderr.splitlines()
    assert len(lines) == 1 and "reading 25 new entry files into the cache" in lines[0], lines
    assert runner("list", "--json").stderr == ""
    found = runner("search", "fact number", "--json")
    assert found.exit_code == 0 and json.loads(found.stdout)
    lines = found.stderr.splitlines()
    assert len(lines) == 1 and "embedding 25 entries for search by meaning" in lines[0], lines
    assert runner("search", "fact number", "--json").stderr == ""
    for i in range(5):
        write_raw(store_root, make_entry(f"pulled fact {i}", created=clock.tick()))
    later = runner("list", "--json")
    assert later.stderr == "" and len(json.loads(later.stdout)) == 30


def test_every_command_closes_the_cache_and_leaves_no_write_ahead_log(store_root: Path) -> None:
    """A connection left open at exit leaves cache/index.sqlite3-wal behind (16 MB after a
    compact at 10k), which the next command must read first."""
    env = {**clean_env(), "MEMSITE_STORE": str(store_root)}
    memsite = [sys.executable, "-m", "memsite"]
    for args in (["list"], ["add", "Use pnpm", "-c", "conventions"], ["compact"], ["context"]):
        subprocess.run([*memsite, *args], env=env, check=True, capture_output=True)
        left = sorted(p.name for p in (store_root / "cache").iterdir() if "sqlite3-" in p.name)
        assert left == [], (args, left)


def test_two_processes_building_the_cache_at_once(store_root: Path) -> None:
    clock = Clock()
    for i in range(2500):
        write_raw(store_root, make_entry(f"fact number {i}", "operations", created=clock.tick()))
    env = {**clean_env(), "MEMSITE_STORE": str(store_root)}
    command = [sys.executable, "-m", "memsite", "list", "--json"]
    procs = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=600) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err.decode()
        assert len(json.loads(out)) == 2500
    memory = open_memory(store_root, clock)
    assert memory.index().entries.statuses() == full_statuses(store_root)
    assert not [p for p in (store_root / "cache").iterdir() if p.name.startswith(".index-")]


def test_a_git_pull_of_a_thousand_entries_is_seen_by_the_next_command(tmp_path: Path) -> None:
    def git(cwd: Path, *args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
            cwd=cwd,
            check=True,
            capture_output=True,
        )

    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    Store.init(origin / ".memsite")
    clock = Clock()
    open_memory(origin / ".memsite", clock).add("first fact", "conventions")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "one")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    mine = open_memory(clone / ".memsite", clock)
    assert len(mine.list_entries()) == 1  # the clone's cache is built and trusted
    for i in range(1000):
        write_raw(origin / ".memsite", make_entry(f"pulled fact {i}", created=clock.tick()))
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "many")
    git(clone, "pull", "-q")
    after = open_memory(clone / ".memsite", clock)
    assert len(after.list_entries()) == 1001
    assert [h["content"] for h in after.search("pulled fact 999")][:1] == ["pulled fact 999"]


def test_a_file_edited_in_place_is_found_by_full(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    path = Path(memory.add("The port is 8080", "operations")["path"])
    memory.compact()
    obj = json.loads(path.read_text(encoding="utf-8"))
    obj["content"] = "The port is 9090"
    with open(path, "w", encoding="utf-8") as handle:  # same file, same folder: no listing
        json.dump(obj, handle)
    # Entry files are immutable by the spec: an ordinary command trusts the index...
    assert [e["content"] for e in open_memory(store_root, clock).list_entries()] == [
        "The port is 8080"
    ]
    # ...and --full re-hashes every file and takes the edit in.
    open_memory(store_root, clock).compact(full=True)
    assert [e["content"] for e in open_memory(store_root, clock).list_entries()] == [
        "The port is 9090"
    ]
    assert "9090" in (store_root / "compacted" / "operations.md").read_text(encoding="utf-8")


def test_a_file_put_back_with_the_folder_times_forged_is_still_seen(
    store_root: Path, clock: Clock
) -> None:
    memory = open_memory(store_root, clock)
    memory.add("first", "conventions")
    folder = store_root / "entries"
    before = folder.stat()
    write_raw(store_root, make_entry("second", created=clock.tick()))
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))  # ctime still moves
    assert {e["content"] for e in open_memory(store_root, clock).list_entries()} == {
        "first",
        "second",
    }


def test_a_store_whose_cache_cannot_be_written_still_answers(store_root: Path) -> None:
    clock = Clock()
    write_raw(store_root, make_entry("Deploys go through ArgoCD", "operations"))
    shutil.rmtree(store_root / "cache", ignore_errors=True)
    (store_root / "cache").write_text("not a folder", encoding="utf-8")
    memory = open_memory(store_root, clock)
    assert [h["content"] for h in memory.search("argocd")] == ["Deploys go through ArgoCD"]
    assert memory.index().in_memory


def test_names_that_are_not_utf8_are_reported_not_fatal(store_root: Path, clock: Clock) -> None:
    raw = os.fsencode(store_root / "entries") + b"/2026-01-01T00-00-00Z-\xff\xfe.json"
    obj = make_entry("from a strange file name", id="12345678-1234-4234-8234-123456789abc")
    with open(raw, "wb") as handle:
        handle.write(json.dumps(obj).encode())
    memory = open_memory(store_root, clock)
    assert memory.list_entries() == []
    invalid = memory.index().entries.invalid()
    assert len(invalid) == 1 and "UTF-8" in invalid[0].message
    assert os.path.exists(raw)  # reported, never touched


def test_times_order_the_index_as_compaction_does(store_root: Path, clock: Clock) -> None:
    moment = datetime(2026, 5, 1, 12, 0, 0, 999_999, tzinfo=UTC)
    for i, confidence in enumerate(["low", "high", "medium"]):
        obj = make_entry(f"same time {i}", "decisions", created=moment, confidence=confidence)
        write_raw(store_root, obj)
    listed = [e["content"] for e in open_memory(store_root, clock).list_entries()]
    full = compact(scan(Store(store_root)).entries, ())
    assert listed == [e.content for e in full.active()]


def test_a_cache_held_locked_too_long_is_answered_from_memory(
    store_root: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    open_memory(store_root, clock).add("first", "conventions")
    write_raw(store_root, make_entry("second", created=clock.tick()))  # the next read syncs
    holder = sqlite3.connect(store_root / "cache" / "index.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process mid-write
    try:
        memory = open_memory(store_root, clock)
        memory.model.index.db.execute("PRAGMA busy_timeout = 50")
        assert sorted(e["content"] for e in memory.list_entries()) == ["first", "second"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert memory.model.index.in_memory
    assert "held by another memsite process" in capsys.readouterr().err


def test_following_a_write_s_links_seeks_the_indexes(store_root: Path, clock: Clock) -> None:
    """What a new entry touches (its chain, its duplicates, its key's other facts) is found
    by index seeks, never by scanning a category's rows: at 100k entries a scan of one
    category cost ~6 ms of every `add`."""
    memory = open_memory(store_root, clock)
    first = memory.add("Deploys run from main", "operations", key="deploy-branch")
    for n in range(30):
        memory.add(f"Filler fact number {n} about queues", "operations")
    memory.add("Deploys run from release", "operations", key="deploy-branch")
    index = memory.index()
    seen: list[str] = []
    index.db.set_trace_callback(seen.append)
    try:
        linked = component(index.db, {first["id"]})
    finally:
        index.db.set_trace_callback(None)
    assert len(linked) == 2  # the two facts on one key
    plans = [
        detail
        for statement in seen
        if statement.startswith("SELECT")
        for *_, detail in index.db.execute("EXPLAIN QUERY PLAN " + statement)
    ]
    dup = [d for d in plans if "entries_dup" in d]
    keyed = [d for d in plans if "entries_key" in d]
    assert dup and keyed
    # Both columns sought (a seek of the category alone walks all its rows).
    assert all("digest=?" in d for d in dup) and all("key=?" in d for d in keyed)
    # Scanning the VALUES list of the pairs looked up is fine; scanning a table is not.
    scanned = [d for d in plans if d.startswith("SCAN") and "CONSTANT" not in d and d != "SCAN v"]
    assert scanned == []


def test_a_reader_that_keeps_entries_gets_the_same_objects_for_unchanged_files(
    tmp_path: Path,
) -> None:
    """serve's reads: an unchanged file's Entry is the earlier object, a changed one's is new,
    even when its row takes the number the old row had (it was the last one)."""
    root = tmp_path / ".memsite"
    (root / "entries").mkdir(parents=True)
    paths = [
        write_raw(
            root,
            make_entry(f"Fact {n} about {WORDS[n]}", created=f"2026-03-0{n + 1}T10:00:00.000Z"),
        )
        for n in range(3)
    ]
    first = Memory.open(str(root), {}, tmp_path).reopen(remember=True)
    before = {e.filename: e for e in first.state().result.entries}
    obj = json.loads(paths[-1].read_text())
    obj["content"] = "Fact 2, corrected"
    swap = paths[-1].with_suffix(".tmp")
    swap.write_text(json.dumps(obj, indent=2), encoding="utf-8")
    os.replace(swap, paths[-1])  # as a checkout rewrites a file: a new one under the old name
    second = first.reopen(remember=True)  # as serve opens the store for each rebuild
    after = {e.filename: e for e in second.state().result.entries}
    assert after.keys() == before.keys()
    for path in paths[:-1]:
        assert after[path.name] is before[path.name]
    changed = after[paths[-1].name]
    assert changed is not before[paths[-1].name] and changed.content == "Fact 2, corrected"
    plain = Memory.open(str(root), {}, tmp_path).state().result.entries
    assert sorted(plain, key=lambda e: e.filename) == sorted(
        after.values(), key=lambda e: e.filename
    )
