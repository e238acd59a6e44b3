"""Cursor: `.cursor/mcp.json` and an always-applied rule, `.cursor/rules/memsite.mdc`."""

from __future__ import annotations

from memsite.runners.base import Runner
from memsite.runners.targets import JsonServer, MarkdownBlock

MDC_HEADER = (
    "---\n"
    "description: Project memory (memsite), when and how to read and record durable facts\n"
    "alwaysApply: true\n"
    "---\n\n"
)

RUNNER = Runner(
    name="cursor",
    title="Cursor",
    markers=(".cursor", ".cursorrules"),
    targets=(
        JsonServer(".cursor/mcp.json", "mcpServers", editor=True),
        MarkdownBlock(".cursor/rules/memsite.mdc", header=MDC_HEADER),
    ),
)
