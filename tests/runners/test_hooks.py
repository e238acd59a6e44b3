"""Every runner's session-start and prompt hooks: their own output shapes, their session ids,
the commands install writes and recognises, and the CLI offering each format."""

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
    from memsite.cli.quick import HOOK_FORMATS
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
    from memsite.runners.hooks import context_command, is_hook, prompt_command

    wiring = Wiring(Path("/r"), store_rel, ("conventions",), auto_flush=False, program=program)
    for command in (context_command(wiring, "cursor-hook"), prompt_command(wiring, "codex-hook")):
        assert command.startswith(wiring.shell_program + " ") and is_hook(command)
        assert (" --store docs/memory " in command) == (store_rel == "docs/memory")
    # never exit 2, which blocks the prompt (a memsite without `prompt` exits 2)
    assert prompt_command(wiring, "codex-hook").endswith(" prompt --format codex-hook || exit 0")
    for other in (
        "./memsite-wrapper context --format cursor-hook",
        "memsite prompt --format codex-hook && rm -rf x",
        "memsite prompt --format codex-hook || exit 0; rm -rf x",
        "echo memsite prompt --format codex-hook",
        "memsite search --format claude-hook",
    ):
        assert not is_hook(other), other


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


# --- prompt hooks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "event"),
    [
        ("claude-hook", "UserPromptSubmit"),
        ("codex-hook", "UserPromptSubmit"),
        ("gemini-hook", "BeforeAgent"),
    ],
)
@pytest.mark.parametrize("text", ["- Use pnpm\n", '"\\' * 6000, "é" * 20000, "\x01" * 3000])
def test_prompt_output_is_each_runners_shape_under_10000_characters(
    fmt: str, event: str, text: str
) -> None:
    from memsite.runners.hooks import HOOK_OUTPUT_MAX, PROMPT_PREAMBLE, prompt_output

    output = prompt_output(fmt, text)
    assert len(json.dumps(output, indent=2, ensure_ascii=False)) < HOOK_OUTPUT_MAX
    # nothing but what Codex's output schema allows (additionalProperties: false)
    assert list(output) == ["hookSpecificOutput"]
    specific = output["hookSpecificOutput"]
    assert list(specific) == ["hookEventName", "additionalContext"]
    assert specific["hookEventName"] == event
    assert specific["additionalContext"].startswith(PROMPT_PREAMBLE)
    if len(text) < 100:
        assert specific["additionalContext"] == PROMPT_PREAMBLE + text


@pytest.mark.parametrize(
    ("fmt", "payload", "expected"),
    [
        ("claude-hook", {"session_id": "S-1", "prompt": "why pnpm?"}, ("why pnpm?", "s-1")),
        ("codex-hook", {"session_id": "t", "turn_id": "u", "prompt": "x"}, ("x", "t")),
        ("gemini-hook", {"session_id": "g", "prompt": "x"}, ("x", "g")),
        ("claude-hook", {"prompt": "x"}, ("x", None)),
        ("claude-hook", {"session_id": "///", "prompt": "x"}, ("x", None)),  # no name left
        ("claude-hook", {"sessionId": "c", "prompt": "x"}, ("x", "c")),
        (
            "gemini-hook",
            {"prompt": "<hook_context>a</hook_context>\n\n<hook_context>b</hook_context>\n\nx"},
            ("x", None),
        ),
        # only Gemini's own context, at the start, is taken out
        (
            "claude-hook",
            {"prompt": "<hook_context>a</hook_context> x"},
            ("<hook_context>a</hook_context> x", None),
        ),
        (
            "gemini-hook",
            {"prompt": "x <hook_context>a</hook_context>"},
            ("x <hook_context>a</hook_context>", None),
        ),
        ("gemini-hook", {"prompt": "<hook_context>a</hook_context>"}, None),
        ("claude-hook", {"prompt": ["x"]}, None),
        ("claude-hook", {"prompt": " \n"}, None),
        ("claude-hook", {}, None),
    ],
)
def test_prompt_payload_takes_the_prompt_and_the_session(
    fmt: str, payload: dict[str, object], expected: tuple[str, str | None] | None
) -> None:
    from memsite.runners.hooks import prompt_payload

    assert prompt_payload(fmt, json.dumps(payload)) == expected


@pytest.mark.parametrize("raw", ["", "not json", "[1]", "null", '{"prompt": "x"'])
def test_prompt_payload_that_is_not_a_json_object_holds_no_prompt(raw: str) -> None:
    from memsite.runners.hooks import prompt_payload

    assert prompt_payload("claude-hook", raw) is None
