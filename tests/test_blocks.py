"""Marked blocks in files someone else owns: added, replaced and removed exactly, the owner's
text around them restored byte for byte."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memsite.blocks import add_block, find_block, remove_block
from memsite.errors import InvalidInputError

BEGIN = "<!-- memsite:begin -->"
END = "<!-- memsite:end -->"
BLOCK = f"{BEGIN}\nRead .memsite/index.md first.\n{END}"
OTHER = f"{BEGIN}\nA second version of the block.\n{END}"

texts = st.text(alphabet=st.sampled_from("ab <!->memsite:begnd\n\r#"), max_size=60)


@given(texts)
def test_add_then_remove_restores_the_text_exactly(text: str) -> None:
    assume(BEGIN not in text)
    added, separator = add_block(text, BLOCK, BEGIN, END)
    assert added.startswith(text) and added.endswith(BLOCK + "\n")
    assert remove_block(added, BEGIN, END, separator) == text


@given(texts)
def test_a_second_add_replaces_the_block_and_keeps_the_first_separator(text: str) -> None:
    assume(BEGIN not in text)
    first, separator = add_block(text, BLOCK, BEGIN, END)
    second, again = add_block(first, OTHER, BEGIN, END)
    assert again == "" and second.count(BEGIN) == 1 and OTHER in second and BLOCK not in second
    assert add_block(second, OTHER, BEGIN, END)[0] == second  # idempotent
    assert remove_block(second, BEGIN, END, separator) == text


@pytest.mark.parametrize(
    ("text", "expected", "separator"),
    [
        (None, BLOCK + "\n", ""),
        ("", BLOCK + "\n", ""),
        ("owner\n\n", f"owner\n\n{BLOCK}\n", ""),
        ("owner\n", f"owner\n\n{BLOCK}\n", "\n"),
        ("owner", f"owner\n\n{BLOCK}\n", "\n\n"),
    ],
)
def test_add_separates_the_block_with_one_blank_line(
    text: str | None, expected: str, separator: str
) -> None:
    assert add_block(text, BLOCK, BEGIN, END) == (expected, separator)


def test_a_block_in_the_middle_is_replaced_in_place() -> None:
    text = f"head\n{BLOCK}\ntail\n"
    assert add_block(text, OTHER, BEGIN, END) == (f"head\n{OTHER}\ntail\n", "")
    assert remove_block(text, BEGIN, END, "") == "head\ntail\n"


def test_a_begin_marker_inside_a_line_is_not_a_block() -> None:
    text = f"Do not edit the part after {BEGIN} by hand.\n"
    assert find_block(text, BEGIN, END) is None
    added, separator = add_block(text, BLOCK, BEGIN, END)
    assert added == text + "\n" + BLOCK + "\n" and separator == "\n"
    assert remove_block(text, BEGIN, END, None) == text


@pytest.mark.parametrize(
    ("text", "span"),
    [
        (f"{BLOCK}\nrest", (0, len(BLOCK) + 1)),
        (f"{BLOCK}\r\nrest", (0, len(BLOCK) + 2)),
        (f"x\n{BLOCK}", (2, 2 + len(BLOCK))),
        (f"x {BEGIN}\n{BLOCK}\n", (2 + len(BEGIN) + 1, 2 + len(BEGIN) + 1 + len(BLOCK) + 1)),
    ],
)
def test_find_block_spans_the_begin_line_to_the_end_line(text: str, span: tuple[int, int]) -> None:
    assert find_block(text, BEGIN, END) == span


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"owner\n\n{BLOCK}\n", "owner\n"),  # no record: the blank line an install added goes
        (f"owner\n{BLOCK}\n", "owner\n"),
        (f"{BLOCK}\nowner\n", "owner\n"),
        ("no block here\n", "no block here\n"),
    ],
)
def test_remove_without_a_record_drops_the_installed_blank_line(text: str, expected: str) -> None:
    assert remove_block(text, BEGIN, END, None) == expected


@pytest.mark.parametrize(
    "call",
    [
        lambda t: find_block(t, BEGIN, END),
        lambda t: add_block(t, BLOCK, BEGIN, END),
        lambda t: remove_block(t, BEGIN, END, ""),
    ],
)
def test_a_begin_without_an_end_is_refused(call: object) -> None:
    text = f"owner\n{BEGIN}\nhalf a block, its end deleted\n"
    with pytest.raises(InvalidInputError, match="has no"):
        call(text)  # type: ignore[operator]
