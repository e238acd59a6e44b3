"""The memory as of a date or a git ref (``memory.asof``): byte for byte what compaction gave
then, checked against a store cut at the date and against a real checkout of the ref."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memsite.errors import InvalidInputError
from memsite.memory import Memory
from memsite.storage.layout import Store
from tests.conftest import Clock, git

TOPICS = ["pnpm", "postgres", "releases", "deploys", "logging", "tests", "docker", "linting"]
WORDS = ["use", "never", "always", "prefer", "avoid", "pin", "keep", "check"]


def open_at(store_root: Path, now: Any) -> Memory:
    return Memory.open(str(store_root), {}, store_root.parent, now=now)


def strip_origin(value: Any) -> Any:
    """Outputs without provenance and trust: a copied store outside git has neither."""
    if isinstance(value, dict):
        return {k: strip_origin(v) for k, v in value.items() if k not in ("provenance", "trust")}
    if isinstance(value, list):
        return [strip_origin(v) for v in value]
    return value


def answers(memory: Memory) -> dict[str, Any]:
    """Everything a reader asks of a memory, as JSON-ready values."""
    every = memory.list_entries(include_all=True)
    found: dict[str, Any] = {
        "list": memory.list_entries(),
        "all": every,
        "reads": [memory.read(row["id"]) for row in every],
        "searches": [memory.search(t, include_all=True, expand=True) for t in TOPICS[:4]],
        "context": memory.context_report(),
        "export": memory.export("jsonl", include_all=True)["text"],
    }
    status = memory.status()
    found["status"] = {k: v for k, v in status.items() if k not in ("store", "derived")}
    return found


def history(memory: Memory, clock: Clock, rng: random.Random, steps: int) -> list[datetime]:
    """A random life of a memory: adds (keyed, superseding), amends, retirements,
    verifications, links and deletions, an hour apart; the moment after each step."""
    moments = []
    for _ in range(steps):
        clock.tick(hours=1)
        active = [row["id"] for row in memory.list_entries()]
        roll = rng.random()
        topic, word = rng.choice(TOPICS), rng.choice(WORDS)
        text = f"We {word} {topic} in {rng.choice(['ci', 'dev', 'prod'])} {rng.randrange(9)}."
        if roll < 0.45 or len(active) < 3:
            key = topic if rng.random() < 0.3 else None
            memory.add(text, rng.choice(["conventions", "operations"]), key=key)
        elif roll < 0.6:
            memory.amend(rng.choice(active), text)
        elif roll < 0.7:
            memory.retire(rng.choice(active), "no longer true")
        elif roll < 0.8:
            memory.verify(rng.choice(active), "checked")
        elif roll < 0.9:
            first, second = rng.sample(active, 2)
            memory.relate(first, second, "supports", reason="together")
        else:
            memory.delete(rng.choice(active))
        memory.invalidate()
        moments.append(clock())
    return moments


def cut_store(store_root: Path, target: Path, moment: datetime) -> Path:
    """A store holding the entry files written up to ``moment`` (by their names' times)."""
    made, _ = Store.init(target / ".memsite")
    shutil.copy2(store_root / "config.json", made.root / "config.json")
    bound = moment.strftime("%Y-%m-%dT%H-%M-%SZ")
    for path in sorted((store_root / "entries").iterdir()):
        if path.name[:20] <= bound:
            shutil.copy2(path, made.root / "entries" / path.name)
    return made.root


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_date_gives_what_a_store_cut_at_it_gives(
    store_root: Path, tmp_path: Path, seed: int
) -> None:
    clock = Clock()
    memory = open_at(store_root, clock)
    moments = history(memory, clock, random.Random(seed), 24)
    for at in (moments[3], moments[11], moments[17]):
        when = at.isoformat().replace("+00:00", "Z")
        past = open_at(store_root, clock).as_of(when)
        assert past.point is not None and past.point.kind == "date"
        assert past.point.instant == at
        cut = cut_store(store_root, tmp_path / f"cut-{seed}-{at:%H%M}", at)
        expected = answers(open_at(cut, lambda at=at: at))
        assert strip_origin(answers(past)) == strip_origin(expected)
        # A second look reads the same past state again (kept, brought in step).
        again = open_at(store_root, clock).as_of(when)
        assert strip_origin(answers(again)) == strip_origin(expected)


def test_a_ref_gives_what_a_checkout_of_it_gives(project: Path, store_root: Path) -> None:
    clock = Clock()
    memory = open_at(store_root, clock)
    rng = random.Random(7)
    tags = []
    for number in range(3):
        history(memory, clock, rng, 10)
        git(project, "add", "-A")
        git(project, "commit", "-qm", f"memory {number}")
        git(project, "tag", f"v{number}")
        tags.append(f"v{number}")
    history(memory, clock, rng, 6)  # and more since, not committed
    for tag in tags:
        past = open_at(store_root, clock).as_of(tag)
        assert past.point is not None and past.point.commit == git(project, "rev-parse", tag)
        checkout = project.parent / f"checkout-{tag}"
        git(project, "worktree", "add", "-q", "--detach", str(checkout), tag)
        instant = past.point.instant
        there = open_at(checkout / ".memsite", lambda instant=instant: instant)
        mine, theirs = answers(past), answers(there)
        # The files written in this clone are counted from its ledger; a checkout has none.
        # (all its files: nothing is pushed).
        files = os.listdir(past.store.entries_dir)
        assert mine["status"]["trust"].pop("local") == len(files) > 0
        theirs["status"]["trust"].pop("local")
        for name in mine:  # provenance and trust included
            assert mine[name] == theirs[name], name
        assert git(project, "status", "--porcelain") != ""  # the work tree untouched
    assert memory.reopen().list_entries() == open_at(store_root, clock).list_entries()


def test_a_past_state_is_read_without_touching_the_store(project: Path, store_root: Path) -> None:
    clock = Clock()
    memory = open_at(store_root, clock)
    first = memory.add("We deploy on Tuesdays.", "operations")["id"]
    git(project, "add", "-A")
    git(project, "commit", "-qm", "one")
    clock.tick(days=2)
    memory.amend(first, "We deploy on Thursdays.")
    before = sorted(os.listdir(store_root / "entries"))
    head = git(project, "rev-parse", "HEAD")
    status = git(project, "status", "--porcelain")
    past = open_at(store_root, clock).as_of("HEAD")
    assert [row["content"] for row in past.list_entries()] == ["We deploy on Tuesdays."]
    then = open_at(store_root, clock).as_of("2026-03-08")
    assert [row["content"] for row in then.list_entries()] == ["We deploy on Tuesdays."]
    assert then.read(first)["status"] == "active"
    assert open_at(store_root, clock).read(first)["status"] == "superseded"
    assert sorted(os.listdir(store_root / "entries")) == before
    assert git(project, "rev-parse", "HEAD") == head
    assert git(project, "status", "--porcelain") == status


def test_a_day_means_its_end_and_today_means_now(store_root: Path) -> None:
    clock = Clock(datetime(2026, 3, 7, 9, 0, tzinfo=UTC))
    memory = open_at(store_root, clock)
    memory.add("Morning fact.", "conventions")
    clock.tick(hours=10)
    memory.add("Evening fact.", "conventions")
    clock.tick(days=1)
    memory.add("Next day's fact.", "conventions")
    past = open_at(store_root, clock).as_of("2026-03-07")
    assert past.point is not None and past.point.instant == datetime(
        2026, 3, 7, 23, 59, 59, tzinfo=UTC
    )
    assert {r["content"] for r in past.list_entries()} == {"Morning fact.", "Evening fact."}
    noon = open_at(store_root, clock).as_of("2026-03-07T12:00:00+00:00")
    assert [r["content"] for r in noon.list_entries()] == ["Morning fact."]
    today = open_at(store_root, clock).as_of("2026-03-08")  # the day not over yet: up to now
    assert today.point is not None and today.point.instant == clock().replace(microsecond=0)
    assert len(today.list_entries()) == 3
    # A past state is named by the files it holds: other moments with the same files, and
    # "today" asked again a minute later, read the one already made.
    folders = {p.name for p in (store_root / "cache" / "as-of").iterdir()}
    clock.tick(minutes=1)
    assert len(open_at(store_root, clock).as_of("2026-03-08").list_entries()) == 3
    evening = open_at(store_root, clock).as_of("2026-03-07T20:00:00Z")
    assert {r["content"] for r in evening.list_entries()} == {"Morning fact.", "Evening fact."}
    assert {p.name for p in (store_root / "cache" / "as-of").iterdir()} == folders
    assert len(folders) == 3  # the end of the 7th, noon and today


def test_files_arriving_later_with_older_names_join_the_past_state(
    store_root: Path, clock: Clock
) -> None:
    memory = open_at(store_root, clock)
    memory.add("First.", "conventions")
    clock.tick(hours=2)
    memory.add("Second.", "conventions")
    when = "2026-03-07T15:00:00Z"
    assert len(open_at(store_root, clock).as_of(when).list_entries()) == 1
    # A branch merged now brings a file written at 14:45, and a deletion takes one away.
    old = json.loads(next((store_root / "entries").iterdir()).read_text())
    old.update(id="0f0f0f0f-0000-4000-8000-000000000000", content="From a branch.")
    old["created"] = "2026-03-07T14:45:00.000Z"
    (store_root / "entries" / "2026-03-07T14-45-00Z-0f0f0f0f.json").write_text(json.dumps(old))
    shown = {r["content"] for r in open_at(store_root, clock).as_of(when).list_entries()}
    assert shown == {"First.", "From a branch."}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("2027-01-01", "is in the future"),
        ("2026-03-01", "no entry had been written by 2026-03-01: the first was written 2026-03"),
        ("2026-02-30", "invalid date '2026-02-30'"),
        ("2026-03-07T25:00", "invalid date"),
        ("no-such-tag", "no git ref or date 'no-such-tag'"),
        ("--output=x", "no git ref or date '--output=x'"),
        ("", "invalid --as-of"),
        ("x" * 300, "invalid --as-of"),
        ("HEAD@{x\x1b[31mRED}", "invalid --as-of"),
        ("9999-12-31T23:59:59-01:00", "invalid date"),  # past what UTC can hold
        ("0001-01-01T00:00:00+01:00", "invalid date"),
        ("2026-11", "a tag of that name is refs/tags/2026-11"),
    ],
)
def test_bad_points_are_one_clear_line(
    project: Path, store_root: Path, given: str, message: str
) -> None:
    clock = Clock()
    open_at(store_root, clock).add("A fact.", "conventions")
    with pytest.raises(InvalidInputError) as caught:
        open_at(store_root, clock).as_of(given)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_ref_outside_git_and_a_commit_without_a_store(
    project: Path, store_root: Path, tmp_path: Path
) -> None:
    clock = Clock()
    open_at(store_root, clock).add("A fact.", "conventions")
    git(project, "rm", "-rq", "--cached", ".memsite")
    git(project, "commit", "-qm", "no store", "--allow-empty")
    with pytest.raises(InvalidInputError, match=r"has no memory: \.memsite/entries/ is not in"):
        open_at(store_root, clock).as_of("HEAD")
    outside, _ = Store.init(tmp_path.parent / f"{tmp_path.name}-no-git" / ".memsite")
    open_at(outside.root, clock).add("A fact.", "conventions")
    with pytest.raises(InvalidInputError, match="needs git"):
        open_at(outside.root, clock).as_of("v1")


