"""Layering: the pure core imports no framework and touches no clock, environment or disk."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memsite"
PURE = ["entry", "compaction", "views", "search", "similarity", "snapshot", "tokens", "secrets"]
FRAMEWORKS = {"click", "mcp", "mkdocs", "material", "watchdog", "jinja2", "lunr"}
IO_MODULES = {"memsite.store", "memsite.service", "memsite.cli", "memsite.mcp_server"}
IMPURE_CALLS = {"now", "utcnow", "today", "time", "getenv", "open", "read_text", "read_bytes"}


def imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_import_no_framework_and_no_io_layer(name: str) -> None:
    tree = ast.parse((PACKAGE / f"{name}.py").read_text())
    modules = imports(tree)
    assert not {m for m in modules if m.split(".")[0] in FRAMEWORKS}
    assert not modules & IO_MODULES
    assert "os" not in modules or name == "store"


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_read_no_clock_environment_or_files(name: str) -> None:
    tree = ast.parse((PACKAGE / f"{name}.py").read_text())
    calls = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }
    assert not calls & IMPURE_CALLS
    assert "environ" not in {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


def test_cli_and_mcp_layers_reach_the_core_only_through_the_service() -> None:
    for name in ("cli.py", "agents_cli.py", "mcp_server.py", "site/commands.py"):
        modules = imports(ast.parse((PACKAGE / name).read_text()))
        assert not modules & {"memsite.compaction", "memsite.snapshot", "memsite.search"}, name
