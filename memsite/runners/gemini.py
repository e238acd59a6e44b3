"""Gemini CLI: the MCP server and a `SessionStart` hook in `.gemini/settings.json` (with
--per-prompt, a `BeforeAgent` hook that adds the facts relevant to each prompt too), and a block
in `GEMINI.md` (the context file Gemini CLI loads)."""

from __future__ import annotations

from memsite.runners.base import Runner, Wiring
from memsite.runners.hooks import context_command, is_hook, prompt_command
from memsite.runners.targets import HookTable, JsonHooks, JsonParts, JsonServer, MarkdownBlock

SETTINGS = ".gemini/settings.json"
EVENTS = ("SessionStart", "BeforeAgent")


def hook_commands(wiring: Wiring) -> HookTable:
    # Gemini compares a lifecycle event's matcher with its source as a plain string: "*" is
    # every source (Claude's "startup|resume" would match none).
    commands: HookTable = {"SessionStart": ("*", context_command(wiring, "gemini-hook"))}
    if wiring.per_prompt:  # BeforeAgent fires with no source to match: no matcher
        commands["BeforeAgent"] = (None, prompt_command(wiring, "gemini-hook"))
    return commands


RUNNER = Runner(
    name="gemini",
    title="Gemini CLI",
    markers=(".gemini", "GEMINI.md"),
    targets=(
        JsonParts(
            SETTINGS,
            (
                JsonServer(SETTINGS, "mcpServers", typed=False),
                JsonHooks(SETTINGS, hook_commands, EVENTS, is_hook),
            ),
        ),
        MarkdownBlock("GEMINI.md"),
    ),
    prompt_event="BeforeAgent",
    note="Gemini CLI runs project hooks and servers in folders you trust.",
)
