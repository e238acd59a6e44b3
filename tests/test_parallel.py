"""Work in a forked child: results, errors, and a child that ends before it is asked."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memsite.errors import MemsiteError
from memsite.parallel import Task, can_fork, in_halves

forking = pytest.mark.skipif(not can_fork(), reason="needs fork and two CPUs")


def _big(n: int) -> list[str]:
    return [f"row {i}" for i in range(n)]


def _fails_cleanly() -> None:
    raise MemsiteError("the store is locked: try again")


def _breaks() -> None:
    raise ValueError("bad value")


def _dies() -> None:
    os._exit(3)


def test_inline_without_fork() -> None:
    assert Task(_big, 3, fork=False).result() == ["row 0", "row 1", "row 2"]


def _pids(items: list[int]) -> list[tuple[int, int]]:
    return [(item * 2, os.getpid()) for item in items]


@forking
def test_in_halves_gives_the_whole_answer_in_order_with_half_done_by_a_child() -> None:
    found = in_halves(_pids, list(range(5001)), 100)
    assert [doubled for doubled, _ in found] == [i * 2 for i in range(5001)]
    assert {pid for _, pid in found[:2500]} == {os.getpid()}
    assert {pid for _, pid in found[2500:]} - {os.getpid()}  # marshalled back: still tuples
    assert isinstance(found[-1], tuple)
    assert {pid for _, pid in in_halves(_pids, [1, 2, 3], 100)} == {os.getpid()}  # inline


@forking
def test_a_large_result_does_not_keep_the_child_alive() -> None:
    # Far more than a pipe holds (64 KiB): the child must still end before result().
    task: Task[list[str]] = Task(_big, 200_000, fork=True)
    task._proc.join(timeout=120)
    assert task._proc.exitcode == 0
    assert task.result() == _big(200_000)
    assert task.result() == _big(200_000)  # asked again: the same value, no second read


@forking
def test_a_memsite_error_comes_back_as_one() -> None:
    task: Task[None] = Task(_fails_cleanly, fork=True)
    with pytest.raises(MemsiteError, match="the store is locked"):
        task.result()


@forking
def test_another_error_comes_back_with_its_traceback() -> None:
    task: Task[None] = Task(_breaks, fork=True)
    with pytest.raises(RuntimeError, match=r"ValueError: bad value[\s\S]*_breaks"):
        task.result()


@forking
def test_a_child_that_dies_is_reported() -> None:
    task: Task[None] = Task(_dies, fork=True)
    with pytest.raises(MemsiteError, match=r"a build worker died \(exit code 3\)"):
        task.result()


@forking
def test_a_task_dropped_unasked_lets_go_of_its_file(recwarn: pytest.WarningsRecorder) -> None:
    import gc

    task: Task[list[str]] = Task(_big, 10, fork=True)
    task._proc.join(timeout=120)
    del task
    gc.collect()
    assert not [w for w in recwarn if issubclass(w.category, ResourceWarning)]


PARENT = """
import os, sys, time
from pathlib import Path
from memsite.parallel import Background, Task

def wait_forever(path):
    Path(path).write_text(str(os.getpid()))
    while True:
        time.sleep(0.2)

kind, path = sys.argv[1], sys.argv[2]
worker = Task(wait_forever, path, fork=True) if kind == "task" else Background(wait_forever, path)
while True:
    time.sleep(0.2)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[-1][0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("kind", ["task", "background"])
def test_a_worker_dies_with_a_killed_parent(tmp_path: Path, kind: str) -> None:
    """A build killed with SIGKILL must not leave its workers running (a daemonic child is
    ended only by a parent that exits normally)."""
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen([sys.executable, "-c", PARENT, kind, str(pid_file)])
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline and parent.poll() is None, "no worker started"
            time.sleep(0.05)
        child = int(pid_file.read_text())
        assert _alive(child)
    finally:
        parent.kill()
        parent.wait(timeout=60)
    deadline = time.monotonic() + 60
    while _alive(child):
        assert time.monotonic() < deadline, f"worker {child} outlived its killed parent"
        time.sleep(0.05)
