"""The search analysis: Porter stems as lunr stems them, so the CLI and the portal agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lunr.stemmer import stemmer as lunr_stemmer
from lunr.token import Token

from memsite.core.stem import stem, terms

ROOT = Path(__file__).resolve().parents[2]
# lunr.py keeps "eed" whole where lunr.js (which the browser runs) and this stemmer give "e".
KNOWN_DIFFERENCES = {"eed"}


def vocabulary() -> list[str]:
    words: set[str] = set()
    for path in [ROOT / "README.md", *sorted((ROOT / "benchmarks" / "eval").glob("*.jsonl"))]:
        words |= set(re.findall(r"[a-z]+", path.read_text(encoding="utf-8").lower()))
    return sorted(words - KNOWN_DIFFERENCES)


def test_the_vocabulary_is_large_enough_to_mean_something() -> None:
    assert len(vocabulary()) > 3000


def test_stems_agree_with_lunr_on_every_word_of_the_docs_and_the_eval_set() -> None:
    different = [(w, stem(w), str(lunr_stemmer(Token(w)))) for w in vocabulary()]
    different = [d for d in different if d[1] != d[2]]
    assert different == []


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("kubernetes", "kubernet"),
        ("running", "run"),
        ("deployments", "deploy"),
        ("retries", "retri"),
        ("yelling", "yell"),
        ("pnpm", "pnpm"),
        ("über", "über"),  # not a-z: kept as it is
        ("v16", "v16"),
    ],
)
def test_stem_examples(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_terms_normalize_split_and_stem() -> None:
    assert terms("Deploying the Webhooks, RETRIED twice!") == [
        "deploi",
        "the",
        "webhook",
        "retri",
        "twice",
    ]
