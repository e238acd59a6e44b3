"""Help and README name what the code holds: every runner of the runner registry, every format
of `context --format`, every tool the MCP server registers. Each list is read from the code's
own registry, so a runner, a format or a tool added without a word in the help fails here."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from memsite.cli.main import cli
from memsite.runners import BUILTIN, BUILTIN_NAMES, registry
from tests.conftest import Invoke

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def help_of(*path: str) -> str:
    """The `memsite PATH --help` text, on one line (click wraps it to the terminal's width)."""
    command: click.Command = cli
    ctx = click.Context(cli, info_name="memsite")
    for name in path:
        assert isinstance(command, click.Group)
        found = command.get_command(ctx, name)
        assert found is not None, name
        command, ctx = found, click.Context(found, info_name=name, parent=ctx)
    return " ".join(command.get_help(ctx).split())


def option_help(path: tuple[str, ...], option: str) -> str:
    ctx = click.Context(cli)
    command: click.Command | None = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.get_command(ctx, name)
    assert command is not None
    (param,) = [p for p in command.params if option in getattr(p, "opts", ())]
    return " ".join(str(getattr(param, "help", "")).split())


def readme_row(command: str) -> str:
    (line,) = [x for x in README.splitlines() if x.startswith(f"| `{command} ")]
    return line


def context_formats() -> list[str]:
    ctx = click.Context(cli)
    command = cli.get_command(ctx, "context")
    assert command is not None
    (param,) = [p for p in command.params if p.name == "fmt"]
    assert isinstance(param.type, click.Choice)
    return [str(choice) for choice in param.type.choices]


# --- runners --------------------------------------------------------------------------------


def test_the_help_names_match_the_registry() -> None:
    # `--help` names the built-in runners without importing them: the registry must agree
    assert list(BUILTIN_NAMES) == list(registry())
    assert [m.rpartition(".")[2] for m in BUILTIN] == [r.name for r in registry().values()]


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_runner_options_name_every_runner(command: str) -> None:
    text = option_help(("agents", command), "--runner")
    for name in [*registry(), "all"]:
        assert re.search(rf"\b{name}\b", text), f"agents {command} --runner help lacks {name}"


def test_the_agents_group_names_every_runner_by_title() -> None:
    text = help_of("agents")
    for runner in registry().values():
        assert runner.title in text, runner.title


def test_install_help_says_every_runner_gets_a_hook() -> None:
    from memsite.runners.hooks import FORMATS

    text = help_of("agents", "install")
    assert "every runner gets one" in text and "session-start hook" in text
    # ... and it is true: each runner has its own hook format
    assert sorted(f"{name}-hook" for name in registry()) == sorted(FORMATS)


def test_uninstall_help_states_one_default_the_one_the_code_has(
    store_root: Path, runner: Invoke
) -> None:
    text = help_of("agents", "uninstall")
    assert "Default: every runner" in text and "of every runner" in text
    assert "shows signs of (all when none)" not in text  # install's default, not this one's
    (store_root.parent / "CLAUDE.md").write_text("# mine\n", encoding="utf-8")  # claude only
    assert runner("agents", "install", "--dry-run", "--json").json()["runners"] == ["claude"]
    planned = runner("agents", "uninstall", "--dry-run", "--json").json()
    assert planned["runners"] == list(registry())  # every runner, not the detected ones


def test_per_prompt_help_names_exactly_the_runners_that_get_a_prompt_hook() -> None:
    text = option_help(("agents", "install"), "--per-prompt")
    for runner in registry().values():
        assert (runner.title in text) == (runner.prompt_event is not None), runner.title
        assert runner.prompt_event is not None or runner.prompt_note, runner.name  # says why


# --- context formats ------------------------------------------------------------------------


def test_context_offers_text_and_every_runners_hook_format() -> None:
    from memsite.runners.hooks import FORMATS

    assert context_formats() == ["text", *FORMATS]
    assert len(context_formats()) == 6


def test_readme_lists_every_context_format() -> None:
    row = readme_row("context")
    listed = re.search(r"--format ([a-z|\\-]+)\]", row)
    assert listed is not None, row
    assert listed.group(1).replace("\\", "").split("|") == context_formats()


def test_readme_lists_every_prompt_format() -> None:
    from memsite.cli.prompt import PROMPT_FORMATS

    listed = re.search(r"--format ([a-z|\\-]+)`", readme_row("prompt"))
    assert listed is not None
    assert listed.group(1).replace("\\", "").split("|") == list(PROMPT_FORMATS)


# --- the hook body fails open, as its help says ---------------------------------------------


def test_hook_help_says_what_failing_open_means() -> None:
    text = help_of("agents", "hook")
    assert "Fails open" in text and "exits 0" in text and "counts as an empty event" in text
    assert "any problem prints nothing" not in text  # a bug is not silenced: it says so
    assert "exit 1" in text and "127" in text


def test_prompt_help_says_what_failing_open_means() -> None:
    text = help_of("prompt")
    assert "Fails open" in text and "exits 0" in text and "holds no prompt" in text
    assert "exit 1" in text and "without blocking the prompt" in text


@pytest.mark.parametrize(
    ("setup", "args", "stdin"),
    [
        ("none", ("stop",), "not json"),
        ("bad-config", ("stop",), '{"session_id": "s"}'),
        ("store", ("session-end",), '{"session_id": "s"}'),  # a newer memsite's event
    ],
)
def test_the_hook_fails_open_where_its_help_says(
    store_root: Path, runner: Invoke, setup: str, args: tuple[str, ...], stdin: str
) -> None:
    if setup == "bad-config":
        (store_root / "config.json").write_text("{not json", encoding="utf-8")
    store = str(store_root.parent / "nowhere") if setup == "none" else str(store_root)
    done = runner("--store", store, "agents", "hook", *args, input=stdin)
    assert (done.exit_code, done.stdout, done.stderr) == (0, "", "")


# --- MCP tools ------------------------------------------------------------------------------


def test_mcp_help_names_every_tool_the_server_registers(store_root: Path) -> None:
    import anyio
    from mcp import Client

    from memsite.mcp.server import build_server
    from memsite.memory import Memory

    async def names() -> list[str]:
        async with Client(build_server(Memory.open(str(store_root)))) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    tools = anyio.run(names)
    assert len(tools) >= 10
    text = help_of("mcp")
    for tool in tools:
        assert re.search(rf"\b{tool}\b", text), f"`memsite mcp --help` does not name {tool}"


def test_hook_input_that_is_not_json_counts_as_an_empty_event(runner: Invoke) -> None:
    done = runner("agents", "hook", "stop", input="[1, 2")
    assert done.exit_code == 0 and done.stderr == ""
    assert done.json()["decision"] == "block"  # the reminder, as for an event without fields
