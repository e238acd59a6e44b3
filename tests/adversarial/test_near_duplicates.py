"""Thousands of near-identical facts cost `review` linear work and one finding per group, not
one per pair: 2,000 copies of a sentence with one number changed were ~2M near-duplicate
findings (762 MB of output in 71 s), their ~2M possible-conflict pairs listed before they were
grouped (issue 30, item 12). The facts are planted as entry files, as a branch or a script
could commit them."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memsite.core.conflicts import assertion_of, conflict_groups
from memsite.core.similarity import similar_groups, token_set
from memsite.core.text import normalize
from tests.conftest import clean_env, make_entry, write_raw

# The benchmark's own shapes (benchmarks/bench_near_dups.py): the test plants what it times.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_near_dups import fact

FACTS = 2000
START = datetime(2026, 1, 1, tzinfo=UTC)


def plant(store_root: Path, shape: str, count: int) -> list[str]:
    ids = []
    for n in range(count):
        entry_id = str(uuid.UUID(int=n + 1))
        created = START + timedelta(seconds=n)
        write_raw(store_root, make_entry(fact(shape, n), "operations", created, id=entry_id))
        ids.append(entry_id)
    return ids


def review(store_root: Path) -> bytes:
    done = subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store_root), "review", "--json"],
        capture_output=True,
        env=clean_env(),
        timeout=120,  # linear work takes a few seconds; listing the pairs took minutes
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


@pytest.mark.parametrize("shape", ["number", "word"])
def test_near_identical_facts_are_one_finding_a_group(store_root: Path, shape: str) -> None:
    ids = plant(store_root, shape, FACTS)
    out = review(store_root)
    assert len(out) < 1_000_000
    found = json.loads(out)["findings"]
    near = [f for f in found if f["kind"] == "near_duplicate"]
    assert len(near) == 1
    assert near[0]["ids"] == ids[::-1]  # every fact, newest first
    assert near[0]["message"].startswith(f"{FACTS} entries in operations say almost the same")
    assert "and 1990 more" in near[0]["message"]
    conflicts = [f for f in found if f["kind"] == "possible_conflict"]
    if shape == "number":  # one subject, every pair differs in the number: one group
        assert [len(f["ids"]) for f in conflicts] == [FACTS]
    else:  # no number differs and none is negated: nothing conflicts
        assert conflicts == []
    assert len(found) == len(near) + len(conflicts)


@pytest.mark.parametrize("shape", ["number", "word"])
def test_the_groupings_alone_are_linear(shape: str) -> None:
    """At 8,000 facts the pairs would be 32M; the groups come out of a bounded pass."""
    texts = [normalize(fact(shape, n)) for n in range(8000)]
    memo: dict[str, str] = {}
    items = [(f"{n:05d}", token_set(text, memo)) for n, text in enumerate(texts)]
    assert similar_groups(items) == [tuple(i for i, _ in items)]
    assertions = [assertion_of(f"{n:05d}", text) for n, text in enumerate(texts)]
    expected = [tuple(i for i, _ in items)] if shape == "number" else []
    assert conflict_groups(assertions) == expected
