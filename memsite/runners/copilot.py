"""GitHub Copilot: `servers.memsite` in `.vscode/mcp.json`, a block in
`.github/copilot-instructions.md`, and a `sessionStart` hook in `.github/hooks/memsite.json`
(read by Copilot CLI and the coding agent) that adds the index to the context. No prompt hook:
Copilot CLI drops the output of command `userPromptSubmitted` hooks."""

from __future__ import annotations

from typing import Any

from memsite.runners.base import Runner, Wiring
from memsite.runners.hooks import context_command, is_hook
from memsite.runners.targets import FlatHooks, JsonServer, MarkdownBlock


def hook_entries(wiring: Wiring) -> dict[str, dict[str, Any]]:
    command = context_command(wiring, "copilot-hook")
    return {"sessionStart": {"type": "command", "bash": command, "timeoutSec": 30}}


RUNNER = Runner(
    name="copilot",
    title="GitHub Copilot",
    markers=(".github/copilot-instructions.md", ".vscode", ".github/hooks"),
    targets=(
        JsonServer(".vscode/mcp.json", "servers", editor=True),
        MarkdownBlock(".github/copilot-instructions.md"),
        FlatHooks(".github/hooks/memsite.json", hook_entries, is_hook),
    ),
    prompt_note="Copilot CLI drops what a command userPromptSubmitted hook prints (only its SDK's "
    "hooks can change a prompt)",
)
