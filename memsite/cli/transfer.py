"""Commands that bring facts in and take them out: import, export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from memsite.cli.kit import (
    as_of_option,
    emit_json,
    get_memory,
    json_option,
    out,
    text_argument,
    warn,
    with_point,
)
from memsite.cli.memory import allow_secret_option
from memsite.core.text import counted, shorten
from memsite.core.transfer import SOURCES

IMPORT_MAX = 16 << 20  # as for a file: memsite's read limit for a text file


@click.command("import")
@click.argument("path", type=click.Path(path_type=Path, allow_dash=True))
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
    "(mcp-memory, whose file names none: required). jsonl keeps each entry's own.",
)
@click.option("--dry-run", is_flag=True, help="Show what would be written; write nothing.")
@click.option(
    "--agent",
    envvar="MEMSITE_AGENT",
    help="Who imports (default $MEMSITE_AGENT): facts of anyone else that the import "
    "supersedes, overrides or retires need --force.",
)
@click.option(
    "--force", is_flag=True, help="Import even though it replaces facts of other authors."
)
@allow_secret_option
@json_option
@click.pass_context
def import_(
    ctx: click.Context, /, path: Path, dry_run: bool, as_json: bool, **options: Any
) -> None:
    """Bring in the facts of PATH (a file, a folder of rules, or - for standard input) that
    the memory does not hold yet (a second run writes nothing). Exits 1 when something was
    left out (each is reported: a suspected secret, an invalid line, a heading that maps to
    no category)."""
    if str(path) == "-":
        options["text"] = text_argument("-", "the file to import", IMPORT_MAX, whole=True)
    answer = get_memory(ctx).import_facts(path, options.pop("source"), dry_run=dry_run, **options)
    for note in answer["notes"]:
        warn(note)
    if as_json:
        emit_json(answer)
    else:
        for problem in answer["problems"]:
            warn(problem)
        for gone in answer["displaced"]:
            out(
                f"{'Would replace' if dry_run else 'Replaced'} {gone['id'][:8]} "
                f"({gone['category']}, by {gone['agent'] or 'no named agent'}): "
                f"{gone['by'][:8]} {gone['how']} it"
            )
        if dry_run:
            for fact in answer["facts"]:
                if fact["status"] == "would write":
                    out(f"  [{fact['category']}] {shorten(fact['content'], 88)}  ({fact['where']})")
        verb = "Would write" if dry_run else "Wrote"
        records = [r for r in answer["records"] if r["status"] != "exists"]
        also = f" and {counted(len(records), 'record')}" if records else ""
        existing = answer["existing"]
        out(
            f"{verb} {counted(answer['written'], 'fact')}{also} from {path}; {existing} "
            f"{'was' if existing == 1 else 'were'} in the memory already"
        )
    if answer["problems"]:
        ctx.exit(1)


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "markdown", "graphml", "dot"]),
    default="jsonl",
    show_default=True,
    help="jsonl: one entry object per line, with --all then one line per verify, retire or "
    "relate record (round-trips through import); markdown: one file per fact with YAML front "
    "matter (its status), in a folder, never the records; graphml and dot (Graphviz): facts "
    "as nodes (id, category, status, text), supersessions and typed links as edges, no "
    "verification or retirement record (a retired fact is a node of status retired).",
)
@click.option(
    "--all",
    "include_all",
    is_flag=True,
    help="Every entry and (jsonl) every record. Without it: active facts only, no records (no "
    "superseded, retired or overridden fact, no verification or link).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, allow_dash=True),
    help="File (jsonl, graphml, dot; default or -: standard output; a FIFO or device is "
    "written into, never replaced) or folder (markdown; default: memsite-export).",
)
@as_of_option
@json_option
@click.pass_context
def export(
    ctx: click.Context,
    fmt: str,
    include_all: bool,
    output: Path | None,
    as_of: str | None,
    as_json: bool,
) -> None:
    """Write the memory out, byte for byte the same for the same store. `export --all` (jsonl)
    into `import --from jsonl` of an empty store gives the same memory: the same statuses,
    verifications, retirements and links. A graph (graphml, dot) holds only the edges
    between the facts it exports: without --all, links between active facts."""
    memory = get_memory(ctx, as_of)
    answer = memory.export(fmt, include_all=include_all, output=output)
    if "text" in answer and not as_json:
        click.echo(answer["text"], nl=False)
    elif as_json:
        emit_json(with_point(memory, answer, "export"))
    else:
        # On stderr: the output may be standard output itself (-o /dev/stdout, a FIFO).
        records = f" and {counted(answer['records'], 'record')}" if answer.get("records") else ""
        if "edges" in answer:
            records = f" and {counted(answer['edges'], 'edge')}"
        out(
            f"Exported {counted(answer['entries'], 'entry')}{records} to {answer['path']}", err=True
        )


COMMANDS: list[click.Command] = [import_, export]
