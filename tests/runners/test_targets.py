"""The kinds of file memsite edits to wire a runner: marked blocks round-trip, and the instruction
block says what agents need."""

from __future__ import annotations

import pytest

from memsite.blocks import add_block, remove_block
from memsite.runners.targets import BEGIN, END


@pytest.mark.parametrize(
    "original", ["", "one line", "one line\n", "two\n\n", "crlf\r\n", "x\n\n\n"]
)
def test_block_round_trip_restores_bytes(original: str) -> None:
    block = f"{BEGIN}\nhello\n{END}"
    added, separator = add_block(original, block, BEGIN, END)
    assert added.count(BEGIN) == 1
    assert add_block(added, block, BEGIN, END)[0] == added
    assert remove_block(added, BEGIN, END, separator) == original


def test_instruction_block_documents_the_workflow_compaction_and_branches() -> None:
    import bpe_openai

    from memsite.core.estimate import estimate_tokens
    from memsite.runners.targets import instruction_block

    block = instruction_block(
        ("conventions", "architecture", "operations", "decisions"), ".memsite"
    )
    assert "memory_search" in block and "memory_write" in block  # reading and writing
    assert "supersedes" in block and "key" in block and "compact" in block  # what is current
    assert "merges never conflict" in block  # the branching strategy
    # It is read at every session start, in every runner: keep it within its budget.
    real = max(len(bpe_openai.get_encoding(n).encode(block)) for n in ("cl100k_base", "o200k_base"))
    assert real <= 450 and estimate_tokens(block) <= 700, (real, estimate_tokens(block))


def test_servers_start_the_program_the_wiring_names() -> None:
    import json
    import tomllib
    from pathlib import Path

    from memsite.runners.base import Wiring
    from memsite.runners.targets import JsonServer, TomlServer

    program = ("/opt/py 3/bin/python", "-m", "memsite")
    wiring = Wiring(Path("/r"), ".memsite", ("conventions",), auto_flush=False, program=program)
    entry = json.loads(JsonServer(".mcp.json", "mcpServers").install(wiring, None, {}))
    assert entry["mcpServers"]["memsite"] == {
        "type": "stdio",
        "command": "/opt/py 3/bin/python",
        "args": ["-m", "memsite", "mcp"],
    }
    toml = tomllib.loads(TomlServer(".codex/config.toml").install(wiring, None, {}))
    assert toml["mcp_servers"]["memsite"] == {
        "command": "/opt/py 3/bin/python",
        "args": ["-m", "memsite", "mcp"],
    }
