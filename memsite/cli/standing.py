"""Commands about whether facts still hold: reconcile, verify, retire, relate, check."""

from __future__ import annotations

import click

from memsite.cli.kit import (
    anchor_line,
    emit_json,
    get_memory,
    json_option,
    out,
    text_argument,
    warn,
)
from memsite.core.records import LINK_TYPES
from memsite.core.text import counted, shorten

agent_option = click.option(
    "--agent", envvar="MEMSITE_AGENT", help="Who writes this (default $MEMSITE_AGENT)."
)


@click.command()
@json_option
@click.pass_context
def reconcile(ctx: click.Context, as_json: bool) -> None:
    """Check every anchor of every active fact against the files as they are now:
    unchanged, moved, changed, missing or renamed. Exits 1 when any drifted; writes nothing."""
    report = get_memory(ctx).reconcile()
    if as_json:
        emit_json(report)
    else:
        for fact in report["facts"]:
            mark = "DRIFTED" if fact["drifted"] else "ok"
            out(f"{fact['id'][:8]}  {mark:<8} {shorten(fact['content'], 80)}")
            for anchor in fact["anchors"]:
                out(f"    {anchor_line(anchor)}")
        out(f"{counted(report['anchored'], 'anchored fact')}, {report['drifted']} drifted.")
    if report["drifted"]:
        ctx.exit(1)


@click.command()
@click.argument("entry_id", metavar="ID")
@click.option("--evidence", help="How you checked that it still holds (or - for stdin).")
@click.option("--repin", is_flag=True, help="Pin drifted anchors to the files as they are now.")
@agent_option
@json_option
@click.pass_context
def verify(
    ctx: click.Context,
    entry_id: str,
    evidence: str | None,
    repin: bool,
    agent: str | None,
    as_json: bool,
) -> None:
    """Record that fact ID still holds (a new record; the fact is not edited). Refused
    (exit 1) while its anchors drifted, unless --repin."""
    text = text_argument(evidence, "evidence") if evidence is not None else None
    answer = get_memory(ctx).verify(entry_id, text, repin=repin, agent=agent)
    if as_json:
        emit_json(answer)
        return
    out(f"Verified {answer['id'][:8]}: {answer['path']}")
    for label in answer["repinned"]:
        out(f"Pinned again: {label}")


@click.command()
@click.argument("entry_id", metavar="ID")
@click.option("--reason", required=True, help="Why the fact no longer holds.")
@agent_option
@json_option
@click.pass_context
def retire(
    ctx: click.Context, entry_id: str, reason: str, agent: str | None, as_json: bool
) -> None:
    """Withdraw fact ID without a successor: it leaves index.md, compacted/ and lists; its
    portal page stays, with the reason. (`delete` is for mistakes.)"""
    answer = get_memory(ctx).retire(entry_id, text_argument(reason, "reason"), agent=agent)
    if as_json:
        emit_json(answer)
    else:
        out(f"Retired {answer['id'][:8]}: {answer['path']}")


@click.command()
@click.argument("source", metavar="A")
@click.argument("target", metavar="B")
@click.option("--type", "link", type=click.Choice(LINK_TYPES), required=True, help="The link.")
@click.option("--reason", help="Why they are linked.")
@agent_option
@json_option
@click.pass_context
def relate(
    ctx: click.Context,
    source: str,
    target: str,
    link: str,
    reason: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """Link fact A to fact B: A refines / supports / depends-on / conflicts-with /
    distinct-from B (distinct-from silences a possible conflict between them)."""
    answer = get_memory(ctx).relate(source, target, link, reason=reason, agent=agent)
    if as_json:
        emit_json(answer)
    elif answer["status"] == "exists":
        out(f"Already linked: {answer['id'][:8]} {link} {answer['other'][:8]} (nothing written)")
    else:
        out(f"Linked {answer['id'][:8]} {link} {answer['other'][:8]}: {answer['path']}")


@click.command()
@click.option(
    "--base", required=True, metavar="REF", help="The branch merged into, e.g. origin/main."
)
@json_option
@click.pass_context
def check(ctx: click.Context, base: str, as_json: bool) -> None:
    """For pull requests: check what the branch since the merge base of REF and HEAD does to
    the memory. Lists the facts it adds (what agents will be told once it merges). Exits 1
    with one line per problem (a new file malformed, holding a secret, duplicate, forking,
    possibly conflicting, overlapping an active fact with no relation recorded, dated in the
    future, or silently overriding a fact; an entry file edited or deleted; a retire of a
    fact the branch did not add; config values that would carry markup; derived files linked
    or tracked), 0 when clean (config changes listed), 2 when the base cannot be found (a
    shallow clone: fetch the history)."""
    report = get_memory(ctx).check(base)
    if as_json:
        emit_json(report)
    else:
        if added := len(report["added"]):
            out(f"adds {counted(added, 'fact')} (agents will be told once it merges):")
        for fact in report["added"]:
            out(f"  {fact['id'][:8]} [{fact['category']}] {fact['content']}")
        for setting in report["config_changes"]:
            out(f"config changed: {setting}")
        for problem in report["problems"]:
            out(f"{problem['file']}: {problem['kind']}: {problem['message']}")
        if report["problems"]:
            problems = counted(len(report["problems"]), "problem")
            warn(f"{problems} in {counted(report['files'], 'new file')}")
        else:
            out(f"{counted(report['files'], 'new file')} since {report['base'][:12]}: no problems.")
    if report["problems"]:
        ctx.exit(1)


COMMANDS: list[click.Command] = [reconcile, verify, retire, relate, check]
