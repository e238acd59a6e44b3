"""Oracles the tests check memsite against: plain, obviously right ways of computing what the
package computes faster or incrementally (they live here, not in the package, because only
the tests use them)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from memsite.core.budget import index_item, render_items
from memsite.core.compaction import Compaction
from memsite.core.entry import Entry, entry_from_object, load_object
from memsite.core.estimate import _MARGIN, estimate_tokens
from memsite.core.markdown import compacted_bullet, compacted_text
from memsite.portal.text import plain_text, render_plain


def render_index(result: Compaction, weights: Mapping[str, float], budget: int) -> str:
    """index.md within ``budget`` estimated tokens, from a compaction (see ``render_items``)."""
    sections = {}
    for category in result.categories:
        active = result.active(category)
        if active:
            sections[category] = [index_item(e) for e in active]
    return render_items(sections, weights, budget)


def compacted_markdown(result: Compaction, category: str) -> str:
    """The human view of one category: active entries, newest first."""
    return compacted_text(category, [compacted_bullet(e) for e in result.active(category)])


def parse_entry(data: bytes, filename: str) -> Entry:
    """Parse one entry file's bytes. Raises InvalidEntryFileError saying why it is unusable."""
    return entry_from_object(load_object(data), filename)


def lower_bound(text: str) -> int:
    """A cheap floor under :func:`estimate_tokens`, to skip texts that cannot fit a budget.

    Every non-space character costs at least a quarter token under the rules above (a letter
    in a lower-case piece ceil(n/4), a digit a third, anything else a whole token per byte),
    and every non-empty text carries the margin.
    """
    if not text:
        return 0
    visible = len(text) - text.count(" ")
    return _MARGIN + visible // 4


def fits(text: str, budget: int) -> bool:
    """Whether ``text`` fits in ``budget`` tokens by :func:`estimate_tokens`."""
    return estimate_tokens(text) <= budget


@lru_cache(maxsize=1 << 16)
def search_html(text: str) -> str:
    """Entry text for Material's search index: escaped, code spans kept as ``<code>``."""
    return plain_text(str(render_plain(text)))


def components(pairs: list[tuple[str, str, float]]) -> list[tuple[str, ...]]:
    """The connected components of ``pairs``, each sorted, sorted (by a plain search)."""
    neighbours: dict[str, set[str]] = {}
    for a, b, _ in pairs:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    found: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for start in sorted(neighbours):
        if start in seen:
            continue
        todo, group = [start], set[str]()
        while todo:
            node = todo.pop()
            if node not in group:
                group.add(node)
                todo.extend(neighbours[node] - group)
        seen |= group
        found.append(tuple(sorted(group)))
    return sorted(found)
