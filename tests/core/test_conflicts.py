"""The possible-conflict rule: what it catches, what it leaves alone, its false positives on
the search evaluation set (facts of 65 real repositories), and the groups its pairs join."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.conflicts import assertion_of, conflict_groups, possible_conflicts
from memsite.core.text import normalize
from tests.oracles import components

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


# Facts of a few words about few subjects, some with a version, some negated.
FACT = st.tuples(
    st.lists(st.sampled_from("deploy build cache service database runner".split()), max_size=6),
    st.sampled_from(["", " 15", " 16", " v2"]),
    st.sampled_from(["", " not"]),
).map(lambda parts: " ".join(parts[0]) + parts[1] + parts[2])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(FACT, max_size=30),
    st.sets(st.tuples(st.integers(0, 29), st.integers(0, 29)), max_size=5),
    st.none() | st.sets(st.integers(0, 29), max_size=3),
)
def test_the_groups_are_the_components_of_the_conflicts(
    texts: list[str], silenced: set[tuple[int, int]], only: set[int] | None
) -> None:
    claims = [assertion_of(f"{n:02d}", normalize(t)) for n, t in enumerate(texts)]
    quiet = [(f"{a:02d}", f"{b:02d}") for a, b in silenced]
    wanted = None if only is None else [f"{n:02d}" for n in only]
    pairs = [(c.a, c.b, 0.0) for c in possible_conflicts(claims, quiet, wanted)]
    assert conflict_groups(claims, quiet, wanted) == components(pairs)
