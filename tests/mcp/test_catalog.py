"""The catalog names the tools for `memsite mcp --help` without importing the SDK."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from memsite.cli.main import cli
from memsite.mcp.catalog import DESCRIPTIONS, TOOLS


def test_mcp_help_names_every_tool() -> None:
    result = CliRunner().invoke(cli, ["mcp", "--help"], terminal_width=400)
    assert result.exit_code == 0, result.output
    for name in TOOLS:
        assert name in result.output, name
    assert "memsite://index" in result.output


def test_descriptions_are_single_paragraphs() -> None:
    for name, text in DESCRIPTIONS.items():
        assert name.startswith("memory_")
        assert "\n" not in text and "  " not in text and text.endswith("."), name


def test_the_catalog_and_mcp_help_do_not_import_the_sdk() -> None:
    code = (
        "import sys; import memsite.mcp.catalog, memsite.cli.mcp; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"
