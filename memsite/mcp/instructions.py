"""The MCP server's ``instructions``: a short guide plus the head of index.md (≤ 2,000 chars)."""

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
    )


def build_instructions(memory: Memory) -> str:
    """Guide plus the head of index.md, at most INSTRUCTIONS_MAX characters in total."""
    index_path = memory.store.relative(memory.store.index_path)
    head = guide(list(memory.config.categories), index_path)
    try:
        index = memory.context()
    except MemsiteError as exc:
        index = f"(index.md unavailable: {exc})"
    # Drop the auto-generated banner: it is noise for a model.
    lines = [line for line in index.splitlines() if not line.startswith("<!--")]
    body = "\n".join(lines).strip()
    text = f"{head}\n\nIndex (head of index.md):\n{body}" if body else head
    if len(text) <= INSTRUCTIONS_MAX:
        return text
    more = "\n…(more: read memsite://index or use memory_search)"
    room = INSTRUCTIONS_MAX - len(more)
    cut = text.rfind("\n", 0, room)
    return text[: cut if cut > len(head) else room] + more
