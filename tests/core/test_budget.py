"""index.md and compacted views: the budget holds under the real tokenizers, exact counts fill
it, weights count."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

import bpe_openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core import tokens
from memsite.core.budget import (
    INDEX_HEADER,
    IndexItem,
    _heading,
    footer,
    index_item,
    late_last,
    render_items,
    unframed,
)
from memsite.core.compaction import Compaction, compact
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
        # at estimated costs (nothing counted yet: 1.5x to 7x the real count on these words)
        # the budget is still used, if not filled
        assert real_tokens(text) >= budget // 3


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 300), st.integers(50, 3000), st.integers(0, 10_000))
def test_index_budget_property(size: int, budget: int, seed: int) -> None:
    text = render_index(compact(make_store(size, seed), CATS), CATS, budget)
    assert real_tokens(text) <= budget


def exact_sections(result: Compaction) -> dict[str, list[IndexItem]]:
    """The index items of a compaction at their exact costs, as the read model keeps them once
    counted."""
    sections = {}
    for category in result.categories:
        items = [index_item(e) for e in result.active(category)]
        counted = tokens.count([i.bullet for i in items])
        assert counted is not None
        if items:
            pairs = zip(items, counted, strict=True)
            sections[category] = [i._replace(cost=max(c)) for i, c in pairs]
    return sections


def unguarded(text: str) -> int | None:
    """A ``measure`` that cannot count: the selection alone has to keep the budget."""
    return None


@pytest.mark.parametrize("size", [0, 1, 10, 200, 5000])
@pytest.mark.parametrize("budget", [50, 120, 500, 2000, 8000])
def test_exact_costs_fill_the_budget_and_never_exceed_it(size: int, budget: int) -> None:
    sections = exact_sections(compact(make_store(size, seed=size + budget), CATS))
    for measure in (tokens.measure, unguarded):
        text = render_items(sections, CATS, budget, measure=measure)
        assert text.startswith(INDEX_HEADER)
        assert real_tokens(text) <= budget
        if size >= 200 and budget >= 500:  # smaller ones go mostly to the header and headings
            assert real_tokens(text) >= 0.8 * budget, measure


BULLET_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=120
) | st.lists(st.sampled_from(WORDS), min_size=1, max_size=30).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(sorted(CATS)), BULLET_TEXT), max_size=60),
    st.integers(16, 1500),
)
def test_the_final_text_never_exceeds_the_budget_for_any_bullets(
    facts: list[tuple[str, str]], budget: int
) -> None:
    """Random bullets at their exact costs: the file fits in both tokenizers, with the guard
    (the tokenizers loaded, as in an explicit compact) and without it (as in `context`)."""
    entries = [
        entry_from_object(
            {
                "id": str(uuid.UUID(int=i + 1, version=4)),
                "category": category,
                "content": content,
                "created": (T0 + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            }
        )
        for i, (category, content) in enumerate(facts)
        if content.strip()
    ]
    sections = exact_sections(compact(entries, CATS))
    for measure in (tokens.measure, unguarded):
        text = render_items(sections, CATS, budget, measure=measure)
        assert real_tokens(text) <= budget


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(CATS)), BULLET_TEXT), min_size=1, max_size=12))
def test_lines_never_cost_more_together_than_apart(facts: list[tuple[str, str]]) -> None:
    """What lets index.md be filled by the sum of its lines' counts: in each tokenizer the
    whole file costs at most its header, headings and bullets counted apart."""
    entries = [
        entry_from_object(
            {
                "id": str(uuid.UUID(int=i + 1, version=4)),
                "category": category,
                "content": content,
                "created": (T0 + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            }
        )
        for i, (category, content) in enumerate(facts)
        if content.strip()
    ]
    result = compact(entries, CATS)
    parts = [INDEX_HEADER]
    for category in result.categories:
        if result.active(category):
            parts.append(_heading(category))
            parts.extend(index_item(e).bullet for e in result.active(category))
    for encoding in ENCODINGS.values():
        apart = sum(len(encoding.encode_ordinary(p)) for p in parts)
        assert len(encoding.encode_ordinary("".join(parts))) <= apart


@pytest.mark.parametrize(
    "category", [*CATS, "gotchas", "team-process", "api_design", "ci.cd", "Überblick", "运维"]
)
def test_a_headings_estimate_leaves_a_margin_for_merges(category: str) -> None:
    """A heading is charged its estimate: at least two tokens more than either tokenizer
    counts, the margin for a newline merging with the one before it."""
    assert estimate_tokens(_heading(category)) >= real_tokens(_heading(category)) + 2


def test_the_guard_drops_bullets_from_the_end_until_the_text_fits() -> None:
    """Costs that under-state the real count (as a wrong count would) are caught by counting
    the final text when the tokenizers are loaded."""
    assert tokens.load()
    result = compact(make_store(300, seed=5), CATS)
    sections = {
        c: [index_item(e)._replace(cost=1) for e in result.active(c)]
        for c in result.categories
        if result.active(c)
    }
    unchecked = render_items(sections, CATS, 400, measure=unguarded)
    assert real_tokens(unchecked) > 400  # the costs alone would overrun
    text = render_items(sections, CATS, 400)
    assert 0.8 * 400 <= real_tokens(text) <= 400
    # what is dropped comes off the end: the kept lines are the unchecked text's first ones
    assert unchecked.startswith(text[: text.rindex("\n## ")])


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


def tokens_per_section(text: str) -> dict[str, int]:
    """The real tokens of each section's bullets."""
    found: dict[str, int] = {}
    current = ""
    for line in text.splitlines(keepends=True):
        if line.startswith("## "):
            current = line[3:-1]
            found[current] = 0
        elif line.startswith("- "):
            found[current] += real_tokens(line)
    return found


