"""Search modes (``memory.recall``), the vectors kept in the read model, task-focused context and
the facts a prompt hook adds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.core.vectors import cosine, unpack
from memsite.errors import InvalidInputError
from memsite.memory import Memory
from memsite.storage.embedding import Model
from memsite.storage.layout import Store
from tests.conftest import Clock, clean_env


def open_memory(root: Path, clock: Clock) -> Memory:
    store = Store(root)
    return Memory(store, store.load_config(), clock)


FACTS = [
    ("Use pnpm, never npm or yarn, for installs", "conventions"),
    ("The cat sleeps on the sofa after lunch", "decisions"),
    ("Deploys go through the staging cluster first", "operations"),
    ("Database migrations must be reversible", "architecture"),
]


@pytest.fixture
def filled(store_root: Path, clock: Clock) -> tuple[Memory, dict[str, str]]:
    memory = open_memory(store_root, clock)
    ids = {}
    for content, category in FACTS:
        ids[content] = memory.add(content, category)["id"]
        clock.tick()
    return memory, ids


def test_modes_say_which_signals_found_each_hit(filled: tuple[Memory, dict[str, str]]) -> None:
    memory, ids = filled
    (hit,) = memory.search("pnmp", mode="exact")  # typo tolerance is the lexical ranking's
    assert hit["id"] == ids[FACTS[0][0]] and hit["signals"] == ["exact"]
    assert "similarity" not in hit
    hybrid = memory.search("pnmp")  # auto: hybrid, the extra is installed
    assert hybrid[0]["id"] == ids[FACTS[0][0]] and "exact" in hybrid[0]["signals"]
    # by meaning alone: no word in common
    (cat,) = memory.search("kitten napping on the couch", mode="semantic")
    assert cat["id"] == ids[FACTS[1][0]] and cat["signals"] == ["semantic"]
    assert cat["similarity"] >= 0.5
    assert memory.search("kitten napping on the couch", mode="exact") == []
    mixed = memory.search("kitten napping on the couch", mode="hybrid")
    assert [h["id"] for h in mixed] == [ids[FACTS[1][0]]]


def test_ids_and_filters_keep_working(filled: tuple[Memory, dict[str, str]]) -> None:
    memory, ids = filled
    assert memory.search("kitten napping on the couch", category="operations") == []
    hits = memory.search("staging cluster", category="operations")
    assert [h["id"] for h in hits] == [ids[FACTS[2][0]]]
    # gibberish finds nothing by meaning either: below the floor
    assert memory.search("zqxj vbnm", mode="hybrid") == []
    assert memory.search("zqxj vbnm", mode="semantic") == []


def test_retired_and_superseded_need_all(filled: tuple[Memory, dict[str, str]]) -> None:
    memory, ids = filled
    memory.retire(ids[FACTS[1][0]], "no cat any more")
    assert memory.search("kitten napping on the couch", mode="semantic") == []
    (hit,) = memory.search("kitten napping on the couch", mode="semantic", include_all=True)
    assert hit["id"] == ids[FACTS[1][0]] and hit["status"] == "retired"


def test_a_superseded_fact_leaves_meaning_search(filled: tuple[Memory, dict[str, str]]) -> None:
    """Statuses are read at each search (the kept pack of codes holds none)."""
    memory, ids = filled
    assert memory.search("kitten napping on the couch", mode="semantic")
    newer = memory.amend(ids[FACTS[1][0]], "The cat now sleeps in a basket by the window")
    memory = memory.reopen()
    found = [h["id"] for h in memory.search("cat sleeping place", mode="semantic")]
    assert ids[FACTS[1][0]] not in found and newer["id"] in found
    assert memory.search("cat sleeping place", mode="semantic", category="operations") == []


def test_unknown_mode_is_refused(filled: tuple[Memory, dict[str, str]]) -> None:
    memory, _ = filled
    with pytest.raises(InvalidInputError, match="unknown search mode 'fuzzy'"):
        memory.search("pnpm", mode="fuzzy")


def test_vectors_follow_the_entries(filled: tuple[Memory, dict[str, str]], clock: Clock) -> None:
    """Each fact is embedded once, by the first search after it arrived; a deleted one's
    vector goes with its row; another model re-embeds everything."""
    memory, ids = filled
    model = Model()
    index = memory.index()
    assert index.vectors.prepare(model) == len(FACTS)
    assert index.vectors.prepare(model) == 0
    memory.add("Releases are tagged on Tuesdays", "operations")
    memory = memory.reopen()
    assert memory.index().vectors.prepare(model) == 1
    memory.delete(ids[FACTS[3][0]])
    memory = memory.reopen()
    db = memory.index().db
    assert db.execute("SELECT count(*) FROM codes").fetchone()[0] == len(FACTS)
    assert dict(db.execute("SELECT k, v FROM meta WHERE k = 'vectors'"))["vectors"] == len(FACTS)
    assert memory.index().vectors.prepare(model) == 0
    model.name += ":another"
    assert memory.index().vectors.prepare(model) == len(FACTS)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.sampled_from(["add", "delete", "search"]), st.integers(0, 30)),
        min_size=1,
        max_size=12,
    )
)
def test_incremental_vectors_equal_a_rebuild(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]]
) -> None:
    root, _ = Store.init(tmp_path_factory.mktemp("v") / ".memsite")
    clock = Clock()
    memory = open_memory(root.root, clock)
    model = Model()
    live: list[str] = []
    for action, number in steps:
        clock.tick()
        if action == "add":
            live.append(
                memory.add(f"fact number {number} about {number % 7} things", "conventions")["id"]
            )
        elif action == "delete" and live:
            memory.delete(live.pop(number % len(live)))
        else:
            memory.index().vectors.prepare(model)
        memory = memory.reopen()
    memory.index().vectors.prepare(model)

    def vectors(db_memory: Memory) -> dict[str, tuple[bytes, bytes]]:
        db = db_memory.index().db
        sql = (
            "SELECT e.id, c.code, v.vec FROM entries e JOIN codes c ON c.n = e.n "
            "JOIN vecs v ON v.n = e.n"
        )
        return {i: (c, v) for i, c, v in db.execute(sql)}

    kept = vectors(memory)
    # The kept pack of sign codes follows too: what nearest gives is a scan of every vector.
    query = memory.index().vectors.query(model, "things about fact number 3")
    near = [
        (row.id, round(c, 9)) for row, c in memory.index().vectors.nearest(query, 50, None, False)
    ]
    db = memory.index().db
    sql = "SELECT e.id, v.vec FROM entries e JOIN vecs v ON v.n = e.n WHERE e.status = 'active'"
    scan = sorted(
        ((i, round(cosine(query, unpack(v)), 9)) for i, v in db.execute(sql)), key=lambda p: -p[1]
    )
    assert [c for _, c in near] == [c for _, c in scan] and {i for i, _ in near} == {
        i for i, _ in scan
    }
    memory.index().close()
    (root.root / "cache" / "index.sqlite3").unlink()
    fresh = open_memory(root.root, clock)
    fresh.index().vectors.prepare(model)
    assert kept == vectors(fresh)
    assert set(kept) == set(live)


def test_context_task_puts_the_tasks_facts_first(filled: tuple[Memory, dict[str, str]]) -> None:
    memory, ids = filled
    report = memory.context_report(task="roll back a schema migration")
    assert report["task"] == [ids[FACTS[3][0]]]
    text = report["text"]
    assert text.index("## For this task") < text.index("## Conventions")
    assert text.count("Database migrations must be reversible") == 1  # not twice
    plain = memory.context_report()
    assert "task" not in plain and "For this task" not in plain["text"]
    assert set(plain["included"]) == set(report["included"])
    small = memory.context_report(budget=110, task="roll back a schema migration")
    assert small["tokens"] <= 110 and small["task"] == [ids[FACTS[3][0]]]
    assert small["omitted"]  # the task's fact first: others left out to fit
    with pytest.raises(InvalidInputError, match="the task is empty"):
        memory.context(task="  ")


def test_prompt_facts_are_few_relevant_and_once_per_session(
    filled: tuple[Memory, dict[str, str]],
) -> None:
    memory, ids = filled
    assert memory.prompt_facts("what is the weather like today?", "s1") == {"text": "", "ids": []}
    given = memory.prompt_facts("how should I install packages, pnpm?", "s1")
    assert given["ids"] == [ids[FACTS[0][0]]]
    assert "Use pnpm, never npm or yarn" in given["text"] and "<!--" not in given["text"]
    assert memory.prompt_facts("pnpm install again?", "s1")["text"] == ""  # given already
    assert memory.prompt_facts("pnpm install again?", "s2")["ids"] == [ids[FACTS[0][0]]]
    assert memory.prompt_facts("pnpm install again?", None)["ids"] == [ids[FACTS[0][0]]]


def test_prompt_facts_fit_the_per_prompt_budget(store_root: Path, clock: Clock) -> None:
    """memory.perPromptTokenBudget, 300 by default: three facts of ~90 tokens do not fit."""
    memory = open_memory(store_root, clock)
    for n in range(3):
        memory.add(
            f"pnpm workspace rule {n}: packages under packages/ share one pnpm lockfile; run "
            "pnpm install at the root, never inside a package; pin shared versions with the "
            "catalog protocol in pnpm-workspace.yaml; add a workspace package with pnpm add "
            "--workspace, and filter commands with pnpm --filter <name> so CI builds only the "
            f"packages a change touches (rule {n} of the workspace guide).",
            "conventions",
        )
        clock.tick()
    given = memory.prompt_facts("pnpm workspace rule", "s")
    assert 0 < len(given["ids"]) < 3
    from memsite.core.estimate import estimate_tokens

    assert estimate_tokens(given["text"]) <= 300


def test_without_the_extra_semantic_is_one_line(store_root: Path) -> None:
    """A process that cannot import the model's package: auto falls back to exact, semantic
    and hybrid are one line naming the extra."""
    blocked = (
        "import sys, importlib.util\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = (\n"
        "    lambda name, *a: None if name == 'wordllama' else real(name, *a)\n"
        ")\n"
        "from memsite.cli.main import main\nmain(sys.argv[1:])\n"
    )
    run = [sys.executable, "-c", blocked, "--store", str(store_root)]
    env = clean_env()
    subprocess.run([*run, "add", "Use pnpm", "-c", "conventions"], env=env, check=True)
    auto = subprocess.run(
        [*run, "search", "pnpm", "--json"], env=env, capture_output=True, text=True
    )
    assert auto.returncode == 0 and '"signals": [\n      "exact"\n    ]' in auto.stdout
    for mode in ("semantic", "hybrid"):
        done = subprocess.run(
            [*run, "search", "pnpm", "--mode", mode], env=env, capture_output=True, text=True
        )
        assert done.returncode != 0
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "pip install 'memsite[semantic]'" in lines[0], lines
        assert "Traceback" not in done.stderr


def test_a_huge_fact_without_spaces_is_embedded_quickly(store_root: Path, clock: Clock) -> None:
    """An entry file may hold a megabyte without a space (another tool, a hand edit): it is
    embedded from its start, cut into words (``core.bpe.bounded``), in plain Python as in
    bulk, and a search still answers."""
    from tests.conftest import make_entry, write_raw

    obj = make_entry("placeholder", category="operations")
    obj["content"] = "deploy" + "x" * 1_000_000
    write_raw(store_root, obj)
    memory = open_memory(store_root, clock)
    memory.add("Deploys go through the staging cluster first", "operations")
    hits = memory.search("deploy staging", mode="hybrid")
    assert hits and hits[0]["content"].startswith("Deploys go through")
    from memsite.core.vectors import cosine, unpack
    from memsite.storage.readmodel.vectors import embedded_text

    text = embedded_text(obj["content"], [], None)
    assert len(text) < 2100
    ((_, stored),) = Model().embed_many([text])
    assert cosine(memory.index().vectors.query(Model(), text), unpack(stored)) > 0.999


def test_surrogates_tabs_and_line_breaks_are_text(store_root: Path, clock: Clock) -> None:
    """A lone surrogate (JSON allows one) in a query or prompt is a character like any other,
    never "damage" that deletes the cache; a run without spaces but with tabs or line breaks
    is cut like any long word (the tokenizer splits words at spaces only)."""
    from memsite.core.bpe import WORD_MAX, bounded

    memory = open_memory(store_root, clock)
    memory.add("We use PostgreSQL 16 as the main database", "architecture")
    assert memory.search("\ud800 which database", mode="hybrid")
    assert memory.search("\ud800 which database", mode="semantic") is not None
    memory.prompt_facts("\ud800 which database do we use?", "s")
    assert (store_root / "cache" / "index.sqlite3").is_file()
    cut = bounded("internationalization\tlocalization\n" * 300)
    assert max(map(len, cut.split(" "))) <= WORD_MAX


def test_more_hits_than_the_pool_and_no_daily_by_meaning(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    for n in range(70):
        memory.add(f"Webhook retry rule {n}: back off {n} seconds", "operations")
        clock.tick()
    assert len(memory.search("webhook retry", limit=70, mode="hybrid")) == 70
    with pytest.raises(InvalidInputError, match="daily log lines are found by words"):
        memory.search("webhook", mode="semantic", daily=True)


def test_a_prompt_does_not_wait_for_many_vectors(store_root: Path, clock: Clock) -> None:
    """More than WAITING_MAX facts without vectors: the prompt is answered by words alone,
    and nothing is embedded (a runner's prompt must not wait); a search embeds them."""
    from memsite.memory.recall import WAITING_MAX

    memory = open_memory(store_root, clock)
    for n in range(WAITING_MAX + 1):
        memory.add(f"pnpm workspace rule {n} for the monorepo packages", "conventions")
        clock.tick()
    given = memory.prompt_facts("pnpm workspace rule 3?", "s")
    assert given["ids"]
    db = memory.index().db
    assert db.execute("SELECT count(*) FROM codes").fetchone()[0] == 0
    memory.search("pnpm")
    assert db.execute("SELECT count(*) FROM codes").fetchone()[0] == WAITING_MAX + 1


def test_a_busy_cache_falls_back_to_words(store_root: Path) -> None:
    """Another process holds the read model's write lock: a hybrid search answers by words, a
    semantic one says so in one line; neither gives a traceback."""
    import sqlite3

    env = clean_env()
    run = [sys.executable, "-m", "memsite", "--store", str(store_root)]
    subprocess.run([*run, "add", "Use pnpm, never npm", "-c", "conventions"], env=env, check=True)
    subprocess.run([*run, "search", "pnpm", "--mode", "exact"], env=env, check=True)
    holder = sqlite3.connect(store_root / "cache" / "index.sqlite3")
    holder.execute("BEGIN IMMEDIATE")
    try:
        words = subprocess.run(
            [*run, "search", "pnpm", "--json"], env=env, capture_output=True, text=True
        )
        assert words.returncode == 0, words.stderr
        assert '"exact"' in words.stdout and "Traceback" not in words.stderr
        meaning = subprocess.run(
            [*run, "search", "pnpm", "--mode", "semantic"], env=env, capture_output=True, text=True
        )
        assert meaning.returncode != 0 and "Traceback" not in meaning.stderr
        assert "cannot be made now" in meaning.stderr
    finally:
        holder.rollback()
        holder.close()
