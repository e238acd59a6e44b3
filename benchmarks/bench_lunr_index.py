"""Benchmark MkDocs' search index with one document per fact (``search/search_index.json``).

Usage::

    python benchmarks/bench_lunr_index.py                        # 10k and 100k entries
    python benchmarks/bench_lunr_index.py --sizes 10000 --runs 5

Backstage's TechDocs collator fetches this file of every published site and parses it with
``JSON.parse`` (in Node); Material and other MkDocs tools load it too. For each size it
generates a store (``benchmarks/gen_store.py``), builds the portal's model once, then prints:

* the file's size, raw and gzipped (what a host serves compressed);
* the time to write it (``lunrdocs.index_chunks`` into a file), median of ``--runs``;
* ``JSON.parse`` of it in Node, median of ``--runs`` parses in one process, and one parse in a
  fresh process (read and parse), beside ``node -e ""`` run the same way (Node's start-up).

Standard output gets a Markdown table; benchmarks/out/lunr_index.json the figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_store import generate  # noqa: E402

from memsite.memory import Memory  # noqa: E402
from memsite.portal.gather import portal_for  # noqa: E402
from memsite.portal.lunrdocs import index_chunks  # noqa: E402

PARSE = """
const fs = require("fs");
const text = fs.readFileSync(process.argv[1], "utf8");
const runs = Number(process.argv[2]);
const times = [];
let docs = 0;
for (let n = 0; n < runs; n++) {
  const start = process.hrtime.bigint();
  docs = JSON.parse(text).docs.length;
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ median_ms: times[Math.floor(times.length / 2)], docs }));
"""
FRESH = "JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'))"


def wall(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return (time.perf_counter() - start) * 1000


def measure(size: int, work: Path, runs: int, node: str) -> dict[str, Any]:
    root = work / f"store-{size}"
    if not (root / ".memsite" / "entries").is_dir():
        generate(size, root, force=True)
    started = time.perf_counter()
    portal = portal_for(Memory.open(str(root / ".memsite"), {}, root))
    model_s = time.perf_counter() - started
    target = work / f"search_index-{size}.json"
    pages = [("", "Home"), ("tags/", "Tags"), ("timeline/", "Timeline"), ("search/", "Search")]
    writes = []
    for _ in range(runs):
        start = time.perf_counter()
        with open(target, "wb") as handle:
            for chunk in index_chunks({"lang": ["en"]}, pages, portal.entries):
                handle.write(chunk)
        writes.append((time.perf_counter() - start) * 1000)
    data = target.read_bytes()
    done = subprocess.run(
        [node, "-e", PARSE, str(target), str(runs)], check=True, capture_output=True, text=True
    )
    parsed = json.loads(done.stdout)
    fresh, baseline = [], []
    for _ in range(runs):  # alternating, side by side
        fresh.append(wall([node, "-e", FRESH, str(target)]))
        baseline.append(wall([node, "-e", ""]))
    return {
        "entries": size,
        "documents": parsed["docs"],
        "bytes": len(data),
        "gzip_bytes": len(gzip.compress(data, compresslevel=6)),
        "model_s": round(model_s, 1),
        "write_ms": round(statistics.median(writes), 1),
        "parse_ms": round(parsed["median_ms"], 1),
        "fresh_process_ms": round(statistics.median(fresh), 1),
        "node_start_ms": round(statistics.median(baseline), 1),
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| entries | documents | size | gzipped | write | JSON.parse (Node) "
        "| read + parse, fresh process | node -e '' |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['entries']:,} | {r['documents']:,} | {r['bytes'] / 1e6:.1f} MB "
            f"| {r['gzip_bytes'] / 1e6:.1f} MB | {r['write_ms']:.0f} ms | {r['parse_ms']:.0f} ms "
            f"| {r['fresh_process_ms']:.0f} ms | {r['node_start_ms']:.0f} ms |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", type=Path, default=HERE / "out" / "lunr")
    parser.add_argument("--node", default=shutil.which("node") or "node")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        rows.append(measure(size, args.work, args.runs, args.node))
        print(f"{size:,} entries done", file=sys.stderr)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(table(rows))
    (HERE / "out" / "lunr_index.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
