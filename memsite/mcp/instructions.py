"""The MCP server's ``instructions``: a short guide plus the index within 2,000 characters."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memsite.errors import MemsiteError

if TYPE_CHECKING:
    from memsite.memory import Memory

INSTRUCTIONS_MAX = 2000


def guide(categories: list[str], index_path: str) -> str:
    """The short how-to every MCP client receives as the server's instructions."""
    return (
        "memsite is this project's shared memory: durable facts that agents and people recorded."
        "\n- Before non-trivial work, memory_search the topic; the index below holds the most "
        "important facts (all of it: resource memsite://index, file " + index_path + ")."
        "\n- When you learn a durable fact the next agent needs (a convention, an architecture "
        "fact, how to build/test/deploy, a decision and its reason, a pitfall), memory_write it:"
        " one fact per entry, a sentence or two, no secrets, nothing only about the current task."
        "\n- Categories: " + ", ".join(categories) + "."
        "\n- A fact changed? memory_write the new one with supersedes=[old id] (key= names a "
        "subject with one current value). Status 'duplicate' means it is already recorded."
        "\n- memory_log notes progress (kind=task, done, decision carry over to the next session)."
    )


STALE = (
    "\n\nThe index of the team's most important facts is not built yet in this clone: read "
    "resource memsite://index before non-trivial work."
)


def build_instructions(memory: Memory) -> str:
    """Guide plus the index within what is left of INSTRUCTIONS_MAX characters: the top facts
    of every category by weight, as index.md holds them within its token budget. Instructions
    are the answer to `initialize`, which clients give a few seconds (Gemini CLI: 5 s): they
    wait on an incremental compaction (tens of ms), never on the views' first build in a clone
    (seconds at 10k facts; STALE says where the index is, and the first call builds it)."""
    index_path = memory.store.relative(memory.store.index_path)
    head = guide(list(memory.config.categories), index_path)
    intro = "\n\nIndex (the top facts of each category; more: memsite://index, memory_search):\n"
    room = INSTRUCTIONS_MAX - len(head) - len(intro)
    try:
        body = memory.index_within(room, _shown, first_build=False)
    except MemsiteError as exc:
        body = f"(index.md unavailable: {exc})"[:room]
    if body is None:
        return head + STALE
    return f"{head}{intro}{body}" if body else head


def _shown(index: str) -> str:
    """The index without its auto-generated banner (noise for a model)."""
    return "\n".join(line for line in index.splitlines() if not line.startswith("<!--")).strip()
