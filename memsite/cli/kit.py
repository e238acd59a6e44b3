"""What every command module shares: output (sanitized for terminals), JSON, the opened memory.

Everything a command prints for a person goes through :func:`out` or :func:`warn`, which strip
control characters: entry text comes from other branches and tools, and an escape sequence
printed raw would be obeyed by the terminal. JSON output escapes them instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memsite.cli.boundary import STDIN_MAX as STDIN_MAX
from memsite.cli.boundary import dumps as dumps
from memsite.cli.boundary import text_argument as text_argument
from memsite.core.schema import CONFIDENCES
from memsite.core.text import printable, shorten
from memsite.errors import InvalidInputError

if TYPE_CHECKING:
    from memsite.memory import Memory

F = TypeVar("F", bound=Callable[..., Any])
CONFIDENCE = click.Choice(CONFIDENCES)
# The largest --limit: more than any store holds (an unbounded one reached islice, which
# takes nothing above sys.maxsize, and printed a traceback).
COUNT_MAX = 1_000_000


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for agents.")(func)


def emit_json(value: Any) -> None:
    click.echo(dumps(value))


def out(text: str = "", *, nl: bool = True, err: bool = False) -> None:
    """Print for a person: control characters removed (newlines and tabs kept)."""
    click.echo(printable(text, multiline=True), nl=nl, err=err)


def warn(message: str) -> None:
    out(f"Warning: {message}", err=True)


def as_of_option(func: F) -> F:
    return click.option(
        "--as-of",
        "as_of",
        metavar="DATE|REF",
        help="The memory as it was then: a date (YYYY-MM-DD, the end of that day UTC; or an "
        "ISO 8601 time) or a git ref (tag, branch, commit; read with git, no checkout).",
    )(func)


def get_memory(ctx: click.Context, as_of: str | None = None) -> Memory:
    """The opened memory; with ``as_of``, the memory as it was then (``Memory.as_of``), said
    in one line on stderr."""
    from memsite.memory import Memory

    root = ctx.find_root()
    if "memory" not in root.meta:
        root.meta["memory"] = Memory.open(root.params.get("store"))
        if isinstance(root.obj, list):  # main's note of what it opened (see main._run)
            root.obj.append(root.meta["memory"])
    memory: Memory = root.meta["memory"]
    if as_of is None:
        return memory
    past = memory.as_of(as_of)
    assert past.point is not None
    if isinstance(root.obj, list):  # a damaged cache of the past state is rebuilt as today's
        root.obj.append(past)
    out(past.point.line(), err=True)
    return past


def with_point(memory: Memory, answer: Any, name: str) -> Any:
    """A JSON answer of ``memory``, saying which past state it is when it is one: a list
    becomes ``{"as_of": …, name: list}``, an object gains ``as_of``."""
    if memory.point is None:
        return answer
    if isinstance(answer, list):
        return {"as_of": memory.point.json(), name: answer}
    return {**answer, "as_of": memory.point.json()}


def current_session(explicit: str | None = None) -> str:
    """This process's session (``memory.session_name``): given, else $MEMSITE_SESSION, else
    one per terminal session."""
    from memsite.memory import session_name

    return session_name(explicit)


def parse_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(f"invalid date {value[:40]!r}: use YYYY-MM-DD") from None


def window_options(func: F) -> F:
    """--valid-from and --valid-to of `add` and `amend`: when the fact holds in the world."""
    func = click.option(
        "--valid-to",
        metavar="DATE",
        help="The last day it holds (YYYY-MM-DD: through its end, UTC; or a UTC time): then "
        "it expires and leaves the index. amend keeps the old one unless given ('' clears it).",
    )(func)
    return click.option(
        "--valid-from",
        metavar="DATE",
        help="The day it starts to hold (YYYY-MM-DD, UTC; or a UTC time): the index leaves it "
        "out until then. amend keeps the old one unless given ('' clears it).",
    )(func)


def print_entries(rows: Sequence[dict[str, Any]], extra: Callable[[dict[str, Any]], str]) -> None:
    if not rows:
        out("No entries.")
    # The category column as wide as its longest name, then two spaces (as between the others).
    width = max(
        (len(str(r.get("category", ""))) for r in rows if r.get("source") != "daily"), default=0
    )
    for row in rows:
        if row.get("source") == "daily":
            out(f"{row['file']}:{row['line']}  {shorten(printable(row['text']), 96)}{extra(row)}")
            continue
        day = str(row.get("created", ""))[:10]
        text = shorten(printable(str(row["content"])), 96)
        named = ("drifted", "stale", "expired", "upcoming")
        flags = [name for name in named if row.get(name) and row.get("status") != name]
        marks = f"  [{', '.join(flags)}]" if flags else ""
        out(f"{row['id'][:8]}  {day}  {row['category']:<{width}}  {text}{extra(row)}{marks}")


def anchor_line(anchor: dict[str, Any]) -> str:
    """One anchor as `read` and `reconcile` print it: where, its state, where it is now."""
    lines = anchor.get("lines")
    where = str(anchor["path"]) + (f":{lines[0]}-{lines[1]}" if lines else "")
    now = []
    if "now_path" in anchor:
        now.append(str(anchor["now_path"]))
    if "now_lines" in anchor:
        now.append(f"lines {anchor['now_lines'][0]}-{anchor['now_lines'][1]}")
    return f"{where}  {anchor['state']}" + (f" (now {' '.join(now)})" if now else "")
