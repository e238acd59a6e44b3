"""Claude Code: `.mcp.json`, a block in `CLAUDE.md`, and hooks in `.claude/settings.json` that
inject the index at session start (with --per-prompt, the facts relevant to each prompt too) and
remind the agent to record facts before it stops.

Hook contract (code.claude.com/docs/en/hooks): a command hook gets the event as JSON on stdin
(`session_id`, `transcript_path`, `cwd`, `hook_event_name`, plus `source` for SessionStart,
`trigger` for PreCompact, `stop_hook_active` for Stop, `prompt` for UserPromptSubmit) and may
print JSON on stdout with exit 0: SessionStart and UserPromptSubmit add context with
``{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": …}}``; Stop keeps the
agent working with ``{"decision": "block", "reason": …}`` (the reason is its next instruction),
and a Stop hook that fires again because of that block sees ``stop_hook_active: true``;
``systemMessage`` shows a note to the user.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memsite.errors import StorageError
from memsite.files import write_atomic
from memsite.runners.base import NEVER_BLOCK, NEVER_BLOCK_PATTERN, PROGRAM_PATTERN, Runner, Wiring
from memsite.runners.targets import HookTable, JsonHooks, JsonServer, MarkdownBlock

SESSION_MATCHER = "startup|resume|clear|compact"
REMIND_INTERVAL = 30 * 60.0
EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "Stop")
_STATE_SESSIONS = 200
STOP_REASON = (
    "memsite: before you finish, record every durable fact from this session that the next agent "
    "would need and that project memory does not hold yet (a convention, an architecture fact, "
    "how to build/test/deploy, a decision and its reason, a pitfall): one fact per call of the "
    'memory_write MCP tool, or `memsite add "FACT" -c CATEGORY`. Skip what is only about this '
    "task. If there is nothing to record, just stop."
)
PRE_COMPACT_MESSAGE = (
    "memsite: the conversation is being compacted. Durable facts from it that are not in project "
    "memory yet survive only in the summary; ask the agent to record them (memory_write or "
    "`memsite add`)."
)
_OUR_HOOK_RE = re.compile(
    rf"^{PROGRAM_PATTERN}\s(?:.*\s)?(context --format claude-hook|prompt --format claude-hook"
    rf"{NEVER_BLOCK_PATTERN}|agents hook [a-z-]+)$"
)


def hook_commands(wiring: Wiring) -> HookTable:
    """Event name → (matcher, command line) of memsite's Claude Code hooks."""
    store = '"${CLAUDE_PROJECT_DIR:-.}"/' + shlex.quote(wiring.store_rel)
    base = f"{wiring.shell_program} --store {store}"
    commands: HookTable = {
        "SessionStart": (SESSION_MATCHER, f"{base} context --format claude-hook"),
    }
    if wiring.per_prompt:  # UserPromptSubmit has no matcher
        commands["UserPromptSubmit"] = (None, f"{base} prompt --format claude-hook{NEVER_BLOCK}")
    if wiring.auto_flush:
        commands["PreCompact"] = (None, f"{base} agents hook pre-compact")
        commands["Stop"] = (None, f"{base} agents hook stop")
    return commands


def is_ours(command: str) -> bool:
    return _OUR_HOOK_RE.match(command) is not None


RUNNER = Runner(
    name="claude",
    title="Claude Code",
    markers=(".claude", "CLAUDE.md", ".mcp.json"),
    targets=(
        JsonServer(".mcp.json", "mcpServers"),
        MarkdownBlock("CLAUDE.md"),
        JsonHooks(".claude/settings.json", hook_commands, EVENTS, is_ours),
    ),
    prompt_event="UserPromptSubmit",
    note="Claude Code asks you to approve a project's .mcp.json servers the first time it opens "
    "the project; until you approve memsite, /mcp lists it as pending approval.",
)


# --- the hook runtime (session start's own pieces are in runners.hooks) ----------------------


def _remind(payload: Mapping[str, Any], state_path: Path, moment: float) -> bool:
    """Is a Stop reminder due for this session (and note that it was given)?"""
    session = str(payload.get("session_id") or "default")[:200]
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
        if not isinstance(state, dict):
            state = {}
    except (OSError, ValueError):
        state = {}
    last = state.get(session)
    if isinstance(last, int | float) and moment - last < REMIND_INTERVAL:
        return False
    state[session] = moment
    recent = sorted(state.items(), key=lambda kv: kv[1] if isinstance(kv[1], int | float) else 0)
    # The state only spaces reminders out; without it a reminder comes again.
    with contextlib.suppress(StorageError):
        write_atomic(state_path, (json.dumps(dict(recent[-_STATE_SESSIONS:])) + "\n").encode())
    return True


def hook_response(
    event: str,
    payload: Mapping[str, Any],
    *,
    auto_flush: bool,
    state_path: Path,
    now: float | None = None,
) -> dict[str, Any] | None:
    """What a memsite hook prints for ``event`` (`stop`, `pre-compact`); None: print nothing.

    The Stop reminder blocks at most once per session every REMIND_INTERVAL seconds and never
    when ``stop_hook_active`` is true, so it cannot loop.
    """
    if not auto_flush:
        return None
    if event == "pre-compact":
        return {"systemMessage": PRE_COMPACT_MESSAGE}
    if event != "stop" or payload.get("stop_hook_active") is True:
        return None
    if not _remind(payload, state_path, time.time() if now is None else now):
        return None
    return {"decision": "block", "reason": STOP_REASON}
