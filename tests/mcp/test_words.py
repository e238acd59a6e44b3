"""Messages in an agent's words: memsite commands with a tool become that tool call."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memsite.mcp.catalog import TOOLS
from memsite.mcp.words import argument_errors, in_agent_words

SOURCES = Path(__file__).resolve().parents[2] / "memsite"


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "no entry with id 'ffff': find ids with `memsite list` or `memsite search`",
            "no entry with id 'ffff': find ids with memory_list or memory_search",
        ),
        (
            "entry 1a2b3c4d is superseded: only an active fact can be verified "
            "(see `memsite read 1a2b3c4d`)",
            "entry 1a2b3c4d is superseded: only an active fact can be verified "
            '(see memory_read(id="1a2b3c4d"))',
        ),
        (
            "check the fact against the code, then run `memsite verify 1a2b3c4d --repin`",
            'check the fact against the code, then run memory_verify(id="1a2b3c4d", repin=true)',
        ),
        (
            "if both hold, `memsite relate 1a2b3c4d 5e6f7a8b --type distinct-from`",
            'if both hold, memory_relate(id="1a2b3c4d", other="5e6f7a8b", type="distinct-from")',
        ),
        (
            "if this one replaces it, run `memsite amend 5e6f7a8b` or add with --supersedes "
            "5e6f7a8b; else check this machine's clock",
            'if this one replaces it, run memory_write with supersedes=["5e6f7a8b"] or '
            'memory_write with supersedes=["5e6f7a8b"]; else check this machine\'s clock',
        ),
        (
            "add it to memory.categories or use `memsite add` with a category",
            "add it to memory.categories or use memory_write with a category",
        ),
        (  # a person's command keeps its shell form
            "held back: see `memsite review`, then `memsite approve 1a2b3c4d`",
            "held back: see `memsite review`, then `memsite approve 1a2b3c4d`",
        ),
        ("nothing to translate", "nothing to translate"),
    ],
)
def test_commands_with_a_tool_become_the_tool(said: str, meant: str) -> None:
    assert in_agent_words(said) == meant


def test_every_command_the_service_names_with_a_tool_is_translated() -> None:
    """Each `memsite X ...` in the service's messages, for X with a tool, leaves no shell
    command behind (a new message naming one cannot slip through untranslated)."""
    with_tools = {name.removeprefix("memory_") for name in TOOLS} | {"add", "amend"}
    found = []
    for path in sorted((SOURCES / "memory").glob("*.py")) + sorted((SOURCES / "core").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for command in re.findall(r"`memsite ([a-z]+)[^`]*`", text):
            if command in with_tools:
                found.append(command)
    assert {"list", "search", "read", "verify", "relate", "amend", "add"} <= set(found)
    for command in sorted(set(found)):
        sample = f"see `memsite {command} 1a2b3c4d`"
        assert "memsite" not in in_agent_words(sample), command


def test_argument_errors_are_one_plain_line_without_values_or_urls() -> None:
    errors = [
        {"type": "missing", "loc": ("id",), "msg": "Field required", "input": {}},
        {
            "type": "greater_than_equal",
            "loc": ("limit",),
            "msg": "Input should be greater than or equal to 1",
            "input": 0,
            "url": "https://errors.pydantic.dev/2/v/greater_than_equal",
        },
    ]
    line = argument_errors(errors, "memory_search", ["query", "limit"])
    assert line == (
        "missing argument 'id'; argument 'limit' should be greater than or equal to 1 "
        "(memory_search takes query, limit)"
    )
    assert "\n" not in line and "http" not in line
