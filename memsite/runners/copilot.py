"""GitHub Copilot: `servers.memsite` in `.vscode/mcp.json` and a block in
`.github/copilot-instructions.md`."""

from __future__ import annotations

from memsite.runners.base import Runner
from memsite.runners.targets import JsonServer, MarkdownBlock

RUNNER = Runner(
    name="copilot",
    title="GitHub Copilot",
    markers=(".github/copilot-instructions.md", ".vscode"),
    targets=(
        JsonServer(".vscode/mcp.json", "servers", editor=True),
        MarkdownBlock(".github/copilot-instructions.md"),
    ),
)
