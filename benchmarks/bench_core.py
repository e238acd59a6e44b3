"""Whole-process timings of the core commands on generated 1k and 10k stores.

Prints medians (and p90) of several runs for `memsite add`, compaction + index.md after one new
entry, and `memsite search`, next to a baseline: the bare interpreter start (`python -c pass`).
Run: ``python benchmarks/bench_core.py [--sizes 1000 10000] [--runs 7]``. Targets at 10k (DESIGN
§12): add ≤ 150 ms, compaction ≤ 0.5 s, search ≤ 150 ms.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_store import generate

MEMSITE = [sys.executable, "-m", "memsite"]


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
    return elapsed


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"median {statistics.median(ordered) * 1000:7.1f} ms   p90 {p90 * 1000:7.1f} ms"


def bench(size: int, runs: int, root: Path) -> dict[str, list[float]]:
    store = generate(size, root / f"s{size}", seed=1)
    base = [*MEMSITE, "--store", str(store)]
    timed([*base, "compact", "--quiet"])  # warm caches, as a working store has them
    results: dict[str, list[float]] = {
        "python -c pass (baseline)": [],
        "memsite --help": [],
        "memsite add": [],
        "memsite add (duplicate)": [],
        "compact after one new entry": [],
        "memsite search (2 words)": [],
        "memsite search (typo)": [],
        "memsite context (fresh)": [],
    }
    for i in range(runs):
        results["python -c pass (baseline)"].append(timed([sys.executable, "-c", "pass"]))
        results["memsite --help"].append(timed([*MEMSITE, "--help"]))
        fact = f"Benchmark fact {size}-{i}-{time.time_ns()}: the staging cluster runs four nodes"
        results["memsite add"].append(timed([*base, "add", fact, "-c", "operations"]))
        results["memsite add (duplicate)"].append(timed([*base, "add", fact, "-c", "operations"]))
        results["compact after one new entry"].append(timed([*base, "compact", "--quiet"]))
        results["memsite search (2 words)"].append(timed([*base, "search", "postgres deploy"]))
        results["memsite search (typo)"].append(timed([*base, "search", "kuberentes"]))
        results["memsite context (fresh)"].append(timed([*base, "context"]))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            print(f"\n{size} entries, {args.runs} runs each")
            results = bench(size, args.runs, Path(tmp))
            baseline = statistics.median(results["python -c pass (baseline)"])
            for name, samples in results.items():
                ratio = statistics.median(samples) / baseline
                print(f"  {name:<30} {summary(samples)}   {ratio:5.1f}x baseline")


if __name__ == "__main__":
    main()
