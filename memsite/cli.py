"""The `memsite` command line: parses options, calls the service layer, prints.

Every failure ends as one line ``Error: …`` on stderr (and ``{"error": …}`` on stdout with
``--json``): exit 2 for a malformed command line, 1 for everything else. Heavy modules (mkdocs,
lunr, mcp, watchdog) are imported only inside the commands that need them.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from memsite import __version__
from memsite.clikit import (
    CONFIDENCE,
    emit_json,
    get_memory,
    json_option,
    print_entries,
    short,
    warn,
)
from memsite.errors import MemsiteError

allow_secret_option = click.option(
    "--allow-secret",
    is_flag=True,
    help="Write even though the text looks like a credential (a reviewed false positive).",
)

# Commands that live next to the code they drive; these modules import only click at load time.
COMMAND_MODULES = ("memsite.site.commands", "memsite.agents_cli")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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


@cli.command()
@click.option("--git-hook", is_flag=True, help="Install git hooks that run `memsite compact`.")
@click.option(
    "--github-pages", is_flag=True, help="Write a GitHub Actions workflow publishing the portal."
)
@json_option
@click.pass_context
def init(ctx: click.Context, git_hook: bool, github_pages: bool, as_json: bool) -> None:
    """Create the store (.memsite/ here, or --store PATH). Safe to run again."""
    from memsite.store import STORE_DIRNAME, Store

    explicit = ctx.find_root().params.get("store")
    root = Path(explicit).resolve() if explicit else Path.cwd() / STORE_DIRNAME
    store, created = Store.init(root)
    store.load_config()  # a malformed existing config is reported now, not later
    hooks: list[str] = []
    workflow: str | None = None
    if git_hook:
        from memsite.githooks import install_hooks

        hooks = install_hooks(store.root)
    if github_pages:
        from memsite.githooks import write_pages_workflow

        workflow = write_pages_workflow(store.root)
    if as_json:
        emit_json(
            {"store": str(store.root), "created": created, "hooks": hooks, "workflow": workflow}
        )
        return
    click.echo(f"Store ready at {store.root}" + ("" if created else " (already there)"))
    for path in hooks:
        click.echo(f"Git hook: {path}")
    if workflow:
        click.echo(f"Workflow: {workflow}")


@cli.command()
@click.argument("content")
@click.option("-c", "--category", required=True, help="Category (see memory.categories).")
@click.option("-t", "--tags", multiple=True, help="Comma-separated tags; may repeat.")
@click.option(
    "--supersedes", multiple=True, metavar="ID", help="Id this entry replaces; may repeat."
)
@click.option("--reason", help="Why this entry replaces the ones it supersedes.")
@click.option("--confidence", type=CONFIDENCE, help="high, medium (default) or low.")
@click.option("--agent", envvar="MEMSITE_AGENT", help="Who writes this (default $MEMSITE_AGENT).")
@click.option("--key", help="Subject of the fact; a newer entry with the same key wins.")
@allow_secret_option
@json_option
@click.pass_context
def add(
    ctx: click.Context,
    content: str,
    category: str,
    tags: tuple[str, ...],
    supersedes: tuple[str, ...],
    reason: str | None,
    confidence: str | None,
    agent: str | None,
    key: str | None,
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Write one fact. CONTENT may be - to read it from standard input."""
    if content == "-":
        content = sys.stdin.read()
    answer = get_memory(ctx).add(
        content,
        category,
        tags=tags,
        supersedes=supersedes,
        reason=reason,
        confidence=confidence,
        agent=agent,
        key=key,
        allow_secret=allow_secret,
    )
    print_write(answer, as_json)


