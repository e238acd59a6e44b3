"""index.md's text: the facts of each category that fit the budget, newest first, found
through the read model's index (which is asked only for the facts the budget reaches), or, where
the index cannot answer, by reading every fact's cost; with the markers of facts that drifted,
went stale or may conflict, and those held back by the trust gate left out.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memsite.core.budget import IndexItem
    from memsite.memory import Memory


def index_flags(memory: Memory) -> dict[str, str]:
    """The facts index.md marks (drifted, stale) with their markers (``anchors``), found
    once per operation."""
    from memsite.memory.anchors import index_markers

    return memory.model.markers(lambda: index_markers(memory))


def index_text(memory: Memory, budget: int, flags: Mapping[str, str] | None = None) -> str:
    """index.md for ``budget`` tokens: found through the read model's index, which is asked
    only for the facts the budget reaches (``_ranked_text``); the same text as reading every
    fact's cost (``_index_texts``), which it falls back to where the index cannot answer."""
    flags = index_flags(memory) if flags is None else flags
    text = _ranked_text(memory, budget, flags)
    return text if text is not None else _index_texts(memory, lambda r: r(budget), flags).text


# Facts the index's order passes over (held back, out of their window, marked to go last: a
# search each) above which every fact's cost is read instead.
_SKIP_MAX = 2000


def _ranked_text(memory: Memory, budget: int, flags: Mapping[str, str]) -> str | None:
    """``index_text`` from ``Views.ranked`` streams, one per category: at 100k facts ~0.2 s
    less than reading all 78k active facts' costs. None when the index keeps no cost for some
    fact, or many facts are left out or marked (each is a search of its own)."""
    from memsite.core import budget as rules
    from memsite.core.compaction import category_order
    from memsite.core.estimate import estimate_tokens
    from memsite.memory.trust import current
    from memsite.memory.windows import out_of_window

    index = memory.index()
    gate = current(memory)
    left = gate.held.keys() | out_of_window(memory).keys()
    if len(left) + len(flags) > _SKIP_MAX:
        return None
    with index.views.reading():
        summary = index.views.index_summary()
        if summary is None:
            return None
        candidates = memory.model.caches.flagged() | set(gate.approved) | set(flags) | left
        known = index.views.index_items_of(candidates)
        marked = _special_lines(memory, known.keys() - left, flags, gate.approved)
        costs = {i: estimate_tokens(line) for i, line in marked.items()}
        streams: dict[str, rules.Stream] = {}
        offered, skip, last = 0, left | flags.keys(), flags.keys() - left
        for category in category_order(memory.config.categories, summary):
            own = {i for i, (c, _) in known.items() if c == category}
            count, least = summary.get(category, (0, 0))
            count -= len(own & left)
            if count <= 0:
                continue
            offered += count
            late = [item for i, (c, item) in known.items() if c == category and i in last]
            tail = [item._replace(cost=costs[item.id]) for item in rules.late_last(late, flags)]
            mine = {i: costs[i] for i in own if i in costs}
            floor = min([least, *mine.values()])
            streams[category] = index.views.ranked(category, skip, mine, tail, floor)
        held = len(gate.held)
        room = budget - rules.frame_cost(offered, held)
        if room <= estimate_tokens(rules.INDEX_HEADER):
            return rules.unframed(budget, offered, held)
        chosen: dict[str, str] = {}
        bullets = _lines_into(chosen, memory, marked)
        body = rules.render_streams(streams, memory.config.categories, room, bullets)
    shown = sum(1 for line in chosen.values() if line in body)
    return rules.framed(body, offered - shown, held)


class Rendered(NamedTuple):
    """index.md as agents get it, and which active facts it holds, left out or held back."""

    text: str
    included: list[str]
    omitted: list[str]
    held_back: dict[str, str]  # id → why (``core.trust``)
    task: list[str]  # the facts of the leading task section (``context --task``)


