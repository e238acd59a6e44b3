"""The command group and its one error boundary: one-line errors, finding the store, help on every
command, the command table."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from memsite.cli.main import cli
from tests.cli.helpers import add
from tests.conftest import Invoke, make_entry, write_raw

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
    assert modules - {"__init__", "main", "kit", "boundary", "quick"} == set(COMMAND_MODULES)


def test_help_and_version(runner: Invoke) -> None:
    result = runner("--help")
    assert result.exit_code == 0 and "compact" in result.stdout
    assert runner("--version").stdout.startswith("memsite, version ")
    assert runner("add", "--help").exit_code == 0
