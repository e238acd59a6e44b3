"""Codex: `[mcp_servers.memsite]` in `.codex/config.toml` and a block in `AGENTS.md`."""

from __future__ import annotations

from memsite.runners.base import Runner
from memsite.runners.targets import MarkdownBlock, TomlServer

RUNNER = Runner(
    name="codex",
    title="Codex",
    markers=("AGENTS.md", ".codex"),
    targets=(TomlServer(".codex/config.toml"), MarkdownBlock("AGENTS.md")),
    note="Codex reads .codex/config.toml only in projects it trusts.",
)
