"""Benchmark the Pages workflow's build with and without the last run's cache, as CI runs it.

Usage::

    python benchmarks/bench_ci_cache.py                  # 10k entries, 3 runs
    python benchmarks/bench_ci_cache.py --entries 1000 --runs 1

A generated store (``gen_store.py``) is committed to a git repository. Each run does what the
workflow that ``memsite init --github-pages`` writes does on a push that adds one fact:

* **uncached**: a fresh clone (as ``actions/checkout``), then ``memsite build --strict`` into
  a new folder;
* **cached**: a fresh clone, the cache folder of the checkout removed, the last run's build
  state (``cache/build-*.marshal``), findings memo (``cache/findings.marshal``) and site put
  back (as ``actions/cache`` restores them),
  then the same build with ``MEMSITE_CACHE_RESTORED=1``.

Both run side by side, alternating, each beside ``python -c pass``; the sites they make are
compared byte for byte. Medians of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import filecmp
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

from gen_store import generate, git  # noqa: E402


def env() -> dict[str, str]:
    found = {k: v for k, v in os.environ.items() if not k.startswith("MEMSITE_")}
    found["NO_MKDOCS_2_WARNING"] = "1"
    return found


def timed(command: list[str], cwd: Path, extra: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env={**env(), **(extra or {})}, capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.decode()[-2000:]}")
    return time.perf_counter() - started


def kept(clone: Path) -> list[Path]:
    """The files of cache/ the workflow keeps between runs (``portal.publish``)."""
    cache = clone / ".memsite" / "cache"
    return [*cache.glob("build-*.marshal"), *cache.glob("findings.marshal")]


def build(clone: Path, site: Path, cached: bool) -> float:
    command = [sys.executable, "-m", "memsite", "--store", ".memsite", "build", "--strict"]
    command += ["--site-dir", str(site), "--quiet"]
    return timed(command, clone, {"MEMSITE_CACHE_RESTORED": "1"} if cached else None)


def same_tree(a: Path, b: Path) -> bool:
    compared = filecmp.dircmp(a, b)
    if compared.left_only or compared.right_only or compared.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, compared.common_files, shallow=False)
    return (
        not mismatch
        and not errors
        and all(same_tree(a / name, b / name) for name in compared.common_dirs)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="memsite-ci-"))
    try:
        origin = work / "origin"
        generate(args.entries, origin)
        git(origin, "init", "-q", "-b", "main")
        git(origin, "add", ".memsite/entries", ".memsite/config.json")
        git(origin, "commit", "-q", "-m", "memory")
        saved = work / "saved"  # what actions/cache keeps between runs
        first = work / "first"
        git(work, "clone", "-q", str(origin), str(first))
        build(first, saved / "site", cached=False)
        (saved / "cache").mkdir()
        for state in kept(first):
            shutil.copy2(state, saved / "cache" / state.name)
        rows: dict[str, list[float]] = {"python -c pass": [], "uncached": [], "cached": []}
        for run in range(args.runs):
            fact = f"Run {run}: the release train leaves on Thursdays"
            timed([sys.executable, "-m", "memsite", "add", fact, "-c", "decisions"], origin)
            git(origin, "add", ".memsite/entries")
            git(origin, "commit", "-q", "-m", f"fact {run}")
            rows["python -c pass"].append(timed([sys.executable, "-c", "pass"], work))
            plain, warm = work / f"plain-{run}", work / f"warm-{run}"
            git(work, "clone", "-q", str(origin), str(plain))
            rows["uncached"].append(build(plain, work / f"plain-site-{run}", cached=False))
            git(work, "clone", "-q", str(origin), str(warm))
            shutil.rmtree(warm / ".memsite" / "cache", ignore_errors=True)
            shutil.copytree(saved / "cache", warm / ".memsite" / "cache")
            site = saved / "site"  # restored where the workflow builds: the same path
            rows["cached"].append(build(warm, site, cached=True))
            for state in kept(warm):
                shutil.copy2(state, saved / "cache" / state.name)
            if not same_tree(site, work / f"plain-site-{run}"):
                raise SystemExit(f"run {run}: the cached build's site differs from the uncached")
            shutil.rmtree(plain)
            shutil.rmtree(work / f"plain-site-{run}")
            shutil.rmtree(warm)
        base = statistics.median(rows["python -c pass"])
        load = os.getloadavg()[0]
        print(f"{args.entries:,} entries, medians of {args.runs} runs (load {load:.1f})")
        print("| CI build after one new fact | seconds | × python -c pass | × uncached |")
        print("|---|---|---|---|")
        uncached = statistics.median(rows["uncached"])
        for name, values in rows.items():
            value = statistics.median(values)
            print(f"| {name} | {value:.2f} | {value / base:.1f}× | {value / uncached:.2f}× |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
