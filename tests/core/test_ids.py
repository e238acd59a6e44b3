"""Entry ids: what counts as a UUID, which references are ids, and which entry a prefix names."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.ids import choose_id, id_reference, is_uuid, match_id
from memsite.errors import AmbiguousIdError, EntryNotFoundError, InvalidInputError

A = "66453bfc-6e26-44d4-a387-398d861d8823"
B = "66453bfd-0000-4000-8000-000000000000"
C = "87f7c3fa-6e26-44d4-a387-398d861d8823"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (A, True),
        (A.upper(), True),
        (A[:-1], False),
        (A + "0", False),
        (A.replace("-", ""), False),
        (" " + A, False),
        ("g" + A[1:], False),
    ],
)
def test_is_uuid(value: str, expected: bool) -> None:
    assert is_uuid(value) is expected


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("6645", "6645"),
        ("  66453BFC ", "66453bfc"),
        (A.upper(), A),
        ("6645-3b", "6645-3b"),
    ],
)
def test_id_reference_accepts_ids_and_prefixes(ref: str, expected: str) -> None:
    assert id_reference(ref) == expected


@pytest.mark.parametrize("ref", ["", "664", "66-45", "-6645", "zzzz", "6645 3b", A + "00000"])
def test_id_reference_rejects_what_is_no_id(ref: str) -> None:
    with pytest.raises(InvalidInputError, match="at least 4 hex characters"):
        id_reference(ref)


def test_choose_id_takes_the_one_match() -> None:
    assert choose_id("6645", [A]) == A


def test_choose_id_without_matches_says_not_found() -> None:
    with pytest.raises(EntryNotFoundError, match="no entry with id 'dead'"):
        choose_id("dead", [])


def test_choose_id_ambiguous_lists_the_matches() -> None:
    with pytest.raises(AmbiguousIdError) as caught:
        choose_id("6645", [A, B])
    assert str(caught.value) == (
        "id prefix '6645' matches 2 entries (66453bfc-6e26, 66453bfd-0000): give more characters"
    )


def test_choose_id_shows_ten_and_counts_the_rest() -> None:
    matches = [f"aaaa{n:04x}-0000-4000-8000-000000000000" for n in range(12)]
    with pytest.raises(AmbiguousIdError) as caught:
        choose_id("aaaa", matches[:10], total=12)
    message = str(caught.value)
    assert "matches 12 entries" in message
    assert message.count("aaaa") == 11  # the prefix itself and ten shown ids
    assert "aaaa0009-0000 and 2 more)" in message
    assert "aaaa000a" not in message


def test_match_id_takes_full_ids_and_unique_prefixes() -> None:
    ids = [A, B, C]
    assert match_id(A.upper(), ids) == A
    assert match_id("87f7", ids) == C
    assert match_id("66453bfd", set(ids)) == B
    with pytest.raises(AmbiguousIdError):
        match_id("6645", ids)
    with pytest.raises(EntryNotFoundError):
        match_id("ffff", ids)
    with pytest.raises(InvalidInputError):
        match_id("66", ids)


@given(st.uuids(), st.integers(min_value=4, max_value=36))
def test_every_prefix_of_a_lone_id_names_it(value: uuid.UUID, size: int) -> None:
    full = str(value)
    assert match_id(full[:size].upper(), [full]) == full
    assert id_reference(full[:size]) == full[:size]
