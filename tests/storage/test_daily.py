"""Daily session logs: one file per UTC date and session, a header written once, one line per
append; listed by file name only (other names and links are not logs)."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from memsite.errors import StorageError
from memsite.storage.daily import append_log, daily_logs, log_lines, session_logs
from memsite.storage.layout import Store

MORNING = datetime(2026, 3, 7, 9, 5, 1, tzinfo=UTC)
EVENING = datetime(2026, 3, 7, 23, 59, 59, tzinfo=UTC)


def test_the_header_is_written_once_then_one_line_per_append(store_root: Path) -> None:
    store = Store(store_root)
    path = append_log(store, "Started the\n  migration", "s1", MORNING)
    assert append_log(store, "Done", "s1", EVENING) == path
    assert path == store.daily_dir / "2026-03-07-s1.md"
    assert path.read_text(encoding="utf-8") == (
        "# Daily log 2026-03-07 (s1)\n\n- 09:05:01Z Started the migration\n- 23:59:59Z Done\n"
    )


def test_each_session_and_date_has_a_file_of_its_own(store_root: Path) -> None:
    store = Store(store_root)
    a = append_log(store, "one", "alpha", MORNING)
    b = append_log(store, "two", "beta", MORNING)
    c = append_log(store, "three", "alpha", datetime(2026, 3, 8, tzinfo=UTC))
    assert len({a, b, c}) == 3
    assert all(p.read_text(encoding="utf-8").count("# Daily log") == 1 for p in (a, b, c))


def test_a_missing_daily_folder_is_created(store_root: Path) -> None:
    store = Store(store_root)
    store.daily_dir.rmdir()
    assert append_log(store, "x", "s", MORNING).is_file()


def test_an_unwritable_daily_folder_is_a_storage_error(store_root: Path) -> None:
    store = Store(store_root)
    store.daily_dir.rmdir()
    store.daily_dir.write_text("a file where the folder should be", encoding="utf-8")
    with pytest.raises(StorageError, match="cannot write to"):
        append_log(store, "x", "s", MORNING)


def test_daily_logs_are_dated_by_name_oldest_first(store_root: Path) -> None:
    store = Store(store_root)
    folder = store.daily_dir
    for name in (
        "2026-03-09-b.md",
        "2026-03-07-a.md",
        "2026-03-08-a.md",
        "2026-13-01-bad-month.md",  # matches the pattern, not a date
        "2026-03-07-UPPER.md",
        "2026-03-07-a.txt",
        "notes.md",
        "2026-03-07-.md",
    ):
        (folder / name).write_text("x\n", encoding="utf-8")
    (folder / "2026-03-10-dir.md").mkdir()
    os.symlink(folder / "2026-03-07-a.md", folder / "2026-03-11-link.md")
    assert daily_logs(store) == [
        (date(2026, 3, 7), folder / "2026-03-07-a.md"),
        (date(2026, 3, 8), folder / "2026-03-08-a.md"),
        (date(2026, 3, 9), folder / "2026-03-09-b.md"),
    ]
    assert session_logs(store) == {
        "a": [
            (date(2026, 3, 7), folder / "2026-03-07-a.md"),
            (date(2026, 3, 8), folder / "2026-03-08-a.md"),
        ],
        "b": [(date(2026, 3, 9), folder / "2026-03-09-b.md")],
    }


def test_no_daily_folder_means_no_logs(store_root: Path) -> None:
    store = Store(store_root)
    store.daily_dir.rmdir()
    assert daily_logs(store) == [] and session_logs(store) == {}


@pytest.mark.parametrize(
    ("data", "limit", "expected"),
    [
        (b"# head\n\n- one\n- two\n", 1000, ["# head", "", "- one", "- two"]),
        (b"- bad \xff byte\n", 1000, ["- bad \ufffd byte"]),
        (b"x" * 11, 10, []),  # over the limit: skipped, never read
        (b"x" * 10, 10, ["x" * 10]),
    ],
)
def test_log_lines(tmp_path: Path, data: bytes, limit: int, expected: list[str]) -> None:
    path = tmp_path / "log.md"
    path.write_bytes(data)
    assert log_lines(path, limit) == expected


def test_log_lines_of_a_missing_file_is_empty(tmp_path: Path) -> None:
    assert log_lines(tmp_path / "gone.md") == []
