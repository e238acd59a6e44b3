"""`memsite prompt`: the body of the runners' prompt hooks (`agents install --per-prompt`)."""

from __future__ import annotations

import sys

import click

from memsite.cli.kit import STDIN_MAX, emit_json, get_memory

# runners.hooks.PROMPT_FORMATS, spelled here so that `memsite --help` does not import the
# runners (a test keeps the two equal).
PROMPT_FORMATS = ("claude-hook", "codex-hook", "gemini-hook")


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(PROMPT_FORMATS),
    required=True,
    help="The JSON that runner's prompt hook expects (Claude Code, Codex, Gemini CLI; Copilot "
    "CLI and Cursor cannot add context from one).",
)
@click.pass_context
def prompt(ctx: click.Context, fmt: str) -> None:
    """Prompt hook body: reads the hook JSON on stdin (the prompt and the session id) and
    prints the runner's JSON that adds the few stored facts most relevant to the prompt
    (within memory.perPromptTokenBudget), each fact once per session. Prints nothing when no
    fact is relevant enough or every one was given already.

    Fails open, so the prompt goes on: input that is not JSON or holds no prompt, no store,
    or a store or config memsite cannot read prints nothing and exits 0. Anything else is a
    bug: exit 1 with its traceback, which the runner shows without blocking the prompt.
    """
    from memsite.errors import MemsiteError
    from memsite.runners.hooks import prompt_output, prompt_payload

    raw = ""
    if sys.stdin is not None and not sys.stdin.isatty():
        raw = sys.stdin.buffer.read(STDIN_MAX).decode("utf-8", "replace")
    given = prompt_payload(fmt, raw)
    if given is None:
        return
    try:
        facts = get_memory(ctx).prompt_facts(*given)
    except MemsiteError:
        return
    if facts["text"]:
        emit_json(prompt_output(fmt, facts["text"]))


COMMANDS: list[click.Command] = [prompt]
