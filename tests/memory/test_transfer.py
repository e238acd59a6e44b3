"""import and export: other tools' memories in, memsite's out, idempotent and lossless."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.transfer import parse_agents_md, parse_jsonl, parse_mcp_memory
from memsite.errors import InvalidInputError
from memsite.memory import Memory
from memsite.storage.layout import Store
from tests.conftest import Clock, Invoke, make_entry, write_raw

CATEGORIES = ["conventions", "architecture", "operations", "decisions"]
AGENTS_MD = """\
# Guide for agents

## Code style
- Use pnpm, never npm or yarn.
- Components are named exports only;
  default exports break the barrel files.
  - even in tests
1. Numbered rules count too.

## Testing
* Run `pnpm test` before pushing.

```sh
- a line of shell, not a fact
```

## Random notes
- The staging cluster has four nodes.

<!-- memsite:begin -->
- memsite's own block is never imported
<!-- memsite:end -->
"""
MCP_MEMORY = "\n".join(
    json.dumps(item)
    for item in [
        {
            "type": "entity",
            "name": "Payments API",
            "entityType": "service",
            "observations": ["Retries webhooks three times", "Payments API owns refunds"],
        },
        {"type": "entity", "name": "Ledger", "entityType": "service", "observations": []},
        {"type": "relation", "from": "Payments API", "to": "Ledger", "relationType": "writes_to"},
        {"type": "mystery"},
    ]
)


def open_memory(root: Path, clock: Clock) -> Memory:
    store = Store(root)
    return Memory(store, store.load_config(), clock)


def contents(memory: Memory) -> dict[str, str]:
    return {e["content"]: e["category"] for e in memory.list_entries()}


def test_agents_md_bullets_become_facts_by_heading(store_root: Path, clock: Clock) -> None:
    source = store_root.parent / "AGENTS.md"
    source.write_text(AGENTS_MD, encoding="utf-8")
    memory = open_memory(store_root, clock)
    answer = memory_import(memory, source, "agents-md", category="architecture")
    assert contents(open_memory(store_root, clock)) == {
        "Use pnpm, never npm or yarn.": "conventions",
        "Components are named exports only; default exports break the barrel files.; "
        "even in tests": "conventions",
        "Numbered rules count too.": "conventions",
        "Run `pnpm test` before pushing.": "operations",
        "The staging cluster has four nodes.": "architecture",
    }
    assert answer["written"] == 5 and answer["problems"] == []
    entry = open_memory(store_root, clock).list_entries()[0]
    assert entry["tags"] == ["imported"] and entry["agent"] == "memsite import"
    again = memory_import(
        open_memory(store_root, clock), source, "agents-md", category="architecture"
    )
    assert again["written"] == 0 and again["existing"] == 5  # idempotent


def test_a_heading_that_maps_to_no_category_is_reported(tmp_path: Path) -> None:
    parsed = parse_agents_md(AGENTS_MD, "AGENTS.md", CATEGORIES, None)
    assert "The staging cluster has four nodes." not in [f.content for f in parsed.facts]
    assert parsed.problems == [
        "AGENTS.md: heading 'Random notes' maps to no category: pass --category C for such facts"
    ]


def test_cursor_rules_front_matter_is_skipped() -> None:
    rules = "---\ndescription: x\nglobs: ['- not this']\nalwaysApply: true\n---\n- Prefer zod.\n"
    parsed = parse_agents_md(rules, "style.mdc", CATEGORIES, "conventions")
    assert [f.content for f in parsed.facts] == ["Prefer zod."]


def test_a_fact_already_superseded_is_not_imported_again(store_root: Path, clock: Clock) -> None:
    source = store_root.parent / "CLAUDE.md"
    source.write_text("## Conventions\n- Use pnpm 8\n", encoding="utf-8")
    memory = open_memory(store_root, clock)
    memory_import(memory, source, "agents-md")
    old = memory.list_entries()[0]["id"]
    clock.tick()
    memory.amend(old, "Use pnpm 9")
    again = memory_import(open_memory(store_root, clock), source, "agents-md")
    assert again["written"] == 0
    assert list(contents(open_memory(store_root, clock))) == ["Use pnpm 9"]


def test_mcp_memory_entities_and_relations(store_root: Path, clock: Clock) -> None:
    source = store_root.parent / "memory.jsonl"
    source.write_text(MCP_MEMORY + "\nnot json\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="no category: pass --category"):
        memory_import(open_memory(store_root, clock), source, "mcp-memory")  # no silent guess
    assert open_memory(store_root, clock).list_entries() == []
    answer = memory_import(
        open_memory(store_root, clock), source, "mcp-memory", category="operations"
    )
    facts = {e["content"]: e["tags"] for e in open_memory(store_root, clock).list_entries()}
    assert facts == {
        "Payments API: Retries webhooks three times": ["payments-api", "service", "imported"],
        "Payments API owns refunds": ["payments-api", "service", "imported"],
        "Payments API writes to Ledger": ["payments-api", "ledger", "imported"],
    }
    assert {e["category"] for e in open_memory(store_root, clock).list_entries()} == {
        "operations"
    }  # the category given
    assert answer["problems"] == [
        "memory.jsonl:4: neither an entity nor a relation; skipped",
        "memory.jsonl:5: not valid JSON; skipped",
    ]
    again = memory_import(
        open_memory(store_root, clock), source, "mcp-memory", category="operations"
    )
    assert again["written"] == 0


def test_secrets_are_refused_and_the_rest_goes_in(store_root: Path, runner: Invoke) -> None:
    source = store_root.parent / "AGENTS.md"
    source.write_text(
        "## Operations\n- The deploy key is AKIAZ7VQ3XK2P4L9WQ8M.\n- Deploy on Tuesdays.\n",
        encoding="utf-8",
    )
    done = runner("import", str(source), "--from", "agents-md")
    assert done.exit_code == 1
    assert "AKIAZ7VQ3XK2P4L9WQ8M" not in done.stdout + done.stderr  # never echoed
    assert "looks like a secret" in done.stderr and "AGENTS.md:2" in done.stderr
    listed = runner("list", "--json").json()
    assert [e["content"] for e in listed] == ["Deploy on Tuesdays."]


def test_dry_run_writes_nothing(store_root: Path, runner: Invoke) -> None:
    source = store_root.parent / "AGENTS.md"
    source.write_text("## Conventions\n- Use pnpm\n", encoding="utf-8")
    done = runner("import", str(source), "--from", "agents-md", "--dry-run", "--json")
    assert done.exit_code == 0 and done.json()["written"] == 1
    assert done.json()["facts"][0]["status"] == "would write"
    assert list((store_root / "entries").iterdir()) == []


def test_jsonl_export_round_trips_losslessly(tmp_path: Path, clock: Clock) -> None:
    first, _ = Store.init(tmp_path / "a" / ".memsite")
    memory = open_memory(first.root, clock)
    kept = memory.add("Use pnpm", "conventions", tags=["tooling"], key="package-manager")["id"]
    clock.tick()
    memory.add("Use pnpm 9", "conventions", supersedes=[kept], reason="newer")
    clock.tick()
    obj = make_entry("The queue is RabbitMQ", "architecture", created=clock.tick())
    obj["x-custom"] = {"nested": [1, "two"]}  # unknown keys travel too
    write_raw(first.root, obj)
    exported = open_memory(first.root, clock).export("jsonl", include_all=True)["text"]
    assert exported.count("\n") == 3
    second, _ = Store.init(tmp_path / "b" / ".memsite")
    source = tmp_path / "export.jsonl"
    source.write_text(exported, encoding="utf-8")
    answer = memory_import(open_memory(second.root, clock), source, "jsonl")
    assert answer["written"] == 3 and answer["problems"] == []
    again = open_memory(second.root, clock).export("jsonl", include_all=True)["text"]
    assert again == exported  # same objects, same bytes
    statuses = [e["status"] for e in open_memory(second.root, clock).list_entries(include_all=True)]
    assert sorted(statuses) == ["active", "active", "superseded"]
    assert memory_import(open_memory(second.root, clock), source, "jsonl")["written"] == 0


def test_markdown_bundle_is_deterministic_with_valid_front_matter(
    store_root: Path, clock: Clock, tmp_path: Path
) -> None:
    memory = open_memory(store_root, clock)
    memory.add('Quote "this" and: that', "conventions", tags=["style"], key="quotes")
    clock.tick()
    memory.add("Second fact\nwith two lines", "operations")
    folder = tmp_path / "bundle"
    memory.export("markdown", output=folder)
    first = {p.name: p.read_bytes() for p in folder.iterdir()}
    open_memory(store_root, clock).export("markdown", output=folder)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == first
    pages = sorted(folder.glob("*.md"))
    assert len(pages) == 2
    head, body = pages[0].read_text(encoding="utf-8").split("---\n", 2)[1:]
    meta = yaml.safe_load(head)
    assert meta["key"] == "quotes" and meta["tags"] == ["style"] and meta["status"] == "active"
    assert body.strip() == 'Quote "this" and: that'


def test_export_refuses_a_folder_it_did_not_make(store_root: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.md").write_text("keep me", encoding="utf-8")
    memory = Memory.open(str(store_root))
    with pytest.raises(InvalidInputError, match="is no memsite export"):
        memory.export("markdown", output=folder)
    assert (folder / "notes.md").read_text(encoding="utf-8") == "keep me"


def test_import_of_a_folder_of_rules(store_root: Path, clock: Clock) -> None:
    rules = store_root.parent / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "a.mdc").write_text("---\nalwaysApply: true\n---\n- Prefer zod.\n", encoding="utf-8")
    (rules / "b.md").write_text("## Testing\n- Use vitest.\n", encoding="utf-8")
    shutil.copy(rules / "b.md", rules / "ignored.json")
    memory_import(open_memory(store_root, clock), rules, "agents-md", category="conventions")
    assert contents(open_memory(store_root, clock)) == {
        "Prefer zod.": "conventions",
        "Use vitest.": "operations",
    }


@given(st.text(max_size=400))
def test_parsers_never_raise(text: str) -> None:
    parse_agents_md(text, "x.md", CATEGORIES, None)
    parse_mcp_memory(text, "x.jsonl", "conventions")
    parse_jsonl(text, "x.jsonl")


def memory_import(memory: Memory, path: Path, source: str, **options: str) -> dict[str, object]:
    return memory.import_facts(path, source, **options)


def test_the_skipped_block_is_the_one_agents_install_writes() -> None:
    from memsite.core import transfer
    from memsite.runners import targets

    assert (transfer.BEGIN, transfer.END) == (targets.BEGIN, targets.END)


def test_a_line_nested_too_deep_is_reported_not_fatal() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    for parsed in (parse_mcp_memory(deep, "m.jsonl", "conventions"), parse_jsonl(deep, "e.jsonl")):
        assert parsed.facts == [] and parsed.problems[0].endswith("not valid JSON; skipped")


def golden_pair(tmp_path: Path, clock: Clock) -> tuple[Memory, Path]:
    """The golden store (every record kind) and an empty store with its config."""
    from tests.golden_store import make_store

    first = make_store(tmp_path / "a")
    second, _ = Store.init(tmp_path / "b" / ".memsite")
    config = json.loads((first / "config.json").read_text(encoding="utf-8"))
    # The golden store holds a fact in a category its config lacks: import refuses that one
    # (it says to add the category), so the copy's config has it.
    config["memory"]["categories"]["security"] = 1
    (second.root / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return open_memory(first, clock), second.root


def seen(memory: Memory) -> tuple[object, ...]:
    """What a reader sees of a memory: each fact's status, and every record as stored."""
    statuses = {e["id"]: e["status"] for e in memory.list_entries(include_all=True)}
    records = sorted((dict(r.raw) for r in memory.state().scan.records), key=lambda r: str(r["id"]))
    # the findings links and retirements change (drift, invalid files differ: no project files
    # and no unusable entry files in the copy)
    kinds = ("contradiction", "possible_conflict", "duplicate", "near_duplicate")
    findings = [f for f in memory.review(full=True)["findings"] if f["kind"] in kinds]
    return statuses, records, memory.index().records.retired_all(), findings


