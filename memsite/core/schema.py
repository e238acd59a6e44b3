"""The names of the entry schema, said once: its keys, the confidences, the statuses. Pure.

Every layer that needs one of these lists takes it from here (the MCP server spells the
confidences out in a ``Literal``, which a test compares with :data:`CONFIDENCES`).
"""

from __future__ import annotations

# The keys of an entry file that memsite writes and reads (any other key is kept as it is).
SCHEMA_KEYS = frozenset(
    "id category content created confidence tags supersedes agent key reason anchors "
    "valid_from valid_to".split()
)
# Keys whose values reading checks against a strict pattern (a UUID, an RFC 3339 time, a
# name, a confidence, a date): none of them can hold a secret.
CHECKED_VALUES = frozenset(("id", "category", "created", "confidence", "valid_from", "valid_to"))
# Keys whose values repeat across the entries of a store (a few categories, confidences,
# agents and keys): the read model keeps one copy of each.
REPEATED_VALUES = frozenset(("category", "confidence", "agent", "key"))

CONFIDENCES = ("high", "medium", "low")
CONFIDENCE_RANK = {"low": 0, "medium": 1, "high": 2}
CONFIDENCE_OF_RANK = {rank: name for name, rank in CONFIDENCE_RANK.items()}

ACTIVE = "active"
SUPERSEDED = "superseded"
DUPLICATE = "duplicate"
OVERRIDDEN = "overridden"
RETIRED = "retired"
STATUSES = (ACTIVE, SUPERSEDED, DUPLICATE, OVERRIDDEN, RETIRED)
# What outputs print as the status of an active fact past its valid_to: judged at read time
# (``core.standing.window_state``), never by compaction, so not one of STATUSES.
EXPIRED = "expired"
