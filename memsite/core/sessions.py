"""Sessions: the kinds of daily-log lines, and the carry-over of open work. Pure.

A daily log holds one session's lines (``daily/<date>-<session>.md``), so two branches that
log on the same day write different files and never conflict. A line may say what it is:
``[task]`` (open work), ``[done]`` (a task finished: same text), ``[decision]``; the next
session's context starts with the last session's open tasks and its decisions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from memsite.core.text import one_line

KINDS = ("note", "task", "done", "decision")
CARRYOVER_MAX_TOKENS = 300
# Patterns are compiled on first use (re caches them): every command imports this module for
# its CLI choices, and most never parse a log line.
_LINE = r"^- (\d{2}:\d{2}:\d{2})Z (?:\[(task|done|decision)\] )?(.*)$"


class LogLine(NamedTuple):
    time: str
    kind: str
    text: str


def log_text(kind: str, text: str) -> str:
    """What a log line says after its time: the text, marked with its kind unless a note."""
    return one_line(text) if kind == "note" else f"[{kind}] {one_line(text)}"


def parse_line(line: str) -> LogLine | None:
    match = re.match(_LINE, line)
    if match is None:
        return None
    return LogLine(match[1], match[2] or "note", match[3])


def carried(lines: Iterable[LogLine]) -> list[LogLine]:
    """A session's decisions and the tasks it left open (a later [done] with the same text
    closes a task), in the order they were logged."""
    kept: list[LogLine] = []
    for line in lines:
        if line.kind == "done":
            kept = [k for k in kept if not (k.kind == "task" and k.text == line.text)]
        elif line.kind in ("task", "decision"):
            kept.append(line)
    return kept


def carryover_text(session: str, day: str, lines: Sequence[LogLine], budget: int) -> str:
    """The carry-over section within ``budget`` tokens (newest lines kept first), or ''."""
    from memsite.core.estimate import estimate_tokens

    if not lines:
        return ""
    head = f"\n## Last session ({session}, {day})\n"
    chosen: list[str] = []
    for line in reversed(lines):
        bullet = f"- [{line.kind}] {line.text}\n"
        if estimate_tokens(head + "".join([bullet, *chosen])) > budget:
            break
        chosen.insert(0, bullet)
    return head + "".join(chosen) if chosen else ""
