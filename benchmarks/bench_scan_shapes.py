"""What the secret scanners cost on worst-case texts: linear work shows the same time per MiB
at 64 KiB and at 1 MiB, quadratic work 16 times as much (issue 30, item 4).

Each shape (``'token' * N + '='``, ``'a=' * N``, one huge line of assignments against as many
short lines, …) is scanned by each scanner: ``prefilter`` (every write and read), ``redact``
(the pure scanner behind every view: the prefilter, then detect-secrets when it finds a
candidate) and ``scan(full=True)`` (`review`'s full detect-secrets scan). Every measure runs in
a child process (the library imported and warmed first, not timed) under ``--limit`` seconds:
a regex cannot be interrupted, and a quadratic one takes minutes at 1 MiB. Sizes count
characters (the unicode shapes' UTF-8 is larger).

Run: ``python benchmarks/bench_scan_shapes.py [--runs 3] [--limit 60] [--only SUBSTRING]``.
Prints medians of ``--runs`` runs: seconds per MiB at 64 KiB and at 1 MiB, their ratio, and
MiB/s at 1 MiB.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SMALL = 64 << 10
LARGE = 1 << 20


def _repeat(unit: str, size: int, suffix: str = "", prefix: str = "") -> str:
    body = size - len(prefix) - len(suffix)
    return prefix + (unit * (body // len(unit) + 1))[:body] + suffix


def _base64(size: int) -> str:
    data = random.Random(0).randbytes(size)
    return base64.b64encode(data).decode()[:size].rstrip("=")


def _hex(size: int) -> str:
    return random.Random(1).randbytes(size // 2 + 1).hex()[:size]


SHAPES: dict[str, Callable[[int], str]] = {
    "'token'*N + '='": lambda n: _repeat("token", n, "="),
    "'a='*N": lambda n: _repeat("a=", n),
    "'-'*N": lambda n: _repeat("-", n),
    "base64, no end": _base64,
    "hex": _hex,
    "'AKIA'*N": lambda n: _repeat("AKIA", n),
    "'\"'*N": lambda n: _repeat('"', n),
    "'ghp_'*N": lambda n: _repeat("ghp_", n),
    "'x:'*N": lambda n: _repeat("x:", n),
    "'://'*N": lambda n: _repeat("://", n),
    "'@'*N": lambda n: _repeat("@", n),
    "'x\\u3000'*N (unicode spaces)": lambda n: _repeat("x\u3000", n),
    "one line of 'pwd: s3cr3tValue! '": lambda n: _repeat("pwd: s3cr3tValue! ", n),
    "lines of 'pwd: s3cr3tValue!'": lambda n: _repeat("pwd: s3cr3tValue!\n", n),
    "nested quotes '\"\\'`'*N": lambda n: _repeat("\"'`", n),
    "'password'*N": lambda n: _repeat("password", n),
    "'Bearer '*N": lambda n: _repeat("Bearer ", n),
    "'eyJ-'*N": lambda n: _repeat("eyJ-", n),
    "'api_key' + ' '*N + '!'": lambda n: _repeat(" ", n, "!", "api_key"),
    "'/'*N": lambda n: _repeat("/", n),
    "'1'*N + ':'": lambda n: _repeat("1", n, ":"),
    "'M'*N + '.'": lambda n: _repeat("M", n, "."),
    "'a'*N + '-us1'": lambda n: _repeat("a", n, "-us1"),
    "'sk-ant-'*N": lambda n: _repeat("sk-ant-", n),
    "'https://u:'*N": lambda n: _repeat("https://u:", n),
    "distinct AWS keys, one a line": lambda n: "".join(
        f"AKIA{i:016X}\n" for i in range(n // 21 + 1)
    )[:n],
}

SCANNERS = ("prefilter", "redact", "scan(full=True)")

CHILD = """
import sys, time, json
sys.path.insert(0, {root!r})
sys.path.insert(1, {bench!r})
from bench_scan_shapes import SHAPES
from memsite.core.secrets import _library, prefilter, redact, scan
_library()
scanner = {{
    "prefilter": prefilter,
    "redact": redact,
    "scan(full=True)": lambda text: scan(text, full=True),
}}[{scanner!r}]
text = SHAPES[{shape!r}]({size})
scanner(text[:100])  # warm the patterns it compiles on first use
for _ in range({runs}):
    start = time.perf_counter()
    scanner(text)
    print(json.dumps(time.perf_counter() - start), flush=True)
"""


def measure(
    root: Path, shape: str, scanner: str, size: int, runs: int, limit: float
) -> list[float]:
    """Seconds per run (fewer than ``runs`` if the limit cut the child short)."""
    code = CHILD.format(
        root=str(root),
        bench=str(Path(__file__).resolve().parent),
        shape=shape,
        scanner=scanner,
        size=size,
        runs=runs,
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=limit
        )
        out = done.stdout
        if done.returncode != 0:
            raise SystemExit(f"{shape} / {scanner}: {done.stderr.strip()}")
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
    return [float(line) for line in out.split()]


def per_mib(samples: list[float], size: int) -> float | None:
    return statistics.median(samples) * LARGE / size if samples else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="runs per measure (3)")
    parser.add_argument("--limit", type=float, default=60, help="seconds a child may take (60)")
    parser.add_argument("--only", default="", help="shapes whose name holds this")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree to import memsite from")
    args = parser.parse_args()
    print(f"memsite from {args.root}; medians of {args.runs} runs; > limit: cut at {args.limit} s")
    head = f"{'s/MiB@64K':>10} {'s/MiB@1M':>10} {'ratio':>6} {'MiB/s':>8}"
    print(f"{'shape':<36} {'scanner':<16} {head}")
    started = time.perf_counter()
    for shape in SHAPES:
        if args.only not in shape:
            continue
        for scanner in SCANNERS:
            small = per_mib(measure(args.root, shape, scanner, SMALL, args.runs, args.limit), SMALL)
            # A quadratic scanner at 1 MiB would take 16 times its 64 KiB time per MiB: when
            # that is past the limit, say so rather than wait for it.
            runs = args.runs if small is not None and small * 16 < args.limit else 1
            large = per_mib(measure(args.root, shape, scanner, LARGE, runs, args.limit), LARGE)
            print(
                f"{shape:<36} {scanner:<16} {_cell(small)} {_cell(large)} "
                f"{_ratio(small, large)} {_rate(large)}",
                flush=True,
            )
    print(json.dumps({"seconds": round(time.perf_counter() - started, 1)}))


def _cell(value: float | None) -> str:
    return f"{'> limit':>10}" if value is None else f"{value:10.4f}"


def _ratio(small: float | None, large: float | None) -> str:
    if small is None or large is None:
        return f"{'-':>6}"
    return f"{large / small:6.1f}"


def _rate(large: float | None) -> str:
    return f"{'-':>8}" if large is None else f"{1 / large:8.1f}"


if __name__ == "__main__":
    main()
