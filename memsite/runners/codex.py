"""Codex: `[mcp_servers.memsite]` in `.codex/config.toml`, a block in `AGENTS.md`, and a
`SessionStart` hook in `.codex/hooks.json` that adds the index to the model's context."""

from __future__ import annotations

from memsite.runners.base import Runner, Wiring
from memsite.runners.hooks import context_command, is_context_hook
from memsite.runners.targets import HookTable, JsonHooks, MarkdownBlock, TomlServer

SESSION_MATCHER = "startup|resume|clear|compact"  # a regex over the event's `source`


def hook_commands(wiring: Wiring) -> HookTable:
    return {"SessionStart": (SESSION_MATCHER, context_command(wiring, "codex-hook"))}


RUNNER = Runner(
    name="codex",
    title="Codex",
    markers=("AGENTS.md", ".codex"),
    targets=(
        TomlServer(".codex/config.toml"),
        MarkdownBlock("AGENTS.md"),
        JsonHooks(".codex/hooks.json", hook_commands, ("SessionStart",), is_context_hook),
    ),
    note="Codex reads .codex/ only in projects it trusts, and runs a project hook once you "
    "trust it with /hooks.",
)
