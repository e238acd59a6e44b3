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
    assert [p for p in entry_files(store_root) if p.name.startswith(".")] == []
    leftovers = list((store_root / "cache" / "tmp").glob(".*.tmp"))
    assert len(leftovers) <= 1  # in a folder git ignores
    from memsite.memory import Memory

    memory = Memory.open(str(store_root))
    assert len(memory.state().scan.entries) == len(files)
    assert memory.state().scan.invalid == []


RACER = r"""
import sys, time
from pathlib import Path
from memsite.cli.main import main
start = Path(sys.argv[2])
while not start.exists():  # every racer is ready before any writes
    time.sleep(0.001)
main(["--store", sys.argv[1], "add", "Releases are cut from main every Tuesday", "-c",
      "operations", "--json"])
"""


@pytest.mark.slow
def test_racing_identical_writes_land_once(store_root: Path, tmp_path: Path) -> None:
    start = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(store_root), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    start.touch()
    answers = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        answers.append(json.loads(out)["status"])
    assert sorted(answers) == ["duplicate"] * 7 + ["written"]
    assert len(entry_files(store_root)) == 1


def test_racing_identical_mcp_writes_land_once(store_root: Path) -> None:
    import threading

    from memsite.memory import Memory
    from memsite.storage.layout import Store

    store = Store(store_root)
    barrier = threading.Barrier(8)
    answers: list[str] = []

    def write() -> None:
        memory = Memory(store, store.load_config())  # what each memory_write call opens
        barrier.wait(timeout=60)
        answers.append(memory.add("Pin Node 22 in CI", "operations")["status"])

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(answers) == ["duplicate"] * 7 + ["written"]
    assert len(entry_files(store_root)) == 1
