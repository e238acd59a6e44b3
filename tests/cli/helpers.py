"""Helpers shared by the tests of this package."""

from __future__ import annotations

from tests.conftest import Invoke


def add(runner: Invoke, content: str, *args: str) -> dict[str, object]:
    result = runner("add", content, "-c", "conventions", *args, "--json")
    assert result.exit_code == 0, result.stderr
    answer: dict[str, object] = result.json()
    return answer