def test_a_shallow_clone_says_to_fetch(project: Path, store_root: Path, tmp_path: Path) -> None:
    clock = Clock()
    memory = open_at(store_root, clock)
    memory.add("Old fact.", "conventions")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "old")
    git(project, "tag", "v1")
    memory.add("New fact.", "conventions")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "new")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-tags", f"file://{project}", str(clone))
    with pytest.raises(InvalidInputError, match=r"shallow.*git fetch"):
        open_at(clone / ".memsite", clock).as_of("v1")
    assert len(open_at(clone / ".memsite", clock).as_of("HEAD").list_entries()) == 2


def test_invalid_files_at_a_ref_are_reported_not_fatal(project: Path, store_root: Path) -> None:
    clock = Clock()
    open_at(store_root, clock).add("A fact.", "conventions")
    entries = store_root / "entries"
    (entries / "2026-03-07T10-00-00Z-broken00.json").write_text("[1, 2")
    (entries / "2026-03-07T10-00-01Z-huge0000.json").write_bytes(b" " * (2 << 20))
    (entries / "2026-03-07T10-00-02Z-link0000.json").symlink_to("/etc/passwd")
    git(project, "add", "-A")
    # A link whose target no file system takes (a NUL in it): only git can hold it.
    blob = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], cwd=project, input=b"a\0b", capture_output=True
        )
        .stdout.decode()
        .strip()
    )
    nul = ".memsite/entries/2026-03-07T10-00-03Z-nul00000.json"
    git(project, "update-index", "--add", "--cacheinfo", f"120000,{blob},{nul}")
    git(project, "commit", "-qm", "bad files")
    for path in list(entries.iterdir()):
        if "broken" in path.name or "huge" in path.name or "link" in path.name:
            path.unlink()
    past = open_at(store_root, clock).as_of("HEAD")
    assert [r["content"] for r in past.list_entries()] == ["A fact."]
    assert past.status()["invalid"] == 4
    problems = json.dumps([f for f in past.review()["findings"] if f["kind"] == "invalid_file"])
    for name in ("broken00", "huge0000", "link0000", "nul00000"):
        assert f"Z-{name}.json" in problems
    # The link was written as a link, and never followed; the next past state is made too.
    link = past.store.entries_dir / "2026-03-07T10-00-02Z-link0000.json"
    assert link.is_symlink() and os.readlink(link) == "/etc/passwd"
    clock.tick(hours=1)
    assert len(open_at(store_root, clock).as_of("2026-03-07T15:30:00Z").list_entries()) == 1


