"""Helpers shared by the command modules: JSON output, warnings, the opened store."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from memsite.service import Memory

F = TypeVar("F", bound=Callable[..., Any])
CONFIDENCE = click.Choice(["high", "medium", "low"])


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for agents.")(func)


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False))


def warn(message: str) -> None:
    click.echo(f"Warning: {message}", err=True)


def get_memory(ctx: click.Context) -> Memory:
    from memsite.service import Memory

    root = ctx.find_root()
    if "memory" not in root.meta:
        root.meta["memory"] = Memory.open(root.params.get("store"))
    memory: Memory = root.meta["memory"]
    return memory


def short(text: str, width: int = 96) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def print_entries(rows: Sequence[dict[str, Any]], extra: Callable[[dict[str, Any]], str]) -> None:
    if not rows:
        click.echo("No entries.")
    for row in rows:
        if row.get("source") == "daily":
            click.echo(f"{row['file']}:{row['line']}  {short(row['text'])}{extra(row)}")
            continue
        date = str(row.get("created", ""))[:10]
        click.echo(
            f"{row['id'][:8]}  {date}  {row['category']:<12} {short(row['content'])}{extra(row)}"
        )
