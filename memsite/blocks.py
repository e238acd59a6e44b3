"""Marked blocks: memsite's part of a file someone else owns (a git hook, AGENTS.md, a TOML
config) sits between a begin and an end marker, so it can be replaced and removed exactly."""

from __future__ import annotations

from memsite.errors import InvalidInputError


def find_block(text: str, begin: str, end: str) -> tuple[int, int] | None:
    """Span of the marked block: from its begin line to the end of its end line (newline too)."""
    start = text.find(begin)
    while start > 0 and text[start - 1] != "\n":
        start = text.find(begin, start + 1)
    if start < 0:
        return None
    stop = text.find(end, start)
    if stop < 0:
        raise InvalidInputError(
            f"a '{begin}' marker has no '{end}' after it: repair or remove the memsite block"
        )
    stop += len(end)
    if text.startswith("\r\n", stop):
        stop += 2
    elif text.startswith("\n", stop):
        stop += 1
    return start, stop


def add_block(text: str | None, block: str, begin: str, end: str) -> tuple[str, str]:
    """``text`` with ``block`` in place of the old one, or appended; returns (text, separator).

    ``begin`` is the start of the block's first line (a marker the block begins with).
    """
    if text is None:
        return block + "\n", ""
    span = find_block(text, begin, end)
    if span is not None:
        return text[: span[0]] + block + "\n" + text[span[1] :], ""
    if text == "" or text.endswith("\n\n"):
        separator = ""
    elif text.endswith("\n"):
        separator = "\n"
    else:
        separator = "\n\n"
    return text + separator + block + "\n", separator


def remove_block(text: str, begin: str, end: str, separator: str | None) -> str:
    """``text`` without the block and the separator ``add_block`` put before it."""
    span = find_block(text, begin, end)
    if span is None:
        return text
    before, after = text[: span[0]], text[span[1] :]
    if separator is None:  # no record: drop the blank line an install would have added
        separator = "\n" if before.endswith("\n\n") else ""
    if separator and before.endswith(separator):
        before = before[: -len(separator)]
    return before + after
