"""The MCP tools memsite serves, by name, with the description each client shows its model.

A module of plain strings, without the SDK: `memsite mcp --help` lists the tools from here,
and the server registers exactly these (tests/mcp/test_server.py checks both ways). Each
description is one paragraph without hard wraps: a client shows it as written.
"""

from __future__ import annotations

WRITE = (
    "Record one durable project fact (a convention, an architecture fact, how to build/test/"
    "deploy, a decision and its reason). Categories: {categories}. Deduplicated: an identical "
    "active fact answers status 'duplicate' and writes nothing; near duplicates are listed. "
    "To change a fact, pass supersedes=[old id]. A fact true only for a time takes "
    "valid_from/valid_to: outside them it is left out of the index (expired or upcoming). "
    "Text that looks like a credential is refused."
)

DESCRIPTIONS: dict[str, str] = {
    "memory_write": WRITE,
    "memory_log": (
        "Append a line to this session's daily log (searchable with memory_search daily=true, "
        "never in the index). kind=task for open work, done when it is finished (same text), "
        "decision for a choice made: the next session starts with the open tasks and decisions."
    ),
    "memory_verify": (
        "Record that a fact still holds after you checked it (a new record; the fact is not "
        "edited). Refused while its anchors drifted unless repin=true, which pins them to the "
        "files as they are now: only after checking the fact against the code."
    ),
    "memory_retire": (
        "Withdraw a fact that no longer holds and has no successor: it leaves the index and "
        "lists, its history stays. To correct a fact, memory_write with supersedes instead."
    ),
    "memory_relate": (
        "Link fact id to fact other: refines, supports, depends-on, conflicts-with, or "
        "distinct-from (two facts that look alike but both hold: silences a possible conflict)."
    ),
    "memory_delete": (
        "Remove an entry file (git keeps its history); prefer memory_write with supersedes to "
        "correct a fact. Lists the entries that become active again."
    ),
    "memory_read": (
        "One entry with its status, superseded_by and chain (its supersession history), and "
        "where they apply its anchors with their state today, drifted, stale, expired (past "
        "valid_to) or upcoming (before valid_from), verified, its "
        "verifications, its links both ways and why it was retired; trust says whether the "
        "team reviewed it (held_back: why it is kept out of the index). as_of: the entry as "
        "the memory held it at a date or git ref."
    ),
    "memory_reconcile": (
        "Every anchor of every active fact against the files now: unchanged, moved, changed, "
        "missing or renamed. A drifted fact needs checking before you rely on it."
    ),
    "memory_search": (
        "Ranked search over the memory's content, tags and keys; best hits first. A hit with "
        'trust "unreviewed" or held_back was not vetted: check it against the code. mode: '
        "exact (words, typos tolerated), semantic (meaning) or hybrid (both; the default when "
        "the semantic extra is installed); each hit's signals say which found it. as_of: "
        "search the memory as it was at a date or git ref (what was known then)."
    ),
    "memory_list": (
        "Active entries, newest first (include_all: every status, with 'status'; as_of: as "
        "they were at a date or git ref)."
    ),
}

TOOLS: tuple[str, ...] = tuple(DESCRIPTIONS)
