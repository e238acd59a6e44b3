"""What the secret scan costs: per `memsite add` at 10k entries, and per fact in-process.

Whole process: `memsite add` of an ordinary fact with the scanner as it is, and with the scan
disabled (``memsite.core.secrets.refusal`` patched to a no-op before ``memsite.cli.main.main``
runs); both start the same way (``python -c``), and runs alternate so that load on a shared
machine falls on both alike. Also timed: an add that the scanner refuses (the prefilter fires
and detect-secrets is imported to confirm), and the bare import of detect-secrets' plugins.

In-process: ``prefilter`` and ``scan(full=True)`` per fact over the ordinary facts and the fake
credentials of ``tests/secrets_corpus.py`` (library already imported for ``scan``).

The module's own import (compiling its regexes) is timed apart: both add variants pay it.

Run: ``python benchmarks/bench_secrets.py [--size 10000] [--runs 7]``. Medians (and p90).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT))
from gen_store import generate  # noqa: E402

from memsite.core.detector import _library  # noqa: E402
from memsite.core.prefilter import prefilter  # noqa: E402
from memsite.core.secrets import scan  # noqa: E402
from tests.secrets_corpus import FAKE_SECRETS, ORDINARY_FACTS  # noqa: E402

AS_IS = "import memsite.memory\nfrom memsite.cli.main import main\nmain()"
NO_SCAN = (
    "import memsite.core.secrets\n"
    "memsite.core.secrets.refusal = lambda fields, tags: None\n"
    "from memsite.cli.main import main\nmain()"
)
MODULE_IMPORT = (
    "import collections, dataclasses, functools, math, re, time\nimport memsite\n"
    "start = time.perf_counter()\nimport memsite.core.secrets\nprint(time.perf_counter() - start)"
)
LIBRARY_IMPORT = (
    "import time\nstart = time.perf_counter()\nimport memsite.core.detector as d\nd._library()\n"
    "print(time.perf_counter() - start)"
)


def timed(cmd: list[str], expect: int = 0) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if done.returncode != expect:
        raise SystemExit(f"{' '.join(cmd[:4])}… exited {done.returncode}: {done.stderr.strip()}")
    return elapsed


def summary(samples: Sequence[float], unit: float = 1000, label: str = "ms") -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    median = statistics.median(ordered)
    return f"median {median * unit:9.2f} {label}   p90 {p90 * unit:9.2f} {label}"


def whole_process(size: int, runs: int, root: Path) -> dict[str, list[float]]:
    store = generate(size, root / f"s{size}", seed=0)
    base = ["--store", str(store)]
    timed([sys.executable, "-m", "memsite", *base, "compact", "--quiet"])  # warm, as in use
    results: dict[str, list[float]] = {
        "python -c pass (baseline)": [],
        "add, scanner as is": [],
        "add, scan disabled": [],
        "add refused (library imported)": [],
        "import memsite.core.secrets (regexes)": [],
        "import detect-secrets plugins": [],
    }
    secret = FAKE_SECRETS[0].fact
    for i in range(runs):
        fact_a = f"{ORDINARY_FACTS[(2 * i) % len(ORDINARY_FACTS)]} (bench {size}-{i}a)"
        fact_b = f"{ORDINARY_FACTS[(2 * i + 1) % len(ORDINARY_FACTS)]} (bench {size}-{i}b)"
        results["python -c pass (baseline)"].append(timed([sys.executable, "-c", "pass"]))
        # Alternate which variant goes first, so neither always gets the warmer cache.
        pairs = [("add, scanner as is", AS_IS, fact_a), ("add, scan disabled", NO_SCAN, fact_b)]
        for name, code, fact in pairs if i % 2 == 0 else pairs[::-1]:
            cmd = [sys.executable, "-c", code, *base, "add", fact, "-c", "operations"]
            results[name].append(timed(cmd))
        refused = [sys.executable, "-c", AS_IS, *base, "add", secret, "-c", "operations"]
        results["add refused (library imported)"].append(timed(refused, expect=1))
        for name, code in (
            ("import memsite.core.secrets (regexes)", MODULE_IMPORT),
            ("import detect-secrets plugins", LIBRARY_IMPORT),
        ):
            done = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
            )
            results[name].append(float(done.stdout))
    return results


def per_fact(func: Callable[[str], object], facts: Sequence[str], runs: int) -> list[float]:
    """Seconds per fact, one sample per run (each run calls ``func`` on every fact, repeatedly)."""
    loops = max(1, 2000 // len(facts))
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(loops):
            for fact in facts:
                func(fact)
        samples.append((time.perf_counter() - start) / (loops * len(facts)))
    return samples


def in_process(runs: int) -> dict[str, list[float]]:
    _library()  # the import is timed separately, in a fresh process
    secrets = [s.fact for s in FAKE_SECRETS]

    def full(text: str) -> object:
        return scan(text, full=True)

    return {
        f"prefilter, {len(ORDINARY_FACTS)} ordinary facts": per_fact(
            prefilter, ORDINARY_FACTS, runs
        ),
        f"prefilter, {len(secrets)} fake secrets": per_fact(prefilter, secrets, runs),
        f"scan(full=True), {len(ORDINARY_FACTS)} ordinary facts": per_fact(
            full, ORDINARY_FACTS, runs
        ),
        f"scan(full=True), {len(secrets)} fake secrets": per_fact(full, secrets, runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", type=int, default=10000, help="entries in the store (10000)")
    parser.add_argument("--runs", type=int, default=7, help="runs per measure (7)")
    args = parser.parse_args()
    flagged = sum(prefilter(f) for f in ORDINARY_FACTS)
    print(f"ordinary facts the prefilter passes on to the library: {flagged}/{len(ORDINARY_FACTS)}")
    with tempfile.TemporaryDirectory() as tmp:
        results = whole_process(args.size, args.runs, Path(tmp))
    print(f"\nWhole process at {args.size} entries, {args.runs} runs each")
    for name, samples in results.items():
        print(f"  {name:<34} {summary(samples)}")
    on = statistics.median(results["add, scanner as is"])
    off = statistics.median(results["add, scan disabled"])
    print(
        f"  {'scan cost per ordinary add':<34} {(on - off) * 1000:+9.2f} ms (difference of medians)"
    )
    print(f"\nIn-process, per fact, {args.runs} runs each")
    for name, samples in in_process(args.runs).items():
        print(f"  {name:<44} {summary(samples, 1e6, 'µs')}")


if __name__ == "__main__":
    main()
