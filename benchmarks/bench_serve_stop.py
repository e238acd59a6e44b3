"""How fast `memsite serve` stops on Ctrl-C, idle and in the middle of a rebuild.

Usage::

    python benchmarks/bench_serve_stop.py [--entries 10000] [--runs 5]

For each run: generate a store (once), start `memsite serve`, wait until it answers; for the
"rebuild" case add an entry and send SIGINT a moment later, while the rebuild it set off is
running; measure from the signal to the process's exit. Prints medians and maxima in seconds.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_store import generate


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def memsite(*args: str) -> list[str]:
    return [sys.executable, "-m", "memsite", *args]


def start(store: Path) -> subprocess.Popen[bytes]:
    port = free_port()
    proc = subprocess.Popen(
        memsite("--store", str(store), "serve", "--port", str(port)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2):
                return proc
        except OSError:
            time.sleep(0.2)
    raise SystemExit("serve did not start")


def stop_seconds(proc: subprocess.Popen[bytes]) -> float:
    started = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=120)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        generate(args.entries, root, seed=0)
        store = root / ".memsite"
        idle, busy = [], []
        for run in range(args.runs):
            proc = start(store)
            idle.append(stop_seconds(proc))
            proc = start(store)
            env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSITE_")}
            subprocess.run(
                memsite("--store", str(store), "add", f"Benchmark fact {run}", "-c", "operations"),
                check=True,
                capture_output=True,
                env=env,
            )
            time.sleep(0.3)  # the watcher has seen it and the rebuild is under way
            busy.append(stop_seconds(proc))
    for name, values in (("idle", idle), ("mid-rebuild", busy)):
        median = statistics.median(values)
        print(
            f"{args.entries} entries, Ctrl-C while {name}: median {median:.2f} s, "
            f"max {max(values):.2f} s ({len(values)} runs)"
        )


if __name__ == "__main__":
    main()
