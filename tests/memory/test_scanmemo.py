"""The text pass remembered by category (``memory.scanmemo``): after any sequence of writes,
the review found through the memo equals one found from nothing; an unchanged category is not
passed over again; a memo made by other rules, damaged or of another shape is not believed."""

from __future__ import annotations

import marshal
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.core.review import Finding
from memsite.memory import Memory, scanmemo
from memsite.storage.layout import Store
from tests.conftest import Clock
from tests.memory.conftest import memory_at

FACTS = (
    ("architecture", "The database is Postgres {n}"),
    ("architecture", "The cache is Redis {n} with two replicas"),
    ("operations", "Worker pool size is {n}"),
    ("operations", "Deploys need {n} approvals from the platform team"),
    ("conventions", "Use pnpm {n} for every package install in the web workspace"),
    ("conventions", "Use pnpm {n} for every package install in the web workspace today"),
)
LINKS = ("distinct-from", "conflicts-with", "refines")

_ids = st.integers(0, 60)
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(0, len(FACTS) - 1), st.integers(1, 30)),
        st.tuples(st.just("amend"), _ids, st.integers(1, 30)),
        st.tuples(st.just("retire"), _ids),
        st.tuples(st.just("relate"), _ids, _ids, st.sampled_from(LINKS)),
        # Two facts of one template (they may conflict), a review, then a relation.
        st.tuples(st.just("pair"), st.integers(0, len(FACTS) - 1), st.sampled_from(LINKS)),
    ),
    min_size=1,
    max_size=8,
)


def _review(memory: Memory) -> list[Finding]:
    """A review in a fresh read of the store (the memo as the last one left it)."""
    return memory.reopen().findings()


def _from_nothing(memory: Memory) -> list[Finding]:
    memory.store.findings_memo.unlink(missing_ok=True)
    return _review(memory)


def _apply(memory: Memory, clock: Clock, ids: list[str], op: tuple[Any, ...]) -> None:
    clock.tick(minutes=1)
    kind = op[0]
    if kind == "add":
        category, text = FACTS[op[1]]
        ids.append(memory.add(text.format(n=op[2]), category)["id"])
    elif kind == "pair":
        category, text = FACTS[op[1]]
        first = memory.add(text.format(n=len(ids) + 100), category)["id"]
        clock.tick(minutes=1)
        second = memory.add(text.format(n=len(ids) + 200), category)["id"]
        ids += [first, second]
        memory.invalidate()
        _review(memory)
        memory.relate(first, second, op[2])
    elif not ids:
        return
    elif kind == "amend":
        target = ids[op[1] % len(ids)]
        category, text = FACTS[op[1] % len(FACTS)]
        ids.append(memory.amend(target, text.format(n=op[2]) + " now")["id"])
    elif kind == "retire":
        memory.retire(ids[op[1] % len(ids)], "no longer true")
    elif kind == "relate":
        a, b = ids[op[1] % len(ids)], ids[op[2] % len(ids)]
        if a != b:
            memory.relate(a, b, op[3])
    memory.invalidate()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(OPERATIONS)
