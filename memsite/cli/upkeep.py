"""Commands that keep the memory in shape: compact, review, prune, status, context."""

from __future__ import annotations

import click

from memsite.cli.kit import (
    as_of_option,
    current_session,
    emit_json,
    get_memory,
    json_option,
    out,
    parse_date,
    warn,
    with_point,
)
from memsite.cli.quick import HOOK_FORMATS, answer_compact, answer_context, answer_hook
from memsite.core.text import counted, printable, shorten

BUDGET_MAX = 1_000_000


FULL_HELP = "Re-read every entry file (finds files edited in place) and rebuild everything."


@click.command()
@click.option("--quiet", "-q", is_flag=True, help="Print nothing unless something fails.")
@click.option("--full", is_flag=True, help=FULL_HELP)
@json_option
@click.pass_context
def compact(ctx: click.Context, quiet: bool, full: bool, as_json: bool) -> None:
    """Bring compacted/ and index.md up to date; prune expired daily logs and temporaries."""
    answer_compact(get_memory(ctx).compact(full=full), quiet, as_json)


@click.command()
@click.option("--strict", is_flag=True, help="Exit 1 if there is any finding.")
@click.option(
    "--full", is_flag=True, help="Re-read every entry file first (finds files edited in place)."
)
@json_option
@click.pass_context
def review(ctx: click.Context, strict: bool, full: bool, as_json: bool) -> None:
    """Report problems: unreadable files, duplicates, contradictions, cycles, secrets and more."""
    answer = get_memory(ctx).review(full=full)
    findings = answer["findings"]
    if as_json:
        emit_json(answer)
    elif not findings:
        out("No findings.")
    else:
        for finding in findings:
            out(f"{finding['kind']}: {printable(finding['message'])}")
            for name in finding["files"]:
                out(f"    entries/{printable(name)}")
    if strict and findings:
        ctx.exit(1)


@click.command()
@click.option("--before", metavar="DATE", help="Also delete inactive entries created before DATE.")
@click.option("--dry-run", is_flag=True, help="Show what would go; delete nothing.")
@json_option
@click.pass_context
def prune(ctx: click.Context, before: str | None, dry_run: bool, as_json: bool) -> None:
    """Delete expired daily logs, and with --before old inactive entries."""
    day = parse_date(before) if before else None
    answer = get_memory(ctx).prune(day, dry_run)
    if as_json:
        emit_json(answer)
        return
    verb = "Would delete" if dry_run else "Deleted"
    entries, logs = (
        counted(len(answer["entries"]), "entry"),
        counted(len(answer["daily"]), "daily log"),
    )
    out(f"{verb} {entries} and {logs}.")
    for fact in answer["facts"]:
        text = shorten(printable(fact["content"]), 80)
        out(f"  entry {fact['id'][:8]}  [{fact['category']}] {text}")
    for name in answer["daily"]:
        out(f"  {name}")


@click.command()
@as_of_option
@json_option
@click.pass_context
def status(ctx: click.Context, as_of: str | None, as_json: bool) -> None:
    """Counts by category and status, freshness of the derived views, findings."""
    memory = get_memory(ctx, as_of)
    answer = memory.status()
    if as_json:
        emit_json(with_point(memory, answer, "status"))
        return
    out(
        f"Store: {answer['store']}"
        + (" (LeanSpec layout)" if answer["layout"] == "leanspec" else "")
    )
    for note in answer["notes"]:
        out(f"Note: {note}")
    for path in answer["unsafe_paths"]:
        out(f"Warning: {printable(path)} is a symbolic link: memsite writes nothing through it")
    for path in answer["tracked_derived"]:
        out(f"Warning: {printable(path)} is derived but tracked by git (see `memsite review`)")
    out(
        f"Entries: {answer['entries']} ({answer['active']} active, {answer['superseded']} "
        f"superseded, {answer['duplicate']} duplicate, {answer['overridden']} overridden, "
        f"{answer['retired']} retired); records: {answer['records']}; unreadable files: "
        f"{answer['invalid']}"
    )
    for category, counts in answer["categories"].items():
        out(f"  {category:<14} {counts['active']:>6} active {sum(counts.values()):>7} total")
    out(
        f"Derived views: {answer['derived']}; daily logs: {answer['daily_logs']}; "
        f"findings: {answer['findings']} ({answer['drifted']} drifted, {answer['stale']} stale)"
    )
    trust = answer["trust"]
    out(f"Trust: {trust['mode']}; held back from agents: {trust['held_back']}")
    if trust["warning"]:
        out(f"Warning: {printable(trust['warning'])}")


@click.command()
@click.option(
    "--budget", type=click.IntRange(1, BUDGET_MAX), help="Token budget (default: config)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", *HOOK_FORMATS]),
    default="text",
    show_default=True,
    help="RUNNER-hook prints the JSON that runner's session-start hook expects (Claude Code, "
    "Codex, Gemini CLI, Copilot CLI, Cursor).",
)
@click.option(
    "--session",
    help="The current session (default: the hook payload's session_id, $MEMSITE_SESSION, or "
    "this terminal's): its own log lines are not carried over.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print {text, tokens, budget, included, omitted, held_back} (ids) as JSON.",
)
@click.option(
    "--task",
    metavar="TEXT",
    help="What the session is for: the facts most relevant to it come first, within the "
    "same budget (by meaning too with memsite[semantic]).",
)
@as_of_option
@click.pass_context
def context(
    ctx: click.Context,
    budget: int | None,
    fmt: str,
    session: str | None,
    as_json: bool,
    task: str | None,
    as_of: str | None,
) -> None:
    """Print index.md for an agent's context (compacting first if stale), then the last
    session's open tasks and decisions (memory.sessionCarryover). Only facts the trust gate
    lets through are in it: reviewed, written here, or approved (see `memsite review`)."""
    hook = fmt != "text"
    if as_json and hook:
        raise click.UsageError("--json prints the text form's report: leave out --format")
    if as_of is not None and hook:
        raise click.UsageError("--as-of is for reading the past: leave out --format")
    memory = get_memory(ctx, as_of)
    if as_json:
        report = memory.context_report(budget, current_session(session), task)
        for message in report.pop("warnings"):
            warn(message)
        emit_json(with_point(memory, report, "context"))
        return
    if hook:  # as `quick` answers the hook's own command line, without click
        answer_hook(memory, fmt, session, budget, task)
        return
    answer_context(memory, budget, session, task)


COMMANDS: list[click.Command] = [compact, review, prune, status, context]
