"""The `memsite` command group, click's errors put around the one error boundary
(``boundary``: every failure is one line ``Error: …``, exit 2 for a malformed command line).

Commands live in the modules named in ``COMMANDS``; heavy libraries (mkdocs, lunr, mcp,
watchdog) are imported only inside the commands that need them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

import click

from memsite.cli.boundary import fail, guarded, retried
from memsite.core.text import has_surrogate
from memsite.version import __version__

# Each command, and the module of memsite.cli that holds it: a command's module (and what it
# imports) is loaded only when that command runs, or when help lists them all.
COMMANDS = {
    **dict.fromkeys(
        ("init", "add", "amend", "read", "list", "delete", "log", "sessions"), "memory"
    ),
    "search": "recall",
    **dict.fromkeys(("reconcile", "verify", "retire", "relate", "check"), "standing"),
    **dict.fromkeys(("compact", "review", "prune", "status", "context"), "upkeep"),
    **dict.fromkeys(("build", "serve", "gh-deploy"), "portal"),
    "approve": "trust",
    "agents": "agents",
    "prompt": "prompt",
    "mcp": "mcp",
    **dict.fromkeys(("import", "export"), "transfer"),
}
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))


class _Commands(click.Group):
    """The command group, loading each command's module on first use (``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        held: list[click.Command] = importlib.import_module(f"memsite.cli.{module}").COMMANDS
        return next(command for command in held if command.name == cmd_name)


@click.group(
    cls=_Commands,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option(
    "--store",
    metavar="PATH",
    help="The store folder (holding entries/). Default: $MEMSITE_STORE, else the nearest "
    ".memsite/ in this folder or above.",
)
@click.version_option(__version__, prog_name="memsite")
def cli(store: str | None) -> None:
    """memsite: one shared, git-native project memory for AI coding agents.

    Facts are JSON files under .memsite/entries/ (append-only, merge-friendly); `compact`
    fuses them into compacted/<category>.md and a token-budgeted index.md for agents.
    """


def _bad_argument(args: Sequence[str]) -> int | None:
    """The position of an argument that is not valid UTF-8 (the OS gave undecodable bytes)."""
    for number, arg in enumerate(args, 1):
        if has_surrogate(arg):
            return number
    return None


def _run(args: list[str]) -> Any:
    """Run the command; once more if it failed on a damaged cache (which is then rebuilt)."""

    def attempt(opened: list[Any]) -> Any:
        return cli.main(args=args, prog_name="memsite", standalone_mode=False, obj=opened)

    return retried(attempt)


def main(argv: Sequence[str] | None = None) -> None:
    """The command line ``argv`` (default: the process's), click's errors and memsite's each
    ending in one line (``boundary.guarded``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    bad = _bad_argument(args)
    if bad is not None:
        fail(f"argument {bad} is not valid UTF-8 text: fix its encoding", as_json, 2)
    guarded(lambda: _clicked(args, as_json), as_json)


def _clicked(args: list[str], as_json: bool) -> Any:
    try:
        return _run(args)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        hint = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx else ""
        fail(exc.format_message() + hint, as_json, 2)
    except click.ClickException as exc:
        fail(exc.format_message(), as_json, exc.exit_code)
    except click.Abort:
        fail("aborted", as_json, 1)
