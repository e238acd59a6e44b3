"""A fact written by one process is read, listed and found by search in fresh processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def memsite(store: Path, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store), *args, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_write_in_one_process_read_list_and_search_in_others(store_root: Path) -> None:
    written = memsite(
        store_root,
        "add",
        "Payments retry three times with jittered backoff",
        "-c",
        "architecture",
        "-t",
        "payments,retries",
    )
    assert written["status"] == "written"
    assert memsite(store_root, "read", written["id"][:8])["content"].startswith("Payments retry")
    assert [e["id"] for e in memsite(store_root, "list")] == [written["id"]]
    hits = memsite(store_root, "search", "jittered backof")
    assert [h["id"] for h in hits] == [written["id"]]
    # a second writer's fact is visible to the next reader too
    other = memsite(
        store_root, "add", "Refunds go through the ledger service", "-c", "architecture"
    )
    assert {e["id"] for e in memsite(store_root, "list")} == {written["id"], other["id"]}
