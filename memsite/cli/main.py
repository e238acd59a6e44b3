"""The `memsite` command group and its one error boundary.

Every failure ends as one line ``Error: …`` on stderr (and ``{"error": …}`` on stdout with
``--json``): exit 2 for a malformed command line, 1 for everything else, never a traceback for
a user error. Commands live in the modules named in ``COMMANDS``; heavy libraries (mkdocs,
lunr, mcp, watchdog) are imported only inside the commands that need them.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import click

from memsite.core.text import has_surrogate, json_safe, one_line, printable
from memsite.errors import MemsiteError, SecretFoundError
from memsite.version import __version__

if TYPE_CHECKING:
    from memsite.memory import Memory

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
SECRET_HINT = "; if it is a reviewed false positive, pass --allow-secret"


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


def _hide_secrets(message: str) -> str:
    """A usage error echoes what was typed: never a credential pasted as an argument."""
    from memsite.core.prefilter import prefilter
    from memsite.core.secrets import redact

    return redact(message) if prefilter(message) else message


def fail(message: str, as_json: bool, code: int) -> NoReturn:
    line = printable(one_line(_hide_secrets(message)))
    if as_json:
        click.echo(json_safe(json.dumps({"error": line}, ensure_ascii=False)))
    click.echo(f"Error: {line}", err=True)
    sys.exit(code)


def _bad_argument(args: Sequence[str]) -> int | None:
    """The position of an argument that is not valid UTF-8 (the OS gave undecodable bytes)."""
    for number, arg in enumerate(args, 1):
        if has_surrogate(arg):
            return number
    return None


def _run(args: list[str]) -> Any:
    """Run the command; once more if it failed on a damaged cache (which is then rebuilt)."""
    opened: list[Memory] = []
    try:
        return cli.main(args=args, prog_name="memsite", standalone_mode=False, obj=opened)
    except Exception as exc:
        from memsite.memory import recover_cache

        if isinstance(exc, MemsiteError | click.ClickException) or not opened:
            raise
        if not recover_cache(opened[-1], exc):  # the last opened: a past state's, if any
            raise
    return cli.main(args=args, prog_name="memsite", standalone_mode=False)


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    bad = _bad_argument(args)
    if bad is not None:
        fail(f"argument {bad} is not valid UTF-8 text: fix its encoding", as_json, 2)
    try:
        code = _run(args)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        hint = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx else ""
        fail(exc.format_message() + hint, as_json, 2)
    except click.ClickException as exc:
        fail(exc.format_message(), as_json, exc.exit_code)
    except click.Abort:
        fail("aborted", as_json, 1)
    except SecretFoundError as exc:
        fail(str(exc) + SECRET_HINT, as_json, 1)
    except MemsiteError as exc:
        fail(str(exc), as_json, getattr(exc, "exit_code", 1))
    except KeyboardInterrupt:
        fail("interrupted", as_json, 130)
    except BrokenPipeError:  # the reader went away (`memsite list | head`): nothing to say
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


def run() -> None:
    """The program's entry point (the `memsite` script and `python -m memsite`): ``main``, and
    then the finished command's objects are frozen out of the cyclic collector's reach, so
    that the interpreter's exit does not walk them all once more (~8 ms of a ~95 ms search at
    10k entries). Tests call ``main`` itself, in one long-lived process."""
    try:
        main()
    finally:
        gc.freeze()
