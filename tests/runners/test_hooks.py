"""Every runner's session-start hook: its own output shape, its session id, and the CLI offering
each format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Invoke


@pytest.mark.parametrize(
    ("fmt", "payload", "shape"),
    [
        ("codex-hook", {"session_id": "s-1"}, "hookSpecificOutput"),
        ("gemini-hook", {"session_id": "s-1"}, "hookSpecificOutput"),
        ("copilot-hook", {"sessionId": "s-1"}, "additionalContext"),
        ("cursor-hook", {"conversation_id": "s-1"}, "additional_context"),
    ],
)
def test_each_runner_hook_prints_its_own_shape_and_reads_its_session(
    store_root: Path, runner: Invoke, fmt: str, payload: dict[str, str], shape: str
) -> None:
    runner("add", "Use pnpm", "-c", "conventions")
    runner("log", "Wire the login page", "--kind", "task", "--session", "s-1")
    runner("log", "Review the API", "--kind", "task", "--session", "s-0")
    done = runner("context", "--format", fmt, input=json.dumps(payload))
    assert done.exit_code == 0, done.stderr
    printed = json.loads(done.stdout)
    if shape == "hookSpecificOutput":
        assert printed["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        text = printed["hookSpecificOutput"]["additionalContext"]
    else:
        text = printed[shape]
    if fmt == "cursor-hook":
        assert printed["continue"] is True
    assert "- Use pnpm" in text
    assert "Review the API" in text and "Wire the login page" not in text  # s-1 is current


def test_the_cli_offers_every_runners_hook_format() -> None:
    from memsite.cli.upkeep import HOOK_FORMATS
    from memsite.runners.hooks import FORMATS

    assert HOOK_FORMATS == FORMATS


@pytest.mark.parametrize(
    "program", [("memsite",), ("/a b/bin/memsite",), ("/venv/bin/python", "-m", "memsite")]
)
@pytest.mark.parametrize("store_rel", [".memsite", "docs/memory"])
def test_context_hooks_with_any_program_are_recognised(
    program: tuple[str, ...], store_rel: str
) -> None:
    from memsite.runners.base import Wiring
    from memsite.runners.hooks import context_command, is_context_hook

    wiring = Wiring(Path("/r"), store_rel, ("conventions",), auto_flush=False, program=program)
    command = context_command(wiring, "cursor-hook")
    assert command.startswith(wiring.shell_program + " ") and is_context_hook(command)
    assert not is_context_hook("./memsite-wrapper context --format cursor-hook")


@pytest.mark.parametrize("fmt", ["claude-hook", "codex-hook", "gemini-hook", "copilot-hook"])
def test_the_hook_text_has_no_header_comment_meant_for_the_file(
    store_root: Path, runner: Invoke, fmt: str
) -> None:
    runner("add", "Use pnpm", "-c", "conventions")
    printed = runner("context", "--format", fmt, input="{}").json()
    text = printed.get("hookSpecificOutput", printed).get("additionalContext")
    assert isinstance(text, str) and "- Use pnpm" in text
    assert "Auto-generated" not in text and "<!--" not in text
    assert text.startswith("Project memory (memsite).")
    assert (store_root / "index.md").read_text().startswith("<!-- Auto-generated.")  # the file


def test_an_empty_index_still_tells_the_agent_how_to_record(runner: Invoke) -> None:
    printed = runner("context", "--format", "cursor-hook", input="{}").json()
    assert printed["additional_context"].startswith("Project memory (memsite).")
    assert "Auto-generated" not in printed["additional_context"]
