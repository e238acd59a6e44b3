"""Exact token counts from a forked child that loads the tokenizers while this process goes on.

Loading bpe-openai's two tokenizers costs ~0.07 s (``core.tokens``), and `compact` after one
new fact counted a single line with them: most of a 10k store's compaction. The child is
forked before the index takes in entries/ and loads them on the other core meanwhile; the
lines go down one pipe and their counts come back up another, both marshalled. A child that
cannot answer (killed, no tokenizers, a reply of the wrong shape) gives None, and the caller
counts the lines itself: the counts never depend on which process made them.

The quick `compact` (``cli.quick``, the git hooks' command) starts its child first of all
(:func:`prestart`), before importing and opening the memory (~25 ms more for the child); the
read model takes that child (:func:`prestarted`) or, with nothing to count, kills it. A child
let go before it was asked anything is killed, not waited for: it would finish loading first.
"""

from __future__ import annotations

import contextlib
import importlib.util
import marshal
import os
import signal
from collections.abc import Sequence

Counts = list[tuple[int, int]]
_early: list[CountingChild] = []  # the child :func:`prestart` started, until it is taken


class CountingChild:
    """A forked child holding the tokenizers, for one batch of lines (:meth:`count`)."""

    def __init__(self, pid: int, down: int, up: int) -> None:
        self._pid, self._down, self._up = pid, down, up
        self.status: int | None = None  # how it ended (``os.waitpid``), once reaped

    @classmethod
    def start(cls) -> CountingChild | None:
        """The child, loading the tokenizers; None where forking is unsafe or pointless (no
        ``fork``, one CPU, other threads running, as in ``serve``) or bpe-openai is missing."""
        from memsite.parallel import can_fork

        if not can_fork() or importlib.util.find_spec("bpe_openai") is None:
            return None
        down_read, down_write = os.pipe()
        up_read, up_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            try:
                os.close(down_write)
                os.close(up_read)
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's
                _serve(down_read, up_write)
            finally:
                os._exit(0)
        os.close(down_read)
        os.close(up_write)
        return cls(pid, down_write, up_read)

    def count(self, lines: Sequence[str]) -> Counts | None:
        """The (cl100k, o200k) counts of ``lines``; None when the child could not give them.
        Either way the child is done with afterwards."""
        try:
            _write_all(self._down, marshal.dumps(list(lines)))
        except OSError:
            pass  # the child is gone: its answer is empty
        finally:
            os.close(self._down)
            self._down = -1
        try:
            reply = _read_all(self._up)
        except OSError:
            reply = b""
        self.close()
        try:
            counts = marshal.loads(reply)
        except (EOFError, ValueError, TypeError):
            return None
        if not isinstance(counts, list) or len(counts) != len(lines):
            return None
        if not all(_pair(c) for c in counts):
            return None
        return counts

    def close(self) -> None:
        """Let the child go and reap it: killed when it was never asked (it has nothing to
        give, and would first finish loading the tokenizers), else it ends on the closed
        pipe after its answer."""
        if self._pid and self._down >= 0:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
        for fd in (self._down, self._up):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._down = self._up = -1
        if self._pid:
            with contextlib.suppress(ChildProcessError, OSError):
                self.status = os.waitpid(self._pid, 0)[1]
            self._pid = 0

    def __enter__(self) -> CountingChild:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def prestart() -> None:
    """Start a child now, for the read model to take later (:func:`prestarted`), when one
    can be forked."""
    child = CountingChild.start()
    if child is not None:
        _early.append(child)


def prestarted() -> CountingChild | None:
    """The child :func:`prestart` started, if any, now the caller's to ask or close."""
    return _early.pop() if _early else None


def dismiss() -> None:
    """Kill and reap a started child nobody took (the command failed before counting)."""
    while _early:
        _early.pop().close()


def _serve(down: int, up: int) -> None:
    """In the child: load the tokenizers, then count the lines that come, if any."""
    from memsite.core.tokens import count, load

    loaded = load()
    asked = _read_all(down)
    if not asked:
        return  # the parent had nothing to count, or is gone
    lines = marshal.loads(asked)
    _write_all(up, marshal.dumps(count(lines) if loaded else None))


def _pair(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and all(type(n) is int and n >= 0 for n in value)
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_all(fd: int) -> bytes:
    parts = []
    while chunk := os.read(fd, 1 << 16):
        parts.append(chunk)
    return b"".join(parts)
