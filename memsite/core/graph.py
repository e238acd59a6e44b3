"""The memory as a graph, for tools that draw or analyse graphs: GraphML and Graphviz DOT. Pure.

Facts are nodes (``id``, ``category``, ``status``, ``text``); edges go from the newer fact to
the one it ``supersedes``, and from a ``relate`` record's fact to the fact it names, with the
link's type (``refines``, ``depends-on``…) as the edge's ``type``. Only edges between
exported facts are written: an edge to a fact left out would make readers invent a node
without attributes.

Every text comes from entry files, so it is untrusted: GraphML escapes it and drops what XML
1.0 cannot hold at all (most control characters, lone surrogates); DOT escapes quotes and
backslashes and folds the text onto one line. Same facts, same bytes: nodes and edges sorted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple
from xml.sax.saxutils import escape, quoteattr

from memsite.core.text import one_line, shorten

FORMATS = ("graphml", "dot")
SUPERSEDES = "supersedes"
# What XML 1.0 allows (its Char production), as what to drop: the rest of C0, lone
# surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
NODE_KEYS = ("category", "status", "text")


class Node(NamedTuple):
    id: str
    category: str
    status: str
    text: str


class Edge(NamedTuple):
    source: str
    target: str
    type: str  # "supersedes", or a link type
    reason: str = ""


def graph_edges(
    nodes: Iterable[Node],
    supersedes: Iterable[tuple[str, str]],
    links: Iterable[Edge],
) -> list[Edge]:
    """The edges between ``nodes``: supersessions (newer, older) and links, each once,
    sorted; an edge with an end outside ``nodes`` (or from a fact to itself) is left out."""
    ids = {n.id for n in nodes}
    found = {(e.source, e.target, e.type): e for e in links}
    for newer, older in supersedes:
        found[(newer, older, SUPERSEDES)] = Edge(newer, older, SUPERSEDES)
    return sorted(
        (e for e in found.values() if e.source in ids and e.target in ids and e.source != e.target),
        key=lambda e: (e.source, e.target, e.type),
    )


def xml_text(text: str) -> str:
    """``text`` escaped for XML content and without what XML 1.0 cannot hold."""
    return escape(_NOT_XML.sub("", text))


def graphml(nodes: Sequence[Node], edges: Sequence[Edge]) -> str:
    """A GraphML document (directed) of ``nodes`` and ``edges``."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
    ]
    for key in NODE_KEYS:
        lines.append(f'  <key id="{key}" for="node" attr.name="{key}" attr.type="string"/>')
    for key in ("type", "reason"):
        lines.append(f'  <key id="{key}" for="edge" attr.name="{key}" attr.type="string"/>')
    lines.append('  <graph id="memsite" edgedefault="directed">')
    for node in sorted(nodes):
        lines.append(f"    <node id={quoteattr(node.id)}>")
        for key, value in zip(NODE_KEYS, (node.category, node.status, node.text), strict=True):
            lines.append(f'      <data key="{key}">{xml_text(value)}</data>')
        lines.append("    </node>")
    for edge in edges:
        ends = f"source={quoteattr(edge.source)} target={quoteattr(edge.target)}"
        lines.append(f"    <edge {ends}>")
        lines.append(f'      <data key="type">{xml_text(edge.type)}</data>')
        if edge.reason:
            lines.append(f'      <data key="reason">{xml_text(edge.reason)}</data>')
        lines.append("    </edge>")
    lines += ["  </graph>", "</graphml>", ""]
    return "\n".join(lines)


def dot_string(text: str) -> str:
    """``text`` as a DOT quoted string on one line. In DOT only ``\\"`` is an escape; a
    backslash is doubled so that none can escape the closing quote (Graphviz shows ``\\\\``
    in a label as one backslash)."""
    folded = one_line(_NOT_XML.sub("", text))
    return '"' + folded.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(nodes: Sequence[Node], edges: Sequence[Edge]) -> str:
    """A Graphviz digraph of ``nodes`` (labelled with a short id and the text's start) and
    ``edges`` (labelled with their type)."""
    lines = ["digraph memsite {", "  node [shape=box];"]
    for node in sorted(nodes):
        label = f"{node.id[:8]} {shorten(node.text, 60)}"
        attributes = [
            f"label={dot_string(label)}",
            f"category={dot_string(node.category)}",
            f"status={dot_string(node.status)}",
            f"text={dot_string(node.text)}",
        ]
        if node.status != "active":
            attributes.append('style="dashed"')
        lines.append(f"  {dot_string(node.id)} [{', '.join(attributes)}];")
    for edge in edges:
        attributes = [f"type={dot_string(edge.type)}", f"label={dot_string(edge.type)}"]
        if edge.reason:
            attributes.append(f"reason={dot_string(edge.reason)}")
        lines.append(
            f"  {dot_string(edge.source)} -> {dot_string(edge.target)} [{', '.join(attributes)}];"
        )
    lines += ["}", ""]
    return "\n".join(lines)
