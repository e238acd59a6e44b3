"""Exact token counts under the tokenizers agents count with, OpenAI's ``cl100k_base`` and
``o200k_base`` (through ``bpe-openai``, the optional extra ``memsite[exact]``).

index.md is filled by the cost of each fact's line. The estimate (:mod:`memsite.core.estimate`)
is an upper bound at about 1.5x the real count, so an index filled by estimates uses about
three fifths of its budget; exact counts fill it. Nothing here loads the tokenizers at import,
and no hot path (`add`, `context`, `search`, the hooks, the MCP server's start) calls
:func:`count`: an explicit `memsite compact` counts the facts not counted yet in one batch, and
the read model keeps each fact's counts. :func:`measure` only uses tokenizers already loaded.

Loading costs ~0.07 s: bpe-openai's Rust tokenizers are taken from its compiled module
directly. Through the package's public interface it costs ~0.95 s: importing ``bpe_openai``
~0.55 s (its registry builds every encoding's vocabulary as a Python dict), ``get_encoding``
~0.4 s for the two (measured on the development machine). Should the compiled module change
shape in a later release, the public interface is used instead (same counts, slower).
Once loaded, a 200-character line costs ~15 µs for both tokenizers. Without bpe-openai,
:func:`count` answers None and callers keep the estimate.

A line is counted as the agent gets it: special-token names such as ``<|endoftext|>`` are
plain text. A text longer than ``_PIECE`` characters is counted in pieces cut just before a
space or after a newline (bpe-openai refuses texts over 1M characters or 200k tokens): for
one-line text, as index.md's bullets are, the tokenizers' pre-splitting never joins across
such a cut, so the sum is the count of the whole; elsewhere a cut can only add a token or two.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

ENCODINGS = ("cl100k_base", "o200k_base")
_PIECE = 20_000  # characters: under bpe-openai's limits (1M characters, 200k tokens a call)

Counter = Callable[[str], int]
_loaded: list[Counter] = []  # the two counters, once loaded in this process


def load() -> bool:
    """Load the tokenizers (once per process); False when bpe-openai is not installed."""
    if not _loaded:
        found = _compiled() or _public()
        if found is None:
            return False
        _loaded.extend(found)
    return True


def count(lines: Sequence[str]) -> list[tuple[int, int]] | None:
    """The (cl100k, o200k) tokens of each line, loading the tokenizers first when they are not
    yet; None when bpe-openai is not installed (the caller keeps its estimates)."""
    if not load():
        return None
    cl100k, o200k = _loaded
    return [(_tokens(cl100k, line), _tokens(o200k, line)) for line in lines]


def measure(text: str) -> int | None:
    """The cost of ``text`` (the more of its two counts) when the tokenizers are loaded in this
    process already; None when they are not (this never loads them)."""
    if not _loaded:
        return None
    return max(_tokens(counter, text) for counter in _loaded)


def _compiled() -> list[Counter] | None:
    """The counters of bpe-openai's compiled module, loaded without running its package (the
    package is found, not imported); None when it is not installed or not of this shape."""
    import importlib.machinery
    import importlib.util

    try:
        package = importlib.util.find_spec("bpe_openai")
        if package is None or not package.submodule_search_locations:
            return None
        spec = importlib.machinery.PathFinder.find_spec(
            "bpe_openai._bindings", list(package.submodule_search_locations)
        )
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        tokenizers = [module.tokenizer_for_encoding(name) for name in ENCODINGS]
        return [_clean(t.count) for t in tokenizers]
    except (ImportError, AttributeError, ValueError, TypeError):
        return None


def _public() -> list[Counter] | None:
    """The counters of bpe-openai's public interface; None when it is not installed."""
    try:
        import bpe_openai
    except ImportError:
        return None
    return [_length(bpe_openai.get_encoding(name).encode_ordinary) for name in ENCODINGS]


def _clean(counter: Callable[[str], Any]) -> Counter:
    """``counter`` on text made valid UTF-8 first, as bpe-openai's own interface does (a lone
    surrogate becomes U+FFFD)."""

    def counted(text: str) -> int:
        try:
            return int(counter(text))
        except UnicodeEncodeError:
            return int(counter(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")))

    return counted


def _length(encode: Callable[[str], Sequence[int]]) -> Counter:
    return lambda text: len(encode(text))


def _tokens(counter: Counter, text: str) -> int:
    if len(text) <= _PIECE:
        return counter(text)
    return sum(counter(piece) for piece in _pieces(text))


def _pieces(text: str) -> list[str]:
    """``text`` cut into pieces of at most ``_PIECE`` characters (see the module docstring)."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > _PIECE:
        end = start + _PIECE
        newline = text.rfind("\n", start + 1, end)
        space = text.rfind(" ", start + 1, end)
        cut = max(newline + 1 if newline >= 0 else -1, space)
        if cut <= start:
            cut = end
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces
