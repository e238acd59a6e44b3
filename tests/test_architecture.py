"""Layering: the pure core imports no framework and touches no clock, environment or disk; the
adapters (CLI, MCP) sit on top and nothing below imports them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memsite"
FRAMEWORKS = {"click", "mcp", "mkdocs", "material", "watchdog", "jinja2", "lunr"}
IO_STDLIB = {"os", "subprocess", "pathlib", "shutil", "tempfile", "socket", "sqlite3", "io"}
IO_LAYERS = {
    "memsite.storage",
    "memsite.memory",
    "memsite.cli",
    "memsite.mcp",
    "memsite.portal",
    "memsite.runners",
}
IMPURE_CALLS = {"now", "utcnow", "today", "time", "getenv", "open", "read_text", "read_bytes"}
CORE = sorted(p.stem for p in (PACKAGE / "core").glob("*.py") if p.stem != "__init__")
# Portal modules that only turn values into values (no MkDocs, no Jinja, no files).
PORTAL_PURE = ["model", "text", "redact", "standing"]


def imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _tree(rel: str) -> ast.AST:
    return ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))


def _within(modules: set[str], layers: set[str]) -> set[str]:
    return {m for m in modules if any(m == x or m.startswith(x + ".") for x in layers)}


def _package_modules(package: str) -> list[str]:
    return sorted(p.relative_to(PACKAGE).as_posix() for p in (PACKAGE / package).rglob("*.py"))


def test_the_core_package_is_covered() -> None:
    assert {"entry", "compaction", "ranking", "similarity", "budget", "secrets"} <= set(CORE)


@pytest.mark.parametrize(
    "rel", [f"core/{n}.py" for n in CORE] + [f"portal/{n}.py" for n in PORTAL_PURE]
)
def test_pure_modules_import_no_framework_and_no_io(rel: str) -> None:
    modules = imports(_tree(rel))
    assert not {m for m in modules if m.split(".")[0] in FRAMEWORKS}, rel
    assert not _within(
        modules, IO_LAYERS - ({"memsite.portal"} if rel.startswith("portal/") else set())
    )
    assert not {m for m in modules if m.split(".")[0] in IO_STDLIB}, rel


@pytest.mark.parametrize(
    "rel", [f"core/{n}.py" for n in CORE] + [f"portal/{n}.py" for n in PORTAL_PURE]
)
def test_pure_modules_read_no_clock_environment_or_files(rel: str) -> None:
    tree = _tree(rel)
    calls = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }
    assert not calls & IMPURE_CALLS, rel
    assert "environ" not in {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("core", IO_LAYERS),
        (
            "storage",
            {"memsite.memory", "memsite.cli", "memsite.mcp", "memsite.portal", "memsite.runners"},
        ),
        ("memory", {"memsite.cli", "memsite.mcp"}),
        ("portal", {"memsite.cli", "memsite.mcp"}),
        ("mcp", {"memsite.cli"}),
        ("runners", {"memsite.cli", "memsite.mcp", "memsite.portal"}),
    ],
)
def test_layers_never_import_upwards(package: str, forbidden: set[str]) -> None:
    for rel in _package_modules(package):
        wrong = _within(imports(_tree(rel)), forbidden)
        assert not wrong, f"{rel} imports {sorted(wrong)}"


def test_adapters_reach_the_core_only_through_memory() -> None:
    for rel in [*_package_modules("cli"), *_package_modules("mcp")]:
        modules = imports(_tree(rel))
        wrong = _within(
            modules,
            {
                "memsite.core.compaction",
                "memsite.core.snapshot",
                "memsite.core.ranking",
                "memsite.storage.scan",
            },
        )
        assert not wrong, f"{rel} imports {sorted(wrong)}"
