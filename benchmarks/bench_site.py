"""Benchmark the memory portal: cold ``memsite build`` vs plain ``mkdocs build`` of the same pages.

Usage::

    python benchmarks/bench_site.py                 # 1k and 10k entries, 3 runs each
    python benchmarks/bench_site.py --sizes 1000 --runs 1
    python benchmarks/bench_site.py --sizes 1000 10000 100000 --runs 1 \
        --from 100000:/tmp/b100k                     # copy a generated store, don't regenerate

For each size it generates a store (``benchmarks/gen_store.py``), then measures, side by side
and alternating, as whole processes:

* ``memsite build`` into an empty folder, with the store's ``cache/`` deleted first (cold:
  nothing memsite derived before), and once more with the parse cache kept (warm cache);
* ``mkdocs build`` of the *same pages*: every page memsite generates (home, categories, tags,
  timeline, review, search and one page per entry) written as a Markdown file holding that
  page's body, with the portal's own Material configuration, entries left out of the nav;
* ``serve``'s incremental path: the time from one new entry to the rewritten site (median of
  ``--additions``), and the background follow-up (search index, review findings);
* ``memsite build`` after ``memsite add`` of one entry, into the site of the last build;
* the Lunr index size gzipped, and each site's size on disk (the bytes of its files: what
  GitHub Pages counts against its 1 GB), the largest HTML page (path and size);
* the peak memory of the cold build: the largest process (``ru_maxrss`` from ``wait4``, which
  covers the workers it forked) and the whole process tree at once (proportional set size,
  sampled every 50 ms: forked workers share their pages with the parent, counted once).

Plain ``mkdocs build`` runs only up to ``--mkdocs-max`` entries (at 100k it takes most of an
hour and several GB).

Medians of ``--runs`` runs. Results print as a Markdown table and go to benchmarks/out/site.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_store import generate  # noqa: E402


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSITE_")}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def timed(args: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=clean_env())
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return elapsed


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            with open(f"/proc/{current}/task/{current}/children") as handle:
                todo += [int(child) for child in handle.read().split()]
        except OSError:
            continue
    return found


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measured(args: list[str], cwd: Path) -> dict[str, float]:
    """Run ``args`` as a whole process: wall time, peak RSS of its largest process, peak PSS
    of its whole process tree (sampled)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=clean_env()
    )
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], sum(_pss_kb(p) for p in _tree(proc.pid)))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{stderr.decode(errors='replace')[-3000:]}")
    return {"s": elapsed, "max_rss_mb": usage.ru_maxrss / 1024, "tree_pss_mb": peak[0] / 1024}


def largest_page(folder: Path) -> tuple[str, int]:
    sizes = ((p.stat().st_size, p) for p in folder.rglob("*.html"))
    size, path = max(sizes)
    return path.relative_to(folder).as_posix(), size


def first_search_result(site: Path, size: int) -> dict[str, Any]:
    """Chromium (``bench_search_browser.py``): the header box's first result, cold, on
    localhost, and the search bytes fetched for it; medians over its queries, 3 runs each."""
    from bench_search_browser import measure

    rows = measure(site, 3)
    return {
        "search_first_result_s": statistics.median(r["first_result_s"] for r in rows.values()),
        "search_first_result_max_s": max(r["first_result_s"] for r in rows.values()),
        "search_bytes_max": max(r["bytes"] for r in rows.values()),
    }


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def disk_size(folder: Path) -> tuple[int, int]:
    total = count = 0
    for path in folder.rglob("*"):
        if path.is_file():
            total += path.stat().st_size
            count += 1
    return total, count


