"""Search by meaning: its latency against search by words, and what it costs to embed.

For each size, a generated store (``gen_store``, seed 1) whose read model is built first. Then:

- the first hybrid search, which embeds every fact (paid once per clone, and again only when
  the model changes);
- medians of several runs of `search QUERY --mode exact|hybrid|semantic`, each beside a
  `python -c pass` run just before it, as ratios to it and to the exact mode;
- `add` of one fact, then the search after it (which embeds that fact), in both modes.

Run: ``python benchmarks/bench_recall.py [--sizes 10000 100000] [--runs 7]``.
Target (issue 28): hybrid search within 1.5x exact search at 10k and 100k.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_core import MEMSITE, timed
from gen_store import generate

QUERIES = ["webhook retry", "how do we roll back a failed deploy", "pnmp"]
MODES = ("exact", "hybrid", "semantic")


def bench(size: int, runs: int, root: Path) -> None:
    store = generate(size, root / f"s{size}", seed=1)
    base = [*MEMSITE, "--store", str(store)]
    built = timed([*base, "search", "warm", "--mode", "exact"])[0]
    embedded = timed([*base, "search", "warm", "--mode", "hybrid"])[0]
    samples: dict[str, list[float]] = {}
    starts: dict[str, list[float]] = {}
    for number in range(runs):
        query = QUERIES[number % len(QUERIES)]
        for mode in MODES:
            starts.setdefault(mode, []).append(timed([sys.executable, "-c", "pass"])[0])
            samples.setdefault(mode, []).append(timed([*base, "search", query, "--mode", mode])[0])
        for mode in ("exact", "hybrid"):
            key = f"add, then search --mode {mode}"
            fact = f"Benchmark fact {number} {mode}: the nightly export retries webhooks twice"
            starts.setdefault("add", []).append(timed([sys.executable, "-c", "pass"])[0])
            samples.setdefault("add", []).append(timed([*base, "add", fact, "-c", "operations"])[0])
            starts.setdefault(key, []).append(timed([sys.executable, "-c", "pass"])[0])
            samples.setdefault(key, []).append(timed([*base, "search", query, "--mode", mode])[0])
    load = os.getloadavg()[0]
    print(f"\n{size} entries, {runs} runs each; load average {load:.2f} on {os.cpu_count()} cores")
    print(f"  read model built: {built:.1f} s; first hybrid search (embeds all): {embedded:.1f} s")
    exact = statistics.median(samples["exact"])
    print(f"  {'command':<32} {'median':>9} {'above python':>13} {'x python':>9} {'x exact':>8}")
    for name, seconds in samples.items():
        median = statistics.median(seconds)
        start = statistics.median(starts[name])
        print(
            f"  {name:<32} {median * 1000:7.1f}ms {(median - start) * 1000:11.1f}ms "
            f"{median / start:8.2f}x {median / exact:7.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            bench(size, args.runs, Path(tmp))
            shutil.rmtree(Path(tmp) / f"s{size}", ignore_errors=True)


if __name__ == "__main__":
    main()
