"""Daily-log lines: how a line is written and read back, which lines a session carries over,
and the carry-over section kept within its token budget."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.estimate import estimate_tokens
from memsite.core.sessions import KINDS, LogLine, carried, carryover_text, log_text, parse_line

TASK = LogLine("10:00:00", "task", "write the tests")
DECISION = LogLine("10:05:00", "decision", "use pytest")
BUG = LogLine("10:06:00", "task", "fix the bug in parse_line")
HEAD = "\n## Last session (s1, 2026-03-07)\n"


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        ("- 09:15:00Z plain note", LogLine("09:15:00", "note", "plain note")),
        ("- 09:15:00Z [task] write tests", LogLine("09:15:00", "task", "write tests")),
        ("- 09:15:00Z [done] write tests", LogLine("09:15:00", "done", "write tests")),
        ("- 09:15:00Z [decision] use pytest", LogLine("09:15:00", "decision", "use pytest")),
        ("- 09:15:00Z [note] literal", LogLine("09:15:00", "note", "[note] literal")),
        ("- 09:15:00Z [todo] x", LogLine("09:15:00", "note", "[todo] x")),
        ("- 09:15:00Z ", LogLine("09:15:00", "note", "")),
        ("- 9:15:00Z note", None),
        ("- 09:15:00 note", None),
        ("* 09:15:00Z note", None),
        ("## 2026-03-07", None),
        ("", None),
    ],
)
def test_parse_line(line: str, parsed: LogLine | None) -> None:
    assert parse_line(line) == parsed


@pytest.mark.parametrize(
    ("kind", "text", "written"),
    [
        ("note", "  saw   a\nthing ", "saw a thing"),
        ("task", "write\ttests", "[task] write tests"),
        ("done", "write tests", "[done] write tests"),
        ("decision", "use pytest", "[decision] use pytest"),
    ],
)
def test_log_text(kind: str, text: str, written: str) -> None:
    assert log_text(kind, text) == written


PIECES = st.sampled_from(["[task]", "[done]", "[decision]", "[note]", "use", "x1", " ", "\t", "\n"])


@given(st.sampled_from(KINDS), st.lists(PIECES, max_size=6).map("".join))
def test_a_written_line_reads_back(kind: str, text: str) -> None:
    parsed = parse_line(f"- 12:00:00Z {log_text(kind, text)}")
    folded = " ".join(text.split())
    assert parsed is not None
    marked = next((k for k in KINDS[1:] if folded.startswith(f"[{k}] ")), None)
    if kind == "note" and marked is not None:  # a note that starts like a marked line
        assert (parsed.kind, parsed.text) == (marked, folded.removeprefix(f"[{marked}] "))
    else:
        assert (parsed.kind, parsed.text) == (kind, folded)


def test_done_closes_the_task_with_the_same_text() -> None:
    lines = [
        TASK,
        LogLine("10:01:00", "note", "looked around"),
        DECISION,
        BUG,
        LogLine("10:07:00", "done", "write the tests"),
        LogLine("10:08:00", "done", "fix the bug"),  # not the same text: nothing closed
    ]
    assert carried(lines) == [DECISION, BUG]
    assert carried([LogLine("1", "done", "x"), LogLine("2", "task", "x")]) == [
        LogLine("2", "task", "x")
    ]
    assert carried([LogLine("1", "decision", "x"), LogLine("2", "done", "x")]) == [
        LogLine("1", "decision", "x")
    ]


def test_carryover_keeps_the_newest_lines_within_the_budget() -> None:
    lines = [TASK, DECISION, BUG]
    full = (
        HEAD
        + "- [task] write the tests\n- [decision] use pytest\n- [task] fix the bug in parse_line\n"
    )
    assert carryover_text("s1", "2026-03-07", lines, 1000) == full
    budget = estimate_tokens(full) - 1
    shorter = carryover_text("s1", "2026-03-07", lines, budget)
    assert shorter == HEAD + "- [decision] use pytest\n- [task] fix the bug in parse_line\n"
    assert (
        carryover_text("s1", "2026-03-07", lines, estimate_tokens(HEAD + "- [task] x\n") - 1) == ""
    )
    assert carryover_text("s1", "2026-03-07", [], 1000) == ""


@given(st.integers(min_value=0, max_value=120))
def test_carryover_never_exceeds_its_budget(budget: int) -> None:
    lines = [TASK, DECISION, BUG, LogLine("11:00:00", "decision", "ship on Friday")]
    text = carryover_text("s1", "2026-03-07", lines, budget)
    assert estimate_tokens(text) <= budget
    if text:
        bullets = text.removeprefix(HEAD).splitlines()
        expected = [f"- [{line.kind}] {line.text}" for line in lines]
        assert bullets == expected[len(expected) - len(bullets) :]  # the newest, in order
