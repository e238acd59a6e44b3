"""The search index patched after new facts is byte for byte the index made whole, after any
sequence of changes; anything but new facts, or an old file not as written, makes it whole."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.portal import searchdata as sd
from memsite.portal.derive import _groups
from memsite.portal.model import EntryView, Portal, Tag
from memsite.portal.searchpatch import Memo, patch

WORDS = ["deploy", "cache", "queue", "token", "image", "rotate", "logs", "build", "pin", "drain"]
WORDS += ["service", "retries", "backoff", "schema", "migration", "latency"]


def view(number: int, words: list[str], category: str, tags: list[str], status: str) -> EntryView:
    day = 1 + number // 3 % 28  # three facts a day
    created = f"2026-{1 + number // 84 % 12:02d}-{day:02d}T10:{number % 60:02d}:00.000Z"
    spread = chr(97 + number * 7 % 26) + "q" + "abcdefghij"[number % 10]  # new terms all over
    content = " ".join(words) + f" {spread} fact{number}"
    return EntryView(
        id=f"{number:04x}{'ab' * 3}-{number}",
        category=category,
        category_slug=category,
        category_title=category.title(),
        content=content,
        title=content[:40],
        created=created,
        day=created[:10],
        when=f"{created[:10]} {created[11:16]} UTC",
        confidence="high",
        tags=tuple(Tag(t, t) for t in tags),
        key=None,
        agent=None,
        reason=None,
        filename=f"{number}.json",
        status=status,
        supersedes=(),
    )


def portal_of(views: list[EntryView]) -> Portal:
    """A portal of ``views`` (oldest first, as search refs go): newest first, as built."""
    entries = views[::-1]
    names = sorted({v.category for v in entries})
    categories, tags = _groups(entries, names, set(names), {})
    return Portal(
        "M", None, entries, {v.id: v for v in entries}, categories, tags, "", {}, {}, {}, {}, {}
    )


def meta_of(files: dict[str, bytes]) -> dict[str, Any]:
    return dict(json.loads(files[sd.META_FILE]))


def index(portal: Portal) -> tuple[dict[str, bytes], dict[str, Any]]:
    keep: dict[str, Any] = {}
    return dict(sd.search_file_stream(portal, keep)), keep


FACT = st.tuples(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=8),
    st.sampled_from(["ops", "conventions"]),
    st.lists(st.sampled_from(["ci", "docker"]), max_size=2, unique=True),
)
STEP = st.one_of(
    st.tuples(st.just("add"), st.lists(FACT, min_size=1, max_size=4)),
    st.tuples(st.just("insert"), FACT),  # a fact older than the newest (arrived by git)
    st.tuples(st.just("retire"), st.integers(0, 1000)),
    st.tuples(st.just("new-tag"), FACT),
    st.tuples(st.just("none"), st.just(0)),
)


@pytest.fixture
def small_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shards of a few terms and few kept postings, so that a few facts cut and drop."""
    monkeypatch.setattr(sd, "SHARD_MIN", 120)
    monkeypatch.setattr(sd, "SHARD_MAX", 300)
    monkeypatch.setattr(sd, "CUT_EVERY", 3)
    monkeypatch.setattr(sd, "MAX_POSTINGS", 4)
    monkeypatch.setattr(sd, "CHUNK", 3)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(base=st.lists(FACT, min_size=1, max_size=40), steps=st.lists(STEP, min_size=1, max_size=6))
def test_a_patched_index_is_the_whole_index(
    small_shards: None, base: list[Any], steps: list[tuple[str, Any]]
) -> None:
    views = [view(n, *fact, "active") for n, fact in enumerate(base)]
    files, keep = index(portal_of(views))
    for op, arg in steps:
        number = len(views) + 100
        if op == "add":
            views += [view(number + n, *fact, "active") for n, fact in enumerate(arg)]
        elif op == "insert":
            views.insert(len(views) // 2, view(number, *arg, "active"))
        elif op == "retire":
            at = arg % len(views)
            old = views[at]
            views[at] = view(int(old.filename[:-5]), old.content.split()[:-1], old.category,
                             [t.name for t in old.tags], "retired")  # fmt: skip
        elif op == "new-tag":
            views.append(view(number, arg[0], arg[1], [*arg[2], f"t{number}"], "active"))
        portal = portal_of(views)
        whole, whole_keep = index(portal)
        patched = patch(portal, Memo(**keep), files.get)
        if op in ("add", "none") and patched is None:  # only these make it whole
            before, after = meta_of(files), meta_of(whole)
            assert any(before[k] != after[k] for k in ("averageLength", "categories", "tags"))
        if patched is not None:
            now = {**files, **dict(patched.files)}
            now = {rel: data for rel, data in now.items() if rel in patched.memo.sums}
            assert now == whole
            assert patched.memo._asdict() == whole_keep
        files, keep = whole, whole_keep


def test_facts_added_one_by_one_rewrite_only_their_shards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After each new fact only the shards that take its terms are written, and those after
    them when a shard splits (shards are numbered in order): the cutting falls back in step
    with the last build's, and the shards past that are left as they were."""
    import random

    monkeypatch.setattr(sd, "SHARD_MIN", 1500)
    monkeypatch.setattr(sd, "SHARD_MAX", 6000)
    monkeypatch.setattr(sd, "MAX_POSTINGS", 12)
    rnd = random.Random(7)
    vocabulary = [f"w{n:03x}" for n in range(400)]
    views = [view(n, rnd.sample(vocabulary, 6), "ops", [], "active") for n in range(600)]
    files, keep = index(portal_of(views))
    untouched = []
    for step in range(30):
        views.append(view(1000 + step, rnd.sample(vocabulary, 6), "ops", [], "active"))
        portal = portal_of(views)
        whole, whole_keep = index(portal)
        patched = patch(portal, Memo(**keep), files.get)
        assert patched is not None, step  # (600 facts: one more never moves the average)
        now = {**files, **dict(patched.files)}
        assert {rel: data for rel, data in now.items() if rel in patched.memo.sums} == whole
        assert patched.memo._asdict() == whole_keep
        shards = {rel for rel, _ in patched.files if rel.startswith("search/t/")}
        untouched.append(len([rel for rel in whole if rel.startswith("search/t/")]) - len(shards))
        files, keep = whole, whole_keep
    assert len(meta_of(files)["shards"]) > 20
    assert sum(n > 0 for n in untouched) > 20  # most steps leave some shards as they were
