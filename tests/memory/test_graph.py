"""`export --format graphml|dot` on a real store: networkx and Graphviz load what it writes,
with every fact, status, supersession and typed link, and no more."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from memsite.memory import Memory
from tests.conftest import Clock, make_entry, write_raw
from tests.memory.conftest import memory_at

needs_graphviz = pytest.mark.skipif(
    shutil.which("dot") is None,
    reason="Graphviz's dot not installed: apt-get install graphviz (.ci/run does)",
)
HOSTILE = 'Quote " and \\ and "]; "x" -> "y"; "\nsecond line <b>bold</b> & done \\'


def seeded(store_root: Path) -> tuple[Memory, dict[str, str]]:
    """Facts with a supersession, a retirement and two typed links."""
    clock = Clock()
    memory = memory_at(store_root, clock)
    ids: dict[str, str] = {}

    def add(name: str, text: str, category: str = "conventions", **options: Any) -> None:
        clock.tick(minutes=1)
        ids[name] = memory.add(text, category, **options)["id"]

    add("npm", "Use npm for installs")
    add("pnpm", "Use pnpm for installs", supersedes=[ids["npm"]], reason="faster")
    add("lock", "Commit pnpm-lock.yaml with every dependency change")
    add("old", "The staging database is reset nightly", "operations")
    add("odd", HOSTILE, "operations")
    clock.tick(minutes=1)
    memory.relate(ids["lock"], ids["pnpm"], "depends-on", reason="lockfile of pnpm")
    memory.relate(ids["odd"], ids["old"], "distinct-from")
    memory.retire(ids["old"], "staging is gone")
    return memory, ids


def test_graphml_loads_in_networkx_with_every_fact_and_edge(store_root: Path) -> None:
    memory, ids = seeded(store_root)
    graph = nx.parse_graphml(memory.export("graphml", include_all=True)["text"])
    assert set(graph.nodes) == set(ids.values())
    statuses = {name: graph.nodes[i]["status"] for name, i in ids.items()}
    assert statuses == {
        "npm": "superseded",
        "pnpm": "active",
        "lock": "active",
        "old": "retired",
        "odd": "active",
    }
    assert graph.nodes[ids["odd"]]["text"] == HOSTILE
    assert graph.nodes[ids["old"]]["category"] == "operations"
    edges = {(u, v, d["type"]) for u, v, d in graph.edges(data=True)}
    assert edges == {
        (ids["pnpm"], ids["npm"], "supersedes"),
        (ids["lock"], ids["pnpm"], "depends-on"),
        (ids["odd"], ids["old"], "distinct-from"),
    }
    assert graph.edges[ids["lock"], ids["pnpm"]]["reason"] == "lockfile of pnpm"


def test_without_all_only_active_facts_and_the_links_between_them(store_root: Path) -> None:
    memory, ids = seeded(store_root)
    answer = memory.export("graphml")
    graph = nx.parse_graphml(answer["text"])
    assert set(graph.nodes) == {ids["pnpm"], ids["lock"], ids["odd"]}
    assert [(u, v) for u, v in graph.edges] == [(ids["lock"], ids["pnpm"])]
    assert (answer["entries"], answer["edges"]) == (3, 1)


@needs_graphviz
def test_dot_loads_in_graphviz_and_no_text_adds_a_node_or_an_edge(store_root: Path) -> None:
    memory, ids = seeded(store_root)
    text = memory.export("dot", include_all=True)["text"]
    done = subprocess.run(
        ["dot", "-Tjson"], input=text, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    drawn = json.loads(done.stdout)
    nodes = {o["name"]: o for o in drawn["objects"]}
    assert set(nodes) == set(ids.values())
    assert nodes[ids["old"]]["status"] == "retired" and nodes[ids["npm"]]["style"] == "dashed"
    # DOT keeps a backslash pair as it is (in a label it shows as one): the text, one line
    folded = " ".join(HOSTILE.split())
    assert nodes[ids["odd"]]["text"] == folded.replace("\\", "\\\\")
    by_gvid = {o["_gvid"]: o["name"] for o in drawn["objects"]}
    edges = {(by_gvid[e["tail"]], by_gvid[e["head"]], e["type"]) for e in drawn["edges"]}
    assert edges == {
        (ids["pnpm"], ids["npm"], "supersedes"),
        (ids["lock"], ids["pnpm"], "depends-on"),
        (ids["odd"], ids["old"], "distinct-from"),
    }


def test_the_same_store_gives_the_same_bytes(store_root: Path) -> None:
    memory, _ = seeded(store_root)
    for fmt in ("graphml", "dot"):
        first = memory.export(fmt, include_all=True)["text"]
        again = memory_at(store_root).export(fmt, include_all=True)["text"]
        assert first == again


def test_a_suspected_secret_is_redacted_in_the_graph(store_root: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5" * 4
    obj = make_entry("placeholder", category="operations")
    obj["content"] = f"The CI bot's token is {token}"  # from another branch: never checked
    write_raw(store_root, obj)
    for fmt in ("graphml", "dot"):
        text = memory_at(store_root).export(fmt)["text"]
        assert token not in text and "[redacted: github-token]" in text
