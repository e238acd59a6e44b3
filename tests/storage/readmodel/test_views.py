"""The read model's exact token counts: each active fact counted once, by an explicit compact
only, in one batch, and what they buy: an index.md that fills its budget in both tokenizers
(the demo store and generated stores) and never exceeds it; without bpe-openai, or on the hot
paths, the estimates stay."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import bpe_openai
import pytest

from memsite.memory import Memory
from tests.conftest import Clock
from tests.storage.readmodel.test_facade import open_memory

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from gen_store import generate

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo"
ENCODINGS = [bpe_openai.get_encoding(name) for name in ("cl100k_base", "o200k_base")]
ACTIVE = "SELECT index_bullet, cl100k, o200k, index_cost FROM entries WHERE status = 'active'"


def real(text: str) -> list[int]:
    return [len(e.encode_ordinary(text)) for e in ENCODINGS]


def rows(root: Path) -> list[tuple[str | None, int | None, int | None, int | None]]:
    db = sqlite3.connect(root / "cache" / "index.sqlite3")
    try:
        return db.execute(ACTIVE).fetchall()
    finally:
        db.close()


def with_budget(root: Path, budget: int) -> None:
    path = root / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config.setdefault("memory", {})["autoInjectTokenBudget"] = budget
    path.write_text(json.dumps(config), encoding="utf-8")


def index_tokens(root: Path) -> list[int]:
    return real((root / "index.md").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated store of 1,500 entries, never compacted (each test copies it)."""
    return generate(1500, tmp_path_factory.mktemp("gen") / "store", seed=3)


def copy_store(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("cache", "index.md"))
    return target


def test_compact_counts_every_active_fact_once(generated: Path, tmp_path: Path) -> None:
    root = copy_store(generated, tmp_path / ".memsite")
    memory = open_memory(root, Clock())
    memory.compact()
    found = rows(root)
    assert found and all(bullet is not None for bullet, *_ in found)
    for bullet, cl100k, o200k, cost in found:
        assert bullet is not None and [cl100k, o200k] == real(bullet)
        assert cost == max(real(bullet))
    again = open_memory(root, Clock())
    assert again.index().views.count_tokens() == 0  # nothing left to count
    assert again.compact()["written"] == []


def test_a_new_fact_keeps_its_estimate_until_an_explicit_compact(store_root: Path) -> None:
    from memsite.core.estimate import estimate_tokens

    clock = Clock()
    open_memory(store_root, clock).add("Use pnpm, never npm.", "conventions")
    open_memory(store_root, clock).compact()
    clock.tick(minutes=1)
    open_memory(store_root, clock).add("The API is served by FastAPI behind nginx.", "architecture")
    assert "FastAPI" in open_memory(store_root, clock).context()  # stale: compacted, not counted
    bullet = "- The API is served by FastAPI behind nginx.\n"
    assert (bullet, None, None, estimate_tokens(bullet)) in rows(store_root)
    before = (store_root / "index.md").read_bytes()
    assert open_memory(store_root, clock).compact()["written"] == []  # both fit either way
    assert (bullet, *real(bullet), max(real(bullet))) in rows(store_root)
    assert (store_root / "index.md").read_bytes() == before


def test_counting_fills_an_index_first_made_with_estimates(generated: Path, tmp_path: Path) -> None:
    """`context` compacts a stale store without counting; the next explicit compact counts,
    and index.md is written again although no entry changed."""
    root = copy_store(generated, tmp_path / ".memsite")
    open_memory(root, Clock()).context()
    estimated = max(index_tokens(root))
    assert estimated < 0.75 * 2000
    assert all(cl100k is None for _, cl100k, _, _ in rows(root))
    assert "index.md" in open_memory(root, Clock()).compact()["written"]
    assert 0.8 * 2000 <= max(index_tokens(root)) <= 2000


@pytest.mark.parametrize("budget", [400, 800, 1200, 2000])
def test_the_demo_store_fills_its_budget_in_both_tokenizers(tmp_path: Path, budget: int) -> None:
    project = tmp_path / "demo"
    shutil.copytree(DEMO, project, ignore=shutil.ignore_patterns("cache", "index.md"))
    root = project / ".memsite"
    with_budget(root, budget)
    open_memory(root, Clock()).compact()
    for count in index_tokens(root):
        assert 0.8 * budget <= count <= budget


@pytest.mark.parametrize("budget", [500, 1000, 2000, 6000])
def test_generated_stores_fill_their_budget_in_both_tokenizers(
    generated: Path, tmp_path: Path, budget: int
) -> None:
    root = copy_store(generated, tmp_path / ".memsite")
    with_budget(root, budget)
    memory = open_memory(root, Clock())
    memory.compact()
    for count in index_tokens(root):
        assert 0.8 * budget <= count <= budget
    # every budget asked of `context` holds too, from the same counts
    for asked in (150, 700, 5000):
        text = Memory(memory.store, memory.config, Clock()).context(budget=asked)
        assert max(real(text)) <= asked


def loaded_by(args: list[str], cwd: Path, *, block: bool = False) -> set[str]:
    """The modules loaded once `memsite ARGS` has run in a fresh interpreter (``block``: as
    when bpe-openai is not installed)."""
    script = f"""
        import sys
        if {block}:
            sys.modules["bpe_openai"] = None
        from memsite.cli.main import main
        try:
            main(sys.argv[1:])
        except SystemExit as exc:
            assert not exc.code, exc.code
        print("\\n".join(sorted(sys.modules)))
        """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


def test_only_an_explicit_compact_loads_the_tokenizers(store_root: Path) -> None:
    cwd = store_root.parent
    add = ["add", "Deploys go through ArgoCD", "-c", "operations"]
    again = ["add", "Use pnpm, never npm", "-c", "conventions"]
    for args in (add, ["context"], again, ["context"], ["search", "argocd"]):
        loaded = loaded_by(args, cwd)
        # nor does any of them fork a child to load them (``memsite.counting``)
        assert not {"bpe_openai._bindings", "memsite.counting"} & loaded, args
    assert all(cl100k is None for _, cl100k, _, _ in rows(store_root))
    loaded = loaded_by(["compact"], cwd)  # in a child it forks, or (one CPU) itself
    assert "memsite.counting" in loaded or "bpe_openai._bindings" in loaded
    assert all(cl100k is not None for _, cl100k, _, _ in rows(store_root))


def test_without_bpe_openai_compact_keeps_the_estimates(generated: Path, tmp_path: Path) -> None:
    root = copy_store(generated, tmp_path / ".memsite")
    loaded_by(["--store", str(root), "compact"], tmp_path, block=True)
    assert all(cl100k is None for _, cl100k, _, _ in rows(root))
    assert 0.4 * 2000 < max(index_tokens(root)) <= 2000
    assert open_memory(root, Clock()).compact()["written"] == ["index.md"]  # counted now
    assert max(index_tokens(root)) >= 0.8 * 2000


def test_a_big_batch_is_counted_in_two_processes_as_in_one() -> None:
    from memsite.core import tokens
    from memsite.storage.readmodel.prepare import PARALLEL, count_lines

    lines = [
        f"- Fact {i}: deploys of service-{i % 37} go through ArgoCD 🚀\n" for i in range(PARALLEL)
    ]
    assert count_lines(lines) == tokens.count(lines) == [tuple(real(line)) for line in lines]
