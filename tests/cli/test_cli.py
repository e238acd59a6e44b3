"""The command line: every command's behaviour, JSON shapes, and one-line errors."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import click
import pytest

from memsite.cli.main import cli
from tests.conftest import Invoke, make_entry, write_raw

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def add(runner: Invoke, content: str, *args: str) -> dict[str, object]:
    result = runner("add", content, "-c", "conventions", *args, "--json")
    assert result.exit_code == 0, result.stderr
    answer: dict[str, object] = result.json()
    return answer


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


def test_add_reads_content_from_stdin(runner: Invoke) -> None:
    result = runner("add", "-", "-c", "operations", "--json", input="Deploy with `make ship`.\n")
    assert result.exit_code == 0
    assert runner("read", result.json()["id"], "--json").json()["content"] == (
        "Deploy with `make ship`.\n"
    )


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


def test_compact_writes_views_and_is_byte_deterministic(runner: Invoke, store_root: Path) -> None:
    add(runner, "Use pnpm", "-t", "tooling")
    runner("add", "Deploy on Tuesdays", "-c", "operations")
    assert runner("compact", "--quiet").stdout == ""
    index = (store_root / "index.md").read_bytes()
    views = {p.name: p.read_bytes() for p in (store_root / "compacted").iterdir()}
    assert index.startswith(b"<!-- Auto-generated. Do not edit. Rebuild: memsite compact -->")
    assert b"## Conventions\n- Use pnpm\n" in index and b"## Operations" in index
    assert b"## Architecture" not in index
    assert "conventions.md" in views and b"Use pnpm" in views["conventions.md"]
    for path in [store_root / "index.md", *(store_root / "compacted").iterdir()]:
        path.unlink()
    runner("compact", "--quiet")
    assert (store_root / "index.md").read_bytes() == index
    assert {p.name: p.read_bytes() for p in (store_root / "compacted").iterdir()} == views


def test_status_reports_staleness(runner: Invoke) -> None:
    add(runner, "fact one")
    assert runner("status", "--json").json()["derived"] == "stale"
    runner("compact", "-q")
    status = runner("status", "--json").json()
    assert status["derived"] == "fresh" and status["active"] == 1
    assert status["categories"]["conventions"]["active"] == 1
    add(runner, "fact two")
    assert runner("status", "--json").json()["derived"] == "stale"


def test_context_compacts_when_stale_and_honours_budget(runner: Invoke, store_root: Path) -> None:
    for i in range(40):
        add(runner, f"Convention number {i} says something rather long about the codebase")
    text = runner("context").stdout
    assert (store_root / "index.md").read_text() == text
    small = runner("context", "--budget", "60").stdout
    assert len(small) < len(text)
    hook = runner("context", "--format", "claude-hook").json()
    assert hook["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Convention number 39" in hook["hookSpecificOutput"]["additionalContext"]


def test_log_and_daily_search(runner: Invoke, store_root: Path) -> None:
    answer = runner(
        "log", "Tried the flaky checkout test twice", "--json", env={"MEMSITE_SESSION": "s1"}
    ).json()
    path = Path(answer["path"])
    assert path.parent == store_root / "daily" and path.name.endswith("-s1.md")
    hits = runner("search", "flaky checkout", "--daily", "--json").json()
    assert hits and hits[0]["source"] == "daily" and hits[0]["line"] == 3
    assert runner("search", "flaky checkout", "--json").json() == []


def test_review_reports_malformed_files_and_leaves_them(runner: Invoke, store_root: Path) -> None:
    add(runner, "good fact")
    entries = store_root / "entries"
    bad = {
        "2026-01-01T00-00-00Z-aaaaaaaa.json": b'{"id": "trunc',
        "2026-01-01T00-00-01Z-bbbbbbbb.json": b"<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> b\n",
        "2026-01-01T00-00-02Z-cccccccc.json": json.dumps(
            {
                "id": "cccccccc-0000-4000-8000-000000000000",
                "category": "conventions",
                "content": ["wrong"],
                "created": "2026-01-01T00:00:02Z",
            }
        ).encode(),
        "2026-01-01T00-00-03Z-dddddddd.json": b"\xff\xfe\x00bad",
    }
    for name, data in bad.items():
        (entries / name).write_bytes(data)
    os.symlink("/etc/hostname", entries / "2026-01-01T00-00-04Z-eeeeeeee.json")
    findings = runner("review", "--json").json()["findings"]
    invalid = sorted(f["files"][0] for f in findings if f["kind"] == "invalid_file")
    assert invalid == sorted([*bad, "2026-01-01T00-00-04Z-eeeeeeee.json"])
    assert runner("review", "--strict").exit_code == 1
    compacted = runner("compact", "--json")
    assert compacted.exit_code == 0 and compacted.json()["invalid"] == 5
    assert [r["content"] for r in runner("list", "--json").json()] == ["good fact"]
    for name, data in bad.items():
        assert (entries / name).read_bytes() == data
    assert (entries / "2026-01-01T00-00-04Z-eeeeeeee.json").is_symlink()


def test_review_reports_unknown_category_and_future_time(runner: Invoke, store_root: Path) -> None:
    write_raw(
        store_root, make_entry("odd", category="misc", id="11111111-1111-4111-8111-111111111111")
    )
    write_raw(
        store_root,
        make_entry(
            "later", created="2999-01-01T00:00:00.000Z", id="22222222-2222-4222-8222-222222222222"
        ),
    )
    kinds = sorted(f["kind"] for f in runner("review", "--json").json()["findings"])
    assert kinds == ["future_timestamp", "unknown_category"]


BAD_INPUT = [
    (
        ["add", "x", "-c", "misc"],
        1,
        "unknown category 'misc': use one of conventions, architecture",
    ),
    (["add", "  ", "-c", "conventions"], 1, "content is empty"),
    (["add", "x" * 4001, "-c", "conventions"], 1, "over the limit of 4000"),
    (["add", "x", "-c", "conventions", "-t", "Bad tag"], 1, "invalid tag 'bad tag'"),
    (["add", "x", "-c", "conventions", "--confidence", "sure"], 2, "'sure' is not one of"),
    (["add", "x"], 2, "Missing option '-c'"),
    (["read", "0123abcd-0000-4000-8000-000000000000"], 1, "no entry with id"),
    (["read", "../../etc/passwd"], 1, "invalid id '../../etc/passwd'"),
    (["read", "abc"], 1, "prefix of at least 4 hex characters"),
    (["delete", "/etc/passwd"], 1, "invalid id"),
    (["prune", "--before", "soon"], 1, "invalid date 'soon': use YYYY-MM-DD"),
    (["search", " "], 1, "search query is empty"),
    (["frobnicate"], 2, "No such command 'frobnicate'"),
    (["log", " "], 1, "log text is empty"),
]


@pytest.mark.parametrize(
    ("args", "code", "message"), BAD_INPUT, ids=[" ".join(a)[:30] for a, _, _ in BAD_INPUT]
)
def test_bad_input_is_one_line_error(
    runner: Invoke, store_root: Path, args: list[str], code: int, message: str
) -> None:
    before = sorted(p.name for p in (store_root / "entries").iterdir())
    result = runner(*args)
    assert result.exit_code == code
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0]
    assert "Traceback" not in result.stderr + result.stdout
    assert sorted(p.name for p in (store_root / "entries").iterdir()) == before


def test_bad_input_with_json_also_prints_error_object(runner: Invoke) -> None:
    result = runner("add", "x", "-c", "misc", "--json")
    assert result.exit_code == 1
    assert "unknown category" in result.json()["error"]


def test_ambiguous_prefix_lists_matches(runner: Invoke, store_root: Path) -> None:
    for n in (1, 2):
        write_raw(store_root, make_entry(f"fact {n}", id=f"abcd000{n}-0000-4000-8000-000000000000"))
    result = runner("read", "abcd")
    assert result.exit_code == 1
    assert "matches 2 entries (abcd0001-0000, abcd0002-0000)" in result.stderr
    assert runner("read", "abcd0002", "--json").json()["content"] == "fact 2"


def test_no_store_found_says_to_init(
    tmp_path_factory: pytest.TempPathFactory, runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(empty)
    result = runner("list")
    assert result.exit_code == 1 and "run `memsite init`" in result.stderr
    result = runner("--store", str(empty / "nope"), "list")
    assert result.exit_code == 1 and "memsite --store" in result.stderr


def test_store_from_environment_and_walk_up(
    tmp_path: Path, store_root: Path, runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(runner, "found me")
    deep = store_root.parent / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert runner("list", "--json").json()[0]["content"] == "found me"
    monkeypatch.chdir(tmp_path.parent)
    result = runner("list", "--json", env={"MEMSITE_STORE": str(store_root)})
    assert result.json()[0]["content"] == "found me"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"memory": {"colour": 1}}, "unknown key 'memory.colour'"),
        ({"memroy": {}}, "unknown key 'memroy'"),
        (
            {"memory": {"autoInjectTokenBudget": "big"}},
            "'memory.autoInjectTokenBudget' must be a whole number",
        ),
        ({"memory": {"categories": {"Bad Name": 1}}}, "category name 'Bad Name'"),
        ({"site": {"theme": "x"}}, "unknown key 'site.theme'"),
    ],
)
def test_malformed_config_is_reported(
    runner: Invoke, store_root: Path, config: object, message: str
) -> None:
    (store_root / "config.json").write_text(json.dumps(config))
    result = runner("list")
    assert result.exit_code == 1 and message in result.stderr
    assert len(result.stderr.splitlines()) == 1


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


def test_every_command_has_help() -> None:
    def walk(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
        found = []
        ctx = click.Context(group)  # the group loads its commands on demand
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, name
            found.append((f"{prefix} {name}", command))
            if isinstance(command, click.Group):
                found.extend(walk(command, f"{prefix} {name}"))
        return found

    for name, command in walk(cli, "memsite"):
        assert command.help and len(command.help.strip()) > 15, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts}"


def test_the_command_table_names_every_command_where_it_lives() -> None:
    """The group loads a command's module only when the command runs: its table must name
    each command of each module, and nothing else."""
    import importlib

    from memsite.cli.main import COMMAND_MODULES, COMMANDS

    held = {
        command.name: module
        for module in COMMAND_MODULES
        for command in importlib.import_module(f"memsite.cli.{module}").COMMANDS
    }
    assert held == COMMANDS
    modules = {
        path.stem for path in Path(importlib.import_module("memsite.cli").__path__[0]).glob("*.py")
    }
    assert modules - {"__init__", "main", "kit"} == set(COMMAND_MODULES)


def test_help_and_version(runner: Invoke) -> None:
    result = runner("--help")
    assert result.exit_code == 0 and "compact" in result.stdout
    assert runner("--version").stdout.startswith("memsite, version ")
    assert runner("add", "--help").exit_code == 0


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
