"""CLI commands wiring agents: the MCP server and runner installation. Imports stay light.

`memsite mcp` imports the MCP SDK only when it runs; `memsite agents …` drives
`memsite.agents`, whose install/uninstall plans are pure text transforms.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memsite.clikit import emit_json, get_memory, json_option

if TYPE_CHECKING:
    from memsite.agents import Plan, Wiring
    from memsite.service import Memory


@click.command()
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for a runner that starts the server; http for streamable HTTP at /mcp.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: address to bind.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8000,
    show_default=True,
    help="HTTP: port to listen on.",
)
@click.pass_context
def mcp(ctx: click.Context, transport: str, host: str, port: int) -> None:
    """Serve the memory to agents over MCP (tools memory_write/read/search/delete/list)."""
    memory = get_memory(ctx)  # a missing store or bad config fails here, before serving
    from memsite.mcp_server import serve

    serve(memory.store, "http" if transport == "http" else "stdio", host, port)


@click.group()
def agents() -> None:
    """Wire agent runners (Claude Code, Codex, Copilot, Cursor) to the memory."""


RUNNER_HELP = (
    "claude, codex, copilot, cursor or all; repeat or comma-separate. "
    "Default: the runners the repository shows signs of (all when none)."
)


def _wiring(memory: Memory) -> Wiring:
    from memsite.agents import Wiring

    store = memory.store.root
    # A LeanSpec store (.lean-spec/memory) lives one folder deeper than .memsite/.
    root = store.parent.parent if memory.store.foreign_config else store.parent
    return Wiring(
        root=root,
        store_rel=store.relative_to(root).as_posix(),
        categories=tuple(memory.config.categories),
        auto_flush=memory.config.auto_flush,
    )


def _report(wiring: Wiring, plan: Plan, runners: list[str], dry_run: bool, as_json: bool) -> None:
    written = [rel for rel, (_, after) in plan.changes.items() if after is not None]
    removed = [rel for rel, (_, after) in plan.changes.items() if after is None]
    if as_json:
        answer: dict[str, Any] = {
            "root": str(wiring.root),
            "runners": runners,
            "dry_run": dry_run,
            "written": written,
            "removed": removed + [f"{d}/" for d in plan.dirs_removed],
            "unchanged": plan.unchanged,
        }
        emit_json(answer)
        return
    verb = "Would write" if dry_run else "Wrote"
    for rel in written:
        click.echo(f"{verb} {rel}")
    for rel in removed + [f"{d}/" for d in plan.dirs_removed]:
        click.echo(f"{'Would remove' if dry_run else 'Removed'} {rel}")
    if not plan.changes:
        click.echo(f"Nothing to change for {', '.join(runners)} in {wiring.root}.")
    elif ".codex/config.toml" in written:
        click.echo("Note: Codex reads .codex/config.toml only in projects it trusts.")


@agents.command()
@click.option("--runner", "runner_opts", multiple=True, metavar="NAME", help=RUNNER_HELP)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@json_option
@click.pass_context
def install(ctx: click.Context, runner_opts: tuple[str, ...], dry_run: bool, as_json: bool) -> None:
    """Register the MCP server, add memory instructions and Claude Code hooks. Idempotent."""
    from memsite.agents import apply, detect_runners, parse_runners, plan_install

    wiring = _wiring(get_memory(ctx))
    runners = parse_runners(runner_opts) if runner_opts else detect_runners(wiring.root)
    plan = plan_install(wiring, runners)
    if not dry_run:
        apply(wiring, plan)
    _report(wiring, plan, runners, dry_run, as_json)


@agents.command()
@click.option("--runner", "runner_opts", multiple=True, metavar="NAME", help=RUNNER_HELP)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@json_option
@click.pass_context
def uninstall(
    ctx: click.Context, runner_opts: tuple[str, ...], dry_run: bool, as_json: bool
) -> None:
    """Remove exactly what install added (default: for every runner)."""
    from memsite.agents import RUNNERS, apply, parse_runners, plan_uninstall

    wiring = _wiring(get_memory(ctx))
    runners = parse_runners(runner_opts) if runner_opts else list(RUNNERS)
    plan = plan_uninstall(wiring, runners)
    if not dry_run:
        apply(wiring, plan)
    _report(wiring, plan, runners, dry_run, as_json)


@agents.command()
@click.argument("event", type=click.Choice(["pre-compact", "stop"]))
@click.pass_context
def hook(ctx: click.Context, event: str) -> None:
    """Claude Code hook body: reads the hook JSON on stdin, prints the hook's JSON answer.

    stop: asks the agent (once per session every 30 minutes, never when stop_hook_active is
    true) to record durable facts before it stops. pre-compact: a note to the user. Both do
    nothing when memory.autoFlush is off, and fail open: any problem prints nothing.
    """
    import json

    from memsite.agents import hook_response, parse_hook_input
    from memsite.errors import MemsiteError

    raw = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    try:
        memory = get_memory(ctx)
        answer = hook_response(
            event,
            parse_hook_input(raw),
            auto_flush=memory.config.auto_flush,
            state_path=Path(memory.store.cache_dir) / "agent-hooks.json",
        )
    except MemsiteError:
        return
    if answer is not None:
        click.echo(json.dumps(answer, ensure_ascii=False))


COMMANDS: list[click.Command] = [mcp, agents]
