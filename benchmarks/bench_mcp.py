"""Benchmark the MCP server on a generated 10,000-entry store.

Usage::

    python benchmarks/bench_mcp.py [--entries 10000] [--rounds 50] [--out DIR]

Measures, through the SDK's in-process `Client` (so protocol handling is included):
``memory_write`` and ``memory_search`` latency (median, p95; each call opens a fresh `Memory`
and re-scans the store, as the server does); the same calls on the service layer directly
show what MCP itself costs. Over stdio: the time from starting ``memsite mcp`` to its answer
to ``initialize`` (clients give a server a few seconds: Gemini CLI 5 s), beside a baseline
of ``python -c "import mcp.server.lowlevel"`` run alternately, on a warm store, after one
write, and on a first build (no cache). Prints a table and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

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
    server = build_server(Memory.open(str(store)))
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


INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    + "\n"
)
BASELINE = [sys.executable, "-c", "import mcp.server.lowlevel"]


def _answer_time(store: Path) -> float:
    """Seconds from starting `memsite mcp` to its answer to `initialize` (one JSON line)."""
    env = {k: v for k, v in os.environ.items() if k != "MEMSITE_STORE"}
    command = [sys.executable, "-m", "memsite", "--store", str(store), "mcp"]
    start = time.perf_counter()
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(INITIALIZE)
        server.stdin.flush()
        answer = server.stdout.readline()
        took = time.perf_counter() - start
        server.stdin.close()
        server.wait(timeout=60)
    assert '"result"' in answer, answer[:200]
    return took


def _prepare(store: Path, state: str, round_: int) -> None:
    if state == "first build":  # a fresh clone: no cache, views never built
        shutil.rmtree(store / "cache", ignore_errors=True)
        (store / "index.md").unlink(missing_ok=True)
    elif state == "after a write":  # the usual next session: one fact since the last build
        Memory.open(str(store)).compact()
        Memory.open(str(store)).add(f"Bench fact {round_}: shard {round_} moves.", "operations")
    else:
        Memory.open(str(store)).compact()


def initialize(store: Path, starts: int) -> dict[str, dict[str, float]]:
    """`initialize` answered, side by side with the baseline (`import mcp.server.lowlevel`),
    alternating, median of ``starts`` each, for each state of the store."""
    results = {}
    for state in ("warm", "after a write", "first build"):
        base: list[float] = []
        served: list[float] = []
        for round_ in range(starts):
            _prepare(store, state, round_)
            start = time.perf_counter()
            subprocess.run(BASELINE, check=True)
            base.append(time.perf_counter() - start)
            served.append(_answer_time(store))
        b, m = statistics.median(base), statistics.median(served)
        results[f"initialize ({state})"] = {
            "median_ms": round(m * 1000, 1),
            "baseline_ms": round(b * 1000, 1),
            "ratio": round(m / b, 2),
            "above_baseline_ms": round((m - b) * 1000, 1),
            "n": starts,
        }
    return results


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
        starts = initialize(store, args.starts)
        results.update(starts)
    names = ("memory_write", "memory_search", "service_add", "service_search")
    for name in names:
        row = results[name]
        print(f"{name:<26} median {row['median_ms']:>8.1f} ms   p95 {row['p95_ms']:>8.1f} ms")
    for name, row in starts.items():
        print(
            f"{name:<26} median {row['median_ms']:>8.1f} ms   {row['ratio']:.2f}x "
            f"`import mcp.server.lowlevel` ({row['baseline_ms']:.0f} ms; "
            f"{row['above_baseline_ms']:+.0f} ms)"
        )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
