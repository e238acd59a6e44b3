"""Benchmark the portal's release pages (``memsite build --releases``): what they add to the site.

Usage::

    python benchmarks/bench_releases.py                    # 10k entries, 10 releases
    python benchmarks/bench_releases.py --entries 2000 --releases 5

It generates a store (``benchmarks/gen_store.py``) in a git repository and commits its entry
files in ``--releases`` steps, oldest first, tagging each step ``v1``, ``v2``…; each step after
the first also deletes a few files of earlier steps (so releases have facts removed, as well as
added and, through the generator's supersessions, replaced). It then builds the portal twice
as whole processes, each into an empty folder with the read model already made: without
release pages, then with ``--releases 'v*'``, and prints

* the bytes and files the release pages add (``as-of/``), and what they add elsewhere (the
  entry pages' "Releases" row, the sitemap, MkDocs' search index),
* the release pages' bytes per active fact per release (each release lists its active facts),
* each build's time, once (sizes need no medians), and their ratio.

Results also go to benchmarks/out/releases.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from gen_store import generate  # noqa: E402

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
DELETED_PER_STEP = 20


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSITE_")}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def git(root: Path, *args: str, date: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else None
    subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True, env=env)


def make_project(root: Path, entries: int, releases: int) -> Path:
    """A git repository whose store took ``releases`` commits, each tagged; its .memsite."""
    from memsite.storage.layout import GITIGNORE

    store = generate(entries, root)
    (store / ".bench-generated").unlink(missing_ok=True)
    (store / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    held = root / "held"
    (store / "entries").rename(held)
    (store / "entries").mkdir()
    names = sorted(p.name for p in held.iterdir())
    git(root, "init", "-q")
    step = -(-len(names) // releases)
    for number in range(releases):
        for name in names[number * step : (number + 1) * step]:
            (held / name).rename(store / "entries" / name)
        if number:  # a few facts of earlier steps deleted: releases remove facts too
            earlier = names[: number * step]
            for name in earlier[number :: max(1, len(earlier) // DELETED_PER_STEP)]:
                (store / "entries" / name).unlink(missing_ok=True)
        # committed when its newest entry was written: the tags' dates spread as the facts'
        last = names[min(len(names), (number + 1) * step) - 1][:20]
        date = f"{last[:13]}:{last[14:16]}:{last[17:19]}Z"
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"memory, step {number + 1}", date=date)
        git(root, "tag", f"v{number + 1}")
    held.rmdir()
    return store


def build(store: Path, site: Path, *extra: str) -> float:
    command = [sys.executable, "-m", "memsite", "--store", str(store), "build"]
    started = time.perf_counter()
    subprocess.run(
        [*command, "--site-dir", str(site), "--json", *extra],
        check=True,
        capture_output=True,
        env=clean_env(),
    )
    return time.perf_counter() - started


def sizes(site: Path) -> dict[str, tuple[int, int]]:
    """Relative path → (bytes, 1) of every file of ``site``."""
    found = {}
    for folder, _, names in os.walk(site):
        for name in names:
            path = Path(folder, name)
            found[path.relative_to(site).as_posix()] = (path.stat().st_size, 1)
    return found


def active_facts(store: Path) -> int:
    """Active facts summed over the releases (what the release pages list)."""
    from memsite.memory import Memory
    from memsite.memory.releases import releases

    memory = Memory.open(str(store), clean_env(), store.parent)
    return sum(len(release["active"]) for release in releases(memory, "v*"))


def measure(entries: int, releases: int, work: Path) -> dict[str, Any]:
    store = make_project(work / "project", entries, releases)
    subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store), "compact", "--quiet"],
        check=True,
        env=clean_env(),
    )
    plain_site, release_site = work / "plain", work / "releases"
    plain_seconds = build(store, plain_site)
    release_seconds = build(store, release_site, "--releases", "v*")
    plain, with_releases = sizes(plain_site), sizes(release_site)
    pages = {p: s for p, s in with_releases.items() if p.startswith("as-of/")}
    page_bytes = sum(size for size, _ in pages.values())
    total_plain = sum(size for size, _ in plain.values())
    total = sum(size for size, _ in with_releases.values())
    facts = active_facts(store)
    return {
        "entries": entries,
        "releases": releases,
        "site_bytes": total_plain,
        "release_page_files": len(pages),
        "release_page_bytes": page_bytes,
        "other_extra_bytes": total - total_plain - page_bytes,
        "active_facts_over_releases": facts,
        "bytes_per_active_fact_per_release": round(page_bytes / max(facts, 1), 1),
        "build_seconds": round(plain_seconds, 2),
        "build_with_releases_seconds": round(release_seconds, 2),
        "time_ratio": round(release_seconds / plain_seconds, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=10_000, help="entries (10000)")
    parser.add_argument("--releases", type=int, default=10, help="tagged steps (10)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memsite-bench-releases-") as scratch:
        found = measure(args.entries, args.releases, Path(scratch))
    width = max(len(k) for k in found)
    for key, value in found.items():
        print(
            f"{key:<{width}}  {value:,}" if isinstance(value, int) else f"{key:<{width}}  {value}"
        )
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "releases.json").write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
