"""The MCP tools' result shapes hold the memory's real answers, key for key."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from memsite.mcp.shapes import (
    DeleteResult,
    EntryDetail,
    EntryList,
    EntryOut,
    LogResult,
    NearDuplicate,
    ReconcileResult,
    RelateResult,
    RetireResult,
    SearchResult,
    VerifyResult,
    WriteResult,
)
from memsite.memory import Memory
from memsite.storage.layout import Store
from tests.conftest import Clock, git

CLOSED = (WriteResult, LogResult, DeleteResult, VerifyResult, RetireResult, RelateResult)


def check(shape: Any, answer: Any) -> None:
    """``answer`` validates as ``shape`` (strictly); closed shapes name exactly its keys."""
    TypeAdapter(shape).validate_python(answer, strict=True)
    if shape in CLOSED:
        assert set(answer) == set(shape.__annotations__), shape.__name__


@pytest.fixture
def memory(store_root: Path, clock: Clock) -> Memory:
    git(store_root.parent, "init", "-q")
    (store_root.parent / "app.py").write_text("PORT = 8080\n")
    return Memory.open(str(store_root), {}, store_root.parent, now=clock)


def test_writes_and_records(memory: Memory, clock: Clock) -> None:
    first = memory.add("Always use pnpm, never npm or yarn.", "conventions", tags=["pnpm"])
    check(WriteResult, first)
    clock.tick()
    near = memory.add("Use pnpm, never npm or yarn", "conventions")
    check(WriteResult, near)
    assert near["near_duplicates"]
    for item in near["near_duplicates"]:
        check(NearDuplicate, item)
    check(WriteResult, memory.add("Use pnpm, never npm or yarn", "conventions"))  # duplicate
    elsewhere = "11111111-1111-4111-8111-111111111111"
    warned = memory.add("Deploys run on Tuesdays.", "operations", supersedes=[elsewhere])
    check(WriteResult, warned)
    assert warned["warnings"]
    clock.tick()
    fact = memory.add("The port is 8080.", "architecture", anchors=["app.py"], key="port")
    check(WriteResult, memory.amend(near["id"], "Use pnpm 9, never npm or yarn"))
    check(VerifyResult, memory.verify(fact["id"], "read app.py"))
    check(RelateResult, memory.relate(fact["id"], first["id"], "distinct-from", reason="x"))
    check(RetireResult, memory.retire(first["id"], "moved to bun"))
    check(LogResult, memory.log("checked the port", kind="task"))
    check(DeleteResult, memory.delete(fact["id"]))


def test_reads(memory: Memory, clock: Clock) -> None:
    fact = memory.add("The port is 8080.", "architecture", anchors=["app.py:1"], tags=["net"])
    clock.tick()
    newer = memory.amend(fact["id"], "The port is 8080, set in app.py.")
    other = memory.add("Health checks hit /healthz.", "operations")
    memory.relate(newer["id"], other["id"], "supports")
    memory.verify(other["id"], "curl says so")
    memory.log("the port was checked")
    (memory.store.project_root / "app.py").write_text("PORT = 9090\n")  # drifted
    memory.invalidate()
    for ref in (fact["id"], newer["id"], other["id"]):
        detail = memory.read(ref)
        check(EntryDetail, detail)
        check(EntryOut, detail)
    assert memory.read(fact["id"])["chain"]
    check(EntryList, {"entries": memory.list_entries(include_all=True)})
    hits = memory.search("port", include_all=True, expand=True)
    hits += memory.search("port checked", daily=True)
    assert {h.get("source") for h in hits} == {None, "daily"}
    check(SearchResult, {"entries": hits})
    reconciled = memory.reconcile()
    check(ReconcileResult, reconciled)
    assert reconciled["drifted"] == 1


@pytest.mark.parametrize(
    ("shape", "answer"),
    [
        (WriteResult, {"status": "maybe", "id": "x", "path": "p", "near_duplicates": []}),
        (LogResult, {"status": "logged", "path": "p", "session": "s", "kind": "chore"}),
        (NearDuplicate, {"id": "x", "similarity": "high"}),
        (EntryOut, {"id": "x", "category": "c", "content": "t"}),
    ],
)
def test_shapes_refuse_other_answers(shape: Any, answer: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(shape).validate_python(answer, strict=True)


@settings(max_examples=15, deadline=None)
@given(
    content=st.text(alphabet="abcdefgh ijk,.-", min_size=3, max_size=60).filter(str.strip),
    tags=st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True), max_size=3),
    key=st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9.-]{0,10}", fullmatch=True)),
)
def test_any_written_fact_reads_back_in_shape(
    content: str, tags: list[str], key: str | None
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store, _ = Store.init(Path(folder) / ".memsite")
        memory = Memory.open(str(store.root), {}, Path(folder), now=Clock())
        written = memory.add(content, "decisions", tags=tags, key=key)
        check(WriteResult, written)
        detail = memory.read(written["id"])
        check(EntryDetail, detail)
        assert detail["tags"] == list(dict.fromkeys(tags)) and detail.get("key") == key
        check(EntryList, {"entries": memory.list_entries()})
