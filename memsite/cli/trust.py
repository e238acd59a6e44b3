"""`approve`: a person lets held-back facts reach agents (see the trust gate, ``core.trust``)."""

from __future__ import annotations

import click

from memsite.cli.kit import emit_json, get_memory, json_option, out, text_argument, warn
from memsite.cli.standing import agent_option


@click.command()
@click.argument("entry_ids", metavar="ID...", nargs=-1, required=True)
@click.option("--reason", help="What you checked before approving (or - for stdin).")
@agent_option
@json_option
@click.pass_context
def approve(
    ctx: click.Context,
    entry_ids: tuple[str, ...],
    reason: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """Let held-back facts reach agents (`memsite review` lists them): writes an approve
    record for each (a new file; commit it). It counts only once it is reviewed itself, or
    while it is written in this clone: an approval arriving with the same unreviewed branch
    approves nothing. A person's decision: agents are never offered this over MCP."""
    text = text_argument(reason, "reason") if reason is not None else None
    answer = get_memory(ctx).approve(entry_ids, reason=text, agent=agent)
    if as_json:
        emit_json(answer)
        return
    for item in answer["approved"]:
        out(f"Approved {item['id'][:8]} (was held back: {item['was']}): {item['path']}")
    for entry_id in answer["not_held"]:
        warn(f"{entry_id[:8]} is not held back: nothing to approve")


COMMANDS: list[click.Command] = [approve]
