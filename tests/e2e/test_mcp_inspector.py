"""A real external MCP client: the MCP Inspector CLI (Node >= 22) drives `memsite mcp`.

CI's `.ci/run` installs node@22 and @modelcontextprotocol/inspector and exports
MEMSITE_INSPECTOR (the `mcp-inspector` bin); without it this test skips and says why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.test_server import TOOLS


def inspector() -> str:
    path = os.environ.get("MEMSITE_INSPECTOR", "")
    if not path:
        pytest.skip("MCP Inspector not installed: set MEMSITE_INSPECTOR (.ci/run does)")
    if not Path(path).is_file():
        pytest.skip(f"MEMSITE_INSPECTOR={path} does not exist")
    node = shutil.which("node")
    if node is None:
        pytest.skip("the MCP Inspector needs Node >= 22; no node on PATH")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    if int(version.strip().lstrip("v").split(".")[0] or 0) < 22:
        pytest.skip(f"the MCP Inspector needs Node >= 22; node on PATH is {version.strip()}")
    return path


def run_inspector(store: Path, *method: str, tool_error: bool = False) -> dict[str, Any]:
    """Run the Inspector CLI; with ``tool_error`` the call is expected to be a tool error
    (newer Inspector releases also exit non-zero then; the result is still printed)."""
    env = {k: v for k, v in os.environ.items() if k != "MEMSITE_STORE"}
    done = subprocess.run(
        [
            inspector(),
            "--cli",
            sys.executable,
            "-m",
            "memsite",
            "--store",
            str(store),
            "mcp",
            *method,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    if tool_error:
        assert done.returncode == 0 or "tool_is_error" in done.stderr, done.stderr
    else:
        assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_inspector_lists_tools_and_writes(store_root: Path) -> None:
    listed = run_inspector(store_root, "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    assert set(tools) == TOOLS  # the tools the in-process tests see
    assert tools["memory_delete"]["annotations"]["destructiveHint"] is True
    assert tools["memory_reconcile"]["annotations"]["readOnlyHint"] is True
    assert tools["memory_retire"]["annotations"]["destructiveHint"] is False
    assert tools["memory_log"]["annotations"]["idempotentHint"] is False  # each call appends
    assert tools["memory_search"]["annotations"]["readOnlyHint"] is True

    written = run_inspector(
        store_root,
        "--method",
        "tools/call",
        "--tool-name",
        "memory_write",
        "--tool-arg",
        "content=The Inspector can write facts.",
        "--tool-arg",
        "category=operations",
    )
    assert written["isError"] is False
    structured = written["structuredContent"]
    assert structured["status"] == "written"
    path = Path(structured["path"])
    assert (
        json.loads(path.read_text(encoding="utf-8"))["content"] == "The Inspector can write facts."
    )

    failed = run_inspector(
        store_root,
        "--method",
        "tools/call",
        "--tool-name",
        "memory_read",
        "--tool-arg",
        "id=../../etc/passwd",
        tool_error=True,
    )
    assert failed["isError"] is True
    assert "give a full entry id" in json.dumps(failed["content"])
