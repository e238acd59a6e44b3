"""Work in a forked child: results, errors, and a child that ends before it is asked."""

from __future__ import annotations

import os

import pytest

from memsite.errors import MemsiteError
from memsite.parallel import Task, can_fork

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
