"""The named things of a fact and the slots they fill (``core.slots``), and the families of
alternatives they are read with (``core.alternatives``)."""

from __future__ import annotations

import pytest

from memsite.core.alternatives import named
from memsite.core.slots import slots_of
from memsite.core.text import normalize


def slots(text: str) -> dict[str, set[str]]:
    """Slot key → the names in it."""
    found: dict[str, set[str]] = {}
    for slot in slots_of(normalize(text))[0]:
        found.setdefault(slot.key, set()).add(slot.name)
    return found


def test_a_value_fills_the_slots_of_its_neighbours() -> None:
    found = slots("API tokens are JWTs signed with RS256; the public key is served at /jwks")
    assert found == {"<sign|a9": {"rs256"}}  # "with" skipped; the clause ends at ";"
    assert slots("The dev server listens on port 3000") == {"<port|9": {"3000"}}
    assert slots("Timeouts are 30s") == {"<timeout|9a": {"30s"}}
    assert "<node|9" in slots("CI runs on Node 18")  # a name is a neighbour too


def test_a_name_of_a_family_fills_slots_of_its_kind() -> None:
    found = slots("Install dependencies with pnpm")
    assert found == {"<depend|js-package-manager": {"pnpm"}}
    both = slots("Sessions are stored in Redis")  # a data store and a broker
    assert set(both) == {"<store|datastore", "<store|broker"}
    assert slots("Use 4 spaces for indentation")[">indent|indentation"] == {"space"}


@pytest.mark.parametrize(
    "text",
    [
        "ADR-004: BullMQ is the queue",  # a document's number
        "Fixed in PR #671 by the platform team",
        "Last verified in May 2025",
        "`migrations/20250906_get.sql` is flaky",  # inside a path or a name
        "Branches follow `gro-2720-short-description`",
        "The API is served under /v1/ only",
    ],
)
def test_numbers_that_name_things_fill_no_slot(text: str) -> None:
    assert not any(k.endswith(("|9", "|a9")) for k in slots(text)), slots(text)


def test_a_denied_name_fills_no_slot_and_is_not_named() -> None:
    found, names = slots_of(normalize("Use pnpm for all package installs; yarn is not supported"))
    assert names == frozenset({"pnpm"})
    assert {s.name for s in found} == {"pnpm"}
    assert slots_of(normalize("Use pnpm, not npm"))[1] == frozenset({"pnpm"})
    assert slots_of(normalize("Lint with Biome; the ESLint config was removed"))[1] == {"biome"}
    assert slots_of(normalize("Rebase onto main, never squash"))[1] == {"rebase", "main"}


def test_a_name_next_to_a_project_word_fills_no_slot_there() -> None:
    assert slots("In the pnpm repository, PRs need a footer") == {}


def test_what_a_slot_is_about() -> None:
    (slot,) = slots_of(normalize("Access tokens expire after 15 minutes"))[0][:1]
    assert slot.key == "<expir|9" and slot.before == {"access", "token", "expir"}
    found = slots_of(normalize("The production database is Postgres 15"))[0]
    assert {s.before for s in found if s.name == "15"} == {
        frozenset({"product", "databas", "=postgres"})
    }


def test_a_fact_naming_nothing_has_no_slots() -> None:
    assert slots_of(normalize("Keep pull requests small and reviewed")) == ((), frozenset())


def test_the_families() -> None:
    assert named("postgresql") == (("datastore", "postgres"),)  # an alias
    assert named("tabs") == (("indentation", "tab"),)  # a plural
    assert named("minutes") == (("time-unit", "minute"),)
    assert {family for family, _ in named("redis")} == {"datastore", "broker"}
    assert named("requests") == () and named("make") == ()  # common words are no names
