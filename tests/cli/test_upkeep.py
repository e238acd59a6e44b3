"""The commands that keep the memory in shape: compact, status, context, review."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.helpers import add
from tests.conftest import Invoke, make_entry, write_raw


def test_compact_writes_views_and_is_byte_deterministic(runner: Invoke, store_root: Path) -> None:
    add(runner, "Use pnpm", "-t", "tooling")
    runner("add", "Deploy on Tuesdays", "-c", "operations")
    assert runner("compact", "--quiet").stdout == ""
    index = (store_root / "index.md").read_bytes()
    views = {p.name: p.read_bytes() for p in (store_root / "compacted").iterdir()}
    assert index.startswith(b"<!-- Auto-generated. Do not edit. Rebuild: memsite compact -->")
    assert b"## Conventions\n- Use pnpm\n" in index and b"## Operations" in index
    assert b"## Architecture" not in index
    assert "conventions.md" in views and b"Use pnpm" in views["conventions.md"]
    for path in [store_root / "index.md", *(store_root / "compacted").iterdir()]:
        path.unlink()
    runner("compact", "--quiet")
    assert (store_root / "index.md").read_bytes() == index
    assert {p.name: p.read_bytes() for p in (store_root / "compacted").iterdir()} == views


def test_status_reports_staleness(runner: Invoke) -> None:
    add(runner, "fact one")
    assert runner("status", "--json").json()["derived"] == "stale"
    runner("compact", "-q")
    status = runner("status", "--json").json()
    assert status["derived"] == "fresh" and status["active"] == 1
    assert status["categories"]["conventions"]["active"] == 1
    add(runner, "fact two")
    assert runner("status", "--json").json()["derived"] == "stale"


def test_context_compacts_when_stale_and_honours_budget(runner: Invoke, store_root: Path) -> None:
    for i in range(40):
        add(runner, f"Convention number {i} says something rather long about the codebase")
    text = runner("context").stdout
    assert (store_root / "index.md").read_text() == text
    small = runner("context", "--budget", "60").stdout
    assert len(small) < len(text)
    hook = runner("context", "--format", "claude-hook").json()
    assert hook["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Convention number 39" in hook["hookSpecificOutput"]["additionalContext"]


def test_review_reports_malformed_files_and_leaves_them(runner: Invoke, store_root: Path) -> None:
    add(runner, "good fact")
    entries = store_root / "entries"
    bad = {
        "2026-01-01T00-00-00Z-aaaaaaaa.json": b'{"id": "trunc',
        "2026-01-01T00-00-01Z-bbbbbbbb.json": b"<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> b\n",
        "2026-01-01T00-00-02Z-cccccccc.json": json.dumps(
            {
                "id": "cccccccc-0000-4000-8000-000000000000",
                "category": "conventions",
                "content": ["wrong"],
                "created": "2026-01-01T00:00:02Z",
            }
        ).encode(),
        "2026-01-01T00-00-03Z-dddddddd.json": b"\xff\xfe\x00bad",
    }
    for name, data in bad.items():
        (entries / name).write_bytes(data)
    os.symlink("/etc/hostname", entries / "2026-01-01T00-00-04Z-eeeeeeee.json")
    findings = runner("review", "--json").json()["findings"]
    invalid = sorted(f["files"][0] for f in findings if f["kind"] == "invalid_file")
    assert invalid == sorted([*bad, "2026-01-01T00-00-04Z-eeeeeeee.json"])
    assert runner("review", "--strict").exit_code == 1
    compacted = runner("compact", "--json")
    assert compacted.exit_code == 0 and compacted.json()["invalid"] == 5
    assert [r["content"] for r in runner("list", "--json").json()] == ["good fact"]
    for name, data in bad.items():
        assert (entries / name).read_bytes() == data
    assert (entries / "2026-01-01T00-00-04Z-eeeeeeee.json").is_symlink()


def test_review_reports_unknown_category_and_future_time(runner: Invoke, store_root: Path) -> None:
    write_raw(
        store_root, make_entry("odd", category="misc", id="11111111-1111-4111-8111-111111111111")
    )
    write_raw(
        store_root,
        make_entry(
            "later", created="2999-01-01T00:00:00.000Z", id="22222222-2222-4222-8222-222222222222"
        ),
    )
    kinds = sorted(f["kind"] for f in runner("review", "--json").json()["findings"])
    assert kinds == ["future_timestamp", "unknown_category"]