def test_export_all_round_trips_records(tmp_path: Path, clock: Clock) -> None:
    first, second = golden_pair(tmp_path, clock)
    exported = first.export("jsonl", include_all=True)
    kinds = [json.loads(line).get("record") for line in exported["text"].splitlines()]
    assert sorted(k for k in kinds if k) == ["relate", "relate", "relate", "retire", "verify"]
    assert exported["records"] == 5 and kinds[-5:] == sorted(kinds[-5:], key=bool)  # last
    source = tmp_path / "export.jsonl"
    source.write_text(exported["text"], encoding="utf-8")
    # its seeded secret is marked allowed: only the person importing can allow it again
    answer = open_memory(second, clock).import_facts(source, "jsonl", allow_secret=True)
    assert answer["problems"] == []
    assert [r["status"] for r in answer["records"]] == ["written"] * 5
    copy = open_memory(second, clock)
    assert seen(copy) == seen(first)
    statuses = {e["content"]: e["status"] for e in copy.list_entries(include_all=True)}
    assert statuses["Retired: the nightly export runs at 02:00 UTC."] == "retired"
    assert copy.export("jsonl", include_all=True)["text"] == exported["text"]  # same bytes
    again = memory_import(open_memory(second, clock), source, "jsonl")
    assert [r["status"] for r in again["records"]] == ["exists"] * 5  # idempotent
    assert open_memory(second, clock).export("jsonl")["text"] == first.export("jsonl")["text"]


