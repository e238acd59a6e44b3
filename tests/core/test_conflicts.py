"""The possible-conflict rule: what it catches, what it leaves alone, and its false positives
on the search evaluation set (facts of 65 real repositories)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from memsite.core.conflicts import assertion_of, possible_conflicts
from memsite.core.text import normalize

EVAL = Path(__file__).resolve().parents[2] / "benchmarks" / "eval"


def conflicts(*texts: str) -> list[tuple[str, str, str]]:
    claims = [assertion_of(str(i), normalize(t)) for i, t in enumerate(texts)]
    return [(c.a, c.b, c.why) for c in possible_conflicts(claims)]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The database is Postgres 15", "The database is Postgres 16"),
        ("CI runs on Node 18", "CI runs on Node 20"),
        ("Python 3.11 is required", "Python 3.12 is required"),
        ("Use pnpm for installs", "Do not use pnpm for installs"),
        ("We deploy on Fridays", "We never deploy on Fridays"),
        ("Tests don't need a database", "Tests need a database"),
    ],
)
def test_it_catches(a: str, b: str) -> None:
    assert len(conflicts(a, b)) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The database is Postgres 15", "The cache is Redis 7"),  # another subject
        ("Tests run with pytest", "Tests run with pytest -n 4"),  # more detail, no change
        ("Use pnpm, not npm", "use PNPM, not npm."),  # the same fact
        ("Deploy with Helm 3", "Deploys need two approvals"),
    ],
)
def test_it_leaves_alone(a: str, b: str) -> None:
    assert conflicts(a, b) == []


def test_why_names_the_values() -> None:
    (found,) = conflicts("The database is Postgres 15", "The database is Postgres 16")
    assert found[2] == "15 vs 16"


def test_silenced_pairs_and_only() -> None:
    claims = [assertion_of(i, normalize(f"The database is Postgres {i}")) for i in ("14", "15")]
    claims.append(assertion_of("16", normalize("The database is Postgres 16")))
    assert len(possible_conflicts(claims)) == 3
    assert len(possible_conflicts(claims, silenced=[("15", "14")])) == 2
    assert {(c.a, c.b) for c in possible_conflicts(claims, only=["16"])} == {
        ("14", "16"),
        ("15", "16"),
    }


def test_no_false_positive_on_the_evaluation_set() -> None:
    by_category: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for path in sorted(EVAL.glob("part_*.jsonl")):
        for line in path.read_text().splitlines():
            fact = json.loads(line)
            if fact.get("type") == "fact":
                by_category[fact["category"]].append((fact["id"], fact["content"]))
    assert sum(len(v) for v in by_category.values()) == 430
    for members in by_category.values():
        claims = [assertion_of(i, normalize(t)) for i, t in members]
        assert possible_conflicts(claims) == []
