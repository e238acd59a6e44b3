"""Whole-process timings of the core commands on generated stores of 1k, 10k and 100k entries.

For each size: medians (and p90) of several runs of `memsite add` (distinct content and a
duplicate), `search` (two words, and a typo), `context` with fresh views (plain, and as the
session-start hook runs it, without click) and `compact` after one new entry, each as a ratio
to the bare interpreter start (`python -c pass`) measured in the same rounds; `compact` after
one entry file arrived by git (a fast-forward merge of a commit made in
another worktree: memsite did not write the file, so compact must find it), beside `compact`
after `memsite add`; then the read model built from nothing in a process of its own, the first
command on a fresh clone (the cache built from nothing, every fact embedded), the peak memory
of `search`, and the size of the cache on disk.

Run: ``python benchmarks/bench_core.py [--sizes 1000 10000 100000] [--runs 7]``.
Targets (issue 10): add ≤ 2.5× at 10k and ≤ 3× at 100k; search ≤ 2.5× / ≤ 4×; context
≤ 2.5× / ≤ 3×; compact after one new entry ≤ 5× / ≤ 15×; first command at 100k ≤ 10 s.
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
import uuid
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_store import file_name, generate, git

MEMSITE = [sys.executable, "-m", "memsite"]
BASELINE = "python -c pass (baseline)"
# As installed Pythons run: byte code cached (a shell with PYTHONDONTWRITEBYTECODE=1 would
# otherwise compile every module of every command from source).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str]) -> tuple[float, int]:
    """Wall time of one run, and its peak resident memory in KB."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    error = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {error.strip()}")
    return elapsed, usage.ru_maxrss


def arrive(store: Path, incoming: Path, number: int) -> None:
    """One entry file committed in the ``incoming`` worktree, then merged (fast-forward) into
    the store's: git writes the file, as a `git pull` would."""
    entry_id = str(uuid.uuid4())
    now = datetime.now(UTC)
    entry: dict[str, object] = {
        "id": entry_id,
        "category": "operations",
        "content": f"Arrived by git ({number}, {now:%H:%M:%S.%f}): the export runs nightly",
        "created": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "agent": "bench",
        "tags": [],
        "supersedes": None,
        "confidence": "medium",
    }
    (incoming / ".memsite" / "entries" / file_name(entry)).write_text(
        json.dumps(entry, indent=2) + "\n"
    )
    git(incoming, "add", "-A")
    git(incoming, "commit", "-q", "-m", f"arrive {number}")
    git(store.parent, "merge", "-q", "--ff-only", "incoming")


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"median {statistics.median(ordered) * 1000:8.1f} ms   p90 {p90 * 1000:8.1f} ms"


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def bench(size: int, runs: int, root: Path) -> None:
    store = generate(size, root / f"s{size}", seed=1)
    base = [*MEMSITE, "--store", str(store)]
    shutil.rmtree(store / "cache", ignore_errors=True)
    # The read model alone, built from nothing (issue 26: ≤ 10 s at 100k), in a process of
    # its own; then the first command a user meets (the search also embeds every fact).
    index_only = f"from memsite.memory import Memory; Memory.open({str(store)!r}).index()"
    first_index, _ = timed([sys.executable, "-c", index_only])
    shutil.rmtree(store / "cache", ignore_errors=True)
    first, first_memory = timed([*base, "search", "postgres deploy"])  # cache built from nothing
    first_compact, _ = timed([*base, "compact", "--quiet"])  # renders every view's bullets
    names = [
        "memsite --help",
        "add (distinct content)",
        "add (duplicate)",
        "compact after one new entry",
        "compact after one arrived by git",
        "context (fresh views)",
        "context as the session-start hook",
        "search (two words)",
        "search (typo)",
    ]
    results: dict[str, list[float]] = {name: [] for name in names}
    # Each command's own baseline runs right before it: on a shared machine the interpreter's
    # start-up drifts within a round, and a ratio to a run minutes away would carry the drift.
    baselines: dict[str, list[float]] = {name: [] for name in names}
    peak = 0

    def run(name: str, cmd: list[str]) -> int:
        baselines[name].append(timed([sys.executable, "-c", "pass"])[0])
        elapsed, memory = timed(cmd)
        results[name].append(elapsed)
        return memory

    # The store in git, and a second worktree whose commits arrive by merge.
    (store.parent / ".gitignore").write_text(".memsite/cache/\n")
    git(store.parent, "init", "-q", "-b", "main")
    git(store.parent, "add", "-A")
    git(store.parent, "commit", "-q", "-m", "generated store")
    incoming = root / f"s{size}-incoming"
    git(store.parent, "worktree", "add", "-q", "-b", "incoming", str(incoming))
    for i in range(runs):
        run("memsite --help", [*MEMSITE, "--help"])
        fact = f"Benchmark fact {size}-{i}-{time.time_ns()}: the staging cluster runs four nodes"
        run("add (distinct content)", [*base, "add", fact, "-c", "operations"])
        run("add (duplicate)", [*base, "add", fact, "-c", "operations"])
        run("compact after one new entry", [*base, "compact", "--quiet"])
        git(store.parent, "add", "-A")  # memsite's own adds, committed before the merge
        git(store.parent, "commit", "-q", "-m", f"adds {i}")
        git(incoming, "merge", "-q", "--ff-only", "main")
        arrive(store, incoming, i)
        run("compact after one arrived by git", [*base, "compact", "--quiet"])
        run("context (fresh views)", [*base, "context"])
        run("context as the session-start hook", [*base, "context", "--format", "claude-hook"])
        peak = max(peak, run("search (two words)", [*base, "search", "webhook retry"]))
        run("search (typo)", [*base, "search", "kuberentes"])
    every_baseline = [t for samples in baselines.values() for t in samples]
    print(f"\n{size} entries, {runs} runs each (ratios to the median of each command's own")
    print("baseline runs, each taken just before the command)")
    print(f"  {BASELINE:<34} {summary(every_baseline)}   {1.0:5.1f}x")
    for name, samples in results.items():
        ratio = statistics.median(samples) / statistics.median(baselines[name])
        print(f"  {name:<34} {summary(samples)}   {ratio:5.2f}x")
    print(f"  {'read model from nothing':<34} {first_index:8.2f} s")
    print(f"  {'first command, no cache':<34} {first:8.2f} s   {first_memory / 1024:6.1f} MB peak")
    print(f"  {'then the first compact':<34} {first_compact:8.2f} s")
    print(f"  {'peak memory of search':<34} {peak / 1024:8.1f} MB")
    print(f"  {'cache/ on disk':<34} {folder_size(store / 'cache') / 1e6:8.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            bench(size, args.runs, Path(tmp))


if __name__ == "__main__":
    main()
