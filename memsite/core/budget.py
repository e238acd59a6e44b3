"""The token-budgeted ``index.md`` that agents get at session start. Pure.

Same compaction in, same bytes out: no clock, no host data.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import NamedTuple

from memsite.core.entry import Entry
from memsite.core.estimate import estimate_tokens
from memsite.core.markdown import category_title, public_text
from memsite.core.text import one_line

INDEX_HEADER = "<!-- Auto-generated. Do not edit. Rebuild: memsite compact -->\n"


class IndexItem(NamedTuple):
    """One fact as the index shows it: the bullet's estimated cost, and the bullet line
    (may be left empty when ``render_items`` is given a way to fetch the chosen ones)."""

    id: str
    bullet: str
    cost: int
    low: bool  # low confidence: offered only after the others


def index_item(entry: Entry, *, full: bool = False) -> IndexItem:
    """The entry's line in index.md (``full``: redacted with the full secret scan)."""
    bullet = _bullet(entry, full)
    return IndexItem(entry.id, bullet, estimate_tokens(bullet), entry.confidence == "low")


def render_items(
    sections: Mapping[str, Sequence[IndexItem]],
    weights: Mapping[str, float],
    budget: int,
    bullets: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
    late: Collection[str] = (),
) -> str:
    """index.md within ``budget`` estimated tokens; ``sections`` are the non-empty categories
    in order, each with its active facts newest first.

    Each category gets floor(budget * w / sum w) of what the header leaves; facts go in newest
    first (low confidence last), one that does not fit is skipped and later ones are still
    tried; what a category leaves unused is pooled and offered to the others in config order.
    The estimate of the whole final file never exceeds ``budget``. Only costs decide what goes
    in, so ``bullets`` (ids → bullet lines) is asked only for the facts chosen. Facts in
    ``late`` (drifted or stale) are offered after all others, low confidence last among them.
    """
    ordered = {
        c: sorted(items, key=lambda i: (i.id in late, i.low))
        for c, items in sections.items()
        if items
    }
    available = budget - estimate_tokens(INDEX_HEADER)
    if available <= 0 or not ordered:
        return INDEX_HEADER
    total_weight = sum(weights.get(c, 1) for c in ordered)
    allowance = {c: int(available * weights.get(c, 1) // total_weight) for c in ordered}
    heading_cost = {c: estimate_tokens(_heading(c)) for c in ordered}
    chosen: dict[str, set[str]] = {c: set() for c in ordered}

    def fill(category: str, room: int) -> int:
        """Add what fits into ``room`` tokens; return the room left."""
        picked = chosen[category]
        heading = heading_cost[category]
        for item in ordered[category]:
            if item.cost > room or item.id in picked:
                continue
            cost = item.cost if picked else item.cost + heading
            if cost <= room:
                picked.add(item.id)
                room -= cost
        return room

    pool = 0
    for category in ordered:
        pool += fill(category, allowance[category])
    pool += available - sum(allowance.values())
    for category in ordered:
        pool = fill(category, pool)
    if bullets is None:
        lines = {i.id: i.bullet for items in ordered.values() for i in items}
    else:
        lines = dict(bullets(sorted(set().union(*chosen.values()))))
    text = _assemble(ordered, chosen, lines)
    # The estimate is additive over lines; this guard keeps the promise even if it were not.
    while estimate_tokens(text) > budget and any(chosen.values()):
        last = next(c for c in reversed(ordered) if chosen[c])
        drop = next(i.id for i in reversed(ordered[last]) if i.id in chosen[last])
        chosen[last].discard(drop)
        text = _assemble(ordered, chosen, lines)
    return text


def _heading(category: str) -> str:
    return f"\n## {category_title(category)}\n"


def _bullet(entry: Entry, full: bool = False) -> str:
    return f"- {one_line(public_text(entry, full=full))}\n"


def _assemble(
    sections: Mapping[str, Sequence[IndexItem]],
    chosen: Mapping[str, set[str]],
    lines: Mapping[str, str],
) -> str:
    parts = [INDEX_HEADER]
    for category, items in sections.items():
        picked = [i for i in items if i.id in chosen[category]]
        if not picked:
            continue
        parts.append(_heading(category))
        parts.extend(lines[i.id] for i in picked)
    return "".join(parts)
