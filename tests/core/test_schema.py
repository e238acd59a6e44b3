"""The schema's names: confidences, statuses, keys, and the MCP server's Literals that spell
the same values out."""

from __future__ import annotations

import typing

import pytest

from memsite.core import records, schema, sessions
from memsite.mcp import server


def literal_values(annotated: object) -> tuple[object, ...]:
    """The values of the Literal inside an ``Annotated[Literal[...] (| None), Field]``."""
    inner = typing.get_args(annotated)[0]
    literals = [
        a for a in (inner, *typing.get_args(inner)) if typing.get_origin(a) is typing.Literal
    ]
    assert len(literals) == 1, annotated
    return typing.get_args(literals[0])


@pytest.mark.parametrize(
    ("annotated", "values"),
    [
        (server.Confidence, schema.CONFIDENCES),
        (server.LogKind, sessions.KINDS),
        (server.LinkType, records.LINK_TYPES),
    ],
)
def test_mcp_literals_spell_the_core_values(annotated: object, values: tuple[str, ...]) -> None:
    assert literal_values(annotated) == values


def test_confidence_may_be_left_out_in_mcp() -> None:
    assert type(None) in typing.get_args(typing.get_args(server.Confidence)[0])


def test_confidences_and_their_ranks() -> None:
    assert schema.CONFIDENCES == ("high", "medium", "low")
    assert set(schema.CONFIDENCE_RANK) == set(schema.CONFIDENCES)
    assert sorted(schema.CONFIDENCE_RANK, key=schema.CONFIDENCE_RANK.__getitem__) == [
        "low",
        "medium",
        "high",
    ]


def test_confidence_of_rank_inverts_the_rank() -> None:
    assert schema.CONFIDENCE_OF_RANK == {0: "low", 1: "medium", 2: "high"}
    for name, rank in schema.CONFIDENCE_RANK.items():
        assert schema.CONFIDENCE_OF_RANK[rank] == name


def test_statuses() -> None:
    assert schema.STATUSES == ("active", "superseded", "duplicate", "overridden", "retired")
    assert schema.STATUSES[:3] == (schema.ACTIVE, schema.SUPERSEDED, schema.DUPLICATE)
    assert schema.STATUSES[3:] == (schema.OVERRIDDEN, schema.RETIRED)


def test_key_sets_are_schema_keys() -> None:
    assert {
        "id",
        "category",
        "content",
        "created",
        "confidence",
        "tags",
        "supersedes",
        "agent",
        "key",
        "reason",
        "anchors",
        "valid_from",
        "valid_to",
    } == schema.SCHEMA_KEYS
    checked = {"id", "category", "created", "confidence", "valid_from", "valid_to"}
    assert checked == schema.CHECKED_VALUES
    assert {"category", "confidence", "agent", "key"} == schema.REPEATED_VALUES
    assert schema.CHECKED_VALUES <= schema.SCHEMA_KEYS
    assert schema.REPEATED_VALUES <= schema.SCHEMA_KEYS
    # free text may hold a secret, so it is never among the checked values
    assert not {"content", "tags", "agent", "key", "reason"} & schema.CHECKED_VALUES
