"""Token estimate (temporary placeholder; replaced by the tuned estimator)."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    return len(text.encode("utf-8"))


def fits(text: str, budget: int) -> bool:
    return estimate_tokens(text) <= budget
