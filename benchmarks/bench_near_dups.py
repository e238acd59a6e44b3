"""Near-identical facts (issue 30, item 12): `memsite review --json` and the grouping alone.

A store of N facts that are one sentence with one number changed ("number": every pair is a
near duplicate and a possible conflict) or one word changed ("word": every pair is a near
duplicate; no pair conflicts, but every pair is about one subject, so each set spends its
budget in the conflict pass). For each size and shape: the median wall time and peak RSS of
`memsite review --json` (whole process, cache built by an earlier run) and the size of its
output; then, each in a fresh process, the near-duplicate grouping (`similar_groups`) and the
conflict grouping (`conflict_groups`) alone over the same facts.

Before the grouping, 4,000 such facts took 355 s to review and 477 s to build (one finding
per pair: at 2,000, 762 MB of output in 71 s). Measured with the grouping (2 shared cores):

    shape   facts  review --json        output   similar_groups  conflict_groups
    number  2,000  0.66 s,  35 MB     377 KB      0.14 s          0.29 s
    number  4,000  0.91 s,  46 MB     753 KB      0.29 s          0.41 s
    word    2,000  0.85 s,  37 MB     188 KB      0.14 s          0.64 s
    word    4,000  1.50 s,  49 MB     376 KB      0.28 s          1.09 s

(`memsite build` of the 4,000 "number" facts: 8.5 s, 68 MB.) The "word" conflicts cost the
most: every pair is about one subject and none conflicts, so each fact compares with the
latest ``GROUP_CAP`` of its group on each prefix token.

Run: ``python benchmarks/bench_near_dups.py [--sizes 1000 2000 4000] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

SHAPES = ("number", "word")
START = datetime(2026, 1, 1, tzinfo=UTC)
# As installed Pythons run: byte code cached.
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("MEMSITE_", "PYTHONDONTWRITE"))}


def word(n: int) -> str:
    """A distinct word of letters only for each ``n`` (digits would make it a value)."""
    letters = ""
    n += 26 * 27  # three letters at least
    while n:
        n, digit = divmod(n, 26)
        letters = "abcdefghijklmnopqrstuvwxyz"[digit] + letters
    return "q" + letters


def fact(shape: str, n: int) -> str:
    """The ``n``-th fact of a shape: one sentence, one number or one word changed."""
    if shape == "number":
        return (
            "The billing service retries failed webhook deliveries five times before it gives "
            f"up and pages the payments team, see incident {1000 + n}"
        )
    return (
        "The billing service retries failed webhook deliveries five times before it gives "
        f"up and pages the {word(n)} team on call"
    )


def write_store(root: Path, shape: str, size: int) -> Path:
    """``root/.memsite`` with ``size`` facts of ``shape`` in one category, a second apart."""
    store = root / ".memsite"
    entries = store / "entries"
    entries.mkdir(parents=True)
    (store / "config.json").write_text('{"memory": {}}\n', encoding="utf-8")
    for n in range(size):
        created = (START + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        entry_id = str(uuid.UUID(int=n + 1))
        obj: dict[str, object] = {
            "id": entry_id,
            "category": "operations",
            "content": fact(shape, n),
            "created": created,
            "agent": "bench",
            "tags": [],
            "supersedes": None,
            "confidence": "medium",
        }
        name = f"{created[:19].replace(':', '-')}Z-{entry_id[:8]}.json"
        (entries / name).write_text(json.dumps(obj, indent=2) + "\n", encoding="utf-8")
    return store


ALONE = """
import sys, time
sys.path.insert(0, {here!r})
from bench_near_dups import fact
from memsite.core.conflicts import assertion_of, conflict_groups
from memsite.core.similarity import similar_groups, token_set
from memsite.core.text import normalize
texts = [normalize(fact({shape!r}, n)) for n in range({size})]
start = time.perf_counter()
if {which!r} == "near":
    memo = {{}}
    groups = similar_groups([(f"{{n:06d}}", token_set(t, memo)) for n, t in enumerate(texts)])
else:
    groups = conflict_groups([assertion_of(f"{{n:06d}}", t) for n, t in enumerate(texts)])
print(time.perf_counter() - start, len(groups), max(map(len, groups), default=0))
"""


def alone(shape: str, size: int, which: str) -> tuple[float, int, str]:
    """One fresh process grouping the facts: seconds in the function, peak RSS, groups."""
    code = ALONE.format(here=str(Path(__file__).parent), shape=shape, size=size, which=which)
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
    )
    _, status, usage = os.wait4(proc.pid, 0)
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"grouping failed: {err.strip()}")
    seconds, groups, largest = out.split()
    return float(seconds), usage.ru_maxrss, f"{groups} group(s), largest {largest}"


def review(store: Path, runs: int) -> tuple[list[float], list[int], int, str]:
    """Times, peak RSS and output size of `memsite review --json`; the findings by kind."""
    cmd = [sys.executable, "-m", "memsite", "--store", str(store), "review", "--json"]
    times, peaks, size, kinds = [], [], 0, ""
    subprocess.run(cmd, check=True, capture_output=True, env=ENV)  # builds the cache
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        out = proc.stdout.read() if proc.stdout else b""
        _, status, usage = os.wait4(proc.pid, 0)
        times.append(time.perf_counter() - start)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"review failed: {proc.stderr.read().decode() if proc.stderr else ''}")
        peaks.append(usage.ru_maxrss)
        size = len(out)
        counts: dict[str, int] = {}
        for finding in json.loads(out)["findings"]:
            counts[finding["kind"]] = counts.get(finding["kind"], 0) + 1
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    return times, peaks, size, kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    args = parser.parse_args()
    for shape in args.shapes:
        for size in args.sizes:
            with tempfile.TemporaryDirectory() as tmp:
                store = write_store(Path(tmp), shape, size)
                times, peaks, out_size, kinds = review(store, args.runs)
            print(f"{shape:>6} {size:>6} facts")
            print(
                f"  review --json      median {statistics.median(times):7.2f} s   "
                f"peak RSS {statistics.median(peaks) / 1024:7.1f} MB   "
                f"output {out_size:>9,} bytes   ({kinds})"
            )
            for which, label in (("near", "similar_groups"), ("conflicts", "conflict_groups")):
                samples = [alone(shape, size, which) for _ in range(args.runs)]
                seconds = statistics.median(s[0] for s in samples)
                peak = statistics.median(s[1] for s in samples)
                print(
                    f"  {label:<18} median {seconds:7.2f} s   peak RSS {peak / 1024:7.1f} MB"
                    f"   (process)   {samples[0][2]}"
                )


if __name__ == "__main__":
    main()
