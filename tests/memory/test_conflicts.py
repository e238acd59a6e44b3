"""Possible conflicts where agents and writers see them (``memory.conflicts``, ``memory.writes``):
index.md marks each member of a group as it marks drift, naming the others, until a relation
or a supersession settles it; the markers are kept by the entries' fingerprint; `add` warns
of the facts a new one may conflict with, as it warns of near duplicates."""

from __future__ import annotations

import contextlib
import json
import tempfile
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.errors import MemsiteError
from memsite.memory import Memory
from memsite.storage.layout import Store
from tests.conftest import Clock, Invoke, make_entry, write_raw

HS256 = "API tokens are JWTs signed with HS256 using the shared secret from the vault"
RS256 = "API tokens are JWTs signed with RS256; the public key is served at /jwks"


def lines_of(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if word in line]


def test_index_md_marks_each_member_naming_the_others(runner: Invoke) -> None:
    ids = [
        runner("add", f"The production database is Postgres {v}", "-c", "architecture",
               "--json").json()["id"]
        for v in (15, 16, 17)
    ]  # fmt: skip
    runner("add", "Deploys need two approvals", "-c", "operations")
    text = runner("context").stdout
    for version, mine in zip((15, 16, 17), ids, strict=True):
        (line,) = lines_of(text, f"Postgres {version}")
        others = ", ".join(sorted(i[:8] for i in ids if i != mine))
        assert line.endswith(f"Postgres {version} (may conflict with {others})")
    assert lines_of(text, "approvals") == ["- Deploys need two approvals"]


def test_a_relation_or_a_supersession_clears_the_marker(runner: Invoke) -> None:
    old = runner("add", HS256, "-c", "architecture", "--json").json()["id"]
    new = runner("add", RS256, "-c", "architecture", "--json").json()["id"]
    text = runner("context").stdout
    assert lines_of(text, "RS256") == [f"- {RS256} (may conflict with {old[:8]})"]
    assert lines_of(text, "HS256") == [f"- {HS256} (may conflict with {new[:8]})"]
    runner("relate", new, old, "--type", "distinct-from", "--reason", "two kinds of token")
    text = runner("context").stdout
    assert "may conflict" not in text and RS256 in text and HS256 in text
    runner("relate", new, old, "--type", "conflicts-with")  # a person says they conflict
    assert lines_of(runner("context").stdout, "RS256")[0].endswith(f"(may conflict with {old[:8]})")
    runner("amend", old, "API tokens are JWTs signed with RS256 now")
    assert "may conflict" not in runner("context").stdout


def test_the_markers_are_kept_by_the_entries_fingerprint(runner: Invoke, store_root: Path) -> None:
    runner("add", "Install dependencies with pnpm", "-c", "conventions")
    runner("add", "Install dependencies with npm ci", "-c", "conventions")
    first = runner("context").stdout
    cache = store_root / "cache" / "conflicts.marshal"
    assert cache.is_file() and len(lines_of(first, "may conflict")) == 2
    cache.unlink()
    assert runner("context").stdout == first  # found again, the same
    assert cache.is_file()
    runner("add", "Install dependencies with yarn", "-c", "conventions")
    assert len(lines_of(runner("context").stdout, "may conflict")) == 3  # a new fingerprint


def test_add_warns_of_the_facts_a_new_one_may_conflict_with(runner: Invoke) -> None:
    old = runner("add", HS256, "-c", "architecture", "--json").json()["id"]
    runner("add", "Deploys need two approvals", "-c", "operations")
    done = runner("add", RS256, "-c", "architecture", "--json")
    new = done.json()["id"]
    (warning,) = done.json()["warnings"]
    assert warning.startswith(f"may conflict with {old[:8]} (rs256 vs hs256): ")
    assert f"`memsite relate {new[:8]} {old[:8]} --type distinct-from`" in warning
    text = runner("add", "The production database is Postgres 15", "-c", "architecture")
    assert "may conflict" not in text.stderr
    again = runner("add", "The production database is Postgres 16", "-c", "architecture")
    assert "Warning: may conflict with" in again.stderr and "(16 vs 15)" in again.stderr
    other = runner("add", "Deploys need two approvals from the platform team", "-c", "operations")
    assert "may conflict" not in other.stderr
    amended = runner("amend", old, "API tokens are JWTs signed with ES256", "--json")
    (warning,) = amended.json()["warnings"]  # the old one is superseded: the other remains
    assert warning.startswith(f"may conflict with {new[:8]} (es256 vs rs256)")


