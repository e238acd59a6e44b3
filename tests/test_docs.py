"""README documents every command and every option, and each has help text (as sqlite-utils'
test_docs does): a command or flag added without a word in README fails here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from memsite.cli.main import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def commands(group: click.Group, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    ctx = click.Context(group)  # the group loads its commands on demand
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        assert command is not None, name
        path = f"{prefix}{name}"
        yield path, command
        if isinstance(command, click.Group):
            yield from commands(command, path + " ")


ALL = list(commands(cli))
TABLE = README.split("## Commands", 1)[1].split("\n## ", 1)[0] if "## Commands" in README else ""


def row(path: str) -> str:
    """The README table row of command ``path`` (its first cell starts with it)."""
    for line in TABLE.splitlines():
        if re.match(rf"\| `{re.escape(path)}( |`)", line):
            return line
    return ""


def test_readme_has_a_command_reference() -> None:
    assert TABLE, "README.md needs a '## Commands' section"


@pytest.mark.parametrize(("path", "command"), ALL, ids=[p for p, _ in ALL])
def test_every_command_has_a_row_and_help(path: str, command: click.Command) -> None:
    assert command.help, f"{path} has no help text"
    if isinstance(command, click.Group):
        return  # a group's subcommands have the rows
    assert row(path), f"README's command table has no row for `{path}`"


@pytest.mark.parametrize(("path", "command"), ALL, ids=[p for p, _ in ALL])
def test_every_option_is_in_its_command_row(path: str, command: click.Command) -> None:
    line = row(path)
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"{path} {param.opts} has no help"
            if not isinstance(command, click.Group):
                assert any(opt in line for opt in param.opts), f"`{path}` row lacks {param.opts}"


def test_global_options_are_documented() -> None:
    for param in cli.params:
        if isinstance(param, click.Option):
            assert max(param.opts, key=len) in README
