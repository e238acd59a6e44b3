"""Benchmark the portal's search in headless Chromium: the first result of a cold query.

Usage::

    python benchmarks/bench_search_browser.py --sites /tmp/site-10k /tmp/site-100k
    python benchmarks/bench_search_browser.py --sizes 10000 100000 --out benchmarks/out

Either measures built sites (``--sites``, each a folder ``memsite build`` wrote) or generates a
store per size (``gen_store.py``) and builds it first. Each site is served on 127.0.0.1 by a
plain static server. For every query and run, a fresh browser context (empty cache) opens the
home page; the query is typed into the header box and the time from the first keystroke to
the first result on screen is taken, with the bytes of every search file fetched meanwhile
(``search/``), beside the bytes the final query fetches when put in at once (``--delay``:
milliseconds between keystrokes, as a person types). Debian's Chromium
(``/usr/bin/chromium``), never a downloaded one.

Prints medians per site as a Markdown table and writes ``OUT/search_browser.json``.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

QUERIES = ("webhook retry", "deploy staging", "pnmp", "database migration", "redis cache")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def served(folder: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def first_result(
    browser: Any, url: str, query: str, delay: float = 0, whole: bool = False
) -> tuple[float, int, int]:
    """Seconds from the first keystroke to the first result; search bytes and files fetched.
    ``delay``: milliseconds between keystrokes; ``whole``: the query put in at once (what
    the final query alone fetches)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url + "/")
        page.wait_for_load_state("load")
        fetched: list[int] = []

        def seen(response: Any) -> None:
            if "/search/" in response.url and response.ok:
                fetched.append(len(response.body()))

        page.on("response", seen)
        box = page.locator("#memsite-header-q")
        box.click()
        started = time.perf_counter()
        if whole:
            box.fill(query)
        else:
            box.press_sequentially(query, delay=delay)
        page.wait_for_function(
            "q => document.getElementById('memsite-header-search').dataset.query === q"
            " && document.querySelector('#memsite-header-results li')",
            arg=query,
            timeout=60_000,
        )
        elapsed = time.perf_counter() - started
        page.wait_for_load_state("networkidle")  # what the query still fetches after it shows
        return elapsed, sum(fetched), len(fetched)
    finally:
        context.close()


def measure(site: Path, runs: int, delay: float = 0) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    rows: dict[str, Any] = {}
    with served(site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            for query in QUERIES:
                found = [first_result(browser, url, query, delay) for _ in range(runs)]
                alone = [first_result(browser, url, query, whole=True) for _ in range(runs)]
                rows[query] = {
                    "first_result_s": statistics.median(f[0] for f in found),
                    "bytes": statistics.median(f[1] for f in found),
                    "files": statistics.median(f[2] for f in found),
                    "final_query_bytes": statistics.median(f[1] for f in alone),
                }
        finally:
            browser.close()
    return rows


def build_site(size: int, out: Path) -> Path:
    from gen_store import generate

    work = out / f"search-{size}"
    store = generate(size, work, force=True)
    site = work / "site"
    done = subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store), "build", "--site-dir", str(site)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"memsite build failed:\n{done.stderr[-2000:]}")
    return site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sites", type=Path, nargs="*", default=[])
    parser.add_argument("--sizes", type=int, nargs="*", default=[])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--delay", type=float, default=0, help="milliseconds between keystrokes (default 0)"
    )
    parser.add_argument("--out", type=Path, default=HERE / "out")
    args = parser.parse_args(argv)
    sites = list(args.sites) + [build_site(n, args.out) for n in args.sizes]
    if not sites:
        parser.error("give --sites or --sizes")
    report: dict[str, Any] = {}
    print(f"Typed with {args.delay:g} ms between keystrokes.")
    print("| site | query | first result (s) | search bytes | files | final query alone | ratio |")
    print("|---|---|---|---|---|---|---|")
    for site in sites:
        documents = json.loads((site / "search" / "meta.json").read_text())["documents"]
        rows = measure(site, args.runs, args.delay)
        report[str(site)] = {"documents": documents, "queries": rows}
        for query, row in rows.items():
            print(
                f"| {documents:,} | `{query}` | {row['first_result_s']:.3f} | "
                f"{row['bytes'] / 1000:.0f} KB | {row['files']:.0f} | "
                f"{row['final_query_bytes'] / 1000:.0f} KB | "
                f"{row['bytes'] / max(row['final_query_bytes'], 1):.2f}× |"
            )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "search_browser.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
