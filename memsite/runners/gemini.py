"""Gemini CLI: the MCP server and a `SessionStart` hook in `.gemini/settings.json`, and a
block in `GEMINI.md` (the context file Gemini CLI loads)."""

from __future__ import annotations

from memsite.runners.base import Runner, Wiring
from memsite.runners.hooks import context_command, is_context_hook
from memsite.runners.targets import HookTable, JsonHooks, JsonParts, JsonServer, MarkdownBlock

SETTINGS = ".gemini/settings.json"


def hook_commands(wiring: Wiring) -> HookTable:
    # Gemini compares a lifecycle event's matcher with its source as a plain string: "*" is
    # every source (Claude's "startup|resume" would match none).
    return {"SessionStart": ("*", context_command(wiring, "gemini-hook"))}


RUNNER = Runner(
    name="gemini",
    title="Gemini CLI",
    markers=(".gemini", "GEMINI.md"),
    targets=(
        JsonParts(
            SETTINGS,
            (
                JsonServer(SETTINGS, "mcpServers", typed=False),
                JsonHooks(SETTINGS, hook_commands, ("SessionStart",), is_context_hook),
            ),
        ),
        MarkdownBlock("GEMINI.md"),
    ),
    note="Gemini CLI runs project hooks and servers in folders you trust.",
)
