"""The counting child (``memsite.counting``): it loads the tokenizers while `compact` takes in
entries/, and its counts are the tokenizers' own; a child that cannot answer gives None and
the caller counts the lines itself, so that the stored counts never depend on it."""

from __future__ import annotations

import marshal
import os
import signal
import sqlite3
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite import counting
from memsite.core import tokens
from memsite.counting import CountingChild
from memsite.parallel import can_fork
from tests.conftest import Clock
from tests.storage.readmodel.test_facade import open_memory
from tests.storage.readmodel.test_views import real

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs fork, two CPUs and no threads")


def reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(max_size=300), max_size=12))
def test_the_child_counts_as_the_tokenizers_do(lines: list[str]) -> None:
    child = CountingChild.start()
    assert child is not None
    pid = child._pid
    assert child.count(lines) == tokens.count(lines)
    assert reaped(pid)  # done with, and reaped


def test_a_child_with_nothing_to_count_ends_and_is_reaped() -> None:
    child = CountingChild.start()
    assert child is not None
    pid = child._pid
    child.close()
    assert reaped(pid)
    child.close()  # twice is harmless


def test_a_killed_child_gives_none() -> None:
    child = CountingChild.start()
    assert child is not None
    os.kill(child._pid, signal.SIGKILL)
    assert child.count(["- a fact\n"]) is None


@pytest.mark.parametrize(
    "reply",
    [
        b"",
        b"\x00garbage",
        marshal.dumps(None),  # no tokenizers in the child
        marshal.dumps([(1, 2)]),  # one count for two lines
        marshal.dumps([(1, 2), (3,)]),
        marshal.dumps([(1, 2), (3, -4)]),
        marshal.dumps([(1, 2), (3, "4")]),
        marshal.dumps([(1, 2), [3, 4]]),
    ],
)
def test_a_reply_of_the_wrong_shape_gives_none(reply: bytes) -> None:
    down_read, down_write = os.pipe()
    up_read, up_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(down_write)
            os.close(up_read)
            while os.read(down_read, 1 << 16):
                pass
            os.write(up_write, reply)
        finally:
            os._exit(0)
    os.close(down_read)
    os.close(up_write)
    child = CountingChild(pid, down_write, up_read)
    assert child.count(["- one\n", "- two\n"]) is None
    assert reaped(pid)


def test_no_child_where_forking_is_unsafe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threading, "active_count", lambda: 2)  # as under `serve`
    assert CountingChild.start() is None


def test_compact_counts_through_the_child_or_itself_alike(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After one add, compact's child counts the new line; with the child killed first, the
    same counts are made here."""
    answers: list[object] = []
    asked = CountingChild.count

    kills = [False, True]  # the second child is killed before it answers

    def spied(self: CountingChild, lines: list[str]) -> object:
        if kills.pop(0):
            os.kill(self._pid, signal.SIGKILL)
        answers.append(asked(self, lines))
        return answers[-1]

    monkeypatch.setattr(CountingChild, "count", spied)
    clock = Clock()
    for text in ("Deploys go through ArgoCD", "Use pnpm, never npm"):
        open_memory(store_root, clock).add(text, "operations")
        open_memory(store_root, clock).compact()
        clock.tick(minutes=1)
    bullets = ["- Deploys go through ArgoCD\n", "- Use pnpm, never npm\n"]
    assert answers == [[tuple(real(bullets[0]))], None]
    db = sqlite3.connect(store_root / "cache" / "index.sqlite3")
    try:
        found = db.execute("SELECT index_bullet, cl100k, o200k FROM entries").fetchall()
    finally:
        db.close()
    assert sorted(found) == sorted((b, *real(b)) for b in bullets)
    # Nothing left to count: the next compact forks no child.
    started: list[object] = []
    start = CountingChild.start
    monkeypatch.setattr(CountingChild, "start", lambda: started.append(1) or start())
    open_memory(store_root, clock).compact()
    assert started == []


def test_the_child_is_forked_before_a_new_file_is_taken_in(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that arrived by git: the child loads the tokenizers while the index takes it
    in (forked after the sync, it overlapped nothing: at 100k the sync is ~0.2 s)."""
    from memsite.storage.readmodel import ingest
    from tests.conftest import make_entry, write_raw

    clock = Clock()
    open_memory(store_root, clock).compact()
    events: list[str] = []
    start, take_in = CountingChild.start, ingest.take_in
    monkeypatch.setattr(CountingChild, "start", lambda: events.append("fork") or start())
    monkeypatch.setattr(ingest, "take_in", lambda index: events.append("sync") or take_in(index))
    write_raw(store_root, make_entry("Deploys go through ArgoCD", "operations"))
    open_memory(store_root, clock).compact()
    assert events == ["fork", "sync"]
    db = sqlite3.connect(store_root / "cache" / "index.sqlite3")
    try:
        assert all(n is not None for (n,) in db.execute("SELECT cl100k FROM entries"))
    finally:
        db.close()


def test_counting_leaves_the_markers_and_the_gate_as_compact_found_them(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """compact finds the markers and the gate while the child counts: both are keyed to the
    facts' fingerprint, which counting does not move, so the next `context` finds neither
    again (the views' fingerprint, which it moves, still makes the views dirty)."""
    from memsite.memory import conflicts, trust

    clock = Clock()
    memory = open_memory(store_root, clock)
    memory.add("The API listens on port 3000", "operations")
    memory.add("The API listens on port 8080", "operations")
    before = open_memory(store_root, clock).index().fingerprint()
    assert "index.md" in open_memory(store_root, clock).compact()["written"]
    index = open_memory(store_root, clock).index()
    assert index.fingerprint() != before  # counted: the views' generation moved
    found: list[str] = []
    monkeypatch.setattr(conflicts, "_find", lambda *a: found.append("markers") or ({}, {}))
    monkeypatch.setattr(trust, "_find", lambda *a: found.append("gate"))
    text = open_memory(store_root, clock).context()
    assert found == [] and "may conflict" in text


def test_a_child_never_asked_is_killed_not_waited_for() -> None:
    """It would first finish loading the tokenizers (~0.07 s) for nothing."""
    child = CountingChild.start()
    assert child is not None
    child.close()
    assert child.status is not None and os.WIFSIGNALED(child.status)
    assert os.WTERMSIG(child.status) == signal.SIGKILL


def test_an_asked_child_ends_on_its_own() -> None:
    child = CountingChild.start()
    assert child is not None
    assert child.count(["- a fact\n"]) == tokens.count(["- a fact\n"])
    assert child.status is not None and os.WIFEXITED(child.status)


def test_a_prestarted_child_is_taken_once_and_dismissed_if_not() -> None:
    counting.prestart()
    child = counting.prestarted()
    assert child is not None and counting.prestarted() is None
    child.close()
    counting.prestart()
    pid = counting._early[0]._pid
    counting.dismiss()
    assert reaped(pid) and counting.prestarted() is None
