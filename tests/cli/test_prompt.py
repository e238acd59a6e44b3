"""`memsite prompt`, the prompt hooks' body: each runner's own shape carrying the facts relevant
to the prompt, once per session, silence when nothing is relevant, and failing open on input a
runner could send."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Invoke

PNPM = "Use pnpm, never npm, to install packages"
DEPLOY = "Deploys run from the release branch through make deploy"
ASK = "how do I install packages with pnpm here?"


@pytest.fixture
def facts(runner: Invoke) -> Invoke:
    for content, category in ((PNPM, "conventions"), (DEPLOY, "operations")):
        assert runner("add", content, "-c", category).exit_code == 0
    return runner


def hook(runner: Invoke, fmt: str, payload: object) -> tuple[int, str, str]:
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    done = runner("prompt", "--format", fmt, input=raw)
    return done.exit_code, done.stdout, done.stderr


def context_of(stdout: str, event: str) -> str:
    printed = json.loads(stdout)
    # Codex's schema forbids any other key, here and in hookSpecificOutput
    assert set(printed) == {"hookSpecificOutput"}
    assert set(printed["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert printed["hookSpecificOutput"]["hookEventName"] == event
    text: str = printed["hookSpecificOutput"]["additionalContext"]
    return text


@pytest.mark.parametrize(
    ("fmt", "event"),
    [
        ("claude-hook", "UserPromptSubmit"),
        ("codex-hook", "UserPromptSubmit"),
        ("gemini-hook", "BeforeAgent"),
    ],
)
def test_each_runner_gets_the_relevant_fact_in_its_own_shape(
    facts: Invoke, fmt: str, event: str
) -> None:
    code, out, err = hook(facts, fmt, {"session_id": "s-1", "prompt": ASK})
    assert (code, err) == (0, "")
    text = context_of(out, event)
    assert text.startswith("Project memory (memsite): ")
    assert PNPM in text and DEPLOY not in text  # only what bears on this prompt


def test_a_fact_is_given_once_per_session(facts: Invoke) -> None:
    first = hook(facts, "claude-hook", {"session_id": "s-1", "prompt": ASK})
    assert PNPM in context_of(first[1], "UserPromptSubmit")
    assert hook(facts, "claude-hook", {"session_id": "s-1", "prompt": ASK}) == (0, "", "")
    other = hook(facts, "claude-hook", {"session_id": "s-2", "prompt": ASK})
    assert PNPM in context_of(other[1], "UserPromptSubmit")  # a new session gets it again


def test_nothing_relevant_prints_nothing(facts: Invoke) -> None:
    payload = {"session_id": "s-1", "prompt": "refactor the colour palette of the login page"}
    assert hook(facts, "claude-hook", payload) == (0, "", "")


def test_gemini_searches_what_the_user_typed_not_the_session_start_context(
    facts: Invoke,
) -> None:
    # Gemini CLI's first prompt carries the session-start hook's context (the index, with
    # < and > escaped) ahead of the user's words, and only a prompt's start is searched.
    index = "Project memory (memsite).\n\n## Design\n" + "- Colour tokens live in theme.css\n" * 60
    assert len(index) > 1000
    prompt = f"<hook_context>{index}</hook_context>\n\n{ASK}"
    code, out, _ = hook(facts, "gemini-hook", {"session_id": "g", "prompt": prompt})
    assert code == 0 and out, "the user's words were not searched"
    assert PNPM in context_of(out, "BeforeAgent")
    # the same text from another runner is taken as typed (its start is all that is searched)
    assert hook(facts, "claude-hook", {"session_id": "c", "prompt": prompt}) == (0, "", "")


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "not json",
        "[1, 2]",
        '{"session_id": "s-1", "prompt": ',
        {"session_id": "s-1"},
        {"session_id": "s-1", "prompt": 42},
        {"session_id": "s-1", "prompt": "   \n"},
        {"session_id": "s-1", "prompt": "<hook_context>use pnpm</hook_context>"},
    ],
)
def test_a_payload_without_a_prompt_prints_nothing_and_exits_0(
    facts: Invoke, payload: object
) -> None:
    assert hook(facts, "gemini-hook", payload) == (0, "", "")


def test_no_session_still_gets_the_facts(facts: Invoke) -> None:
    code, out, _ = hook(facts, "codex-hook", {"prompt": ASK, "session_id": 7})
    assert code == 0 and PNPM in context_of(out, "UserPromptSubmit")


def test_no_store_or_an_unreadable_config_prints_nothing(
    store_root: Path, runner: Invoke, tmp_path: Path
) -> None:
    payload = json.dumps({"session_id": "s", "prompt": ASK})
    done = runner(
        "--store", str(tmp_path / "nowhere"), "prompt", "--format", "claude-hook", input=payload
    )
    assert (done.exit_code, done.stdout, done.stderr) == (0, "", "")
    (store_root / "config.json").write_text("{not json", encoding="utf-8")
    done = runner("prompt", "--format", "claude-hook", input=payload)
    assert (done.exit_code, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("prompt",), "Missing option '--format'"),
        (("prompt", "--format", "cursor-hook"), "'cursor-hook' is not one of"),
        (("prompt", "--format", "copilot-hook"), "'copilot-hook' is not one of"),
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_2(
    runner: Invoke, args: tuple[str, ...], says: str
) -> None:
    done = runner(*args, input="{}")
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.startswith("Error: ") and says in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_the_cli_offers_the_formats_of_the_runners_with_a_prompt_hook() -> None:
    from memsite.cli.prompt import PROMPT_FORMATS
    from memsite.runners import registry
    from memsite.runners.hooks import PROMPT_FORMATS as FORMATS

    assert PROMPT_FORMATS == FORMATS
    wired = [f"{r.name}-hook" for r in registry().values() if r.prompt_event is not None]
    assert sorted(PROMPT_FORMATS) == sorted(wired)
