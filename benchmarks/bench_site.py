"""Benchmark the memory portal: cold ``memsite build`` vs plain ``mkdocs build`` of the same pages.

Usage::

    python benchmarks/bench_site.py                 # 1k and 10k entries, 3 runs each
    python benchmarks/bench_site.py --sizes 1000 --runs 1

For each size it generates a store (``benchmarks/gen_store.py``), then measures, side by side
and alternating, as whole processes:

* ``memsite build`` into an empty folder, with the store's ``cache/`` deleted first (cold:
  nothing memsite derived before), and once more with the parse cache kept (warm cache);
* ``mkdocs build`` of the *same pages*: every page memsite generates (home, categories, tags,
  timeline, review, search and one page per entry) written as a Markdown file holding that
  page's body, with the portal's own Material configuration, entries left out of the nav;
* ``serve``'s incremental path: the time from one new entry to the rewritten site (median of
  3 additions), and the background follow-up (Lunr index, review findings);
* the Lunr index size gzipped, and each site's size on disk.

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
    from memsite.portal.mkglue import nav_config
    from memsite.portal.model import build_portal, finding_views
    from memsite.portal.render import Renderer, nav_items
    from memsite.portal.resources import site_config_dir

    memory = Memory.open(str(store), {}, store.parent)
    state = memory.state()
    config = memory.config
    portal = build_portal(state.result, config.site, config.categories, config.budget)
    portal.findings = finding_views(memory.findings(), portal)
    renderer = Renderer()
    pages = renderer.main_pages(portal) + renderer.tag_pages(portal)
    pages += [renderer.entry_page(portal.page(e.id)) for e in portal.entries]
    remove(root)
    docs = root / "docs"
    for page in pages:
        path = docs / page.path / "index.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: {json.dumps(page.title)}\n---\n\n{page.body}\n")
    shutil.copytree(site_config_dir() / "docs" / "assets", docs / "assets")
    settings = (site_config_dir() / "mkdocs.yml").read_text()
    nav = json.dumps(nav_config(nav_items(portal)))
    (root / "mkdocs.yml").write_text(f"{settings}\nsite_name: Project memory\nnav: {nav}\n")
    return root


def incremental(store: Path, work: Path, runs: int) -> dict[str, float]:
    """serve's path after one new entry: foreground rewrite, background follow-up."""
    from memsite.memory import Memory
    from memsite.portal.model import PortalCache
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
    for path in (store / "entries").glob("*.json"):  # leave the store as generated
        if "Benchmark fact number" in path.read_text(encoding="utf-8"):
            path.unlink()
    return {"rebuild_s": statistics.median(fore), "follow_up_s": statistics.median(back)}


def bench(size: int, runs: int, out: Path) -> dict[str, Any]:
    work = out / f"site-{size}"
    work.mkdir(parents=True, exist_ok=True)
    store = generate(size, work, force=True)
    project = plain_project(store, work / "plain")
    memsite_cold: list[float] = []
    memsite_warm: list[float] = []
    mkdocs: list[float] = []
    site = work / "memsite-site"
    python = sys.executable
    build = [python, "-m", "memsite", "--store", str(store), "build", "--json"]
    for _ in range(runs):
        remove(store / "cache")
        remove(site)
        memsite_cold.append(timed([*build, "--site-dir", str(site)], work))
        remove(project / "site")
        mkdocs.append(timed([python, "-m", "mkdocs", "build", "-q"], project))
        remove(site)
        memsite_warm.append(timed([*build, "--site-dir", str(site)], work))
    lunr = (site / "search" / "memsite-lunr.json").read_bytes()
    docs = (site / "search" / "memsite-docs.json").read_bytes()
    ours, our_files = disk_size(site)
    theirs, their_files = disk_size(project / "site")
    result: dict[str, Any] = {
        "entries": size,
        "memsite_cold_s": statistics.median(memsite_cold),
        "memsite_warm_cache_s": statistics.median(memsite_warm),
        "mkdocs_s": statistics.median(mkdocs),
        "runs": {"memsite_cold": memsite_cold, "memsite_warm": memsite_warm, "mkdocs": mkdocs},
        "lunr_gz_bytes": len(gzip.compress(lunr, 9)),
        "lunr_bytes": len(lunr),
        "docs_map_gz_bytes": len(gzip.compress(docs, 9)),
        "site_bytes": ours,
        "site_files": our_files,
        "mkdocs_site_bytes": theirs,
        "mkdocs_site_files": their_files,
    }
    result["ratio_cold"] = result["memsite_cold_s"] / result["mkdocs_s"]
    result["ratio_warm"] = result["memsite_warm_cache_s"] / result["mkdocs_s"]
    result.update(incremental(store, work, 3))
    return result


def table(results: list[dict[str, Any]]) -> str:
    mb = 1024 * 1024
    lines = [
        "| entries | memsite build (cold) | warm cache | mkdocs build | ratio cold / warm |"
        " rebuild after 1 entry | follow-up (bg) | Lunr gz | site size (memsite / mkdocs) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['entries']:,} | {r['memsite_cold_s']:.1f} s | {r['memsite_warm_cache_s']:.1f} s"
            f" | {r['mkdocs_s']:.1f} s | {r['ratio_cold']:.2f} / {r['ratio_warm']:.2f}"
            f" | {r['rebuild_s']:.2f} s | {r['follow_up_s']:.1f} s"
            f" | {r['lunr_gz_bytes'] / mb:.2f} MB"
            f" | {r['site_bytes'] / mb:.0f} MB ({r['site_files']:,} files) / "
            f"{r['mkdocs_site_bytes'] / mb:.0f} MB ({r['mkdocs_site_files']:,} files) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for size in args.sizes:
        print(f"benchmarking {size} entries…", file=sys.stderr, flush=True)
        results.append(bench(size, args.runs, args.out))
    (args.out / "site.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
