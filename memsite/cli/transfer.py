"""Commands that bring facts in and take them out: import, export."""

from __future__ import annotations

from pathlib import Path

import click

from memsite.cli.kit import emit_json, get_memory, json_option, out, warn
from memsite.cli.memory import allow_secret_option
from memsite.core.transfer import SOURCES


@click.command("import")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--from",
    "source",
    type=click.Choice(SOURCES),
    required=True,
    help="agents-md: bullet lists of CLAUDE.md, AGENTS.md, copilot-instructions or Cursor rules "
    "(a file or a folder); mcp-memory: the MCP memory server's memory.jsonl; jsonl: memsite's "
    "own export.",
)
@click.option(
    "-c",
    "--category",
    help="Category for facts under headings that name none (agents-md), or for all facts "
    "(mcp-memory; default: the first configured category).",
)
@click.option("--dry-run", is_flag=True, help="Show what would be written; write nothing.")
@allow_secret_option
@json_option
@click.pass_context
def import_(
    ctx: click.Context,
    path: Path,
    source: str,
    category: str | None,
    dry_run: bool,
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Bring in the facts of PATH that the memory does not hold yet (a second run writes
    nothing). Exits 1 when something was left out (each is reported: a suspected secret, an
    invalid line, a heading that maps to no category)."""
    answer = get_memory(ctx).import_facts(
        path, source, category=category, dry_run=dry_run, allow_secret=allow_secret
    )
    if as_json:
        emit_json(answer)
    else:
        for problem in answer["problems"]:
            warn(problem)
        verb = "Would write" if dry_run else "Wrote"
        out(
            f"{verb} {answer['written']} facts from {path}; "
            f"{answer['existing']} were in the memory already"
        )
    if answer["problems"]:
        ctx.exit(1)


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "markdown"]),
    default="jsonl",
    show_default=True,
    help="jsonl: one entry object per line (round-trips through import); markdown: one file "
    "per fact with YAML front matter, in a folder.",
)
@click.option("--all", "include_all", is_flag=True, help="Every entry, not only active ones.")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="File (jsonl; default: standard output) or folder (markdown; default: memsite-export).",
)
@json_option
@click.pass_context
def export(
    ctx: click.Context, fmt: str, include_all: bool, output: Path | None, as_json: bool
) -> None:
    """Write the memory out, byte for byte the same for the same store."""
    answer = get_memory(ctx).export(fmt, include_all=include_all, output=output)
    if "text" in answer and not as_json:
        click.echo(answer["text"], nl=False)
    elif as_json:
        emit_json(answer)
    else:
        out(f"Exported {answer['entries']} entries to {answer['path']}")


COMMANDS: list[click.Command] = [import_, export]
