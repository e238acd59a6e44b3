"""What an agent gets at session start (`context`): index.md within a token budget, the facts
most relevant to a task first (``--task``), and the last session's open work when configured.
With fresh views and no task, it reads one file and should cost no more than that.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memsite.errors import InvalidInputError, StorageError
from memsite.memory.indexmd import _index_texts
from memsite.memory.views import ensure_fresh

if TYPE_CHECKING:
    from memsite.memory import Memory

TASK_FACTS = 8  # the most facts a task puts first
TASK_MAX = 2000  # characters of a task's text


def context(
    memory: Memory, budget: int | None = None, session: str | None = None, task: str | None = None
) -> tuple[str, list[str]]:
    """index.md within the budget (compacting first when stale), and warnings. With
    ``memory.sessionCarryover`` the last session's open tasks and decisions follow, within
    the same budget (``session`` is the current one, whose own lines are not carried).

    A disabled memory (``memory.enabled: false``) injects nothing. When the views cannot be
    saved (a read-only checkout), the index is built in memory and a warning says so.

    With ``task``, the active facts most relevant to it (``recall.relevant``) lead, in a
    section of their own within the same budget; the gate and the markers apply as to every
    other fact.
    """
    text, warnings, _, _ = _context(memory, budget, session, task)
    return text, warnings


def context_report(
    memory: Memory, budget: int | None = None, session: str | None = None, task: str | None = None
) -> dict[str, Any]:
    """`context --json`: the text, its tokens (the more of its cl100k and o200k counts, or the
    estimate without bpe-openai: ``tokens_by`` says which) and the budget, and the ids of the
    active facts it holds (``included``), that did not fit (``omitted``) and that the gate
    held back (``held_back``, with why in ``held_back_reasons``); with ``task``, the ids put
    first for it (``task``, in ``included`` too)."""
    from memsite.core import tokens
    from memsite.core.estimate import estimate_tokens

    text, warnings, room, first = _context(memory, budget, session, task)
    total = budget or memory.config.budget
    counted = tokens.count([text]) if text else [(0, 0)]
    report: dict[str, Any] = {
        "text": text,
        "tokens": max(counted[0]) if counted else estimate_tokens(text),
        "tokens_by": "cl100k/o200k" if counted else "estimate",
        "budget": total,
    }
    rendered = _index_texts(memory, lambda render: render(room), first=first) if room else None
    report["included"] = rendered.included if rendered else []
    report["omitted"] = rendered.omitted if rendered else []
    report["held_back"] = list(rendered.held_back) if rendered else []
    report["held_back_reasons"] = rendered.held_back if rendered else {}
    if task is not None:
        report["task"] = rendered.task if rendered else []
    report["warnings"] = warnings
    return report


def _context(
    memory: Memory, budget: int | None, session: str | None, task: str | None
) -> tuple[str, list[str], int, list[str]]:
    """(the context, warnings, the budget its index was rendered for: 0 for none, and the
    facts put first for ``task``)."""
    from memsite.memory import sessions

    if budget is not None and budget < 1:
        raise InvalidInputError("budget must be a positive number of tokens")
    _check_task(task)
    if not memory.config.enabled:
        return "", [], 0, []
    warnings: list[str] = []
    try:
        fresh = ensure_fresh(memory)
    except StorageError as exc:
        fresh = False
        warnings.append(f"{exc}; the index below was built in memory and not saved")
    carry = ""
    if memory.config.session_carryover and sessions.has_daily_logs(memory):
        carry = sessions.carryover(memory, session)
    total = budget or memory.config.budget
    if fresh and budget is None and not carry and task is None:
        with contextlib.suppress(OSError, UnicodeDecodeError):  # removed meanwhile: build it
            saved = memory.store.index_path.read_text(encoding="utf-8")
            if "\n- " in saved:  # holds a fact (else rendered below, to say why it holds none)
                return saved, warnings, total, []
    room = total
    if carry:
        from memsite.core.estimate import estimate_tokens
        from memsite.core.hidden import strip_hidden

        carry = strip_hidden(carry)  # a daily log edited by hand could hold them
        room = total - estimate_tokens(carry)
        if room < 1:
            room, carry = total, ""
    first = _task_facts(memory, task) if task is not None else []
    rendered = _index_texts(memory, lambda render: render(room), first=first)
    if rendered.omitted and not rendered.included:
        from memsite.core.text import counted

        left = counted(len(rendered.omitted), "active fact")
        warnings.append(
            f"the budget of {total} tokens holds no fact, {left} left out: raise --budget "
            "(or memory.autoInjectTokenBudget in the config)"
        )
    return rendered.text + carry, warnings, room, first


def _check_task(task: str | None) -> None:
    if task is None:
        return
    if not task.strip():
        raise InvalidInputError("the task is empty: say in words what the session is for")
    if len(task) > TASK_MAX:
        raise InvalidInputError(f"the task is over {TASK_MAX} characters: shorten it")


def _task_facts(memory: Memory, task: str) -> list[str]:
    """The active facts most relevant to ``task``, best first (by words and meaning when the
    semantic extra is installed)."""
    from memsite.memory.recall import relevant

    return relevant(memory, task, TASK_FACTS, strict=False)


def index_within(
    memory: Memory, characters: int, shown: Callable[[str], str], first_build: bool = True
) -> str | None:
    """The index for the largest token budget whose ``shown`` form fits in ``characters``:
    every category keeps its weighted share (unlike cutting index.md after its first lines).
    Stale views are brought up to date first (an incremental compaction); without
    ``first_build``, None when they were never built in this clone (that takes seconds at
    10k facts), and nothing is built."""
    if not memory.config.enabled:
        return ""
    if not first_build and not memory.store.views_stamp.is_file():
        return None
    ensure_fresh(memory)

    def choose(render: Callable[[int], str]) -> str:
        low, high = 1, max(characters, 1)  # an estimate never counts more tokens than bytes
        best = shown(render(low))
        while low < high:
            middle = (low + high + 1) // 2
            text = shown(render(middle))
            if len(text) <= characters:
                low, best = middle, text
            else:
                high = middle - 1
        return best if len(best) <= characters else ""

    return _index_texts(memory, choose).text
