"""The hooks memsite installs in each runner: the commands they run, and what those commands
print for the runner to add memory to the model's context.

Session start (every runner; `memsite context --format RUNNER-hook` adds the index):

| runner | file | event | printed |
|---|---|---|---|
| Claude Code | `.claude/settings.json` | `SessionStart` | `hookSpecificOutput` |
| Codex | `.codex/hooks.json` | `SessionStart` | the same (Codex reads Claude's shape) |
| Gemini CLI | `.gemini/settings.json` | `SessionStart` | the same (not plain text) |
| Copilot CLI | `.github/hooks/memsite.json` | `sessionStart` | `additionalContext` |
| Cursor | `.cursor/hooks.json` | `sessionStart` | `additional_context` |

Each prompt (`agents install --per-prompt`; `memsite prompt --format RUNNER-hook` adds the few
facts most relevant to the prompt, the payload's `prompt`, or prints nothing):

| runner | event | printed |
|---|---|---|
| Claude Code | `UserPromptSubmit` | `hookSpecificOutput.additionalContext` |
| Codex | `UserPromptSubmit` | the same, and nothing else (its schema forbids other keys) |
| Gemini CLI | `BeforeAgent` | the same (appended to the prompt in `<hook_context>`) |
| Copilot CLI | none: it drops what a command `userPromptSubmitted` hook prints | |
| Cursor | none: `beforeSubmitPrompt` answers only `continue` and `user_message` | |

Read in Claude Code's and Codex's hook schemas (the pinned CLIs), Gemini CLI's
docs/hooks/reference.md, GitHub's Copilot hooks reference and Cursor's hooks docs.

Each gets the event as JSON on stdin; its session id (`session_id`, Copilot's `sessionId`,
Cursor's `conversation_id` too) names the current session, whose own log lines are not
carried over into its context and which is given each prompt fact once.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from memsite.runners.base import NEVER_BLOCK, NEVER_BLOCK_PATTERN, PROGRAM_PATTERN, Wiring

FORMATS = ("claude-hook", "codex-hook", "gemini-hook", "copilot-hook", "cursor-hook")
# The runners whose prompt hook can add context, and the event each names in its answer.
PROMPT_EVENTS = {
    "claude-hook": "UserPromptSubmit",
    "codex-hook": "UserPromptSubmit",
    "gemini-hook": "BeforeAgent",
}
PROMPT_FORMATS = tuple(PROMPT_EVENTS)
PROMPT_PREAMBLE = "Project memory (memsite): recorded facts that may bear on this prompt.\n\n"
SESSION_PREAMBLE = (
    "Project memory (memsite). Facts other agents recorded for this project; "
    "search more with `memsite search QUERY`, record new durable facts with "
    '`memsite add "..." -c CATEGORY`.\n\n'
)
# What Claude Code's hook output may hold (Codex and Gemini CLI read the same shape).
HOOK_CONTEXT_MAX = 9_000
HOOK_OUTPUT_MAX = 10_000
_HOOK_RE = re.compile(
    rf"^{PROGRAM_PATTERN}\s(?:.*\s)?"
    rf"(?:context --format [a-z]+-hook|prompt --format [a-z]+-hook{NEVER_BLOCK_PATTERN})$"
)
DEFAULT_STORES = (".memsite", ".lean-spec/memory")
# Gemini CLI escapes < and > inside a hook's context, so its end tag cannot occur within one.
_GEMINI_CONTEXT_RE = re.compile(r"\A(?:\s*<hook_context>.*?</hook_context>)+\s*", re.DOTALL)


def context_command(wiring: Wiring, fmt: str, command: str = "context") -> str:
    """`memsite context --format FMT` (or another ``command``: `prompt`), with --store when the
    store is not where memsite looks by itself (runners start hooks in the project folder or
    below it)."""
    if wiring.store_rel in DEFAULT_STORES:
        return f"{wiring.shell_program} {command} --format {fmt}"
    store = shlex.quote(wiring.store_rel)
    return f"{wiring.shell_program} --store {store} {command} --format {fmt}"


def prompt_command(wiring: Wiring, fmt: str) -> str:
    """`memsite prompt --format FMT || exit 0`: the prompt hook (``agents install
    --per-prompt``), which never blocks a prompt (``NEVER_BLOCK``)."""
    return context_command(wiring, fmt, "prompt") + NEVER_BLOCK


def is_hook(command: str) -> bool:
    """Is ``command`` one of memsite's session-start or prompt hooks (in any form install
    writes the program)?"""
    return _HOOK_RE.match(command) is not None


def payload_session(payload: dict[str, Any]) -> str | None:
    """The session id a runner passed in its hook payload, if any."""
    for key in ("session_id", "sessionId", "conversation_id"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def hook_text(index_text: str) -> str:
    """The index as a hook hands it to the model: without the header comment, which tells a
    person not to edit index.md and means nothing in a model's context."""
    from memsite.core.budget import INDEX_HEADER

    return index_text.removeprefix(INDEX_HEADER).lstrip("\n")


