"""index.md and compacted views: the budget holds under the real tokenizers, weights count."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

import bpe_openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.budget import INDEX_HEADER
from memsite.core.compaction import compact
from memsite.core.entry import Entry, entry_from_object
from memsite.core.estimate import estimate_tokens
from tests.oracles import compacted_markdown, render_index

ENCODINGS = {name: bpe_openai.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
CATS = {"conventions": 1, "architecture": 1, "operations": 1, "decisions": 1}
T0 = datetime(2026, 1, 1, tzinfo=UTC)
WORDS = (
    "pnpm postgres deploy kubernetes redis worker queue migration schema api token cache "
    "staging release hotfix vitest playwright docker helm terraform lint biome rollback "
    "`make test` ./scripts/run.sh https://docs.example.com/runbook 9f86d081 v1.2.3 "
    "使用 部署 数据库 Развёртывание сервис 🚀 ✅ 🔥"
).split()


def real_tokens(text: str) -> int:
    return max(len(enc.encode(text)) for enc in ENCODINGS.values())


def make_store(n: int, seed: int = 0, categories: list[str] | None = None) -> list[Entry]:
    rnd = random.Random(seed)
    cats = categories or list(CATS)
    entries = []
    for i in range(n):
        words = rnd.choices(WORDS, k=rnd.randint(3, 40))
        obj = {
            "id": str(uuid.UUID(int=rnd.getrandbits(128), version=4)),
            "category": rnd.choice(cats),
            "content": " ".join(words) + f" ({i})",
            "created": (T0 + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "confidence": rnd.choice(["high", "medium", "medium", "low"]),
        }
        entries.append(entry_from_object(obj, f"{i}.json"))
    return entries


@pytest.mark.parametrize("size", [0, 1, 10, 200, 5000])
@pytest.mark.parametrize("budget", [50, 120, 500, 2000, 8000])
def test_index_never_exceeds_budget_with_real_tokenizers(size: int, budget: int) -> None:
    result = compact(make_store(size, seed=size + budget), CATS)
    text = render_index(result, CATS, budget)
    assert text.startswith(INDEX_HEADER)
    assert real_tokens(text) <= budget
    if size >= 200 and budget >= 500:
        # the budget is used, not wasted: at least half of it is filled
        assert real_tokens(text) >= budget // 3


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 300), st.integers(50, 3000), st.integers(0, 10_000))
def test_index_budget_property(size: int, budget: int, seed: int) -> None:
    text = render_index(compact(make_store(size, seed), CATS), CATS, budget)
    assert real_tokens(text) <= budget


def bullets_per_section(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:]
            counts[current] = 0
        elif line.startswith("- "):
            counts[current] += 1
    return counts


def test_category_weights_are_honoured() -> None:
    weights = {"conventions": 3, "architecture": 1, "operations": 1, "decisions": 1}
    entries = make_store(2000, seed=7)
    counts = bullets_per_section(render_index(compact(entries, weights), weights, 1500))
    assert counts["Conventions"] > 2 * counts["Architecture"]
    assert counts["Conventions"] > 2 * counts["Operations"]


def test_unused_budget_of_a_small_category_is_pooled() -> None:
    entries = make_store(600, seed=3, categories=["conventions", "operations", "decisions"])
    entries += make_store(1, seed=4, categories=["architecture"])
    text = render_index(compact(entries, CATS), CATS, 2000)
    counts = bullets_per_section(text)
    assert counts["Architecture"] == 1
    # the other categories used the slack: without pooling they would fill at most 3/4
    assert estimate_tokens(text) > 0.9 * 2000


def test_low_confidence_entries_go_last() -> None:
    entries = []
    for i in range(60):
        obj = {
            "id": str(uuid.UUID(int=i + 1, version=4)),
            "category": "conventions",
            "content": f"fact {i} " + "detail " * 5,
            "created": (T0 + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "confidence": "low" if i % 2 else "high",
        }
        entries.append(entry_from_object(obj, f"{i}.json"))
    text = render_index(compact(entries, CATS), CATS, 200)
    shown = [line for line in text.splitlines() if line.startswith("- ")]
    assert shown and all(int(line.split()[2]) % 2 == 0 for line in shown)
    assert "fact 58 " in text  # newest high-confidence first


def test_an_entry_too_long_is_skipped_and_shorter_ones_still_fit() -> None:
    long = entry_from_object(
        {
            "id": str(uuid.UUID(int=99, version=4)),
            "category": "conventions",
            "content": "word " * 400,
            "created": "2026-05-01T00:00:00Z",
        }
    )
    short = make_store(5, seed=1, categories=["conventions"])
    text = render_index(compact([long, *short], CATS), CATS, 150)
    assert "word word word" not in text
    assert text.count("\n- ") >= 1


def test_heading_only_above_bullets_and_in_config_order() -> None:
    entries = make_store(40, seed=2, categories=["decisions", "conventions"])
    text = render_index(compact(entries, CATS), CATS, 4000)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Conventions", "## Decisions"]


def test_compacted_view_lists_active_entries_with_metadata() -> None:
    obj = {
        "id": "a1b2c3d4-5678-40ab-8def-1234567890ab",
        "category": "conventions",
        "content": "Use pnpm\nnot npm",
        "created": "2026-03-07T14:30:00.123Z",
        "tags": ["pnpm", "tooling"],
        "key": "package-manager",
        "confidence": "high",
    }
    text = compacted_markdown(compact([entry_from_object(obj)], CATS), "conventions")
    assert "# Conventions" in text
    assert (
        "- Use pnpm\n  not npm [pnpm, tooling] "
        "(key: package-manager · 2026-03-07 · a1b2c3d4 · high confidence)"
    ) in text
