"""The human read view: category titles, the compacted page, an entry's bullet (key, tags,
confidence, continuation lines, redaction, control characters) and its public text."""

from __future__ import annotations

from typing import Any

import pytest

from memsite.core.entry import Entry, entry_from_object
from memsite.core.markdown import (
    COMPACTED_HEADER,
    category_title,
    compacted_bullet,
    compacted_text,
    public_text,
)
from tests.conftest import make_entry
from tests.secrets_corpus import FAKE_SECRETS

ID = "a1b2c3d4-5678-40ab-8def-1234567890ab"
STRIPE = next(s for s in FAKE_SECRETS if s.name == "Stripe live secret key")


def entry(content: str, **fields: Any) -> Entry:
    allow = fields.pop("allow_secret", None)
    obj = make_entry("x", id=ID, **fields)
    obj["content"] = content  # as a file may hold it: writes refuse bidi overrides
    if allow is not None:
        obj["allow_secret"] = allow
    return entry_from_object(obj, "x.json")


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("conventions", "Conventions"),
        ("code-style", "Code style"),
        ("code_style.v2", "Code style v2"),
        ("ci-CD", "Ci CD"),
        ("--", ""),
    ],
)
def test_category_title(name: str, title: str) -> None:
    assert category_title(name) == title


def test_compacted_text_with_and_without_bullets() -> None:
    assert (
        compacted_text("code-style", [])
        == COMPACTED_HEADER + "# Code style\n\n_No active entries._\n"
    )
    assert (
        compacted_text("decisions", ["- a\n", "- b\n"])
        == COMPACTED_HEADER + "# Decisions\n\n- a\n- b\n"
    )


@pytest.mark.parametrize(
    ("content", "fields", "bullet"),
    [
        ("Use pnpm.", {}, "- Use pnpm. (2026-03-07 · a1b2c3d4)\n"),
        (
            "Use pnpm.",
            {"key": "package-manager", "tags": ["pnpm", "tooling"], "confidence": "high"},
            "- Use pnpm. [pnpm, tooling] "
            "(key: package-manager · 2026-03-07 · a1b2c3d4 · high confidence)\n",
        ),
        (
            "Maybe yarn",
            {"confidence": "low"},
            "- Maybe yarn (2026-03-07 · a1b2c3d4 · low confidence)\n",
        ),
        (
            "  First line  \n\n  second\x1b[2J line\u202e\n",
            {},
            "- First line\n  \n    second[2J line (2026-03-07 · a1b2c3d4)\n",
        ),
        ("a\x07b\tc", {}, "- ab\tc (2026-03-07 · a1b2c3d4)\n"),
    ],
)
def test_compacted_bullet(content: str, fields: dict[str, Any], bullet: str) -> None:
    assert compacted_bullet(entry(content, **fields)) == bullet


def test_a_suspected_secret_is_redacted_in_text_key_and_tags() -> None:
    assert STRIPE.name_form is not None
    fact = entry(STRIPE.fact, key=STRIPE.name_form, tags=[STRIPE.name_form, "billing"])
    bullet = compacted_bullet(fact)
    assert STRIPE.value not in bullet and STRIPE.name_form not in bullet
    assert bullet == (
        "- Production checkout charges cards with [redacted: stripe-key]; never log it. "
        "[[redacted: stripe-key], billing] (key: [redacted: stripe-key] · 2026-03-07 · a1b2c3d4)\n"
    )
    assert (
        public_text(fact)
        == "Production checkout charges cards with [redacted: stripe-key]; never log it."
    )


def test_a_person_may_allow_a_false_positive() -> None:
    fact = entry(STRIPE.fact, tags=["billing"], allow_secret=True)
    assert public_text(fact) == STRIPE.fact
    assert public_text(fact, full=True) == STRIPE.fact
    assert compacted_bullet(fact) == f"- {STRIPE.fact} [billing] (2026-03-07 · a1b2c3d4)\n"
    assert public_text(entry(STRIPE.fact, allow_secret="yes")) != STRIPE.fact  # only true allows


def test_full_scans_what_the_prefilter_let_through() -> None:
    fact = entry(STRIPE.fact).replace(suspect=False)  # as if the prefilter said no
    assert public_text(fact) == STRIPE.fact
    assert public_text(fact, full=True) == public_text(entry(STRIPE.fact))


def test_public_text_keeps_lines_and_drops_controls() -> None:
    assert public_text(entry("one\n\ttwo\x1b]0;title\x07\u202e")) == "one\n\ttwo]0;title"