def print_write(answer: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(answer)
        return
    if answer["status"] == "duplicate":
        click.echo(f"Duplicate of {answer['id'][:8]}: nothing written ({answer['path']})")
    else:
        click.echo(f"Written {answer['id'][:8]}: {answer['path']}")
    for near in answer["near_duplicates"]:
        warn(f"near duplicate of {near['id'][:8]} ({near['similarity']:.0%} similar)")
    for message in answer["warnings"]:
        warn(message)


@cli.command()
@click.argument("entry_id", metavar="ID")
@click.argument("content")
@click.option("--agent", envvar="MEMSITE_AGENT", help="Who writes this (default $MEMSITE_AGENT).")
@allow_secret_option
@json_option
@click.pass_context
def amend(
    ctx: click.Context,
    entry_id: str,
    content: str,
    agent: str | None,
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Supersede entry ID with new CONTENT, keeping its category, key and tags."""
    if content == "-":
        content = sys.stdin.read()
    memory = get_memory(ctx)
    print_write(memory.amend(entry_id, content, agent=agent, allow_secret=allow_secret), as_json)


@cli.command()
@click.argument("entry_id", metavar="ID")
@json_option
@click.pass_context
def read(ctx: click.Context, entry_id: str, as_json: bool) -> None:
    """Show one entry with its status and supersession chain (ID: full id or 4+ hex prefix)."""
    row = get_memory(ctx).read(entry_id)
    if as_json:
        emit_json(row)
        return
    click.echo(row["content"])
    click.echo("")
    fields = ["id", "category", "key", "created", "agent", "confidence", "status", "file"]
    for name in fields:
        if row.get(name) is not None:
            click.echo(f"{name + ':':<12}{row[name]}")
    if row.get("tags"):
        click.echo(f"{'tags:':<12}{', '.join(row['tags'])}")
    if row["superseded_by"]:
        click.echo(f"{'replaced by:':<12}{', '.join(i[:8] for i in row['superseded_by'])}")
    if len(row["chain"]) > 1:
        click.echo("history:")
        for link in row["chain"]:
            mark = "*" if link["id"] == row["id"] else " "
            click.echo(
                f" {mark} {link['id'][:8]}  {link['created'][:10]}  {link['status']:<10} "
                f"{short(link['content'], 72)}"
            )


@cli.command(name="list")
@click.option("-c", "--category", help="Only this category.")
@click.option("-t", "--tag", help="Only entries with this tag.")
@click.option("--all", "include_all", is_flag=True, help="Every status, not only active.")
@click.option("--limit", type=click.IntRange(min=0), help="At most N entries.")
@json_option
@click.pass_context
def list_(
    ctx: click.Context,
    category: str | None,
    tag: str | None,
    include_all: bool,
    limit: int | None,
    as_json: bool,
) -> None:
    """List active entries, newest first."""
    rows = get_memory(ctx).list(category, tag, include_all, limit)
    if as_json:
        emit_json(rows)
    else:
        print_entries(rows, lambda r: f"  [{r['status']}]" if include_all else "")


@cli.command()
@click.argument("query")
@click.option("-c", "--category", help="Only this category.")
@click.option(
    "--limit", type=click.IntRange(min=1), default=20, show_default=True, help="At most N hits."
)
@click.option("--all", "include_all", is_flag=True, help="Search inactive entries too.")
@click.option("--daily", is_flag=True, help="Search the daily logs too.")
@json_option
@click.pass_context
def search(
    ctx: click.Context,
    query: str,
    category: str | None,
    limit: int,
    include_all: bool,
    daily: bool,
    as_json: bool,
) -> None:
    """Ranked search over content, tags and keys (typos tolerated)."""
    rows = get_memory(ctx).search(query, category, limit, include_all, daily)
    if as_json:
        emit_json(rows)
    else:
        print_entries(rows, lambda r: f"  ({r['score']:.2f})")


@cli.command()
@click.argument("entry_id", metavar="ID")
@json_option
@click.pass_context
def delete(ctx: click.Context, entry_id: str, as_json: bool) -> None:
    """Remove an entry file (git keeps its history)."""
    answer = get_memory(ctx).delete(entry_id)
    if as_json:
        emit_json(answer)
        return
    click.echo(f"Deleted {answer['id'][:8]}: {answer['path']}")
    if answer["revived"]:
        warn("active again: " + ", ".join(i[:8] for i in answer["revived"]))


@cli.command()
@click.option("--quiet", "-q", is_flag=True, help="Print nothing unless something fails.")
@json_option
@click.pass_context
def compact(ctx: click.Context, quiet: bool, as_json: bool) -> None:
    """Rebuild compacted/ and index.md; prune expired daily logs and stale temporaries."""
    memory = get_memory(ctx)
    answer = memory.compact()
    if as_json:
        emit_json(answer)
    elif not quiet:
        click.echo(
            f"Compacted {answer['entries']} entries: {answer['active']} active, "
            f"{answer['superseded']} superseded, {answer['duplicate']} duplicate, "
            f"{answer['overridden']} overridden"
            + (
                f", {answer['invalid']} unreadable (see `memsite review`)"
                if answer["invalid"]
                else ""
            )
        )
        changed = answer["written"] + answer["removed"]
        click.echo(f"Updated: {', '.join(changed)}" if changed else "Views were up to date.")
        if answer["pruned_daily"]:
            click.echo(f"Pruned daily logs: {', '.join(answer['pruned_daily'])}")


@cli.command()
@click.option("--strict", is_flag=True, help="Exit 1 if there is any finding.")
@json_option
@click.pass_context
def review(ctx: click.Context, strict: bool, as_json: bool) -> None:
    """Report problems: unreadable files, duplicates, contradictions, cycles and more."""
    answer = get_memory(ctx).review()
    findings = answer["findings"]
    if as_json:
        emit_json(answer)
    elif not findings:
        click.echo("No findings.")
    else:
        for finding in findings:
            click.echo(f"{finding['kind']}: {finding['message']}")
            for name in finding["files"]:
                click.echo(f"    entries/{name}")
    if strict and findings:
        ctx.exit(1)


@cli.command()
@click.option("--before", metavar="DATE", help="Also delete inactive entries created before DATE.")
@click.option("--dry-run", is_flag=True, help="Show what would go; delete nothing.")
@json_option
@click.pass_context
def prune(ctx: click.Context, before: str | None, dry_run: bool, as_json: bool) -> None:
    """Delete expired daily logs, and with --before old inactive entries."""
    from memsite.service import parse_date

    answer = get_memory(ctx).prune(parse_date(before) if before else None, dry_run)
    if as_json:
        emit_json(answer)
        return
    verb = "Would delete" if dry_run else "Deleted"
    click.echo(f"{verb} {len(answer['entries'])} entries and {len(answer['daily'])} daily logs.")
    for entry_id in answer["entries"]:
        click.echo(f"  entry {entry_id}")
    for name in answer["daily"]:
        click.echo(f"  {name}")


@cli.command()
@click.argument("text")
@allow_secret_option
@json_option
@click.pass_context
def log(ctx: click.Context, text: str, allow_secret: bool, as_json: bool) -> None:
    """Append TEXT to today's daily log (session: $MEMSITE_SESSION, else 'default')."""
    if text == "-":
        text = sys.stdin.read()
    session = os.environ.get("MEMSITE_SESSION") or None
    answer = get_memory(ctx).log(text, session, allow_secret=allow_secret)
    if as_json:
        emit_json(answer)
    else:
        click.echo(f"Logged to {answer['path']}")


@cli.command()
@json_option
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Counts by category and status, freshness of the derived views, findings."""
    answer = get_memory(ctx).status()
    if as_json:
        emit_json(answer)
        return
    click.echo(f"Store: {answer['store']}")
    click.echo(
        f"Entries: {answer['entries']} ({answer['active']} active, {answer['superseded']} "
        f"superseded, {answer['duplicate']} duplicate, {answer['overridden']} overridden); "
        f"unreadable files: {answer['invalid']}"
    )
    for category, counts in answer["categories"].items():
        click.echo(f"  {category:<14} {counts['active']:>6} active {sum(counts.values()):>7} total")
    click.echo(
        f"Derived views: {answer['derived']}; daily logs: {answer['daily_logs']}; "
        f"findings: {answer['findings']}"
    )


@cli.command()
@click.option("--budget", type=click.IntRange(min=1), help="Token budget (default: config).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "claude-hook"]),
    default="text",
    show_default=True,
    help="claude-hook prints the JSON a Claude Code SessionStart hook expects.",
)
@click.pass_context
def context(ctx: click.Context, budget: int | None, fmt: str) -> None:
    """Print index.md for an agent's context (compacting first if stale)."""
    text = get_memory(ctx).context(budget)
    if fmt == "claude-hook":
        from memsite.agents import claude_hook_output

        emit_json(claude_hook_output(text))
    else:
        click.echo(text, nl=False)


for _module in COMMAND_MODULES:
    for _command in importlib.import_module(_module).COMMANDS:
        cli.add_command(_command)


def fail(message: str, as_json: bool, code: int) -> NoReturn:
    line = " ".join(message.split())
    if as_json:
        click.echo(json.dumps({"error": line}, ensure_ascii=False))
    click.echo(f"Error: {line}", err=True)
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    try:
        code = cli.main(args=args, prog_name="memsite", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        hint = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx else ""
        fail(exc.format_message() + hint, as_json, 2)
    except click.ClickException as exc:
        fail(exc.format_message(), as_json, exc.exit_code)
    except click.Abort:
        fail("aborted", as_json, 1)
    except MemsiteError as exc:
        fail(str(exc), as_json, 1)
    except KeyboardInterrupt:
        fail("interrupted", as_json, 130)
    sys.exit(code if isinstance(code, int) else 0)
