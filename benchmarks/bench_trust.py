"""The cost of the trust gate on generated stores (default 10k and 100k entries).

Each store is committed to a git repository whose bare remote holds it (so every fact is
reviewed but a few: the last 20 are committed on a branch merged without review), with a
copy beside it that has no remote (trust off). Printed, medians of several runs:

1. provenance: the one ``git log`` walk over entries/ that finds who added each file
   (``storage.provenance.added``), and the survey of the reviewed ref (``ls-tree`` + ``diff``);
2. `memsite list --json --limit 20` the first time after a commit (the walk, cached) and again
   (the cache read);
3. `memsite context` with fresh views, trust on against trust off, each beside `python -c pass`
   run in the same rounds, as ratios and as milliseconds above interpreter start-up.
   Target (issue 23): trust on ≤ 1.2× trust off.

Run: ``python benchmarks/bench_trust.py [--sizes 10000 100000] [--runs 7]``.
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

sys.path.insert(0, str(Path(__file__).parent))
from bench_core import ENV, MEMSITE, timed
from gen_store import generate

from memsite.storage.provenance import added, survey


def git(root: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
            "-c",
            "gc.auto=0",
            *args,
        ],
        cwd=root,
        check=True,
        capture_output=True,
    )


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def make_repos(size: int, root: Path) -> tuple[Path, Path]:
    """(a clone whose remote holds the store, a copy with no remote)."""
    project = root / f"p{size}"
    store = generate(size, project, seed=1)
    late = sorted((store / "entries").iterdir())[-20:]
    aside = root / f"late{size}"
    aside.mkdir()
    for path in late:
        shutil.move(path, aside / path.name)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "store")
    git(root, "init", "-q", "--bare", "-b", "main", str(root / f"r{size}.git"))
    git(project, "remote", "add", "origin", str(root / f"r{size}.git"))
    git(project, "push", "-q", "origin", "main")
    git(project, "fetch", "-q")
    git(project, "remote", "set-head", "origin", "main")
    git(project, "checkout", "-q", "-b", "unreviewed")
    for path in aside.iterdir():
        shutil.move(path, store / "entries" / path.name)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "late facts")
    git(project, "checkout", "-q", "main")
    git(project, "merge", "-q", "unreviewed")
    solo = root / f"solo{size}"
    git(root, "clone", "-q", str(project), str(solo))
    git(solo, "remote", "remove", "origin")
    return project, solo


def bench(size: int, runs: int, root: Path) -> None:
    project, solo = make_repos(size, root)
    store = project / ".memsite"
    walks, surveys = [], []
    for _ in range(runs):
        start = time.perf_counter()
        found = added(store / "entries")
        walks.append(time.perf_counter() - start)
        start = time.perf_counter()
        surveyed = survey(project, ".memsite/entries/", None, ".memsite/config.json")
        surveys.append(time.perf_counter() - start)
    print(f"\n{size} entries ({len(found)} with provenance, {len(surveyed.reviewed)} reviewed)")
    print(f"  git log walk (provenance)        median {median_ms(walks):8.1f} ms")
    print(f"  survey of the reviewed ref       median {median_ms(surveys):8.1f} ms")
    on = [*MEMSITE, "--store", str(store)]
    off = [*MEMSITE, "--store", str(solo / ".memsite")]
    for command in (on, off):
        timed([*command, "compact", "--quiet"])
    firsts, cached = [], []
    for _ in range(runs):
        (store / "cache" / "provenance.sqlite3").unlink(missing_ok=True)
        firsts.append(timed([*on, "list", "--json", "--limit", "20"])[0])
        cached.append(timed([*on, "list", "--json", "--limit", "20"])[0])
    print(f"  list --json, first after commit  median {median_ms(firsts):8.1f} ms")
    print(f"  list --json, provenance cached   median {median_ms(cached):8.1f} ms")
    held = json.loads(
        subprocess.run([*on, "context", "--json"], capture_output=True, env=ENV).stdout
    )["held_back"]
    base, trusted, untrusted = [], [], []
    for _ in range(runs):
        base.append(timed([sys.executable, "-c", "pass"])[0])
        trusted.append(timed([*on, "context"])[0])
        untrusted.append(timed([*off, "context"])[0])
    b, t, u = median_ms(base), median_ms(trusted), median_ms(untrusted)
    print(f"  python -c pass (baseline)        median {b:8.1f} ms")
    print(
        f"  context, trust on ({len(held)} held)   median {t:8.1f} ms  {t / b:5.2f}x  "
        f"+{t - b:6.1f} ms above start"
    )
    print(
        f"  context, trust off               median {u:8.1f} ms  {u / b:5.2f}x  "
        f"+{u - b:6.1f} ms above start"
    )
    print(f"  trust on / trust off: {t / u:.2f}x (above start: {(t - b) / (u - b):.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="memsite-bench-trust-") as folder:
        for size in args.sizes:
            bench(size, args.runs, Path(folder))


if __name__ == "__main__":
    main()
