"""Codex: `[mcp_servers.memsite]` in `.codex/config.toml`, a block in `AGENTS.md`, and a
`SessionStart` hook in `.codex/hooks.json` that adds the index to the model's context (with
--per-prompt, a `UserPromptSubmit` hook that adds the facts relevant to each prompt)."""

from __future__ import annotations

from memsite.runners.base import Runner, Wiring
from memsite.runners.hooks import context_command, is_hook, prompt_command
from memsite.runners.targets import HookTable, JsonHooks, MarkdownBlock, TomlServer

SESSION_MATCHER = "startup|resume|clear|compact"  # a regex over the event's `source`
EVENTS = ("SessionStart", "UserPromptSubmit")


def hook_commands(wiring: Wiring) -> HookTable:
    commands: HookTable = {"SessionStart": (SESSION_MATCHER, context_command(wiring, "codex-hook"))}
    if wiring.per_prompt:  # Codex ignores a matcher on UserPromptSubmit
        commands["UserPromptSubmit"] = (None, prompt_command(wiring, "codex-hook"))
    return commands


RUNNER = Runner(
    name="codex",
    title="Codex",
    markers=("AGENTS.md", ".codex"),
    targets=(
        TomlServer(".codex/config.toml"),
        MarkdownBlock("AGENTS.md"),
        JsonHooks(".codex/hooks.json", hook_commands, EVENTS, is_hook),
    ),
    prompt_event="UserPromptSubmit",
    note="Codex reads .codex/ only in projects it trusts, and runs a project hook once you "
    "trust it with /hooks.",
)