def test_a_commit_killed_half_way_is_never_used(project: Path, store_root: Path) -> None:
    clock = Clock()
    open_at(store_root, clock).add("A fact.", "conventions")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "one")
    commit = git(project, "rev-parse", "HEAD")
    folder = store_root / "cache" / "as-of"
    half = folder / f".c-{commit}.999.deadbeef" / "entries"
    half.mkdir(parents=True)  # what a process killed while writing leaves
    past = open_at(store_root, clock).as_of("HEAD")
    assert [r["content"] for r in past.list_entries()] == ["A fact."]
    assert past.store.root == folder / f"c-{commit}"
    shutil.rmtree(store_root / "cache")  # the cache is derived: deleting it loses nothing
    assert len(open_at(store_root, clock).as_of("HEAD").list_entries()) == 1
    made = folder / f"c-{commit}"
    shutil.rmtree(made / "entries")  # an eviction cut short
    assert len(open_at(store_root, clock).as_of("HEAD").list_entries()) == 1
    # A folder that came with the files (git add -f), or was made by another clone, holding
    # other files: made again from the commit, never read.
    (made / ".made").write_text("0:0", encoding="utf-8")
    forged = json.loads(next((made / "entries").iterdir()).read_text())
    forged.update(id="0f0f0f0f-0000-4000-8000-000000000000", content="Forged.")
    (made / "entries" / "2026-03-07T10-00-00Z-0f0f0f0f.json").write_text(json.dumps(forged))
    shown = [r["content"] for r in open_at(store_root, clock).as_of("HEAD").list_entries()]
    assert shown == ["A fact."]


