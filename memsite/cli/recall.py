"""`search`: by words, by meaning, or both (``memory.recall``)."""

from __future__ import annotations

from typing import Any

import click

from memsite.cli.kit import (
    COUNT_MAX,
    as_of_option,
    emit_json,
    get_memory,
    json_option,
    print_entries,
    with_point,
)


@click.command()
@click.argument("query")
@click.option("-c", "--category", help="Only this category.")
@click.option(
    "--limit",
    type=click.IntRange(1, COUNT_MAX),
    default=20,
    show_default=True,
    help="At most N hits.",
)
@click.option("--all", "include_all", is_flag=True, help="Search inactive entries too.")
@click.option("--daily", is_flag=True, help="Search the daily logs too.")
@click.option(
    "--expand", is_flag=True, help="Add the facts linked to the hits (each with its via)."
)
@click.option(
    "--mode",
    type=click.Choice(["auto", "exact", "semantic", "hybrid"]),
    default="auto",
    show_default=True,
    help="By words, by meaning (needs memsite[semantic]) or both; auto: hybrid when the "
    "semantic extra is installed, else exact.",
)
@as_of_option
@json_option
@click.pass_context
def search(
    ctx: click.Context,
    query: str,
    category: str | None,
    limit: int,
    include_all: bool,
    daily: bool,
    expand: bool,
    mode: str,
    as_of: str | None,
    as_json: bool,
) -> None:
    """Ranked search over content, tags and keys (typos tolerated), by meaning too when the
    semantic extra is installed."""
    memory = get_memory(ctx, as_of)
    rows = memory.search(
        query,
        category=category,
        limit=limit,
        include_all=include_all,
        daily=daily,
        expand=expand,
        mode=mode,
        with_provenance=as_json,  # the text lines do not show it
    )
    if as_json:
        emit_json(with_point(memory, rows, "hits"))
        return

    def extra(row: dict[str, Any]) -> str:
        if "via" in row:
            via = row["via"]
            return f"  (via {via['type']} {via['id'][:8]})"
        found = _found_by(row)
        if include_all:
            return f"  [{row.get('status', 'daily')}] ({found})"
        return f"  ({found})"

    print_entries(rows, extra)


def _found_by(row: dict[str, Any]) -> str:
    """How a hit was found, for people: its lexical score alone (exact mode), else which
    rankings found it and how close it is in meaning."""
    signals = row.get("signals", ["exact"])
    if signals == ["exact"]:
        return f"{row['score']:.2f}"
    names = "+".join({"exact": "words", "semantic": "meaning"}[s] for s in signals)
    if "similarity" in row:
        return f"{names} {row['similarity']:.2f}"
    return names


COMMANDS: list[click.Command] = [search]
