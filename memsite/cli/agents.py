"""`memsite agents …`: wire agent runners (install, uninstall) and run their hooks."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memsite.cli.kit import emit_json, get_memory, json_option, out, warn
from memsite.runners import BUILTIN_NAMES

if TYPE_CHECKING:
    from memsite.memory import Memory
    from memsite.runners.base import Runner, Wiring
    from memsite.runners.plan import Plan


@click.group()
def agents() -> None:
    """Wire agent runners (Claude Code, Codex, GitHub Copilot, Cursor, Gemini CLI) to the
    memory."""


_NAMES = ", ".join(BUILTIN_NAMES)
RUNNER_NAMES = f"{_NAMES} (or a plugin's runner) or all; repeat or comma-separate"
INSTALL_RUNNERS = (
    f"{RUNNER_NAMES}. Default: the runners the repository shows signs of (all when none)."
)
UNINSTALL_RUNNERS = f"{RUNNER_NAMES}. Default: every runner."


def _wiring(
    memory: Memory, program: tuple[str, ...] = ("memsite",), per_prompt: bool = False
) -> Wiring:
    from memsite.runners.base import Wiring

    store = memory.store
    return Wiring(
        root=store.project_root,
        store_rel=store.root.relative_to(store.project_root).as_posix(),
        categories=tuple(memory.config.categories),
        auto_flush=memory.config.auto_flush,
        program=program,
        per_prompt=per_prompt,
    )


def _no_prompt_hook(wiring: Wiring, runners: list[Runner]) -> dict[str, str]:
    """The runners --per-prompt gives no prompt hook, and why (none without --per-prompt)."""
    if not wiring.per_prompt:
        return {}
    return {
        r.name: r.prompt_note or "it declares no prompt hook"
        for r in runners
        if r.prompt_event is None
    }


def _report(
    wiring: Wiring,
    plan: Plan,
    runners: list[Runner],
    dry_run: bool,
    as_json: bool,
    warnings: tuple[str, ...] = (),
    commit: bool = False,
) -> None:
    names = [r.name for r in runners]
    skipped = _no_prompt_hook(wiring, runners)
    for message in warnings:
        warn(message)
    if as_json:
        answer: dict[str, Any] = {
            "root": str(wiring.root),
            "runners": names,
            "dry_run": dry_run,
            "written": plan.written,
            "removed": plan.removed,
            "unchanged": plan.unchanged,
            "program": list(wiring.program),
            "per_prompt": wiring.per_prompt,
            "no_prompt_hook": skipped,
            "warnings": list(warnings),
        }
        emit_json(answer)
        return
    for rel in plan.written:
        out(f"{'Would write' if dry_run else 'Wrote'} {rel}")
    for rel in plan.removed:
        out(f"{'Would remove' if dry_run else 'Removed'} {rel}")
    if wiring.program != ("memsite",) and plan.written:
        out(f"{'Would start' if dry_run else 'Runners start'} memsite as {wiring.shell_program}")
    if not plan.changes:
        out(f"Nothing to change for {', '.join(names)} in {wiring.root}.")
    for runner in runners:
        if runner.note and any(t.rel in plan.written for t in runner.targets):
            out(f"Note: {runner.note}")
        if runner.name in skipped:
            out(f"Note: no per-prompt hook for {runner.title}: {skipped[runner.name]}.")
    if commit and plan.written:
        out(
            f"{'Then commit' if dry_run else 'Commit'} them, so that every clone is wired: "
            f"{_git_add(wiring.root, plan.written)}"
        )


def _git_add(root: Path, rels: list[str]) -> str:
    """The `git add` of ``rels`` (relative to ``root``), to run in this folder."""
    here = Path.cwd().resolve() == Path(root).resolve()
    where = "" if here else f"-C {shlex.quote(str(root))} "
    return f"git {where}add {' '.join(shlex.quote(rel) for rel in rels)}"


@agents.command()
@click.option("--runner", "runner_opts", multiple=True, metavar="NAME", help=INSTALL_RUNNERS)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option(
    "--absolute",
    is_flag=True,
    help="Write the full path of this memsite into the runners' server and hook commands, "
    "for runners started where `memsite` is not on the PATH (e.g. its virtualenv not active).",
)
@click.option(
    "--per-prompt",
    is_flag=True,
    help="Also a hook on each prompt that adds the few facts most relevant to it (`memsite "
    "prompt`), for Claude Code, Codex and Gemini CLI; an install without it takes that hook "
    "out again.",
)
@json_option
@click.pass_context
def install(
    ctx: click.Context,
    runner_opts: tuple[str, ...],
    dry_run: bool,
    absolute: bool,
    per_prompt: bool,
    as_json: bool,
) -> None:
    """Wire each runner to the memory: its MCP server, the memory instructions, and a
    session-start hook that injects the index (every runner gets one; Claude Code also a
    Stop and a PreCompact hook). Idempotent; ends with the files to commit.

    --per-prompt also hooks each prompt, in the runners whose prompt hooks can add context
    (not Copilot CLI or Cursor: install says why).

    Warns when the PATH runners see (this one without an active virtualenv) does not find
    this memsite as `memsite`; --absolute then writes its full path instead.
    """
    from memsite.runners import parse_runners
    from memsite.runners.plan import apply, detect_runners, plan_install
    from memsite.runners.program import path_problem, running_program

    memory = get_memory(ctx)
    wiring = _wiring(memory, running_program() if absolute else ("memsite",), per_prompt)
    runners = parse_runners(runner_opts) if runner_opts else detect_runners(wiring.root)
    plan = plan_install(wiring, runners)
    if not dry_run:
        apply(wiring, plan)
    problem = None if absolute else path_problem(os.environ)
    _report(wiring, plan, runners, dry_run, as_json, (problem,) if problem else (), commit=True)


@agents.command()
@click.option("--runner", "runner_opts", multiple=True, metavar="NAME", help=UNINSTALL_RUNNERS)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@json_option
@click.pass_context
def uninstall(
    ctx: click.Context, runner_opts: tuple[str, ...], dry_run: bool, as_json: bool
) -> None:
    """Remove exactly what install added: MCP server, instructions and hooks (without
    --runner: of every runner, whatever the repository shows signs of)."""
    from memsite.runners import parse_runners, registry
    from memsite.runners.plan import apply, plan_uninstall

    wiring = _wiring(get_memory(ctx))
    runners = parse_runners(runner_opts) if runner_opts else list(registry().values())
    plan = plan_uninstall(wiring, runners)
    if not dry_run:
        apply(wiring, plan)
    _report(wiring, plan, runners, dry_run, as_json)


@agents.command()
@click.argument("event", metavar="{pre-compact|stop}")
@click.pass_context
def hook(ctx: click.Context, event: str) -> None:
    """Claude Code hook body: reads the hook JSON on stdin, prints the hook's JSON answer.

    stop: asks the agent (once per session every 30 minutes, never when stop_hook_active is
    true) to record durable facts before it stops. pre-compact: a note to the user. Both
    print nothing when memory.autoFlush is off or the memory is disabled.

    Fails open, so the session goes on: no store, a store or config memsite cannot read, or
    an event this memsite does not know (a newer one's hook) prints nothing and exits 0;
    hook input that is not JSON counts as an empty event, and a reminder state that cannot
    be saved only lets the reminder come again. Anything else is a bug: exit 1 with its
    traceback, which Claude Code shows without blocking. A runner that does not find
    `memsite` gets exit 127 (see install --absolute).
    """
    from memsite.errors import MemsiteError
    from memsite.runners.claude import hook_response
    from memsite.runners.hooks import parse_hook_input

    raw = ""
    if sys.stdin is not None and not sys.stdin.isatty():
        raw = sys.stdin.buffer.read(1 << 20).decode("utf-8", "replace")
    try:
        memory = get_memory(ctx)
        answer = hook_response(
            event,
            parse_hook_input(raw),
            auto_flush=memory.config.auto_flush and memory.config.enabled,
            state_path=memory.store.writable(memory.store.hook_state),  # not through a link
        )
    except MemsiteError:
        return
    if answer is not None:
        emit_json(answer)


COMMANDS: list[click.Command] = [agents]
