"""Parallel writers on one store: nothing lost, nothing torn, even when a writer is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

WRITER = r"""
import sys
from memsite.memory import Memory
memory = Memory.open(sys.argv[1])
worker, count = sys.argv[2], int(sys.argv[3])
for i in range(count):
    # a fresh Memory per write, as separate `memsite add` processes would have
    Memory(memory.store, memory.config).add(
        f"writer {worker} fact {i}: " + "detail " * (i % 7), "operations", tags=[f"w{worker}"]
    )
    if i == 0:
        print("started", flush=True)
"""


def start_writers(store: Path, writers: int, count: int) -> list[subprocess.Popen[str]]:
    return [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(store), str(w), str(count)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]


def entry_files(store: Path) -> list[Path]:
    return sorted((store / "entries").iterdir())


def assert_all_complete(files: list[Path]) -> None:
    for path in files:
        assert path.name.endswith(".json"), f"temporary left behind: {path.name}"
        obj = json.loads(path.read_bytes())
        assert path.name.endswith(f"Z-{obj['id'][:8]}.json")


@pytest.mark.slow
def test_eight_processes_times_200_adds(store_root: Path) -> None:
    procs = start_writers(store_root, 8, 200)
    for proc in procs:
        assert proc.wait(timeout=600) == 0
        assert proc.stdout is not None
        proc.stdout.close()
    files = entry_files(store_root)
    assert len(files) == 1600
    assert_all_complete(files)
    ids = {json.loads(p.read_bytes())["id"] for p in files}
    assert len(ids) == 1600


@pytest.mark.slow
def test_a_killed_writer_leaves_only_complete_files(store_root: Path) -> None:
    procs = start_writers(store_root, 4, 150)
    victim = procs[0]
    assert victim.stdout is not None and victim.stdout.readline().strip() == "started"
    time.sleep(0.3)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    for proc in procs[1:]:
        assert proc.wait(timeout=600) == 0
    for proc in procs:
        assert proc.stdout is not None
        proc.stdout.close()
    files = [p for p in entry_files(store_root) if not p.name.startswith(".")]
    assert 450 <= len(files) < 600
    assert_all_complete(files)
    # At most the killed writer's one in-flight temporary remains; it is never mistaken for
    # an entry, and compaction only removes it once it is stale.
    leftovers = [p for p in entry_files(store_root) if p.name.startswith(".")]
    assert len(leftovers) <= 1
    from memsite.memory import Memory

    memory = Memory.open(str(store_root))
    assert len(memory.state().scan.entries) == len(files)
    assert memory.state().scan.invalid == []
