"""The commands that write and read facts (init, add, amend, read, list, search, delete, log):
their behaviour and JSON shapes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.helpers import add
from tests.conftest import Invoke

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_add_writes_one_file_in_the_documented_format(runner: Invoke, store_root: Path) -> None:
    answer = add(
        runner,
        "Always use pnpm, never npm.",
        "-t",
        "pnpm,Tooling",
        "-t",
        "js",
        "--agent",
        "claude-code",
        "--key",
        "package-manager",
        "--confidence",
        "high",
    )
    assert answer["status"] == "written" and answer["near_duplicates"] == []
    files = list((store_root / "entries").glob("*.json"))
    assert len(files) == 1 and str(files[0]) == answer["path"]
    obj = json.loads(files[0].read_text())
    assert UUID.match(obj["id"]) and obj["id"] == answer["id"]
    assert files[0].name.endswith(f"Z-{obj['id'][:8]}.json")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-[0-9a-f]{8}\.json", files[0].name)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", obj["created"])
    assert obj["tags"] == ["pnpm", "tooling", "js"]
    assert (obj["agent"], obj["key"], obj["confidence"], obj["supersedes"]) == (
        "claude-code",
        "package-manager",
        "high",
        None,
    )


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("Deploy with `make ship`.\n", "Deploy with `make ship`."),  # what echo and files give
        ("Deploy with `make ship`.\r\n", "Deploy with `make ship`."),
        ("Deploy with `make ship`.", "Deploy with `make ship`."),
        ("Deploy with:\n\n    make ship\n\n", "Deploy with:\n\n    make ship\n"),  # one only
    ],
)
def test_add_reads_content_from_stdin_without_its_last_line_break(
    runner: Invoke, given: str, kept: str
) -> None:
    result = runner("add", "-", "-c", "operations", "--json", input=given)
    assert result.exit_code == 0
    assert runner("read", result.json()["id"], "--json").json()["content"] == kept


def test_amend_and_log_read_stdin_the_same_way(runner: Invoke, store_root: Path) -> None:
    first = add(runner, "Deploy with make ship")
    amended = runner("amend", str(first["id"]), "-", "--json", input="Deploy with make release\n")
    assert runner("read", amended.json()["id"], "--json").json()["content"] == (
        "Deploy with make release"
    )
    runner("log", "-", "--kind", "task", "--session", "s1", input="ship it\n")
    assert runner("sessions", "list", "--json").json()[0]["open"] == ["[task] ship it"]


def test_exact_duplicate_is_not_written(runner: Invoke, store_root: Path) -> None:
    first = add(runner, "Use pnpm.")
    second = add(runner, "  use   PNPM!")
    assert second["status"] == "duplicate" and second["id"] == first["id"]
    assert len(list((store_root / "entries").glob("*.json"))) == 1


def test_duplicate_of_a_superseded_target_is_written(runner: Invoke) -> None:
    first = add(runner, "Use pnpm")
    second = add(runner, "use pnpm", "--supersedes", str(first["id"]))
    assert second["status"] == "written"


def test_near_duplicate_is_written_and_named(runner: Invoke) -> None:
    first = add(runner, "Run the unit tests with pnpm test before every push to main")
    second = add(runner, "Run the unit tests with pnpm test before every push to main branch")
    assert second["status"] == "written"
    assert second["near_duplicates"] == [
        {"id": first["id"], "similarity": pytest.approx(0.917, abs=0.01)}
    ]
    kinds = [f["kind"] for f in runner("review", "--json").json()["findings"]]
    assert "near_duplicate" in kinds


def test_supersede_chain_read_and_list(runner: Invoke) -> None:
    a = add(runner, "Node 18")
    b = add(runner, "Node 20", "--supersedes", str(a["id"])[:8], "--reason", "LTS moved")
    c = add(runner, "Node 22", "--supersedes", str(b["id"]))
    row = runner("read", str(b["id"])[:6], "--json").json()
    assert row["status"] == "superseded" and row["superseded_by"] == [c["id"]]
    assert [link["id"] for link in row["chain"]] == [c["id"], b["id"], a["id"]]
    assert row["reason"] == "LTS moved"
    listed = runner("list", "--json").json()
    assert [r["id"] for r in listed] == [c["id"]]
    everything = runner("list", "--all", "--json").json()
    assert [(r["id"], r["status"]) for r in everything] == [
        (c["id"], "active"),
        (b["id"], "superseded"),
        (a["id"], "superseded"),
    ]


def test_superseding_an_id_from_another_branch_warns(runner: Invoke) -> None:
    missing = "0b1e2c3d-0000-4000-8000-000000000000"
    answer = add(runner, "New fact", "--supersedes", missing)
    assert answer["status"] == "written"
    assert missing in answer["warnings"][0]


def test_amend_keeps_category_key_and_tags(runner: Invoke) -> None:
    old = add(runner, "Use npm", "-t", "tooling", "--key", "pm")
    new = runner("amend", str(old["id"]), "Use pnpm", "--json").json()
    row = runner("read", new["id"], "--json").json()
    assert (row["category"], row["key"], row["tags"], row["supersedes"]) == (
        "conventions",
        "pm",
        ["tooling"],
        old["id"],
    )


def test_list_filters(runner: Invoke) -> None:
    add(runner, "one", "-t", "x")
    add(runner, "two", "-t", "y")
    runner("add", "three", "-c", "operations", "-t", "x")
    assert [r["content"] for r in runner("list", "-t", "x", "--json").json()] == ["three", "one"]
    assert [r["content"] for r in runner("list", "-c", "conventions", "--json").json()] == [
        "two",
        "one",
    ]
    assert len(runner("list", "--limit", "1", "--json").json()) == 1


def test_search_finds_with_typo_and_ranks(runner: Invoke) -> None:
    add(runner, "The database is Postgres 16 on RDS")
    add(runner, "Deploys go through Argo CD")
    hits = runner("search", "postgress", "--json").json()
    assert [h["content"] for h in hits] == ["The database is Postgres 16 on RDS"]
    assert hits[0]["score"] > 0
    assert runner("search", "kubernetes", "--json").json() == []


def test_delete_reports_revived_entries(runner: Invoke, store_root: Path) -> None:
    old = add(runner, "Old way")
    new = add(runner, "New way", "--supersedes", str(old["id"]))
    answer = runner("delete", str(new["id"]), "--json").json()
    assert answer == {
        "status": "deleted",
        "id": new["id"],
        "path": new["path"],
        "revived": [old["id"]],
    }
    assert not Path(str(new["path"])).exists()


def test_log_and_daily_search(runner: Invoke, store_root: Path) -> None:
    answer = runner(
        "log", "Tried the flaky checkout test twice", "--json", env={"MEMSITE_SESSION": "s1"}
    ).json()
    path = Path(answer["path"])
    assert path.parent == store_root / "daily" and path.name.endswith("-s1.md")
    hits = runner("search", "flaky checkout", "--daily", "--json").json()
    assert hits and hits[0]["source"] == "daily" and hits[0]["line"] == 3
    assert runner("search", "flaky checkout", "--json").json() == []


def test_init_is_idempotent_and_writes_gitignore(
    tmp_path: Path, runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "proj" / ".memsite"
    assert runner("--store", str(target), "init").exit_code == 0
    config = (target / "config.json").read_text()
    (target / "config.json").write_text(config.replace("2000", "1500"))
    assert runner("--store", str(target), "init").exit_code == 0
    assert "1500" in (target / "config.json").read_text()
    ignored = [
        line
        for line in (target / ".gitignore").read_text().splitlines()
        if not line.startswith("#")
    ]
    assert {"compacted/", "index.md", "cache/", "site/"} <= set(ignored)
    assert "entries/" not in ignored


def test_leanspec_store_reads_its_memory_settings(tmp_path: Path, runner: Invoke) -> None:
    lean = tmp_path / "repo" / ".lean-spec"
    (lean / "memory" / "entries").mkdir(parents=True)
    (lean / "config.json").write_text(
        json.dumps(
            {
                "project": "x",
                "specs": {"dir": "specs"},
                "memory": {"categories": {"conventions": 1, "gotchas": 2}},
            }
        )
    )
    result = runner("--store", str(lean / "memory"), "add", "Watch out", "-c", "gotchas", "--json")
    assert result.exit_code == 0, result.stderr
    assert (
        runner("--store", str(lean / "memory"), "list", "--json").json()[0]["category"] == "gotchas"
    )


def test_init_tracks_daily_logs_when_configured(tmp_path: Path, runner: Invoke) -> None:
    target = tmp_path / "tracked" / ".memsite"
    target.mkdir(parents=True)
    (target / "config.json").write_text(json.dumps({"memory": {"trackDaily": True}}))
    assert runner("--store", str(target), "init").exit_code == 0
    ignored = (target / ".gitignore").read_text().splitlines()
    assert "daily/" not in ignored and "index.md" in ignored


def test_search_all_shows_each_hit_status(runner: Invoke) -> None:
    old = runner("add", "Deploys run from the deploy box", "-c", "operations", "--json").json()
    runner("add", "Deploys run from CI now", "-c", "operations", "--supersedes", old["id"])
    lines = runner("search", "deploys", "--all").stdout.splitlines()
    assert any(line.startswith(old["id"][:8]) and "[superseded]" in line for line in lines)
    assert any("[active]" in line for line in lines)
    assert "[" not in runner("search", "deploys").stdout  # the default shows active ones only


def test_read_separates_each_label_from_its_value(runner: Invoke) -> None:
    old = runner("add", "Deploys run from the deploy box", "-c", "operations", "--json").json()
    new = runner("add", "Deploys run from CI", "-c", "operations", "--supersedes", old["id"])
    assert new.exit_code == 0
    for line in runner("read", old["id"][:8]).stdout.splitlines():
        if ":" in line and not line.startswith(" ") and line != "history:":
            value = line.partition(":")[2]
            assert value.startswith(" "), line
    assert "replaced by: " in runner("read", old["id"][:8]).stdout


def test_init_below_a_store_is_refused_unless_forced(
    runner: Invoke, store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(runner, "Use pnpm, never npm.")
    sub = store_root.parent / "src"
    sub.mkdir()
    monkeypatch.chdir(sub)
    result = runner("init")
    assert result.exit_code == 1 and result.stdout == "" and not (sub / ".memsite").exists()
    assert result.stderr.splitlines() == [
        f"Error: a memory store exists above this folder, at {store_root}: run memsite from "
        "there (it finds that store from any folder below), or pass --force to create a "
        "nested store"
    ]
    assert runner("init", "--json").json()["error"].startswith("a memory store exists above")
    assert len(runner("list", "--json").json()) == 1  # the project's store is still the one
    assert runner("init", "--force").exit_code == 0 and (sub / ".memsite" / "entries").is_dir()


def test_read_shows_why_two_facts_are_linked(runner: Invoke) -> None:
    first = add(runner, "Use pnpm")
    second = add(runner, "Lockfiles are committed")
    linked = runner(
        "relate",
        str(first["id"]),
        str(second["id"]),
        "--type",
        "depends-on",
        "--reason",
        "pnpm install --frozen-lockfile needs the lockfile",
    )
    assert linked.exit_code == 0, linked.stderr
    shown = runner("read", str(first["id"])).stdout.splitlines()
    at = next(i for i, line in enumerate(shown) if line.startswith("link:"))
    assert shown[at + 1] == (
        "                because: pnpm install --frozen-lockfile needs the lockfile"
    )
    assert "because:" in runner("read", str(second["id"])).stdout  # both ways


def test_log_done_says_which_task_it_closed_or_that_none_matched(runner: Invoke) -> None:
    runner("log", "Wire the login page", "--kind", "task", "--session", "s-0")
    runner("log", "Fix  the   build", "--kind", "task", "--session", "s-1")
    closed = runner("log", "Fix the build", "--kind", "done", "--session", "s-1")
    assert closed.stdout.splitlines()[-1] == "Closed task: Fix the build"
    assert closed.stderr == ""
    runner("log", "Write the docs", "--kind", "task", "--session", "s-1")
    # a new session closes a task the last session handed it (its context listed it)
    handed = runner("log", "Write the docs", "--kind", "done", "--session", "s-2")
    assert handed.stdout.splitlines()[-1] == "Closed task (from s-1): Write the docs"
    missed = runner("log", "Fix the biuld", "--kind", "done", "--session", "s-1")
    assert missed.exit_code == 0  # logged all the same
    assert missed.stderr == (
        "Warning: no open task reads 'Fix the biuld', so none was closed: a [done] line closes "
        "the open task of the same text (see `memsite sessions list`)\n"
    )
    answer = runner("log", "x", "--kind", "done", "--session", "s-1", "--json").json()
    assert answer["closed"] is None


def test_list_columns_fit_the_longest_category(runner: Invoke) -> None:
    runner("add", "The portal is built by mkdocs", "-c", "architecture")
    add(runner, "Use pnpm")
    rows = runner("list").stdout.splitlines()
    assert [row[22:].split()[0] for row in rows] == ["conventions", "architecture"]
    assert rows[0].index("Use pnpm") == rows[1].index("The portal")  # one column
    assert rows[1][22:].startswith("architecture  The portal")  # two spaces, as between others


def test_sessions_list_counts_one_line_in_the_singular(runner: Invoke) -> None:
    runner("log", "Started", "--session", "s-1")
    (row,) = runner("sessions", "list").stdout.splitlines()
    assert row.endswith("  1 line, 0 open")


def test_valid_from_and_valid_to_write_a_window_that_outputs_flag(
    runner: Invoke, store_root: Path
) -> None:
    """The real clock: a window that closed in 2001 is expired, one opening in 2999 upcoming."""
    old = add(
        runner, "Deploys froze for Y2K", "--valid-from", "1999-12-01", "--valid-to", "2001-01-01"
    )
    ahead = add(runner, "The API moves to v9", "--valid-from", "2999-01-01T09:00:00+01:00")
    add(runner, "Use pnpm")
    obj = json.loads(Path(str(old["path"])).read_text())
    assert (obj["valid_from"], obj["valid_to"]) == ("1999-12-01", "2001-01-01")
    assert json.loads(Path(str(ahead["path"])).read_text())["valid_from"] == (
        "2999-01-01T08:00:00.000Z"
    )
    assert (
        "the fact is expired"
        in runner("add", "Old rule", "-c", "conventions", "--valid-to", "2001-01-01").stderr
    )
    listed = runner("list").stdout
    assert re.search(r"Deploys froze for Y2K  \[expired\]$", listed, re.M)
    assert re.search(r"The API moves to v9  \[upcoming\]$", listed, re.M)
    assert re.search(r"Use pnpm$", listed, re.M)
    every = runner("list", "--all").stdout
    assert re.search(r"Deploys froze for Y2K  \[expired\]$", every, re.M)  # the status says it
    assert re.search(r"The API moves to v9  \[active\]  \[upcoming\]$", every, re.M)
    rows = {r["content"]: r for r in runner("list", "--json").json()}
    assert rows["Deploys froze for Y2K"]["expired"] is True
    assert rows["The API moves to v9"]["upcoming"] is True
    read = runner("read", str(old["id"])).stdout
    assert "status:      expired\n" in read
    assert "valid:       1999-12-01 to 2001-01-01\n" in read
    context = runner("context").stdout
    assert "Use pnpm" in context and "Y2K" not in context and "v9" not in context
    review = runner("review", "--json").json()["findings"]
    assert old["id"] in {f["ids"][0] for f in review if f["kind"] == "expired"}
    assert ahead["id"] not in {i for f in review for i in f["ids"]}


def test_amend_keeps_the_window_and_an_empty_value_clears_a_side(runner: Invoke) -> None:
    first = add(runner, "Deploys froze for Y2K", "--valid-to", "2001-01-01")
    kept = runner("amend", str(first["id"]), "Deploys froze for Y2K and 2001", "--json").json()
    assert runner("read", kept["id"], "--json").json()["valid_to"] == "2001-01-01"
    cleared = runner("amend", kept["id"], "Deploys freeze", "--valid-to", "", "--json").json()
    row = runner("read", cleared["id"], "--json").json()
    assert "valid_to" not in row and row["status"] == "active"
    moved = runner(
        "amend", cleared["id"], "Deploys freeze.", "--valid-from", "2999-01-01", "--json"
    )
    assert runner("read", moved.json()["id"], "--json").json()["upcoming"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--valid-to", "2026-02-30"], "invalid valid_to '2026-02-30': use a date (2026-03-31)"),
        (["--valid-from", "soon"], "invalid valid_from 'soon': use a date"),
        (["--valid-from", "2026-04-02", "--valid-to", "2026-04-01"], "is not after valid_from"),
    ],
)
def test_a_bad_window_is_one_error_line(
    runner: Invoke, store_root: Path, args: list[str], message: str
) -> None:
    result = runner("add", "Deploys freeze", "-c", "operations", *args)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("Error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not list((store_root / "entries").glob("*.json"))
    fact = add(runner, "Use pnpm")
    amended = runner("amend", str(fact["id"]), "Use pnpm 9", *args)
    assert amended.exit_code == 1 and message in amended.stderr
    assert amended.stderr.count("\n") == 1
