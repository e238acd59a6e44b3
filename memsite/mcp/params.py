"""The MCP tools' arguments as the SDK describes them to clients: each a type with its
description (and bounds), so that an agent knows what to pass before it calls."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

LIST_LIMIT = 50
LIST_MAX = 10_000  # a bound the client is told (an unbounded limit crashed the listing)

EntryId = Annotated[
    str, Field(description="Full entry id (UUID) or a unique prefix of at least 4 hex characters.")
]
Content = Annotated[str, Field(description="The fact, one or two sentences.")]
Category = Annotated[str, Field(description="Category; the tool description lists them.")]
Names = Annotated[
    list[str] | str | None,
    Field(description="Tags (lower-case words): a list or a comma-separated string."),
]
Ids = Annotated[
    list[str] | str | None,
    Field(description="Ids of entries this fact replaces (they stop being active)."),
]
Reason = Annotated[str | None, Field(description="Why this entry replaces the ones it supersedes.")]
# The values of memsite.core.entry.CONFIDENCES (a Literal must spell them out).
Confidence = Annotated[
    Literal["high", "medium", "low"] | None, Field(description="Default medium.")
]
Key = Annotated[
    str | None, Field(description="Subject with one current value (e.g. package-manager).")
]
Agent = Annotated[str | None, Field(description="Who writes this (default $MEMSITE_AGENT).")]
Anchors = Annotated[
    list[str] | str | None,
    Field(
        description="Files the fact describes, relative to the project root: PATH or "
        "PATH:START-END (lines); the fact is then checked for drift when they change."
    ),
]
ValidFrom = Annotated[
    str | None,
    Field(
        description="The day the fact starts to hold in the world (YYYY-MM-DD, UTC, or a UTC "
        "time); until then it stays out of the index."
    ),
]
ValidTo = Annotated[
    str | None,
    Field(
        description="The last day the fact holds (YYYY-MM-DD, through its end, UTC, or a UTC "
        "time); after it, it is expired and leaves the index."
    ),
]
Query = Annotated[str, Field(description="Words to look for (typos tolerated).")]
LogText = Annotated[str, Field(description="What happened or is left to do, one line.")]
# The values of memsite.core.sessions.KINDS (a Literal must spell them out).
LogKind = Annotated[Literal["note", "task", "done", "decision"], Field(description="Default note.")]
CategoryFilter = Annotated[str | None, Field(description="Only this category.")]
TagFilter = Annotated[str | None, Field(description="Only entries with this tag.")]
SearchLimit = Annotated[int, Field(ge=1, le=200, description="At most this many hits.")]
ListLimit = Annotated[
    int | None,
    Field(ge=0, le=LIST_MAX, description=f"At most this many (default {LIST_LIMIT})."),
]
IncludeAll = Annotated[
    bool, Field(description="Also superseded, duplicate and overridden entries (with status).")
]
Daily = Annotated[bool, Field(description="Also search the daily session logs.")]
SearchMode = Annotated[
    Literal["auto", "exact", "semantic", "hybrid"],
    Field(
        description="By words (exact), by meaning (semantic, needs memsite[semantic]) or both "
        "(hybrid); auto: hybrid when the semantic extra is installed, else exact."
    ),
]
Expand = Annotated[
    bool, Field(description="Also the facts linked to the hits, each with 'via' (hit, link).")
]
Evidence = Annotated[str | None, Field(description="How you checked that the fact holds.")]
Repin = Annotated[
    bool, Field(description="Pin drifted anchors to the files as they are now (after checking).")
]
RetireReason = Annotated[str, Field(description="Why the fact no longer holds.")]
OtherId = Annotated[
    str, Field(description="The other fact: full id or a unique prefix of 4+ hex characters.")
]
# The values of memsite.core.records.LINK_TYPES (a Literal must spell them out).
LinkType = Annotated[
    Literal["refines", "supports", "depends-on", "conflicts-with", "distinct-from"],
    Field(description="How id relates to other."),
]
LinkReason = Annotated[str | None, Field(description="Why they are linked.")]
AsOf = Annotated[
    str | None,
    Field(
        description="The memory as it was then: a date (YYYY-MM-DD, the end of that day UTC, or "
        "an ISO 8601 time) or a git ref (tag, branch, commit). The answer's as_of says which."
    ),
]
