"""Benchmark `memsite build` going on from the last build against a build from nothing.

Usage::

    python benchmarks/bench_rebuild.py                        # 10k entries, 3 runs
    python benchmarks/bench_rebuild.py --sizes 100000 --runs 1 --from 100000:/tmp/s100k

For each size a store is generated (``gen_store.py``; ``--from SIZE:DIR`` copies one), built
once, then each run, side by side and alternating, in new processes:

* ``python -c pass`` (the interpreter's start, the baseline of whole commands);
* a cold build, as the Pages workflow's first run makes it: no ``cache/`` (the read model,
  the findings' memo and the last build's state are all made from nothing) and a new, empty
  site folder (the cache is put back and the folder removed afterwards, untimed);
* ``memsite build --clean`` into the last build's folder: the whole site again with the read
  model kept, the earlier site removed once the new one is swapped in (on this machine's
  disk, mounted with online discard, removing 100k pages takes about a minute);
* ``memsite add`` of one fact, then ``memsite build`` into the same folder (going on from the
  last build): only the build is timed;
* the same with the text pass's memo removed first (``cache/findings.marshal``: every
  category's near duplicates and conflicts found again, as before the memo).

Prints medians, the builds going on from the last as ratios to the cold build, with the
seconds above the interpreter's start, and the load average of the machine meanwhile.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_store import generate  # noqa: E402


def timed(command: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSITE_")}
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.decode()[-2000:]}")
    return time.perf_counter() - started


def bench(store: Path, site: Path, runs: int) -> dict[str, float]:
    memsite = [sys.executable, "-m", "memsite", "--store", str(store)]
    build = [*memsite, "build", "--quiet", "--site-dir", str(site)]
    timed(build)  # the read model and a first state
    rows: dict[str, list[float]] = {
        "python": [],
        "cold": [],
        "clean": [],
        "after_add": [],
        "no_memo": [],
    }
    loads = []
    for run in range(runs):
        rows["python"].append(timed([sys.executable, "-c", "pass"]))
        rows["cold"].append(cold(store, site.with_name(f"cold-{run}"), memsite))
        rows["clean"].append(timed([*build, "--clean"]))
        fact = f"Run {run}: the cron job rotates the logs at noon"
        timed([*memsite, "add", fact, "-c", "operations"])
        rows["after_add"].append(timed(build))
        other = f"Run {run}: the nightly job prunes old images"
        timed([*memsite, "add", other, "-c", "operations"])
        (store / "cache" / "findings.marshal").unlink(missing_ok=True)
        rows["no_memo"].append(timed(build))
        loads.append(os.getloadavg()[0])
    found = {name: statistics.median(values) for name, values in rows.items()}
    found["load"] = statistics.median(loads)
    return found


def cold(store: Path, fresh: Path, memsite: list[str]) -> float:
    """A build with no ``cache/`` into the new folder ``fresh`` (a clone's first build); the
    cache is put back and the folder removed afterwards, then the disk is let settle."""
    kept = store / "cache.bench-kept"
    (store / "cache").rename(kept)
    try:
        took = timed([*memsite, "build", "--quiet", "--site-dir", str(fresh)])
    finally:
        shutil.rmtree(store / "cache", ignore_errors=True)
        kept.rename(store / "cache")
        shutil.rmtree(fresh, ignore_errors=True)
        os.sync()
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--from", dest="sources", action="append", default=[])
    args = parser.parse_args(argv)
    sources = dict(item.split(":", 1) for item in args.sources)
    print(
        "| entries | python -c pass | cold build | `--clean` | build after one add | ratio "
        "| the same without the findings memo | ratio | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        work = Path(tempfile.mkdtemp(prefix=f"memsite-rebuild-{size}-"))
        try:
            if str(size) in sources:
                shutil.copytree(
                    Path(sources[str(size)]) / ".memsite",
                    work / ".memsite",
                    ignore=shutil.ignore_patterns("cache"),
                )
                store = work / ".memsite"
            else:
                store = generate(size, work)
            found = bench(store, work / "site", args.runs)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        base = found["python"]
        cold_build = found["cold"]
        print(
            f"| {size:,} | {base * 1000:.0f} ms | {cold_build:.1f} s "
            f"({(cold_build - base):.1f} s above) | {found['clean']:.1f} s | "
            f"{found['after_add']:.1f} s ({(found['after_add'] - base):.1f} s above) | "
            f"{found['after_add'] / cold_build:.2f}× | {found['no_memo']:.1f} s | "
            f"{found['no_memo'] / cold_build:.2f}× | {found['load']:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