@pytest.mark.parametrize("exact", [False, True])
def test_category_weights_are_honoured(exact: bool) -> None:
    """A weight is a share of the tokens (bullets differ in length, so not of the bullets)."""
    weights = {"conventions": 3, "architecture": 1, "operations": 1, "decisions": 1}
    result = compact(make_store(2000, seed=7), weights)
    if exact:
        text = render_items(exact_sections(result), weights, 1500)
    else:
        text = render_index(result, weights, 1500)
    shares = tokens_per_section(text)
    assert shares["Conventions"] > 2 * shares["Architecture"]
    assert shares["Conventions"] > 2 * shares["Operations"]


def test_unused_budget_of_a_small_category_is_pooled() -> None:
    entries = make_store(600, seed=3, categories=["conventions", "operations", "decisions"])
    entries += make_store(1, seed=4, categories=["architecture"])
    result = compact(entries, CATS)
    text = render_index(result, CATS, 2000)
    counts = bullets_per_section(text)
    assert counts["Architecture"] == 1
    # the other categories used the slack: without pooling they would fill at most 3/4
    assert estimate_tokens(text) > 0.9 * 2000
    text = render_items(exact_sections(result), CATS, 2000)
    assert bullets_per_section(text)["Architecture"] == 1
    assert real_tokens(text) > 0.9 * 2000


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


@given(
    st.lists(st.tuples(st.integers(0, 30), st.booleans(), st.integers(0, 1))),
)
def test_late_and_low_facts_go_last_in_their_order(shape: list[tuple[int, bool, int]]) -> None:
    """The stable partition is the sort by (late, low) it replaced, for bool and SQL 0/1
    flags, with and without late facts."""
    items = [
        IndexItem(f"id{k}", "", n, bool(low) if k % 2 else low)
        for k, (n, _, low) in enumerate(shape)
    ]
    late = {item.id for item, (_, is_late, _) in zip(items, shape, strict=True) if is_late}
    for chosen in (late, set()):
        expected = sorted(items, key=lambda i: (i.id in chosen, bool(i.low)))
        assert late_last(items, chosen) == expected


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


def test_the_footer_counts_in_the_singular_and_says_more_only_after_shown_facts() -> None:
    assert footer(1, 0) == "\n1 more active fact did not fit: `memsite search` finds it.\n"
    assert footer(2, 0, shown=False) == (
        "\n2 active facts did not fit: `memsite search` finds them.\n"
    )


def test_an_index_with_no_room_for_a_fact_still_says_how_many_it_left_out() -> None:
    text = unframed(60, 3, 0)
    assert text == INDEX_HEADER + "\n3 active facts did not fit: `memsite search` finds them.\n"
    for encoding in ENCODINGS.values():
        assert len(encoding.encode(text)) <= 60
    assert unframed(16, 3, 0) == INDEX_HEADER  # not even the count fits
    assert unframed(60, 0, 0) == INDEX_HEADER  # nothing left out
