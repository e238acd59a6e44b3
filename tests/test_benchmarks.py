"""The benchmark scripts stay in step with the code they measure. mypy checks them all (a call
into another benchmark that lost an argument went unseen for a stop, and a benchmark importing
a function that had moved); the quick ones also run end to end on a store of a few hundred
entries, one run each, and must print their figures (a patch passed as a string to a child,
which types cannot see, broke one unseen). Left to their own runs: ``bench_site``,
``bench_search_browser`` and ``bench_lunr_index`` (Chromium, Node, minutes) and
``bench_scan_shapes`` (a child per shape, each up to a minute)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

QUICK = {
    "bench_core": ["--sizes", "300", "--runs", "1"],
    "bench_rebuild": ["--sizes", "300", "--runs", "1"],
    "bench_trust": ["--sizes", "300", "--runs", "1"],
    "bench_asof": ["--sizes", "300", "--runs", "1"],
    "bench_secrets": ["--size", "300", "--runs", "1"],
    "bench_ci_cache": ["--entries", "300", "--runs", "1"],
    "bench_anchors": ["--entries", "300", "--anchored", "30", "--files", "10", "--runs", "1"],
    "bench_recall": ["--sizes", "300", "--runs", "1"],
    "bench_near_dups": ["--sizes", "300", "--runs", "1"],
    "bench_serve_stop": ["--entries", "300", "--runs", "1"],
    "bench_releases": ["--entries", "300", "--releases", "2"],
    "bench_mcp": ["--entries", "300", "--rounds", "2", "--starts", "1"],
}
FIGURE = re.compile(r"\d+\.\d+")  # a measured figure: a median, a ratio, seconds


def test_the_benchmarks_type_check(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", sorted(QUICK))
def test_a_quick_benchmark_runs_and_prints_its_figures(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), *QUICK[name]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "Traceback" not in done.stderr, done.stderr[-4000:]
    assert len(FIGURE.findall(done.stdout)) >= 2, done.stdout[-2000:]