def test_a_commit_time_no_calendar_holds_is_one_line(project: Path, store_root: Path) -> None:
    clock = Clock()
    open_at(store_root, clock).add("A fact.", "conventions")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "one")
    tree = git(project, "rev-parse", "HEAD^{tree}")
    text = f"tree {tree}\nauthor a <a@b> 1 +0000\ncommitter a <a@b> 99999999999999 +0000\n\nx\n"
    crafted = (
        subprocess.run(
            ["git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally"],
            cwd=project,
            input=text.encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    with pytest.raises(InvalidInputError, match="commit time no calendar holds"):
        open_at(store_root, clock).as_of(crafted)


def test_the_gate_holds_in_the_past_as_today(tmp_path: Path) -> None:
    """An unreviewed fact merged before a release is held back from the release's context
    too; the reviewed one reaches it, with its provenance from git."""
    from tests.memory.test_trust import MALICE, Team

    team = Team(tmp_path)
    fact = team.merge_unreviewed(MALICE)
    git(team.root, "tag", "v1")
    team.memory().add("Deploys go through staging first", "operations")  # after the release
    for when in ("v1", "HEAD"):
        past = team.memory().as_of(when)
        report = past.context_report()
        assert MALICE not in report["text"] and fact in report["held_back"]
        assert "Tests run with pytest -n auto" in report["text"]
        assert "staging" not in report["text"]
        shown = {row["id"]: row for row in past.list_entries()}
        assert shown[fact]["trust"] == "unreviewed" and shown[fact]["held_back"] == "unreviewed"
        assert shown[team.reviewed]["trust"] == "reviewed"
        assert shown[team.reviewed]["provenance"]["commit"] == team.first
    team.memory().approve([fact])  # approved today: not at the release, which had no record
    assert MALICE in team.memory().context()
    assert MALICE not in team.memory().as_of("v1").context()


def test_a_past_states_gate_is_found_once_then_read_from_its_cache(
    store_root: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memsite.memory import trust

    open_at(store_root, clock).add("A fact.", "conventions")
    clock.tick(hours=1)
    found = []
    real = trust._find
    monkeypatch.setattr(trust, "_find", lambda *args: found.append(1) or real(*args))
    for _ in range(3):
        past = open_at(store_root, clock).as_of("2026-03-07T15:00:00Z")
        assert [r["content"] for r in past.list_entries()] == ["A fact."]
    assert len(found) == 1


def test_validity_is_judged_at_the_past_moment(store_root: Path) -> None:
    """--as-of filters on both axes: written by then, and valid then."""
    clock = Clock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    memory = open_at(store_root, clock)
    freeze = memory.add("Code freeze until March 10.", "operations", valid_to="2026-03-10")["id"]
    memory.add("Release train every Tuesday.", "operations", valid_from="2026-03-05")
    clock.tick(days=14)  # today: the freeze is over, the train runs
    today = open_at(store_root, clock)
    assert "Code freeze" not in today.context() and "Release train" in today.context()
    assert today.read(freeze)["status"] == "expired"
    during = open_at(store_root, clock).as_of("2026-03-08")
    assert "Code freeze" in during.context() and "Release train" in during.context()
    assert during.read(freeze)["status"] == "active"
    before = open_at(store_root, clock).as_of("2026-03-02")
    assert "Code freeze" in before.context() and "Release train" not in before.context()
    (upcoming,) = [r for r in before.list_entries() if r.get("upcoming")]
    assert upcoming["content"] == "Release train every Tuesday."


def test_a_ref_cannot_pass_new_text_under_a_reviewed_name(tmp_path: Path) -> None:
    """A branch that rewrites a reviewed fact's file in place (same name, other text) does not
    get its text delivered as reviewed in the branch's past state."""
    from tests.memory.test_trust import MALICE, Team, commit

    team = Team(tmp_path)
    (path,) = [p for p in (team.root / ".memsite" / "entries").iterdir()]
    git(team.root, "checkout", "-q", "-b", "evil")
    obj = json.loads(path.read_text())
    path.write_text(json.dumps({**obj, "content": MALICE}))
    commit(team.root, "Mallory", "reword")
    git(team.root, "tag", "evil-tag")
    git(team.root, "checkout", "-q", "main")
    past = team.memory().as_of("evil-tag")
    (row,) = past.list_entries()
    assert row["content"] == MALICE
    assert row["trust"] == "unreviewed" and row["held_back"] == "unreviewed"
    assert MALICE not in past.context()
    today = team.memory().list_entries()
    assert today[0]["trust"] == "reviewed" and today[0]["content"] != MALICE
    # The reviewed commit's own bytes, read at a ref, are reviewed.
    (row,) = team.memory().as_of("main").list_entries()
    assert row["trust"] == "reviewed" and "held_back" not in row
