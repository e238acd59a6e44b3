"""Benchmark the MCP server on a generated 10,000-entry store.

Usage::

    python benchmarks/bench_mcp.py [--entries 10000] [--rounds 50] [--out DIR]

Measures, through the SDK's in-process `Client` (so protocol handling is included):
``memory_write`` and ``memory_search`` latency (median, p95; each call opens a fresh `Memory`
and re-scans the store, as the server does), and, over stdio, the time from starting
``memsite mcp`` as a subprocess to the first ``tools/list`` answer. The same calls made on the
service layer directly show what MCP itself costs. Prints a table and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_store import generate

from memsite.mcp.server import build_server
from memsite.memory import Memory
from memsite.storage.layout import Store

QUERIES = ("deploy staging", "postgres migration", "pnpm lockfile", "kafka consumer lag", "retry")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(values) * 1000, 1),
        "p95_ms": round(percentile(values, 0.95) * 1000, 1),
        "n": len(values),
    }


async def in_process(store: Path, rounds: int) -> dict[str, dict[str, float]]:
    server = build_server(Store(store))
    writes: list[float] = []
    searches: list[float] = []
    async with Client(server) as client:
        for i in range(rounds):
            start = time.perf_counter()
            result = await client.call_tool(
                "memory_write",
                {
                    "content": f"Benchmark fact {i}: cache {i} expires after {i * 7} s.",
                    "category": "operations",
                },
            )
            writes.append(time.perf_counter() - start)
            assert not result.is_error, result.content
            start = time.perf_counter()
            result = await client.call_tool("memory_search", {"query": QUERIES[i % len(QUERIES)]})
            searches.append(time.perf_counter() - start)
            assert not result.is_error, result.content
    return {"memory_write": summary(writes), "memory_search": summary(searches)}


async def startup(store: Path, rounds: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "MEMSITE_STORE"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memsite", "--store", str(store), "mcp"], env=env
    )
    times: list[float] = []
    for _ in range(rounds):
        start = time.perf_counter()
        async with Client(params, read_timeout_seconds=120) as client:
            tools = await client.list_tools()
            times.append(time.perf_counter() - start)
            assert len(tools.tools) == 5
    return summary(times)


def direct(store: Path, rounds: int) -> dict[str, dict[str, float]]:
    """The same calls on the service layer alone: the difference is the MCP overhead."""
    opened = Store(store)
    writes: list[float] = []
    searches: list[float] = []
    for i in range(rounds):
        start = time.perf_counter()
        Memory(opened, opened.load_config()).add(
            f"Direct fact {i}: cache {i} expires after {i * 7} s.", "operations"
        )
        writes.append(time.perf_counter() - start)
        start = time.perf_counter()
        Memory(opened, opened.load_config()).search(QUERIES[i % len(QUERIES)])
        searches.append(time.perf_counter() - start)
    return {"service_add": summary(writes), "service_search": summary(searches)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=10_000, help="store size (10000)")
    parser.add_argument("--rounds", type=int, default=50, help="calls per tool (50)")
    parser.add_argument("--starts", type=int, default=5, help="server starts timed (5)")
    parser.add_argument("--out", type=Path, help="where to generate the store (a temp folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.out or Path(tmp)
        store = generate(args.entries, root, seed=0, force=True)
        Memory.open(str(store)).compact()  # warm: the parse cache and the derived views
        results: dict[str, Any] = {"entries": args.entries}
        results.update(anyio.run(in_process, store, args.rounds))
        results.update(direct(store, args.rounds))
        results["startup_to_tools_list"] = anyio.run(startup, store, args.starts)
    names = ("memory_write", "memory_search", "service_add", "service_search")
    for name in (*names, "startup_to_tools_list"):
        row = results[name]
        print(f"{name:<24} median {row['median_ms']:>8.1f} ms   p95 {row['p95_ms']:>8.1f} ms")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
