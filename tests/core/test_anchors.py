"""Anchors and records as read from untrusted files, and where an anchor stands today."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.anchors import (
    CHANGED,
    MOVED,
    UNCHANGED,
    blob_id,
    check_path,
    locate,
    make_anchor,
    parse_spec,
    read_anchors,
)
from memsite.core.records import build_record, record_from_object
from memsite.errors import InvalidEntryFileError, InvalidInputError
from tests.oracles import parse_entry

SOURCE = b"import os\n\ndef connect():\n    return 'postgres'\n\nPORT = 5432\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
@pytest.mark.parametrize("data", [b"", SOURCE, "héllo\r\n".encode(), bytes(range(256))])
def test_blob_id_is_what_git_hash_object_prints(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "file"
    path.write_bytes(data)
    done = subprocess.run(
        ["git", "hash-object", "--no-filters", str(path)], capture_output=True, text=True
    )
    assert blob_id(data) == done.stdout.strip()


def test_a_whole_file_anchor_drifts_on_any_edit() -> None:
    anchor = make_anchor("src/db.py", SOURCE, None)
    assert anchor.lines is None and anchor.span is None
    assert locate(anchor, SOURCE).state == UNCHANGED
    assert locate(anchor, SOURCE + b"# comment\n").state == CHANGED


def test_a_span_anchor_drifts_only_when_its_lines_change() -> None:
    anchor = make_anchor("src/db.py", SOURCE, (3, 4))
    edited_elsewhere = SOURCE.replace(b"PORT = 5432", b"PORT = 6543")
    assert locate(anchor, edited_elsewhere).state == UNCHANGED
    reindented = SOURCE.replace(b"    return", b"\treturn  ")  # whitespace is normalized
    assert locate(anchor, reindented).state == UNCHANGED
    moved = b'"""Database access."""\n\n' + SOURCE
    found = locate(anchor, moved)
    assert (found.state, found.lines) == (MOVED, (5, 6))
    changed = SOURCE.replace(b"'postgres'", b"'mysql'")
    assert locate(anchor, changed).state == CHANGED


def test_a_span_found_twice_is_the_nearest_copy() -> None:
    block = b"def connect():\n    return 1\n"
    data = block + b"\n" * 10 + block
    anchor = make_anchor("a.py", data, (12, 13))
    assert locate(anchor, b"# x\n" + data).lines == (13, 14)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("src/db.py", ("src/db.py", None)),
        ("src/db.py:3-4", ("src/db.py", (3, 4))),
        ("src/db.py:7", ("src/db.py", (7, 7))),
        ("c:/x.py:2-3", ("c:/x.py", (2, 3))),
    ],
)
def test_specs(spec: str, expected: tuple[str, tuple[int, int] | None]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["", "   ", "a.py:4-3", "a.py:0-2"])
def test_bad_specs_say_how_to_write_one(spec: str) -> None:
    with pytest.raises(InvalidInputError, match="anchor"):
        parse_spec(spec)


def test_lines_past_the_end_or_blank_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="past the end"):
        make_anchor("a.py", SOURCE, (5, 40))
    with pytest.raises(InvalidInputError, match="blank"):
        make_anchor("a.py", SOURCE, (2, 2))


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "../outside", "a/../../b", "a//b", "./a", "C:/x", "a\\..\\b", "a\x00b", ""],
)
def test_paths_that_could_leave_the_project_are_refused(path: str) -> None:
    with pytest.raises(ValueError):
        check_path(path)
    item = {"path": path, "blob": "0" * 40}
    with pytest.raises(InvalidEntryFileError):
        read_anchors([item])


def test_an_entry_with_a_hostile_anchor_is_invalid() -> None:
    obj = {
        "id": "a1b2c3d4-5678-40ab-8def-1234567890ab",
        "category": "conventions",
        "content": "x",
        "created": "2026-03-07T14:30:00Z",
        "anchors": [{"path": "../../etc/passwd", "blob": "0" * 40}],
    }
    with pytest.raises(InvalidEntryFileError, match="anchor path"):
        parse_entry(json.dumps(obj).encode(), "x.json")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@given(JSON)
def test_any_anchors_value_is_read_or_refused_with_a_reason(value: object) -> None:
    try:
        anchors = read_anchors(value)
    except InvalidEntryFileError:
        return
    for anchor in anchors:
        assert check_path(anchor.path) == anchor.path


@given(
    st.dictionaries(
        st.sampled_from(
            [
                "record",
                "id",
                "target",
                "created",
                "other",
                "type",
                "evidence",
                "reason",
                "anchors",
                "agent",
            ]
        ),
        JSON,
    )
)
def test_any_record_object_is_read_or_refused_with_a_reason(obj: dict[str, object]) -> None:
    try:
        record = record_from_object(obj)
    except InvalidEntryFileError:
        return
    assert record.kind in ("verify", "retire", "relate")


def test_records_round_trip() -> None:
    from datetime import UTC, datetime

    anchor = make_anchor("src/db.py", SOURCE, (3, 4))
    obj = build_record(
        "verify",
        "a1b2c3d4-5678-40ab-8def-1234567890ab",
        datetime(2026, 3, 7, tzinfo=UTC),
        text="checked against db.py",
        anchors=[anchor],
    )
    record = record_from_object(json.loads(json.dumps(obj)), "r.json")
    assert record.kind == "verify" and record.text == "checked against db.py"
    assert record.anchors == (anchor,)
    relate = build_record(
        "relate",
        "a1b2c3d4-5678-40ab-8def-1234567890ab",
        datetime(2026, 3, 7, tzinfo=UTC),
        other="b1b2c3d4-5678-40ab-8def-1234567890ab",
        link="refines",
    )
    assert record_from_object(relate).link == "refines"
    with pytest.raises(InvalidEntryFileError, match="type"):
        record_from_object({**relate, "type": "owns"})


def test_an_anchor_past_the_end_counts_one_line_in_the_singular() -> None:
    with pytest.raises(InvalidInputError, match=r"past the end of the file \(1 line\)$"):
        make_anchor("a.py", b"x = 1\n", (1, 2))