def test_a_category_whose_facts_all_conflict_keeps_its_newest_first(
    runner: Invoke, store_root: Path
) -> None:
    """Marked facts go after the others: were only the newest marked (those within the
    budget), older ones would come first. The facts their place leaves are read too."""
    (store_root / "config.json").write_text(
        json.dumps({"memory": {"autoInjectTokenBudget": 300}}), encoding="utf-8"
    )
    for n in range(60):
        created = f"2026-03-01T10:{n // 60:02d}:{n % 60:02d}.000Z"
        write_raw(store_root, make_entry(f"Retry webhooks {n} times", "operations", created))
    lines = [line for line in runner("context").stdout.splitlines() if line.startswith("- ")]
    assert lines and lines[0].startswith("- Retry webhooks 59 times (may conflict with")
    assert all("may conflict" in line for line in lines)


TEXTS = [
    "The API listens on port {n} in production",
    "Install dependencies with {tool} before the build",
    "Deploys of service {n} run from the main branch",
]
TOOLS = ["npm", "pnpm", "yarn", "bun"]
OP = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(["operations", "conventions"]), st.integers(0, 59)),
    st.tuples(st.just("retire"), st.integers(0, 30)),
    st.tuples(
        st.just("relate"),
        st.integers(0, 30),
        st.integers(0, 30),
        st.sampled_from(["distinct-from", "conflicts-with"]),
    ),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OP, min_size=1, max_size=12), st.integers(20, 120))
def test_the_walks_kept_give_the_markers_found_anew(
    ops: list[tuple[Any, ...]], budget: int
) -> None:
    """After any sequence of adds, retirements and relations, the markers made with the
    categories' walks kept from the last time are those found from nothing."""
    from memsite.memory import conflicts

    with tempfile.TemporaryDirectory() as tmp:
        store, _ = Store.init(Path(tmp) / ".memsite")
        root = store.root
        config = json.loads((root / "config.json").read_text(encoding="utf-8"))
        config.setdefault("memory", {})["autoInjectTokenBudget"] = budget
        (root / "config.json").write_text(json.dumps(config), encoding="utf-8")
        clock, ids = Clock(), []
        for number, op in enumerate(ops):
            memory = Memory.open(str(root), {}, root.parent, clock)
            if op[0] == "add":
                text = TEXTS[op[2] % 3].format(n=op[2] % 7, tool=TOOLS[op[2] % 4])
                # some written before the others: last in index order
                made = clock() - timedelta(days=op[2] % 3 * 30)
                obj = make_entry(f"{text} ({number})", op[1], made, id=str(uuid.uuid4()))
                write_raw(root, obj)
                ids.append(obj["id"])
            elif ids and op[0] == "retire":
                with contextlib.suppress(MemsiteError):
                    memory.retire(ids[op[1] % len(ids)], "no longer true")
            elif len(ids) > 1 and op[0] == "relate" and op[1] % len(ids) != op[2] % len(ids):
                with contextlib.suppress(MemsiteError):
                    memory.relate(ids[op[1] % len(ids)], ids[op[2] % len(ids)], op[3], reason="r")
            clock.tick(minutes=1)
            kept = conflicts.conflict_markers(Memory.open(str(root), {}, root.parent, clock))
            fresh, _ = conflicts._find(Memory.open(str(root), {}, root.parent, clock), {})
            assert kept == fresh


def test_only_the_changed_categorys_walk_is_made_again(
    runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memsite.memory import conflicts

    runner("add", "The API listens on port 3000", "-c", "operations")
    runner("add", "The API listens on port 8080", "-c", "operations")
    runner("add", "Install dependencies with pnpm", "-c", "conventions")
    runner("add", "Install dependencies with npm ci", "-c", "conventions")
    assert "may conflict" in runner("context").stdout
    walked: list[str] = []
    walk = conflicts._category_groups
    monkeypatch.setattr(conflicts, "_category_groups", lambda m, c: walked.append(c) or walk(m, c))
    runner("add", "Deploys need two approvals", "-c", "operations")
    text = runner("context").stdout
    assert walked == ["operations"]
    assert len(lines_of(text, "may conflict")) == 4
