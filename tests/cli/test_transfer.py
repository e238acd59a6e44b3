"""`import` and `export` as a person meets them: what a dry run would write, no category guessed
for a source that names none, counts in the singular."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import add
from tests.conftest import Invoke

MCP_MEMORY = (
    json.dumps(
        {
            "type": "entity",
            "name": "Shop",
            "entityType": "service",
            "observations": ["Shop deploys on Fridays", "Shop keeps its secrets in Vault"],
        }
    )
    + "\n"
)


def test_import_dry_run_lists_the_facts_it_would_write(store_root: Path, runner: Invoke) -> None:
    source = store_root.parent / "AGENTS.md"
    source.write_text("# Code style\n- Tabs for Go\n\n# Testing\n- Run pytest -q\n")
    add(runner, "Tabs for Go")
    done = runner("import", str(source), "--from", "agents-md", "--dry-run")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines() == [
        "  [operations] Run pytest -q  (AGENTS.md:5)",
        f"Would write 1 fact from {source}; 1 was in the memory already",
    ]
    assert runner("list", "--json").json()[0]["content"] == "Tabs for Go"  # nothing written
    facts = runner("import", str(source), "--from", "agents-md", "--dry-run", "--json").json()
    assert [(f["status"], f["content"]) for f in facts["facts"]] == [
        ("exists", "Tabs for Go"),
        ("would write", "Run pytest -q"),
    ]


def test_mcp_memory_import_needs_a_category(store_root: Path, runner: Invoke) -> None:
    source = store_root.parent / "memory.jsonl"
    source.write_text(MCP_MEMORY, encoding="utf-8")
    refused = runner("import", str(source), "--from", "mcp-memory")
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Error: the MCP memory server's file gives its facts no category: pass --category with "
        "the one to file them under (conventions, architecture, operations, decisions)\n"
    )
    assert runner("list", "--json").json() == []  # nothing filed under a guessed category
    done = runner("import", str(source), "--from", "mcp-memory", "-c", "operations")
    assert done.exit_code == 0, done.stderr
    assert {e["category"] for e in runner("list", "--json").json()} == {"operations"}


def test_export_counts_one_entry_in_the_singular(store_root: Path, runner: Invoke) -> None:
    add(runner, "Use pnpm")
    done = runner("export", "-o", str(store_root.parent / "out.jsonl"))
    assert done.stderr == f"Exported 1 entry to {store_root.parent / 'out.jsonl'}\n"


def test_export_writes_a_graph_and_counts_its_edges(store_root: Path, runner: Invoke) -> None:
    first = str(add(runner, "Use npm")["id"])
    assert runner("amend", first[:8], "Use pnpm").exit_code == 0
    target = store_root.parent / "memory.graphml"
    done = runner("export", "--format", "graphml", "--all", "-o", str(target))
    assert done.exit_code == 0, done.stderr
    assert done.stderr == f"Exported 2 entries and 1 edge to {target}\n"
    assert target.read_text(encoding="utf-8").startswith('<?xml version="1.0" encoding="UTF-8"?>')
    shown = runner("export", "--format", "dot")
    assert shown.stdout.startswith("digraph memsite {\n") and "Use pnpm" in shown.stdout
    assert "Use npm" not in shown.stdout  # superseded: only with --all
