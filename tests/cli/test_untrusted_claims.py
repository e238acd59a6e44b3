"""Hostile records and anchors, end to end: every command (reconcile and check too) ends
without a traceback, still shows the good fact, reads no file outside the project and writes
nothing outside the store."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.core.anchors import blob_id
from tests.cli.test_untrusted_store import (
    GOOD_ID,
    check_confined,
    invoke,
    json_values,
    project,
    run_everything,
    tree,
)
from tests.conftest import make_entry, write_raw
from tests.core.test_untrusted import PATH_TRICKS

RECORD_KEYS = ("record", "id", "target", "created", "other", "type", "evidence", "reason")
RECORD_KEYS += ("anchors", "agent")


OTHER_ID = "6000d000-0000-4000-8000-00000000000f"  # a fact that may not exist


def record(**fields: object) -> dict[str, object]:
    """A record about another fact than the good one (a retire record naming the good fact
    would withdraw it, as it should: records from other branches are data, not attacks)."""
    obj: dict[str, object] = {
        "record": "verify",
        "id": "6000d000-0000-4000-8000-000000000001",
        "target": OTHER_ID,
        "created": "2026-03-08T10:00:00.000Z",
    }
    obj.update(fields)
    return obj


def hostile_record(field: str, value: object, kind: str) -> bytes:
    obj = record(record=kind)
    obj[field] = value
    return json.dumps(obj).encode()


hostile_records = st.builds(
    hostile_record,
    st.sampled_from(RECORD_KEYS),
    json_values,
    st.sampled_from(("verify", "retire", "relate", "unknown")),
)
hostile_anchors = st.builds(
    lambda path, value: json.dumps(
        {
            **make_entry("Anchored, maybe", id="5000d000-0000-4000-8000-000000000001"),
            "anchors": [{"path": path, "blob": "0" * 40, "lines": value, "span": "1" * 40}],
        }
    ).encode(),
    st.sampled_from(PATH_TRICKS) | st.text(max_size=20),
    json_values,
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.lists(hostile_records | hostile_anchors, min_size=1, max_size=3))
def test_any_records_and_anchors_leave_every_command_working(files: list[bytes]) -> None:
    with project() as store:
        for number, data in enumerate(files):
            name = f"2026-01-01T00-00-0{number}Z-hostile{number}.json"
            (store / "entries" / name).write_bytes(data)
        outside, entries = tree(store.parent, skip=store), tree(store / "entries")
        run_everything(store)
        for args in (["reconcile", "--json"], ["read", GOOD_ID, "--json"]):
            result = invoke(store, *args)
            assert result.exit_code in (0, 1) and "Traceback" not in result.stderr, args
        check_confined(store, outside, entries)


def test_an_anchor_through_a_symlink_out_of_the_project_reads_nothing() -> None:
    with project() as store:
        root = store.parent
        outside = root.parent / f"{root.name}-outside.txt"
        outside.write_text("a secret outside the project\n")
        try:
            os.symlink(outside, root / "evil.txt")
            obj = make_entry("Tied to a link", id="5000d000-0000-4000-8000-000000000002")
            obj["anchors"] = [{"path": "evil.txt", "blob": blob_id(outside.read_bytes())}]
            write_raw(store, obj)
            result = invoke(store, "reconcile", "--json")
            assert result.exit_code == 1  # the link leaves the project: missing, not unchanged
            (fact,) = result.json()["facts"]
            assert fact["anchors"][0]["state"] == "missing"
            link = str(root / "evil.txt")
            refused = invoke(store, "add", "y", "-c", "conventions", "--anchor", link)
            assert refused.exit_code == 1 and "no such file in the project" in refused.stderr
        finally:
            outside.unlink()


def test_check_survives_hostile_files_in_a_pull_request() -> None:
    with project() as store:
        root = store.parent
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
        subprocess.run([*git, "add", "-A"], cwd=root, check=True)
        subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)
        subprocess.run([*git, "checkout", "-qb", "pr"], cwd=root, check=True)
        bad = [
            record(record="relate", target=GOOD_ID, other=GOOD_ID, type="owns"),
            record(anchors=[{"path": "../../etc/passwd", "blob": "0" * 40}]),
            {"record": "retire", "target": "../x"},
        ]
        for number, obj in enumerate(bad):
            name = f"2026-01-02T00-00-0{number}Z-bad{number}.json"
            (store / "entries" / name).write_text(json.dumps(obj))
        subprocess.run([*git, "add", "-A"], cwd=root, check=True)
        subprocess.run([*git, "commit", "-qm", "pr"], cwd=root, check=True)
        result = invoke(store, "check", "--base", "main", "--json")
        assert result.exit_code == 1 and "Traceback" not in result.stderr
        problems = result.json()["problems"]
        assert [p["kind"] for p in problems] == ["invalid_file"] * 3
