"""Session-start hooks of every runner that has them: the command each runs, and what that
command prints for the runner to add the memory's index to the model's context.

| runner | file | event | printed |
|---|---|---|---|
| Claude Code | `.claude/settings.json` | `SessionStart` | `hookSpecificOutput` |
| Codex | `.codex/hooks.json` | `SessionStart` | the same (Codex reads Claude's shape) |
| Gemini CLI | `.gemini/settings.json` | `SessionStart` | the same (not plain text) |
| Copilot CLI | `.github/hooks/memsite.json` | `sessionStart` | `additionalContext` |
| Cursor | `.cursor/hooks.json` | `sessionStart` | `additional_context` |

Each gets the event as JSON on stdin; its session id (`session_id`, Copilot's `sessionId`,
Cursor's `conversation_id` too) names the current session, whose own log lines are not
carried over into its context.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from memsite.runners.base import PROGRAM_PATTERN, Wiring

FORMATS = ("claude-hook", "codex-hook", "gemini-hook", "copilot-hook", "cursor-hook")
_CONTEXT_HOOK_RE = re.compile(rf"^{PROGRAM_PATTERN}\s(?:.*\s)?context --format [a-z]+-hook$")
DEFAULT_STORES = (".memsite", ".lean-spec/memory")


def context_command(wiring: Wiring, fmt: str) -> str:
    """`memsite context --format FMT`, with --store when the store is not where memsite looks
    by itself (runners start hooks in the project folder or below it)."""
    if wiring.store_rel in DEFAULT_STORES:
        return f"{wiring.shell_program} context --format {fmt}"
    return f"{wiring.shell_program} --store {shlex.quote(wiring.store_rel)} context --format {fmt}"


def is_context_hook(command: str) -> bool:
    return _CONTEXT_HOOK_RE.match(command) is not None


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
    from memsite.runners.claude import claude_hook_output

    output = claude_hook_output(index_text)
    text = output["hookSpecificOutput"]["additionalContext"]
    if fmt == "copilot-hook":
        return {"additionalContext": text}
    if fmt == "cursor-hook":
        return {"additional_context": text, "continue": True}
    return output
