"""The filters of `list` and `search` (and so of memory_list and memory_search over MCP): a
category or tag no entry could have is refused in one line naming the valid ones, instead of
"No entries." that hides a typo; an empty store still answers "No entries."."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import add
from tests.conftest import Invoke

CATEGORIES = "conventions, architecture, operations, decisions"


@pytest.mark.parametrize(
    "args",
    [("list", "-c", "nosuch"), ("list", "--all", "-c", "nosuch"), ("search", "x", "-c", "nosuch")],
)
def test_an_unknown_category_is_refused(runner: Invoke, args: tuple[str, ...]) -> None:
    add(runner, "Use pnpm, never npm.")
    result = runner(*args)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"Error: unknown category 'nosuch': use one of {CATEGORIES}\n"
    answer = runner(*args, "--json")
    assert answer.exit_code == 1
    assert answer.json() == {"error": f"unknown category 'nosuch': use one of {CATEGORIES}"}


def test_a_category_only_entries_are_in_is_known(runner: Invoke, store_root: Path) -> None:
    add(runner, "Use pnpm, never npm.")
    config = store_root / "config.json"
    obj = json.loads(config.read_text())
    obj["memory"]["categories"] = {"decisions": 1}  # conventions is no longer configured
    config.write_text(json.dumps(obj))
    assert runner("list", "-c", "conventions", "--json").json()[0]["category"] == "conventions"
    result = runner("list", "-c", "nosuch")
    assert "use one of decisions, conventions" in result.stderr and result.exit_code == 1


def test_an_unknown_tag_is_refused_naming_tags_near_it(runner: Invoke) -> None:
    tags = [f"t{n:02}" for n in range(20)]
    for number, tag in enumerate(tags):
        add(runner, f"Fact number {number} about the build.", "-t", tag)
    result = runner("list", "-t", "t105")  # sorts between t10 and t11
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1
    near = ", ".join(tags[6:16])  # five before it, five after
    assert result.stderr == f"Error: no entry has the tag 't105': tags near it: {near}\n"
    assert runner("list", "-t", "zzz", "--json").json() == {
        "error": f"no entry has the tag 'zzz': tags near it: {', '.join(tags[10:])}"
    }
    assert runner("list", "-t", "T03", "--json").json()[0]["tags"] == ["t03"]
    assert runner("list", "-t", "t03", "--limit", "0", "--json").json() == []


def test_a_tag_on_inactive_entries_only_is_known(runner: Invoke) -> None:
    old = add(runner, "Deploys run from the deploy box.", "-t", "deploy")
    add(runner, "Deploys run from CI.", "--supersedes", str(old["id"]))
    result = runner("list", "-t", "deploy", "-c", "decisions")
    assert result.exit_code == 0 and result.stdout == "No entries.\n"
    assert runner("list", "-t", "nosuch").stderr.endswith("tags near it: deploy\n")


def test_a_store_without_tags_says_so(runner: Invoke) -> None:
    add(runner, "Use pnpm, never npm.")
    result = runner("list", "-t", "pnpm")
    assert result.exit_code == 1
    assert result.stderr == "Error: no entry has the tag 'pnpm': no entry has any tag yet\n"


def test_an_empty_store_answers_no_entries(runner: Invoke) -> None:
    for args in (("list",), ("list", "-t", "any"), ("list", "-c", "decisions", "--all")):
        result = runner(*args)
        assert result.exit_code == 0 and result.stdout == "No entries.\n", args
    assert runner("search", "pnpm", "-c", "conventions", "--json").json() == []
    assert runner("list", "-c", "nosuch").exit_code == 1  # the config's categories still hold