def plain_project(store: Path, root: Path) -> Path:
    """A plain MkDocs project of the portal's pages (bodies as page sources)."""
    from memsite.memory import Memory
    from memsite.portal.gather import portal_for
    from memsite.portal.mkglue import nav_config
    from memsite.portal.outputs import nav_items
    from memsite.portal.render import Renderer
    from memsite.portal.resources import site_config_dir

    memory = Memory.open(str(store), {}, store.parent)
    portal = portal_for(memory, findings=memory.findings())
    renderer = Renderer()
    pages = [*renderer.main_pages(portal), *renderer.tag_pages(portal)]
    pages += [renderer.entry_page(portal.page(e.id)) for e in portal.entries]
    remove(root)
    docs = root / "docs"
    for page in pages:
        path = docs / page.path / "index.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: {json.dumps(page.title)}\n---\n\n{page.body}\n")
    shutil.copytree(site_config_dir() / "docs" / "assets", docs / "assets")
    shutil.copytree(site_config_dir() / "overrides", root / "overrides")  # theme.custom_dir
    settings = (site_config_dir() / "mkdocs.yml").read_text()
    nav = json.dumps(nav_config(nav_items(portal)))
    (root / "mkdocs.yml").write_text(f"{settings}\nsite_name: Project memory\nnav: {nav}\n")
    return root


def incremental(store: Path, work: Path, runs: int) -> dict[str, float]:
    """serve's path after one new entry: foreground rewrite, background follow-up."""
    from memsite.memory import Memory
    from memsite.portal.cache import PortalCache
    from memsite.portal.serve import background, cold_build, update

    memory = Memory.open(str(store), {}, store.parent)
    site_dir = work / "serve-site"
    remove(site_dir)
    session = cold_build(memory, site_dir, "http://127.0.0.1:8000/", PortalCache())
    fore: list[float] = []
    back: list[float] = []
    for n in range(runs):
        writer = Memory.open(str(store), {}, store.parent)
        writer.add(f"Benchmark fact number {n} about the portal rebuild", "operations")
        started = time.perf_counter()
        session = update(session, lambda _: None)
        fore.append(time.perf_counter() - started)
        started = time.perf_counter()
        background(session)
        back.append(time.perf_counter() - started)
    remove_benchmark_facts(store)
    return {"rebuild_s": statistics.median(fore), "follow_up_s": statistics.median(back)}


def remove_benchmark_facts(store: Path) -> None:
    """Leave the store as generated."""
    for path in (store / "entries").glob("*.json"):
        if "Benchmark fact" in path.read_text(encoding="utf-8"):
            path.unlink()


def store_for(size: int, work: Path, source: Path | None) -> Path:
    """A store of ``size`` entries in ``work``: generated, or copied from ``source`` (a folder
    holding ``.memsite/``, left untouched)."""
    if source is None:
        return generate(size, work, force=True)
    remove(work / ".memsite")
    shutil.copytree(source / ".memsite", work / ".memsite", ignore=shutil.ignore_patterns("cache"))
    return work / ".memsite"


def bench(
    size: int,
    runs: int,
    out: Path,
    source: Path | None = None,
    mkdocs_max: int = 10_000,
    additions: int = 3,
) -> dict[str, Any]:
    work = out / f"site-{size}"
    work.mkdir(parents=True, exist_ok=True)
    store = store_for(size, work, source)
    plain = size <= mkdocs_max
    project = plain_project(store, work / "plain") if plain else None
    cold: list[dict[str, float]] = []
    memsite_warm: list[float] = []
    mkdocs: list[float] = []
    site = work / "memsite-site"
    python = sys.executable
    build = [python, "-m", "memsite", "--store", str(store), "build", "--json"]
    for _ in range(runs):
        remove(store / "cache")
        remove(site)
        cold.append(measured([*build, "--site-dir", str(site)], work))
        if project is not None:
            remove(project / "site")
            mkdocs.append(timed([python, "-m", "mkdocs", "build", "-q"], project))
        remove(site)
        memsite_warm.append(timed([*build, "--site-dir", str(site)], work))
    # `memsite build` again after `memsite add` (the site and the cache of the last build kept):
    # the whole command, as a person runs it.
    add = [python, "-m", "memsite", "--store", str(store), "add", "--category", "operations"]
    timed([*add, "Benchmark fact about the build after one new entry"], work)
    after_add = measured([*build, "--site-dir", str(site)], work)
    remove_benchmark_facts(store)
    memsite_cold = [run["s"] for run in cold]
    ours, our_files = disk_size(site)
    page, page_bytes = largest_page(site)
    result: dict[str, Any] = {
        "entries": size,
        "memsite_cold_s": statistics.median(memsite_cold),
        "memsite_warm_cache_s": statistics.median(memsite_warm),
        "mkdocs_s": statistics.median(mkdocs) if mkdocs else None,
        "runs": {"memsite_cold": memsite_cold, "memsite_warm": memsite_warm, "mkdocs": mkdocs},
        "build_after_add_s": after_add["s"],
        "build_max_rss_mb": max(run["max_rss_mb"] for run in cold),
        "build_tree_pss_mb": max(run["tree_pss_mb"] for run in cold),
        "site_bytes": ours,
        "site_files": our_files,
        "entry_page_bytes": sum(p.stat().st_size for p in (site / "entries").glob("*/index.html"))
        // max(1, size),
        "largest_page": page,
        "largest_page_bytes": page_bytes,
        "mkdocs_site_bytes": None,
        "mkdocs_site_files": None,
    }
    # The search index's files (their names change with the search engine: whatever is there).
    search_bytes = {p.name: p.stat().st_size for p in (site / "search").rglob("*") if p.is_file()}
    result["search_bytes"] = sum(search_bytes.values())
    lunr = site / "search" / "memsite-lunr.json"
    if lunr.is_file():
        result["lunr_gz_bytes"] = len(gzip.compress(lunr.read_bytes(), 9))
    if project is not None:
        theirs, their_files = disk_size(project / "site")
        result["mkdocs_site_bytes"], result["mkdocs_site_files"] = theirs, their_files
    mk = result["mkdocs_s"]
    result["ratio_cold"] = result["memsite_cold_s"] / mk if mk else None
    result["ratio_warm"] = result["memsite_warm_cache_s"] / mk if mk else None
    result.update(first_search_result(site, size))
    result.update(incremental(store, work, additions))
    return result