def hook_output(fmt: str, index_text: str) -> dict[str, Any]:
    """What the ``fmt`` runner's session-start hook prints to add ``index_text`` (the index,
    without its header: ``hook_text``) to context."""
    output = claude_hook_output(index_text)
    text = output["hookSpecificOutput"]["additionalContext"]
    if fmt == "copilot-hook":
        return {"additionalContext": text}
    if fmt == "cursor-hook":
        return {"additional_context": text, "continue": True}
    return output


def prompt_payload(fmt: str, raw: str) -> tuple[str, str | None] | None:
    """The prompt and the session id of the ``fmt`` runner's prompt-hook stdin JSON; None when
    it holds no prompt (or is not JSON): the hook then prints nothing."""
    from memsite.core.text import as_name

    payload = parse_hook_input(raw)
    prompt = payload.get("prompt")
    if isinstance(prompt, str) and fmt == "gemini-hook":
        # Gemini CLI's first prompt of a session starts with the session-start hooks' context
        # (the index), which would otherwise be searched instead of what the user typed.
        prompt = _GEMINI_CONTEXT_RE.sub("", prompt, count=1)
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    given = payload_session(payload)
    return prompt, as_name(given) if given else None  # an odd id counts as no session


def prompt_output(fmt: str, facts_text: str) -> dict[str, Any]:
    """What the ``fmt`` runner's prompt hook prints to add ``facts_text`` to the prompt's
    context (``PROMPT_EVENTS``; kept under Claude Code's 10,000 characters)."""
    return claude_hook_output(facts_text, PROMPT_EVENTS[fmt], PROMPT_PREAMBLE)


# --- the hook runtime: what the session-start hook's command needs, and nothing heavier (it
# runs at every session start; runners.claude imports the install targets and tomllib) -----


def claude_hook_output(
    index_text: str, event: str = "SessionStart", preamble: str = SESSION_PREAMBLE
) -> dict[str, Any]:
    """The JSON a Claude Code hook prints to add context, kept under 10,000 characters."""
    text = preamble + index_text
    limit = HOOK_CONTEXT_MAX
    while True:
        if len(text) > limit:
            cut = text.rfind("\n", 0, limit)
            text = text[: cut if cut > 0 else limit] + "\n…(truncated: `memsite context`)\n"
        output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
        # JSON escaping (quotes, backslashes, control characters) can lengthen the printed form.
        if len(json.dumps(output, indent=2, ensure_ascii=False)) < HOOK_OUTPUT_MAX:
            return output
        limit -= 1_000


def parse_hook_input(raw: str) -> dict[str, Any]:
    """The hook's stdin JSON; anything unreadable counts as an empty event (hooks fail open)."""
    try:
        data = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}