def test_export_without_all_leaves_records_out(tmp_path: Path, clock: Clock) -> None:
    first, _ = golden_pair(tmp_path, clock)
    exported = first.export("jsonl")
    assert exported["records"] == 0 and '"record"' not in exported["text"]


def test_a_record_about_a_fact_not_held_is_reported_and_skipped(
    store_root: Path, clock: Clock
) -> None:
    memory = open_memory(store_root, clock)
    held = memory.add("Use pnpm", "conventions")["id"]
    missing = "00000000-0000-4000-8000-00000000beef"
    lines = [
        {"record": "retire", "id": "00000000-0000-4000-8000-000000000001", "target": missing,
         "created": "2026-01-01T00:00:00.000Z", "reason": "gone"},
        {"record": "relate", "id": "00000000-0000-4000-8000-000000000002", "target": held,
         "other": missing, "type": "refines", "created": "2026-01-01T00:00:00.000Z"},
        {"record": "retire", "id": "not-a-uuid", "target": held, "created": "2026"},
        {"record": "verify", "id": "00000000-0000-4000-8000-000000000003", "target": held,
         "created": "2026-01-01T00:00:00.000Z", "evidence": "checked"},
    ]  # fmt: skip
    source = store_root.parent / "records.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    answer = memory_import(open_memory(store_root, clock), source, "jsonl")
    problems = answer["problems"]
    assert len(problems) == 3
    assert problems[0].startswith("records.jsonl:1: the retire record 00000000 names fact 00000000")
    assert "records.jsonl:2:" in problems[1] and "does not hold" in problems[1]
    assert problems[2].startswith("records.jsonl:3: not a valid record")
    assert [(r["where"], r["status"]) for r in answer["records"]] == [
        ("records.jsonl:4", "written")
    ]
    kinds = [r.kind for r in open_memory(store_root, clock).state().scan.records]
    assert kinds == ["verify"]
