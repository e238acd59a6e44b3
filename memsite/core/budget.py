"""The token-budgeted ``index.md`` that agents get at session start. Pure.

Same compaction in, same bytes out: no clock, no host data.
"""

from __future__ import annotations

from collections.abc import Mapping

from memsite.core.compaction import Compaction
from memsite.core.entry import Entry
from memsite.core.estimate import estimate_tokens, lower_bound
from memsite.core.markdown import category_title, public_text
from memsite.core.text import one_line

INDEX_HEADER = "<!-- Auto-generated. Do not edit. Rebuild: memsite compact -->\n"


def _index_priority(entries: list[Entry]) -> list[Entry]:
    """Newest first, with low-confidence entries only after all the others."""
    return [e for e in entries if e.confidence != "low"] + [
        e for e in entries if e.confidence == "low"
    ]


def render_index(result: Compaction, weights: Mapping[str, float], budget: int) -> str:
    """index.md within ``budget`` estimated tokens .

    Each non-empty category gets floor(budget * w / sum w) of what the header leaves; entries
    go in newest first (low confidence last), one that does not fit is skipped and later ones
    are still tried; what a category leaves unused is pooled and offered to the others in
    config order. The estimate of the whole final file never exceeds ``budget``.
    """
    sections: dict[str, list[Entry]] = {}
    for category in result.categories:
        active = result.active(category)
        if active:
            sections[category] = _index_priority(active)
    available = budget - estimate_tokens(INDEX_HEADER)
    if available <= 0 or not sections:
        return INDEX_HEADER
    total_weight = sum(weights.get(c, 1) for c in sections)
    allowance = {c: int(available * weights.get(c, 1) // total_weight) for c in sections}
    heading_cost = {c: estimate_tokens(_heading(c)) for c in sections}
    chosen: dict[str, set[str]] = {c: set() for c in sections}
    bullet_cost: dict[str, int] = {}
    bullets: dict[str, str] = {}

    def fill(category: str, room: int) -> int:
        """Add what fits into ``room`` tokens; return the room left."""
        for entry in sections[category]:
            if entry.id in chosen[category]:
                continue
            cost = bullet_cost.get(entry.id)
            if cost is None:
                if not entry.is_suspect() and _floor(entry.content) > room:
                    continue  # cannot fit: skip before building the bullet
                bullet = bullets[entry.id] = _bullet(entry)
                if lower_bound(bullet) > room:
                    continue  # cannot fit: no need for the full estimate
                cost = bullet_cost[entry.id] = estimate_tokens(bullet)
            if not chosen[category]:
                cost += heading_cost[category]
            if cost <= room:
                chosen[category].add(entry.id)
                room -= cost
        return room

    pool = 0
    for category in sections:
        pool += fill(category, allowance[category])
    pool += available - sum(allowance.values())
    for category in sections:
        pool = fill(category, pool)
    text = _assemble(sections, chosen, bullets)
    # The estimate is additive over lines; this guard keeps the promise even if it were not.
    while estimate_tokens(text) > budget and any(chosen.values()):
        last = next(c for c in reversed(sections) if chosen[c])
        drop = next(e.id for e in reversed(sections[last]) if e.id in chosen[last])
        chosen[last].discard(drop)
        text = _assemble(sections, chosen, bullets)
    return text


def _floor(content: str) -> int:
    """A floor under the estimate of the content's bullet (see tokens.lower_bound): the bullet
    keeps every non-whitespace character, and each costs at least a quarter token."""
    return 2 + len("".join(content.split())) // 4


def _heading(category: str) -> str:
    return f"\n## {category_title(category)}\n"


def _bullet(entry: Entry) -> str:
    return f"- {one_line(public_text(entry))}\n"


def _assemble(
    sections: Mapping[str, list[Entry]],
    chosen: Mapping[str, set[str]],
    bullets: Mapping[str, str],
) -> str:
    parts = [INDEX_HEADER]
    for category, entries in sections.items():
        picked = [e for e in entries if e.id in chosen[category]]
        if not picked:
            continue
        parts.append(_heading(category))
        parts.extend(bullets[e.id] for e in picked)
    return "".join(parts)
