"""Run work on the other core: a function in a forked child, its result sent back pickled.

Forking shares the parent's memory (the compaction, the rendered frames) without pickling it.
Where forking is unsafe or pointless (no ``fork``, one CPU, other threads running — as in
``serve``), the same call runs inline, so callers never branch. multiprocessing, pickle and
tempfile (~20 ms to import) are loaded only when a child is forked: a caller whose batch is
too small to split, or that only asks :func:`can_fork`, does not pay for them.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from memsite.errors import MemsiteError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

T = TypeVar("T")


def can_fork() -> bool:
    """True when a forked child may do work: fork exists, 2+ CPUs, no other threads (a
    process that never imported threading never started one)."""
    threading = sys.modules.get("threading")
    return (
        hasattr(os, "fork")
        and (os.cpu_count() or 1) > 1
        and (threading is None or threading.active_count() == 1)
    )


def freeze_for_fork(fork: bool = True) -> bool:
    """Before a fork: the objects made so far are left out of garbage collection, so that a
    collection in either process does not write to (and so copy) the pages both share. The
    caller unfreezes (``gc.unfreeze``) once its workers are done."""
    if fork:
        gc.freeze()
    return fork


def die_with_parent(parent: int) -> None:
    """In a forked child: be killed when the parent dies, however it dies (a daemonic child
    is ended only by a parent that exits normally; a killed build left its workers running).
    Linux's PR_SET_PDEATHSIG; elsewhere nothing. ``parent``: its pid, read before the fork,
    for the parent that died before the request was made."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


_PR_SET_PDEATHSIG = 1


def _child(
    func: Callable[..., Any], args: tuple[Any, ...], conn: Connection, out: Any, parent: int
) -> None:
    import pickle
    import traceback

    die_with_parent(parent)
    # Ctrl-C is the parent's to handle: a worker just ends with it (daemonic, it is reaped).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        # The result goes to a file, not down the pipe: a large one would fill the pipe and
        # keep the worker (and all the memory it holds) alive until the parent reads it.
        pickle.dump(("ok", func(*args)), out, protocol=pickle.HIGHEST_PROTOCOL)
    except MemsiteError as exc:
        pickle.dump(("memsite", str(exc)), out)
    except BaseException as exc:  # reported to the parent, which re-raises it
        with contextlib.suppress(Exception):
            out.seek(0)
            out.truncate()
            pickle.dump(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"), out)
    finally:
        with contextlib.suppress(OSError):
            out.flush()
            conn.send_bytes(b"done")
        conn.close()


class Task(Generic[T]):
    """``func(*args)`` in a forked child when :func:`can_fork`, else right away, inline.

    The child writes its result to an unnamed temporary file and ends as soon as it has, so
    its memory is freed before the parent asks for the result."""

    def __init__(self, func: Callable[..., T], *args: Any, fork: bool | None = None) -> None:
        self._value: T | None = None
        self._done = False
        self._proc: Any = None
        self._conn: Connection | None = None
        self._out: Any = None
        if fork is None:
            fork = can_fork()
        if fork:
            import multiprocessing
            import tempfile

            context = multiprocessing.get_context("fork")
            reader, writer = context.Pipe(duplex=False)
            self._out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by result()
            self._proc = context.Process(
                target=_child, args=(func, args, writer, self._out, os.getpid()), daemon=True
            )
            self._proc.start()
            writer.close()
            self._conn = reader
        else:
            self._value = func(*args)
            self._done = True

    def result(self) -> T:
        if not self._done:
            import pickle

            assert self._conn is not None
            try:
                self._conn.recv_bytes()
                self._out.seek(0)
                kind, *payload = pickle.load(self._out)
            except (EOFError, pickle.UnpicklingError):
                self._proc.join()
                raise MemsiteError(
                    f"a build worker died (exit code {self._proc.exitcode}): run the build again"
                ) from None
            finally:
                self._conn.close()
                self._out.close()
                self._out = None
            self._proc.join()
            if kind == "memsite":
                raise MemsiteError(payload[0])
            if kind == "error":
                raise RuntimeError(f"build worker failed: {payload[0]}")
            self._value = payload[0]
            self._done = True
        return self._value  # type: ignore[return-value]

    def __del__(self) -> None:
        # Dropped before its result was asked for (the caller failed meanwhile): let go of
        # the file quietly, as a Connection does.
        out = getattr(self, "_out", None)
        if out is not None:
            out.close()


def in_halves(
    func: Callable[[Sequence[Any]], list[T]], items: Sequence[Any], least: int
) -> list[T]:
    """``func(items)``, from ``least`` items on with the second half done meanwhile in a
    forked child (:class:`Task`); its answer comes back marshalled (about a tenth of pickle's
    cost for big lists), so ``func`` must give plain values."""
    if len(items) < least or not can_fork():
        return func(items)
    half = len(items) // 2
    other = Task(_marshalled, func, items[half:])
    mine = func(items[:half])
    rest: list[T] = marshal.loads(other.result())
    return mine + rest


def _marshalled(func: Callable[[Sequence[Any]], list[Any]], items: Sequence[Any]) -> bytes:
    return marshal.dumps(func(items))


class Gate:
    """Holds a forked child until its parent says go: one byte down a pipe, ``1`` to go on,
    ``0`` (or the pipe closed, should the parent fail first) to give up. A context manager
    for the parent's end."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()

    def open(self, go: bool) -> None:
        os.write(self._write, b"1" if go else b"0")

    def wait(self) -> bool:
        """In the child: True once the parent says go."""
        os.close(self._write)  # the child's copy: EOF, should the parent die
        self._write = -1
        with contextlib.suppress(OSError):
            return os.read(self._read, 1) == b"1"
        return False

    def __enter__(self) -> Gate:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in (self._read, self._write):
            if fd >= 0:
                os.close(fd)
        self._read = self._write = -1


class Background:
    """``func(*args)`` in a forked child whose result nobody needs (work that only helps, such
    as warming the page cache): ``stop()`` ends it if it is still running."""

    def __init__(self, func: Callable[..., Any], *args: Any) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._proc = context.Process(target=_quietly, args=(func, args, os.getpid()), daemon=True)
        self._proc.start()

    def stop(self) -> None:
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()


def _quietly(func: Callable[..., Any], args: tuple[Any, ...], parent: int) -> None:
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(Exception):
        func(*args)