def test_through_the_memo_equals_from_nothing(operations: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root, _ = Store.init(Path(scratch) / ".memsite")
        clock = Clock()
        memory = memory_at(root.root, clock)
        ids = [memory.add(text.format(n=4), category)["id"] for category, text in FACTS[::2]]
        _review(memory)
        for op in operations:
            try:
                _apply(memory, clock, ids, op)
            except Exception as exc:  # a write the store refuses (retired twice, …)
                if type(exc).__module__.startswith("memsite"):
                    continue
                raise
            remembered = _review(memory)
            assert remembered == _from_nothing(memory)


def test_an_unchanged_category_is_not_passed_over_again(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    memory = memory_at(store_root, clock)
    for category, text in FACTS:
        clock.tick(minutes=1)
        memory.add(text.format(n=7), category)
    passed: list[str] = []
    made = scanmemo.category_conflicts

    def recorded(category: str, *args: Any, **kwargs: Any) -> list[Finding]:
        passed.append(category)
        return made(category, *args, **kwargs)

    monkeypatch.setattr(scanmemo, "category_conflicts", recorded)
    first = _review(memory)
    assert sorted(passed) == ["architecture", "conventions", "operations"]
    passed.clear()
    assert _review(memory) == first and passed == []
    clock.tick(minutes=1)
    memory.add("Worker pool size is 9", "operations")
    after = _review(memory)
    assert passed == ["operations"]
    assert after == _from_nothing(memory) and after != first


def _tampered(memory: Memory) -> Finding:
    """Put a finding of our own into one category's memo, under its right key."""
    caches = memory.model.caches
    saved = caches.load_bound(memory.store.findings_memo, scanmemo._VERSION)["categories"]
    key, _, conflicts = saved["operations"]
    planted = Finding("near_duplicate", ("x",), ("x.json",), "planted")
    saved["operations"] = (key, [tuple(planted)], conflicts)
    caches.save_bound(memory.store.findings_memo, scanmemo._VERSION, {"categories": saved})
    return planted


def test_the_memo_is_keyed_to_the_rules_code(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = memory_at(store_root)
    memory.add("Worker pool size is 4", "operations")
    memory.add("The database is Postgres 15", "architecture")
    honest = _review(memory)
    planted = _tampered(memory)
    assert planted in _review(memory)  # the memo is what the review used
    _tampered(memory)
    monkeypatch.setattr(scanmemo, "_rules_stamp", lambda: b"other rules")
    assert _review(memory) == honest


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00garbage",
        "truncated",  # the memo's first half
        None,  # the right stamp, the wrong shapes
    ],
)
def test_a_damaged_memo_is_not_believed(store_root: Path, content: bytes | str | None) -> None:
    memory = memory_at(store_root)
    memory.add("The database is Postgres 15", "architecture")
    memory.add("The database is Postgres 16", "architecture")
    honest = _review(memory)
    path = memory.store.findings_memo
    if content is None:
        caches = memory.model.caches
        shapes: list[Any] = [{"architecture": "x"}, {"architecture": (b"k", [("a",)], [])}, ["x"]]
        for shape in shapes:
            caches.save_bound(path, scanmemo._VERSION, {"categories": shape})
            assert _review(memory) == honest
    else:
        whole = path.read_bytes()
        path.write_bytes(whole[: len(whole) // 2] if isinstance(content, str) else content)
        assert _review(memory) == honest
        assert marshal.loads(path.read_bytes())  # rewritten whole


def test_a_memo_of_another_clone_is_believed_only_where_the_workflow_restored_it(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Pages workflow restores cache/findings.marshal from its last run (another clone)
    and says so with MEMSITE_CACHE_RESTORED=1; anywhere else a memo that came with the files
    is never believed."""
    from memsite.portal import reuse
    from memsite.storage.cache import RESTORED

    assert RESTORED == reuse.RESTORED  # one name for both caches the workflow restores
    memory = memory_at(store_root)
    memory.add("Worker pool size is 4", "operations")
    honest = _review(memory)
    planted = _tampered(memory)
    path = memory.store.findings_memo
    saved = marshal.loads(path.read_bytes())
    saved["version"] = (*saved["version"][:2], "/another/clone")
    path.write_bytes(marshal.dumps(saved))
    monkeypatch.delenv(RESTORED, raising=False)
    assert _review(memory) == honest
    path.write_bytes(marshal.dumps(saved))
    monkeypatch.setenv(RESTORED, "1")
    assert planted in _review(memory)
    saved["version"] = (scanmemo._VERSION, "0.0.0-other", "/another/clone")
    path.write_bytes(marshal.dumps(saved))
    assert _review(memory) == honest  # another memsite's memo: never
