"""Commands that write and read facts: init, add, amend, read, list, delete, log, sessions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memsite.cli.kit import (
    CONFIDENCE,
    COUNT_MAX,
    anchor_line,
    as_of_option,
    current_session,
    emit_json,
    get_memory,
    json_option,
    out,
    print_entries,
    text_argument,
    warn,
    window_options,
    with_point,
)
from memsite.cli.quick import answer_write
from memsite.core.sessions import KINDS
from memsite.core.text import counted, one_line, shorten

if TYPE_CHECKING:
    from memsite.memory import Memory

allow_secret_option = click.option(
    "--allow-secret",
    is_flag=True,
    help="Write even though the text looks like a credential (a person's decision: a reviewed "
    "false positive). Agents over MCP cannot do this.",
)


@click.command()
@click.option("--git-hook", is_flag=True, help="Install git hooks that run `memsite compact`.")
@click.option(
    "--github-pages", is_flag=True, help="Write a GitHub Actions workflow publishing the portal."
)
@click.option(
    "--github-check",
    is_flag=True,
    help="Write a GitHub Actions workflow running `memsite check` on pull requests.",
)
@click.option(
    "--techdocs",
    is_flag=True,
    help="Set the repository up for Backstage TechDocs: catalog-info.yaml, mkdocs.yml and "
    "docs/index.md where absent (existing ones are left alone: it prints what to add), and "
    "a workflow generating and publishing the docs with the memory.",
)
@click.option("--dry-run", is_flag=True, help="With --techdocs: show what it would write.")
@click.option("--force", is_flag=True, help="Create the store even in a non-empty folder.")
@json_option
@click.pass_context
def init(
    ctx: click.Context,
    git_hook: bool,
    github_pages: bool,
    github_check: bool,
    techdocs: bool,
    dry_run: bool,
    force: bool,
    as_json: bool,
) -> None:
    """Create the store (.memsite/ here, or --store PATH). Safe to run again.

    In a LeanSpec project (a .lean-spec/config.json here and no .memsite/) the store is
    .lean-spec/memory/, and its settings stay in LeanSpec's config.
    """
    from memsite.memory import Memory

    explicit = ctx.find_root().params.get("store")
    if dry_run:
        if not techdocs or git_hook or github_pages or github_check:
            raise click.UsageError("--dry-run goes with --techdocs alone")
        _techdocs(explicit, None, dry_run=True, as_json=as_json)
        return
    made = Memory.init(explicit, Path.cwd(), force=force, git_hook=git_hook)
    store, created, hooks = made["store"], made["created"], made["hooks"]
    workflow: str | None = None
    if github_pages:
        from memsite.portal.publish import write_pages_workflow

        workflow = write_pages_workflow(made["memory"])
    check: str | None = None
    if github_check:
        from memsite.portal.publish import write_check_workflow

        check = write_check_workflow(made["memory"])
    answer: dict[str, Any] = {
        "store": str(store.root),
        "created": created,
        "hooks": hooks,
        "workflow": workflow,
        "check_workflow": check,
    }
    if not as_json:
        out(f"Store ready at {store.root}" + ("" if created else " (already there)"))
        for path in hooks:
            out(f"Git hook: {path}")
        for written in (workflow, check):
            if written:
                out(f"Workflow: {written}")
    if techdocs:
        answer["techdocs"] = _techdocs(explicit, made["memory"], dry_run=False, as_json=as_json)
    if as_json:
        emit_json(answer)


def _techdocs(
    explicit: str | None, memory: Memory | None, *, dry_run: bool, as_json: bool
) -> list[dict[str, str]]:
    """`init --techdocs`: plan (and unless ``dry_run`` write) the repository's TechDocs files;
    with ``dry_run`` alone, the plan is the whole answer."""
    from memsite.memory import store_place
    from memsite.portal import techdocs

    if memory is not None:
        root, top = memory.store.root, memory.project_top()
    else:
        root, top = store_place(explicit, Path.cwd())
    steps = techdocs.plan(top, root, top.resolve().name)
    if not dry_run:
        techdocs.apply(top, steps)
    shown = [step.shown() for step in steps]
    if as_json:
        if dry_run:
            emit_json({"dry_run": True, "techdocs": shown})
        return shown
    if dry_run and not (root / "entries").is_dir():
        out(f"Would create the store at {root}")
    for step in steps:
        if step.action == "write":
            out(f"{'Would write' if dry_run else 'Wrote'} {step.rel}")
        elif step.action == "as_is":
            out(f"{step.rel}: set up already")
        else:
            out(f"{step.rel} exists and is left as it is: add, {step.advice}")
    out(techdocs.NEXT)
    return shown


@click.command()
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
@click.option(
    "--anchor",
    "anchors",
    multiple=True,
    metavar="PATH[:START-END]",
    help="Tie the fact to a file, or to lines of it, as they are now; may repeat.",
)
@window_options
@allow_secret_option
@json_option
@click.pass_context
def add(ctx: click.Context, /, content: str, as_json: bool, **options: Any) -> None:
    """Write one fact. CONTENT may be - to read it from standard input."""
    category = options.pop("category")
    answer = get_memory(ctx).add(text_argument(content, "content"), category, **options)
    answer_write(answer, as_json)


@click.command()
@click.argument("entry_id", metavar="ID")
@click.argument("content")
@click.option("--agent", envvar="MEMSITE_AGENT", help="Who writes this (default $MEMSITE_AGENT).")
@click.option(
    "--anchor",
    "anchors",
    multiple=True,
    metavar="PATH[:START-END]",
    help="Anchors of the new version; may repeat (default: the old ones, pinned again).",
)
@window_options
@allow_secret_option
@json_option
@click.pass_context
def amend(
    ctx: click.Context, /, entry_id: str, content: str, as_json: bool, **options: Any
) -> None:
    """Supersede entry ID with new CONTENT (or - for standard input), keeping its category,
    key, tags, anchors and validity window."""
    options["anchors"] = options["anchors"] or None  # none given: the old ones, pinned again
    answer = get_memory(ctx).amend(entry_id, text_argument(content, "content"), **options)
    answer_write(answer, as_json)


@click.command()
@click.argument("entry_id", metavar="ID")
@as_of_option
@json_option
@click.pass_context
def read(ctx: click.Context, entry_id: str, as_of: str | None, as_json: bool) -> None:
    """Show one entry with its status and supersession chain (ID: full id or 4+ hex prefix)."""
    memory = get_memory(ctx, as_of)
    row = memory.read(entry_id)
    if as_json:
        emit_json(with_point(memory, row, "entry"))
        return
    out(row["content"])
    out()
    for name in ("id", "category", "key", "created", "agent", "confidence", "status", "file"):
        if row.get(name) is not None:
            out(f"{name + ':':<13}{row[name]}")
    if row.get("tags"):
        out(f"{'tags:':<13}{', '.join(row['tags'])}")
    if row.get("valid_from") or row.get("valid_to"):
        out(f"{'valid:':<13}{row.get('valid_from') or '...'} to {row.get('valid_to') or '...'}")
    if row["superseded_by"]:
        out(f"{'replaced by:':<13}{', '.join(i[:8] for i in row['superseded_by'])}")
    flags = [name for name in ("drifted", "stale", "expired", "upcoming") if row.get(name)]
    if flags:
        out(f"{'check:':<13}{' and '.join(flags)}")
    if row.get("verified"):
        out(f"{'verified:':<13}{row['verified'][:10]}")
    if row.get("retired"):
        out(f"{'retired:':<13}{row['retired']['created'][:10]}: {row['retired']['reason']}")
    for anchor in row.get("anchors", []):
        out(f"{'anchor:':<13}{anchor_line(anchor)}")
    for link in row.get("links", []):
        arrow = "->" if link["direction"] == "out" else "<-"
        text = shorten(str(link.get("content") or "(not in this checkout)"), 60)
        out(f"{'link:':<13}{arrow} {link['type']} {link['id'][:8]}  {text}")
        if link.get("reason"):
            out(f"{'':<13}   because: {shorten(str(link['reason']), 80)}")
    if len(row["chain"]) > 1:
        out("history:")
        for link in row["chain"]:
            mark = "*" if link["id"] == row["id"] else " "
            out(
                f" {mark} {link['id'][:8]}  {link['created'][:10]}  {link['status']:<10} "
                f"{shorten(link['content'], 72)}"
            )


@click.command(name="list")
@click.option("-c", "--category", help="Only this category.")
@click.option("-t", "--tag", help="Only entries with this tag.")
@click.option("--all", "include_all", is_flag=True, help="Every status, not only active.")
@click.option("--limit", type=click.IntRange(0, COUNT_MAX), help="At most N entries.")
@as_of_option
@json_option
@click.pass_context
def list_(
    ctx: click.Context,
    category: str | None,
    tag: str | None,
    include_all: bool,
    limit: int | None,
    as_of: str | None,
    as_json: bool,
) -> None:
    """List active entries, newest first."""
    memory = get_memory(ctx, as_of)
    rows = memory.list_entries(category, tag, include_all, limit)
    if as_json:
        emit_json(with_point(memory, rows, "entries"))
    else:
        print_entries(rows, lambda r: f"  [{r['status']}]" if include_all else "")


@click.command()
@click.argument("entry_id", metavar="ID")
@json_option
@click.pass_context
def delete(ctx: click.Context, entry_id: str, as_json: bool) -> None:
    """Remove an entry file (git keeps its history)."""
    answer = get_memory(ctx).delete(entry_id)
    if as_json:
        emit_json(answer)
        return
    out(f"Deleted {answer['id'][:8]}: {answer['path']}")
    if answer["revived"]:
        warn("active again: " + ", ".join(i[:8] for i in answer["revived"]))


@click.command()
@click.argument("text")
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    default="note",
    show_default=True,
    help="task (open work), done (a task finished: same text) or decision: the next "
    "session's context starts with the last session's open tasks and decisions.",
)
@click.option(
    "--session", help="Session name (default: $MEMSITE_SESSION, else one per terminal session)."
)
@allow_secret_option
@json_option
@click.pass_context
def log(
    ctx: click.Context,
    text: str,
    kind: str,
    session: str | None,
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Append TEXT (or - for standard input) to today's log of the session
    (daily/<date>-<session>.md: one file per session, so branches never conflict)."""
    body = text_argument(text, "log text")
    answer = get_memory(ctx).log(
        body, current_session(session), allow_secret=allow_secret, kind=kind
    )
    if as_json:
        emit_json(answer)
        return
    out(f"Logged to {answer['path']}")
    if kind != "done":
        return
    closed = answer["closed"]
    if closed is None:
        warn(
            f"no open task reads {one_line(body)!r}, so none was closed: a [done] line closes "
            "the open task of the same text (see `memsite sessions list`)"
        )
    else:
        since = "" if closed["session"] == answer["session"] else f" (from {closed['session']})"
        out(f"Closed task{since}: {closed['task']}")


@click.group()
def sessions() -> None:
    """Sessions and their daily logs."""


@sessions.command("list")
@json_option
@click.pass_context
def sessions_list(ctx: click.Context, as_json: bool) -> None:
    """Sessions with daily logs, the most recently active first, with their open work."""
    found = get_memory(ctx).sessions()
    if as_json:
        emit_json(found)
        return
    if not found:
        out("No sessions: `memsite log TEXT` starts one's daily log.")
    for row in found:
        days = row["first"] if row["first"] == row["last"] else f"{row['first']}..{row['last']}"
        out(
            f"{row['session']:<24} {days}  {counted(row['lines'], 'line')}, {len(row['open'])} open"
        )


@sessions.command("show")
@click.argument("session")
@json_option
@click.pass_context
def sessions_show(ctx: click.Context, session: str, as_json: bool) -> None:
    """The daily logs of SESSION, oldest first."""
    found = get_memory(ctx).session(session)
    if as_json:
        emit_json(found)
        return
    for log in found["logs"]:
        out(f"{log['file']}:")
        for line in log["lines"]:
            out(f"  {line}")


COMMANDS: list[click.Command] = [init, add, amend, read, list_, delete, log, sessions]
