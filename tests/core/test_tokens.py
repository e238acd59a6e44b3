"""Exact token counts: the same as bpe-openai's own interface, for any text and length, loaded
without importing its package, never loaded by ``measure``, and absent without the library."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import bpe_openai
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memsite.core import tokens
from memsite.core.budget import HEADER_TOKENS, INDEX_HEADER

ENCODINGS = [bpe_openai.get_encoding(name) for name in tokens.ENCODINGS]


def real(text: str) -> tuple[int, int]:
    cl100k, o200k = (len(e.encode_ordinary(text)) for e in ENCODINGS)
    return cl100k, o200k


def run(script: str) -> str:
    """``script`` in a fresh interpreter (nothing loaded yet); its output."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


LINES = [
    "- Use pnpm, never npm.\n",
    "- The API is served by FastAPI behind `nginx` on :8443 (see ops/nginx.conf).\n",
    "- 部署使用 Helm；数据库是 Postgres 16。 Развёртывание через ArgoCD 🚀✅\n",
    "- Never write <|endoftext|> or <|fim_prefix|> into a prompt template\n",
    "- \n",
    "",
]


@pytest.mark.parametrize("line", LINES)
def test_counts_are_the_tokenizers_own(line: str) -> None:
    assert tokens.count([line]) == [real(line)]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
@example("a\ud800b")  # a lone surrogate: counted as bpe-openai counts it (U+FFFD)
def test_any_text_is_counted_as_bpe_openai_counts_it(text: str) -> None:
    assert tokens.count([text]) == [real(text)]


@pytest.mark.parametrize(
    "text",
    [
        " ".join(f"word{i} fact" for i in range(12_000)),  # one line, single spaces
        "- " + "x" * 45_000 + " tail\n",  # a run with nowhere to cut but its end
        "\n".join(f"- fact {i}: use pnpm" for i in range(8_000)),  # many lines
    ],
)
def test_long_texts_are_counted_in_pieces(text: str) -> None:
    """Over bpe-openai's limits (1M characters, 200k tokens) a text would not be counted at
    all; in pieces, one-line text counts exactly, and a forced cut adds at most a token."""
    assert len(text) > tokens._PIECE
    counted = tokens.count([text])
    assert counted is not None
    for found, whole in zip(counted[0], real(text), strict=True):
        assert whole <= found <= whole + 1
    if "\n" not in text and "x" * 100 not in text:
        assert counted == [real(text)]


def test_the_public_interface_is_a_fallback_with_the_same_counts() -> None:
    compiled, public = tokens._compiled(), tokens._public()
    assert compiled is not None and public is not None
    for line in LINES:
        assert [c(line) for c in compiled] == [c(line) for c in public] == list(real(line))


def test_measure_counts_with_the_larger_of_the_two() -> None:
    assert tokens.load()
    for line in LINES:
        assert tokens.measure(line) == max(real(line))


def test_the_header_costs_what_budget_charges_for_it() -> None:
    assert max(real(INDEX_HEADER)) == HEADER_TOKENS


def test_loading_does_not_import_the_package_and_measure_never_loads() -> None:
    """Importing ``bpe_openai`` costs ~0.45 s; its compiled tokenizers alone ~0.07 s."""
    found = run(
        """
        import sys
        from memsite.core import tokens
        print(tokens.measure("- a fact\\n"), "bpe_openai._bindings" in sys.modules)
        print(tokens.count(["- a fact\\n"]), "bpe_openai" in sys.modules)
        print(tokens.measure("- a fact\\n"))
        """
    )
    assert found.splitlines() == ["None False", "[(4, 4)] False", "4"]


def test_without_bpe_openai_there_are_no_counts() -> None:
    found = run(
        """
        import sys
        sys.modules["bpe_openai"] = None  # as when it is not installed: import fails
        from memsite.core import tokens
        print(tokens.load(), tokens.count(["- a fact\\n"]), tokens.measure("- a fact\\n"))
        """
    )
    assert found == "False None None"