def _index_texts(
    memory: Memory,
    choose: Callable[[Callable[[int], str]], str],
    flags: Mapping[str, str] | None = None,
    first: Sequence[str] = (),
    only_first: bool = False,
) -> Rendered:
    """``choose(render)``: the index rendered for one or more budgets, from one read of it.
    Only facts the gate lets through and that hold now are offered (``memory.trust``,
    ``memory.windows``); drifted and stale facts (``flags``: id → marker) come after the
    others, marked; facts the full secret scan flagged are redacted with it (their kept
    bullets had the quick scan). The framing line opens the text; how many facts did not fit
    and how many were held back end it. ``first``: see ``_sections``."""
    from memsite.core import budget as rules
    from memsite.core.estimate import estimate_tokens
    from memsite.memory.trust import current
    from memsite.memory.windows import out_of_window

    index = memory.index()
    flags = index_flags(memory) if flags is None else flags
    gate = current(memory)
    with index.views.reading():
        found = index.views.index_items()
        left = gate.held.keys() | out_of_window(memory).keys()
        items = {c: [i for i in group if i.id not in left] for c, group in found.items()}
        offered_ids = {item.id for group in items.values() for item in group}
        marked = _special_lines(memory, offered_ids, flags, gate.approved)
        sections = _sections(memory, items, marked, first, only_first)
        held = 0 if only_first else len(gate.held)
        weights = memory.config.categories
        offered = [item.id for group in sections.values() for item in group]
        chosen: dict[str, str] = {}  # the facts offered to the text, with their lines

        bullets = _lines_into(chosen, memory, marked)
        late = {i for i in marked if i in flags}

        def render(budget: int) -> str:
            chosen.clear()
            room = budget - rules.frame_cost(len(offered), held)
            if room <= estimate_tokens(rules.INDEX_HEADER):  # no room for the frame or any fact
                return rules.unframed(budget, len(offered), held)
            shares = rules.task_weights(sections, weights, room) if first else weights
            body = rules.render_items(sections, shares, room, bullets, late=late)
            for entry_id in [i for i, line in chosen.items() if line not in body]:
                del chosen[entry_id]  # dropped to fit when the text was counted
            return rules.framed(body, len(offered) - len(chosen), held)

        text = choose(render)
    included = [i for i in offered if i in chosen]
    omitted = [i for i in offered if i not in chosen]
    task = [i.id for i in sections.get(rules.TASK, []) if i.id in chosen]
    return Rendered(text, included, omitted, dict(sorted(gate.held.items())), task)


def _lines_into(
    chosen: dict[str, str], memory: Memory, marked: Mapping[str, str]
) -> Callable[[Sequence[str]], dict[str, str]]:
    """``core.budget``'s ``bullets``: the chosen facts' lines (kept or marked), into ``chosen``."""

    def bullets(ids: Sequence[str]) -> dict[str, str]:
        found = memory.index().views.index_bullets([i for i in ids if i not in marked])
        chosen.clear()
        chosen.update({**found, **{i: marked[i] for i in ids if i in marked}})
        return chosen

    return bullets


def _sections(
    memory: Memory,
    items: Mapping[str, Sequence[IndexItem]],
    marked: Mapping[str, str],
    first: Sequence[str],
    only_first: bool,
) -> dict[str, list[IndexItem]]:
    """The index's sections in category order, each fact costed by the line it will have;
    the facts ``first`` names lead in a section of their own (alone with ``only_first``)."""
    from memsite.core.budget import TASK, task_first
    from memsite.core.compaction import category_order
    from memsite.core.estimate import estimate_tokens

    present = memory.index().entries.categories()
    sections = {
        c: [
            item._replace(cost=estimate_tokens(marked[item.id])) if item.id in marked else item
            for item in items[c]
        ]
        for c in category_order(memory.config.categories, present)
        if c in items
    }
    if first:
        sections = task_first(sections, first)
    return {TASK: sections.get(TASK, [])} if only_first else sections


def _special_lines(
    memory: Memory,
    active: Collection[str],
    flags: Mapping[str, str],
    approved: Collection[str] = (),
) -> dict[str, str]:
    """The lines of the facts whose kept bullet will not do: redacted with the full scan
    (flagged by it), stripped of hidden characters (an approved fact that holds them), or
    with a marker (drifted, stale); ``active``: the facts offered."""
    from memsite.core.budget import index_item
    from memsite.core.hidden import has_hidden, strip_hidden

    index = memory.index()
    active = set(active)
    flagged = memory.model.caches.flagged() & active
    special = index.views.redacted_bullets(flagged, lambda e: index_item(e, full=True).bullet)
    for entry_id, line in index.views.index_bullets(sorted(set(approved) & active)).items():
        line = special.get(entry_id, line)
        if has_hidden(line):
            special[entry_id] = strip_hidden(line)
    for entry_id, line in index.views.index_bullets(sorted(flags)).items():
        special[entry_id] = special.get(entry_id, line)[:-1] + flags[entry_id] + "\n"
    return special