def table(results: list[dict[str, Any]]) -> str:
    mb = 1e6  # GitHub Pages' 1 GB, in the units it counts

    def opt(value: float | None, text: str) -> str:
        return "–" if value is None else text.format(value)

    lines = [
        "| entries | memsite build (cold) | peak memory (largest / tree) | warm cache |"
        " mkdocs build | ratio cold / warm | rebuild after 1 entry | follow-up (bg) |"
        " build after add |"
        " site size (memsite / mkdocs) | entry page | largest page |"
        " first search result (median / max) | search bytes (max) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        theirs = r["mkdocs_site_bytes"]
        lines.append(
            f"| {r['entries']:,} | {r['memsite_cold_s']:.1f} s"
            f" | {r['build_max_rss_mb']:.0f} / {r['build_tree_pss_mb']:.0f} MB"
            f" | {r['memsite_warm_cache_s']:.1f} s | {opt(r['mkdocs_s'], '{:.1f} s')}"
            f" | {opt(r['ratio_cold'], '{:.2f}')} / {opt(r['ratio_warm'], '{:.2f}')}"
            f" | {r['rebuild_s']:.2f} s | {r['follow_up_s']:.1f} s | {r['build_after_add_s']:.1f} s"
            f" | {r['site_bytes'] / mb:.0f} MB ({r['site_files']:,} files) / "
            f"{opt(theirs and theirs / mb, '{:.0f} MB')}"
            f" | {r['entry_page_bytes'] / 1000:.1f} KB"
            f" | {r['largest_page']} ({r['largest_page_bytes'] / 1000:.0f} KB)"
            f" | {r['search_first_result_s']:.2f} / {r['search_first_result_max_s']:.2f} s"
            f" | {r['search_bytes_max'] / 1000:.0f} KB |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument(
        "--from",
        dest="sources",
        action="append",
        default=[],
        metavar="SIZE:PATH",
        help="copy the store of SIZE entries from PATH/.memsite instead of generating it",
    )
    parser.add_argument("--mkdocs-max", type=int, default=10_000, help="plain mkdocs up to this")
    parser.add_argument(
        "--additions", type=int, default=3, help="new entries serve's rebuild is timed over"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sources = {int(k): Path(v) for k, _, v in (item.partition(":") for item in args.sources)}
    results = []
    for size in args.sizes:
        print(f"benchmarking {size} entries…", file=sys.stderr, flush=True)
        results.append(
            bench(size, args.runs, args.out, sources.get(size), args.mkdocs_max, args.additions)
        )
    (args.out / "site.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
