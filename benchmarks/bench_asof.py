"""`--as-of` against the same command without it, on generated stores in a git repository.

For each size: a store whose first half (by date) is committed and tagged ``v1``, the rest
committed after it. Then medians of several runs of `list`, `search` and `context`, plain,
``--as-of DATE`` (the middle of the store's history) and ``--as-of v1``, each as a ratio to
`python -c pass` run just before it, and the ratio of each as-of run to the plain command. The
first as-of run of each kind (the past state made: hard links and a copied read model for a
date; ``git ls-tree`` + ``git cat-file --batch`` and a new read model for a ref) is reported
apart: it is paid once per date or commit.

Run: ``python benchmarks/bench_asof.py [--sizes 1000 10000] [--runs 7]``.
Target (issue 29): `--as-of DATE` at 10k within 3x the command without it.
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
from gen_store import generate, git

MIDDLE = "2025-01-01"  # generated histories span 2024 and 2025


def history(size: int, root: Path) -> Path:
    """A generated store, its older half committed and tagged v1, then the rest."""
    store = generate(size, root, seed=1)
    git(root, "init", "-q", "-b", "main")
    later = root / "later"
    later.mkdir()
    for path in (store / "entries").iterdir():
        if path.name[:10] > MIDDLE:
            path.rename(later / path.name)
    git(root, "add", ".memsite/entries", ".memsite/config.json")
    git(root, "commit", "-qm", "first half")
    git(root, "tag", "v1")
    for path in later.iterdir():
        path.rename(store / "entries" / path.name)
    later.rmdir()
    git(root, "add", ".memsite/entries")
    git(root, "commit", "-qm", "second half")
    return store


def bench(size: int, runs: int, root: Path) -> None:
    store = history(size, root / f"s{size}")
    base = [*MEMSITE, "--store", str(store)]
    commands = {
        "list": ["list", "--limit", "20"],
        "search": ["search", "webhook retry"],
        "context": ["context"],
    }
    timed([*base, "compact", "--quiet"])  # the read model and views of today, as in use
    first = {}
    for point in (MIDDLE, "v1"):
        first[point] = timed([*base, "list", "--limit", "20", "--as-of", point])[0]
    kinds = [("", []), (MIDDLE, ["--as-of", MIDDLE]), ("v1", ["--as-of", "v1"])]
    samples: dict[tuple[str, str], list[float]] = {}
    baselines: dict[tuple[str, str], list[float]] = {}
    for _ in range(runs):
        for name, args in commands.items():
            for point, extra in kinds:
                key = (name, point)
                baselines.setdefault(key, []).append(timed([sys.executable, "-c", "pass"])[0])
                samples.setdefault(key, []).append(timed([*base, *args, *extra])[0])
    load = os.getloadavg()[0]
    print(f"\n{size} entries, {runs} runs each; load average {load:.2f} on {os.cpu_count()} cores")
    for point, seconds in first.items():
        print(f"  first list --as-of {point:<10}  {seconds * 1000:8.1f} ms (the past state made)")
    print(f"  {'command':<26} {'median':>9} {'above python':>13} {'x python':>9} {'x plain':>8}")
    for name in commands:
        plain = statistics.median(samples[(name, "")])
        for point, _ in kinds:
            median = statistics.median(samples[(name, point)])
            start = statistics.median(baselines[(name, point)])
            label = f"{name} --as-of {point}" if point else name
            print(
                f"  {label:<26} {median * 1000:7.1f}ms {(median - start) * 1000:11.1f}ms "
                f"{median / start:8.2f}x {median / plain:7.2f}x"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            bench(size, args.runs, Path(tmp))
            shutil.rmtree(Path(tmp) / f"s{size}", ignore_errors=True)


if __name__ == "__main__":
    main()
