"""The golden-output guard: every output of the main commands over one seeded store, hashed.

``tests/golden/manifest.json`` holds the SHA-256 of each output of `compact`, `context`,
`review --json`, `status --json`, `list`/`read --json`, `search --json` over 20 queries,
`export` (JSONL and Markdown) and `build --site-dir`, run with a fixed clock on the store of
``tests/golden_store.py``. A change that moves code must leave every hash as it was; a change
meant to alter an output updates the manifest in a commit of its own, which says why:

    MEMSITE_GOLDEN_UPDATE=1 pytest tests/test_golden.py    # rewrites the manifest, then fails

Site pages are hashed by what memsite renders into them (the page's ``<article>``): the frame
around it, the theme's assets and MkDocs' 404 page come from MkDocs and Material, whose
releases would otherwise change the hashes without any change of memsite's.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import Invoke, Result
from tests.golden_store import NOW, make_store

MANIFEST = Path(__file__).parent / "golden" / "manifest.json"
QUERIES = [
    "postgres deploy",
    "database",
    "pnmp",
    "retry helper",
    "api tokens jwt",
    "invoice timeout",
    "kubernetes",
    "how do we run the tests",
    "payments gateway",
    "ruff format",
    "cache",
    "webhook retries",
    "migration",
    "docker compose",
    "secret",
    "nightly export",
    "onboarding",
    "k8s",
    "release",
    "ledger",
]
SEARCH_FLAGS = {
    "postgres deploy": ["--all"],
    "database": ["--expand"],
    "migration": ["--daily"],
    "cache": ["-c", "architecture", "--limit", "5"],
}
_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*)</article>', re.S)


class _Fixed(datetime):
    @classmethod
    def now(cls, tz: object = None) -> _Fixed:  # type: ignore[override]
        moment = datetime.fromisoformat(NOW)
        return cls.fromtimestamp(moment.timestamp(), UTC)


@pytest.fixture
def golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner: Invoke) -> Path:
    """The golden project, with memsite's clock fixed at ``NOW``."""
    import memsite.memory

    monkeypatch.setattr(memsite.memory, "datetime", _Fixed)
    project = tmp_path / "golden"
    project.mkdir()
    make_store(project)
    monkeypatch.chdir(project)
    return project


def _site_part(rel: str, data: bytes) -> bytes | None:
    """What of a site file memsite itself makes (None: a file of MkDocs' or Material's)."""
    if rel.startswith(("assets/", "m/")) or rel == "404.html":
        return None
    if rel.endswith(".html"):
        match = _ARTICLE.search(data.decode("utf-8"))
        assert match is not None, f"{rel}: no article"
        return match.group(1).encode("utf-8")
    if rel == "search/search_index.json":
        return json.dumps(json.loads(data)["docs"], sort_keys=True).encode("utf-8")
    return data


def _outputs(run: Invoke, project: Path, scratch: Path) -> dict[str, bytes]:
    env = {"MEMSITE_SESSION": "golden-now"}
    found: dict[str, bytes] = {}

    def cli(name: str, *args: str, stdin: str = "") -> Result:
        result = run(*args, input=stdin, env=env)
        assert result.exit_code in (0, 1), f"{args}: {result.stderr}"
        found[name] = result.stdout.replace(str(project), "<project>").encode("utf-8")
        return result

    cli("compact.json", "compact", "--json")
    store = project / ".memsite"
    for path in sorted((store / "compacted").glob("*.md")):
        found[f"compacted/{path.name}"] = path.read_bytes()
    found["index.md"] = (store / "index.md").read_bytes()
    cli("context.txt", "context")
    cli("context-budget.txt", "context", "--budget", "300")
    cli("context-claude.json", "context", "--format", "claude-hook")
    cli("review.json", "review", "--json")
    cli("status.json", "status", "--json")
    listed = cli("list.json", "list", "--json").json()
    cli("list-all.json", "list", "--all", "--json")
    cli("list-ops.json", "list", "-c", "operations", "-t", "postgres", "--json")
    ids = [row["id"] for row in listed[:5]] + [
        "00c0ffee-0000-4000-8000-000000000001",  # anchored, verified
        "00c0ffee-0000-4000-8000-000000000011",  # an allowed secret
        "00c0ffee-0000-4000-8000-000000000017",  # retired
    ]
    for entry_id in ids:
        cli(f"read/{entry_id}.json", "read", entry_id[:13], "--json")
    for number, query in enumerate(QUERIES):
        cli(f"search/{number:02d}.json", "search", query, *SEARCH_FLAGS.get(query, []), "--json")
    cli("export.jsonl", "export")
    cli("export-all.jsonl", "export", "--all")
    bundle = scratch / "bundle"
    run("export", "--format", "markdown", "--all", "-o", str(bundle), env=env)
    for path in sorted(bundle.iterdir()):
        found[f"export-md/{path.name}"] = path.read_bytes()
    site = scratch / "site"
    built = run("build", "--site-dir", str(site), "--json", env=env)
    assert built.exit_code == 0, built.stderr
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        part = _site_part(rel, path.read_bytes())
        if part is not None:
            found[f"site/{rel}"] = part
    return found


def test_outputs_match_the_golden_manifest(golden: Path, runner: Invoke, tmp_path: Path) -> None:
    outputs = _outputs(runner, golden, tmp_path)
    hashes = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(outputs.items())}
    if os.environ.get("MEMSITE_GOLDEN_UPDATE"):
        MANIFEST.parent.mkdir(exist_ok=True)
        MANIFEST.write_text(json.dumps({"outputs": hashes}, indent=1) + "\n", encoding="utf-8")
        pytest.fail(f"{MANIFEST} rewritten ({len(hashes)} outputs): run again without the flag")
    expected = json.loads(MANIFEST.read_text(encoding="utf-8"))["outputs"]
    kept = tmp_path / "actual"
    for name, data in outputs.items():
        (kept / name).parent.mkdir(parents=True, exist_ok=True)
        (kept / name).write_bytes(data)
    missing = sorted(set(expected) - set(hashes))
    extra = sorted(set(hashes) - set(expected))
    changed = sorted(n for n in set(expected) & set(hashes) if expected[n] != hashes[n])
    assert not (missing or extra or changed), (
        f"outputs differ from the golden manifest (actual outputs in {kept}): "
        f"changed {changed[:20]} ({len(changed)}), missing {missing[:20]}, new {extra[:20]}"
    )


def test_the_golden_store_exercises_every_rule(golden: Path, runner: Invoke) -> None:
    """The guard is only as good as its store: each kind of finding and status is in it."""
    review = runner("review", "--json", env={"MEMSITE_SESSION": "golden-now"}).json()
    kinds = {f["kind"] for f in review["findings"]}
    assert {
        "invalid_file",
        "duplicate",
        "contradiction",
        "near_duplicate",
        "unknown_category",
        "secret",
        "secret_allowed",
        "future_timestamp",
        "possible_conflict",
        "drift",
        "stale",
    } <= kinds
    status = runner("status", "--json").json()
    assert status["entries"] > 500 and status["records"] == 5
    assert all(status[s] > 0 for s in ("active", "superseded", "duplicate", "overridden"))
    assert status["retired"] == 1 and status["invalid"] == 2
