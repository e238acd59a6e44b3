"""Cursor: `.cursor/mcp.json`, an always-applied rule, `.cursor/rules/memsite.mdc`, and a
`sessionStart` hook in `.cursor/hooks.json` that adds the index to the context. No prompt hook:
Cursor's `beforeSubmitPrompt` answers only `continue` and `user_message`."""

from __future__ import annotations

from typing import Any

from memsite.runners.base import Runner, Wiring
from memsite.runners.hooks import context_command, is_hook
from memsite.runners.targets import FlatHooks, JsonServer, MarkdownBlock

MDC_HEADER = (
    "---\n"
    "description: Project memory (memsite), when and how to read and record durable facts\n"
    "alwaysApply: true\n"
    "---\n\n"
)


def hook_entries(wiring: Wiring) -> dict[str, dict[str, Any]]:
    return {"sessionStart": {"command": context_command(wiring, "cursor-hook")}}


RUNNER = Runner(
    name="cursor",
    title="Cursor",
    markers=(".cursor", ".cursorrules"),
    targets=(
        JsonServer(".cursor/mcp.json", "mcpServers", editor=True),
        MarkdownBlock(".cursor/rules/memsite.mdc", header=MDC_HEADER),
        FlatHooks(".cursor/hooks.json", hook_entries, is_hook),
    ),
    prompt_note="Cursor's beforeSubmitPrompt hook can only let a prompt through or stop it "
    "(continue, user_message), not add context",
)
