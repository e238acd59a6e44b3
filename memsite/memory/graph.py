"""`export --format graphml|dot`: the facts and what joins them, gathered from the memory's
state for the pure writers of ``core.graph``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memsite.core import graph
from memsite.core.records import RELATE
from memsite.core.secrets import redact
from memsite.core.transfer import record_order
from memsite.memory.shapes import content_of

if TYPE_CHECKING:
    from memsite.core.entry import Entry
    from memsite.memory import Memory


def graph_text(memory: Memory, fmt: str, entries: list[Entry]) -> tuple[str, dict[str, int]]:
    """``entries`` as a graph in ``fmt`` (``core.graph.FORMATS``), and its counts. Texts and
    reasons are redacted as in every export."""
    state = memory.state()
    result = state.result
    nodes = [graph.Node(e.id, e.category, result.status[e.id], content_of(e)) for e in entries]
    supersedes = [(newer, older) for newer, olders in result.edges.items() for older in olders]
    links = [
        # Oldest first: a link said again keeps its newest reason (as `read` shows it).
        graph.Edge(r.target, r.other, r.link, redact(r.text or ""))
        for r in record_order(state.scan.records)
        if r.kind == RELATE and r.other is not None and r.link is not None
    ]
    edges = graph.graph_edges(nodes, supersedes, links)
    write = graph.graphml if fmt == "graphml" else graph.dot
    return write(nodes, edges), {"entries": len(nodes), "edges": len(edges)}
