"""The commands agents run most, without click.

Agents run ``memsite [--store PATH] context`` (with ``--format RUNNER-hook`` at every session
start) and ``memsite [--store PATH] add CONTENT -c CATEGORY [--json]`` at every fact they
learn; git's hooks run ``memsite --store PATH compact --quiet`` after every merge, checkout
and rewrite. Importing click (with inspect, uuid, datetime) costs ~24 ms, as much as the
interpreter's own start. :func:`plan` recognizes exactly those command lines and nothing else:
any other word or option, ``--help``, an option given twice, or a form click reads
differently goes to click, which has the last word on the command line. The click commands
and these answer with the same functions (:func:`answer_hook`, :func:`answer_context`,
:func:`answer_write`, :func:`answer_compact`), inside :mod:`boundary`'s errors, so that
both give the same bytes and the same exit (tests run both).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memsite.cli import boundary
from memsite.core.text import has_surrogate

if TYPE_CHECKING:
    from memsite.memory import Memory

# runners.hooks.FORMATS, spelled here so that every command does not import the runners
# (a test keeps the two equal).
HOOK_FORMATS = ("claude-hook", "codex-hook", "gemini-hook", "copilot-hook", "cursor-hook")
# What click gives `add` for each option left out (a test compares the two calls).
ADD_DEFAULTS: Mapping[str, Any] = {
    "tags": (),
    "supersedes": (),
    "reason": None,
    "confidence": None,
    "key": None,
    "anchors": (),
    "valid_from": None,
    "valid_to": None,
    "allow_secret": False,
}

Options = dict[str, str | bool]


def plan(args: Sequence[str]) -> Callable[[], Any] | None:
    """The command for ``args`` when they are exactly one of the forms above; else None."""
    rest = list(args)
    store = None
    if len(rest) > 1 and rest[0] == "--store":
        store, rest = rest[1], rest[2:]
    elif rest and rest[0].startswith("--store="):
        store, rest = rest[0].removeprefix("--store="), rest[1:]
    if store is not None and (not store or store.startswith("-")):
        return None  # click's reading of an empty or dash-led value decides
    if any(map(has_surrogate, args)):
        return None
    if rest[:1] == ["context"]:
        return _context_plan(store, rest[1:])
    if rest[:1] == ["add"]:
        return _add_plan(store, rest[1:])
    if rest[:1] == ["compact"]:
        return _compact_plan(store, rest[1:])
    return None


def _context_plan(store: str | None, words: list[str]) -> Callable[[], Any] | None:
    read = _read(words, {"--format": "format"}, {})
    if read is None or read[1]:
        return None
    fmt = read[0].get("format")
    if fmt is None:
        return lambda: boundary.guarded(lambda: _context(store), False)
    if fmt not in HOOK_FORMATS:
        return None
    return lambda: boundary.guarded(lambda: _hook(store, str(fmt)), False)


def _add_plan(store: str | None, words: list[str]) -> Callable[[], Any] | None:
    read = _read(words, {"-c": "category", "--category": "category"}, {"--json": "json"})
    if read is None or len(read[1]) != 1 or "category" not in read[0]:
        return None
    content, category, as_json = read[1][0], str(read[0]["category"]), "json" in read[0]
    return lambda: boundary.guarded(lambda: _add(store, content, category, as_json), as_json)


def _compact_plan(store: str | None, words: list[str]) -> Callable[[], Any] | None:
    flags = {"-q": "quiet", "--quiet": "quiet", "--full": "full", "--json": "json"}
    read = _read(words, {}, flags)
    if read is None or read[1]:
        return None
    given, as_json = read[0], "json" in read[0]

    def compact(memory: Memory) -> None:
        answer_compact(memory.compact(full="full" in given), "quiet" in given, as_json)

    def run() -> None:
        from memsite import counting

        if "full" not in given:  # (a full compaction counts in this process, in halves)
            counting.prestart()  # loads the tokenizers while memsite is imported and opened
        try:
            _opened(store, compact)
        finally:
            counting.dismiss()

    return lambda: boundary.guarded(run, as_json)


def _read(
    words: Sequence[str], valued: Mapping[str, str], flags: Mapping[str, str]
) -> tuple[Options, list[str]] | None:
    """The options and the other words of ``words``, when every option is one of ``valued``
    (its value the next word, or after ``=`` in a long one) or of ``flags``, and none comes
    twice; else None."""
    found: Options = {}
    plain: list[str] = []
    rest: Iterator[str] = iter(words)
    for word in rest:
        if word == "-" or not word.startswith("-"):
            plain.append(word)
            continue
        name, equals, value = word.partition("=")
        if equals and not name.startswith("--"):
            return None  # click reads -c=x as the value "=x"
        given: str | bool | None
        if name in flags and not equals:
            key, given = flags[name], True
        elif name in valued:
            key, given = valued[name], value if equals else next(rest, None)
            if given is None or given.startswith("-"):
                return None
        else:
            return None
        if key in found:
            return None
        found[key] = given
    return found, plain


def _opened(store: str | None, answer: Callable[[Memory], None]) -> None:
    from memsite.memory import Memory

    def attempt(opened: list[Any]) -> None:
        memory = Memory.open(store)
        opened.append(memory)
        answer(memory)

    boundary.retried(attempt)


def _hook(store: str | None, fmt: str) -> None:
    _opened(store, lambda memory: answer_hook(memory, fmt, None))


def _context(store: str | None) -> None:
    _opened(store, lambda memory: answer_context(memory, None, None, None))


def _add(store: str | None, content: str, category: str, as_json: bool) -> None:
    agent = os.environ.get("MEMSITE_AGENT") or None  # as click reads an empty variable

    def answer(memory: Memory) -> None:
        text = boundary.text_argument(content, "content")
        written = memory.add(text, category, agent=agent, **ADD_DEFAULTS)
        answer_write(written, as_json)

    _opened(store, answer)


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


def answer_context(
    memory: Memory, budget: int | None, session: str | None, task: str | None
) -> None:
    """Print index.md for an agent (the text form of `context`), after the warnings."""
    from memsite.memory import session_name

    text, warnings = memory.context_with_warnings(budget, session_name(session), task)
    for message in warnings:
        boundary.warn(message)
    boundary.say(text, nl=False)


def answer_write(answer: Mapping[str, Any], as_json: bool) -> None:
    """Print what `add` or `amend` wrote (or found written already), and its warnings."""
    if as_json:
        boundary.echo(boundary.dumps(answer))
        return
    if answer["status"] == "duplicate":
        boundary.say(f"Duplicate of {answer['id'][:8]}: nothing written ({answer['path']})")
    else:
        boundary.say(f"Written {answer['id'][:8]}: {answer['path']}")
    for near in answer["near_duplicates"]:
        boundary.warn(f"near duplicate of {near['id'][:8]} ({near['similarity']:.0%} similar)")
    for message in answer["warnings"]:
        boundary.warn(message)


def answer_compact(answer: Mapping[str, Any], quiet: bool, as_json: bool) -> None:
    """Print what `compact` did: its JSON, one summary (unless ``quiet``), or nothing."""
    from memsite.core.text import counted

    if as_json:
        boundary.echo(boundary.dumps(answer))
        return
    if quiet:
        return
    unreadable = answer["invalid"]
    boundary.say(
        f"Compacted {counted(answer['entries'], 'entry')}: {answer['active']} active, "
        f"{answer['superseded']} superseded, {answer['duplicate']} duplicate, "
        f"{answer['overridden']} overridden"
        + (f", {unreadable} unreadable (see `memsite review`)" if unreadable else "")
    )
    changed = answer["written"] + answer["removed"]
    boundary.say(f"Updated: {', '.join(changed)}" if changed else "Views were up to date.")
    if answer["pruned_daily"]:
        boundary.say(f"Pruned daily logs: {', '.join(answer['pruned_daily'])}")
