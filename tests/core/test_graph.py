"""The graph writers: any fact text gives a well-formed document that keeps the text, and no
text can add a node or an edge."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.graph import Edge, Node, dot, dot_string, graph_edges, graphml, xml_text

A = "0a000000-0000-4000-8000-000000000001"
B = "0b000000-0000-4000-8000-000000000002"
C = "0c000000-0000-4000-8000-000000000003"
HOSTILE = [
    'quote " and backslash \\',
    "ends in a backslash \\",
    '"]; "x" -> "y"; "',
    "</data></node><node id='x'>",
    "<script>alert(1)</script> & &amp;",
    "line one\nline two\r\n\tindented",
    "bell \x07 escape \x1b[31m nul \x00",
    "\ud800 lone surrogate",
    "\ufffe\uffff not characters",
]
# Any text, lone surrogates and every control character included.
any_text = st.text(st.characters(codec=None, categories=None), max_size=60) | st.sampled_from(
    HOSTILE
)


def as_xml(text: str) -> str:
    """What XML 1.0 can hold of ``text``: what the writer must keep."""
    return "".join(
        c
        for c in text
        if c in "\t\n\r"
        or "\x20" <= c <= "\ud7ff"
        or "\ue000" <= c <= "\ufffd"
        or c >= "\U00010000"
    )


@given(texts=st.lists(any_text, min_size=1, max_size=4))
def test_graphml_of_any_text_loads_in_networkx_with_the_text_kept(texts: list[str]) -> None:
    ids = [f"0{n}000000-0000-4000-8000-00000000000{n}" for n in range(len(texts))]
    nodes = [Node(i, "conventions", "active", t) for i, t in zip(ids, texts, strict=True)]
    edges = graph_edges(nodes, [(ids[0], ids[-1])], [Edge(ids[-1], ids[0], "refines", texts[0])])
    document = graphml(nodes, edges)
    graph = nx.parse_graphml(document)
    assert sorted(graph.nodes) == sorted(ids)
    for node_id, text in zip(ids, texts, strict=True):
        # XML turns a CR (and CRLF) into LF when it parses: the same text for a reader
        assert graph.nodes[node_id]["text"] == as_xml(text).replace("\r\n", "\n").replace(
            "\r", "\n"
        )
        assert graph.nodes[node_id]["status"] == "active"
    assert graph.number_of_edges() == len(edges)


@given(text=any_text)
def test_xml_text_is_one_text_node(text: str) -> None:
    element = ET.fromstring(f"<t>{xml_text(text)}</t>")
    assert list(element) == []


@given(text=any_text)
def test_a_dot_string_is_one_quoted_token_on_one_line(text: str) -> None:
    quoted = dot_string(text)
    assert "\n" not in quoted and "\r" not in quoted
    assert quoted.startswith('"') and quoted.endswith('"')
    inside = quoted[1:-1]
    # every quote inside is escaped, and the closing quote is not: backslashes come in pairs
    # before a quote that is not escaped
    n = 0
    while n < len(inside):
        if inside[n] == "\\":
            assert n + 1 < len(inside) and inside[n + 1] in '\\"'
            n += 2
            continue
        assert inside[n] != '"'
        n += 1


def test_edges_need_both_ends_among_the_nodes_and_are_kept_once() -> None:
    nodes = [Node(A, "c", "active", "a"), Node(B, "c", "superseded", "b")]
    edges = graph_edges(
        nodes,
        [(A, B), (A, C), (A, A)],
        [Edge(A, B, "refines", "old"), Edge(A, B, "refines", "new"), Edge(C, A, "supports")],
    )
    assert edges == [Edge(A, B, "refines", "new"), Edge(A, B, "supersedes")]


def test_the_same_facts_give_the_same_bytes_in_any_order() -> None:
    nodes = [Node(B, "c", "active", "b"), Node(A, "c", "superseded", "a")]
    edges = graph_edges(nodes, [(B, A)], [])
    for write in (graphml, dot):
        assert write(nodes, edges) == write(list(reversed(nodes)), edges)


def test_inactive_facts_are_dashed_in_dot() -> None:
    text = dot([Node(A, "c", "active", "a"), Node(B, "c", "retired", "b")], [])
    (active,) = [line for line in text.splitlines() if line.startswith(f'  "{A}"')]
    (retired,) = [line for line in text.splitlines() if line.startswith(f'  "{B}"')]
    assert "dashed" not in active and 'style="dashed"' in retired
