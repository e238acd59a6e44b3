"""The session-start hook's command, run without click.

Every runner's session-start hook runs ``memsite [--store PATH] context --format RUNNER-hook``
at each session start, and importing click (with inspect, uuid, datetime) costs ~24 ms, as
much as the interpreter's own start. :func:`plan` recognizes exactly that command line, and
nothing else: any other word or option, ``--help``, or a form click reads differently goes to
click, which has the last word on the command line. The click command (``upkeep.context``)
and this one both answer with :func:`answer_hook`, inside :mod:`boundary`'s errors, so that
a hook gets the same bytes and the same exit either way (tests run both).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memsite.cli import boundary
from memsite.core.text import has_surrogate

if TYPE_CHECKING:
    from memsite.memory import Memory

# runners.hooks.FORMATS, spelled here so that every command does not import the runners
# (a test keeps the two equal).
HOOK_FORMATS = ("claude-hook", "codex-hook", "gemini-hook", "copilot-hook", "cursor-hook")


def plan(args: Sequence[str]) -> Callable[[], Any] | None:
    """The hook's command for ``args`` when they are exactly ``[--store PATH] context --format
    FORMAT`` (or ``--format=FORMAT``) with a hook's format; else None."""
    rest = list(args)
    store = None
    if len(rest) > 1 and rest[0] == "--store":
        store, rest = rest[1], rest[2:]
    elif rest and rest[0].startswith("--store="):
        store, rest = rest[0].removeprefix("--store="), rest[1:]
    if store is not None and (not store or store.startswith("-")):
        return None  # click's reading of an empty or dash-led value decides
    if rest[:1] != ["context"] or any(map(has_surrogate, args)):
        return None
    if rest[1:2] == ["--format"] and len(rest) == 3:
        fmt = rest[2]
    elif len(rest) == 2 and rest[1].startswith("--format="):
        fmt = rest[1].removeprefix("--format=")
    else:
        return None
    if fmt not in HOOK_FORMATS:
        return None
    return lambda: boundary.guarded(lambda: _start(store, fmt), False)


def _start(store: str | None, fmt: str) -> None:
    from memsite.memory import Memory

    def attempt(opened: list[Any]) -> None:
        memory = Memory.open(store)
        opened.append(memory)
        answer_hook(memory, fmt, None)

    boundary.retried(attempt)


def answer_hook(
    memory: Memory,
    fmt: str,
    session: str | None,
    budget: int | None = None,
    task: str | None = None,
) -> None:
    """Print what a session-start hook of ``fmt`` prints (its JSON), after the warnings on
    stderr. The session is ``session``, else the hook payload's on standard input (when it
    is not a terminal), else this terminal's."""
    from memsite.core.text import as_name
    from memsite.memory import session_name
    from memsite.runners.hooks import hook_output, hook_text

    if session is None and not sys.stdin.isatty():
        from memsite.runners.hooks import parse_hook_input, payload_session

        given = payload_session(parse_hook_input(sys.stdin.read(1 << 20)))
        session = as_name(given) if given else None  # hooks fail open: odd ids ignored
    text, warnings = memory.context_with_warnings(budget, session_name(session), task)
    for message in warnings:
        boundary.warn(message)
    if text:  # even an empty index: the preamble tells the agent how to record facts
        boundary.echo(boundary.dumps(hook_output(fmt, hook_text(text))))
