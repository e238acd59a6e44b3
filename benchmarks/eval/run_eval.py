"""Search quality on the evaluation set: recall@3 and MRR@5 of memsite's search and of a plain
SQLite FTS5 baseline, overall and per kind of question (plain, paraphrase, typo).

The set (``part_*.jsonl`` beside this file) holds 430 facts written in our own words from public
AGENTS.md, CLAUDE.md, CONTRIBUTING and ADR files of 65 well-known repositories, and questions a
developer or agent would ask, each with the one fact that answers it: 213 that name the project
("named", in part_a/b/c) and the same 213 reworded without the project's name, as an agent
working inside one repository asks them ("unnamed", in part_hard). Each set mixes plain,
paraphrased and typo'd questions.

The questions are split once, before any tuning, into a "tune" half and a held-out "test" half
by a hash of the repository their answer comes from (``half``), so that the named and unnamed
wording of a question, and all of one project's facts, fall in the same half. Ranking changes
are tuned on the tune half only; the test half says whether they carry over.

``--distractors N`` first fills both systems with N generated entries (``benchmarks/gen_store``,
seed 1), so that the facts must be found among many, as in a real store where memsite's
candidate selection, not only its ranking, decides what is found.

``fresh_questions.jsonl`` holds 368 more questions (64% paraphrases, none naming its project),
written before any tuning of semantic or hybrid search and never used to tune anything: the
set "fresh", reported apart from the two halves.

``--modes`` measures memsite's search modes side by side (``exact``, ``semantic``,
``hybrid``: see ``memsite.memory.recall``; the last two need ``memsite[semantic]``), and
``context``: is the answer among the facts of a 300-token ``context --task QUESTION`` (its
"recall@3" column then says "in the context", whatever the rank).

Run: ``python benchmarks/eval/run_eval.py [--json] [--misses [--half tune]] [--distractors N]
[--modes exact,hybrid]``.
To measure another memsite (an earlier commit, say), run it with that checkout first on
``PYTHONPATH``; the script uses only the public API (``Memory.open``, ``Memory.add``,
``Memory.search``).

The baseline is what a plain FTS5 search gives: ``tokenize='porter unicode61'`` over content,
tags and key, the question's words AND-ed, then OR-ed when AND finds nothing, ranked by BM25.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import random
import re
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TASK_BUDGET = 300  # tokens of the `context --task` measured by ``--modes context``


def half(source: str) -> str:
    """The half of a question whose answer comes from ``source`` ("owner/repo:path")."""
    repository = source.split(":")[0]
    return "tune" if int(hashlib.md5(repository.encode()).hexdigest(), 16) % 2 == 0 else "test"


def load() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    facts: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for path in sorted(HERE.glob("part_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                if item["type"] == "fact":
                    facts.append(item)
                else:
                    item["set"] = "unnamed" if path.stem == "part_hard" else "named"
                    questions.append(item)
    sources = {fact["id"]: fact["source"] for fact in facts}
    for question in questions:
        question["half"] = half(sources[question["answer"]])
    fresh = HERE / "fresh_questions.jsonl"
    for line in fresh.read_text(encoding="utf-8").splitlines() if fresh.is_file() else []:
        if line.strip():
            questions.append({**json.loads(line), "set": "fresh", "half": "fresh"})
    return facts, questions


class Clock:
    """Facts a few hours apart, so recency plays the small part it plays in a real store."""

    def __init__(self, start: datetime = datetime(2026, 1, 1, tzinfo=UTC)) -> None:
        self.moment = start

    def __call__(self) -> datetime:
        self.moment += timedelta(hours=3)
        return self.moment


def distractors(count: int) -> list[dict[str, Any]]:
    """``count`` generated entries, as ``gen_store`` writes them (none when ``count`` is 0)."""
    if not count:
        return []
    sys.path.insert(0, str(HERE.parent))
    from gen_store import build_entries

    return build_entries(count, seed=1)


def _current(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries no other entry supersedes (memsite's search shows only those)."""
    replaced = {old for e in entries for old in e.get("supersedes") or []}
    return [e for e in entries if e["id"] not in replaced]


def memsite_system(
    facts: list[dict[str, Any]], root: Path, others: list[dict[str, Any]]
) -> Callable[[str, str], list[str]]:
    from memsite.memory import Memory
    from memsite.storage.layout import Store

    clock = Clock()
    if others:
        from gen_store import SPAN_SECONDS, START, write_store

        # The facts are entries like the others: written at moments spread over the same two
        # years, then indexed with them in file order, so that neither their age nor their
        # place in the index singles them out.
        write_store(others, root)
        moments = random.Random(0).sample(range(SPAN_SECONDS), len(facts))
        clock = Clock(START)
    else:
        Store.init(root / ".memsite")
    memory = Memory.open(str(root / ".memsite"), now=clock)
    ids: dict[str, str] = {}
    for number, fact in enumerate(facts):
        if others:
            clock.moment = START + timedelta(seconds=moments[number], milliseconds=500)
        answer = memory.add(
            fact["content"],
            fact["category"],
            tags=fact.get("tags") or [],
            key=fact.get("key"),
            allow_secret=True,
        )
        ids[answer["id"]] = fact["id"]
    if others:
        memory.index().close()
        shutil.rmtree(root / ".memsite" / "cache")
        clock.moment = START + timedelta(seconds=SPAN_SECONDS)

    def search(question: str, mode: str) -> list[str]:
        fresh = Memory.open(str(root / ".memsite"), now=clock)
        if mode == "context":  # the facts a 300-token `context --task` holds, task's first
            report = fresh.context_report(budget=TASK_BUDGET, task=question)
            return [ids.get(i, "?") for i in report["task"] + report["included"]]
        hits = fresh.search(question, limit=5, mode=mode)
        return [ids.get(hit["id"], "?") for hit in hits]

    return search


def fts5_system(
    facts: list[dict[str, Any]], others: list[dict[str, Any]]
) -> Callable[[str], list[str]]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(id UNINDEXED, text, tokenize='porter unicode61')")
    db.executemany(
        "INSERT INTO f(id, text) VALUES (?, ?)",
        [
            (f["id"], " ".join([f["content"], *(f.get("tags") or []), f.get("key") or ""]))
            for f in [*facts, *({**o, "id": "?"} for o in _current(others))]
        ],
    )

    def search(question: str) -> list[str]:
        words = re.findall(r"\w+", question.lower())
        if not words:
            return []
        quoted = ['"' + w.replace('"', '""') + '"' for w in words]
        for joiner in (" AND ", " OR "):
            rows = db.execute(
                "SELECT id FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 5", (joiner.join(quoted),)
            ).fetchall()
            if rows:
                return [r[0] for r in rows]
        return []

    return search


def measure(
    search: Callable[[str], list[str]], questions: list[dict[str, Any]], within: int = 3
) -> dict[str, dict[str, float]]:
    """recall@3 (the answer in the first ``within``) and MRR@5 of ``search``."""
    kinds: dict[str, list[tuple[int, float]]] = {}
    for q in questions:
        found = search(q["question"])
        rank = found.index(q["answer"]) + 1 if q["answer"] in found else 0
        hit3 = int(0 < rank <= within)
        reciprocal = 1 / rank if 0 < rank <= 5 else 0.0
        half = f"half:{q['half']}"
        kinds_of = [q["set"], f"{q['set']}/{q['kind']}"]
        if q["set"] != "fresh":  # reported apart: "all" and the halves are the tuned sets'
            kinds_of += ["all", half, f"{half}/{q['set']}", f"{half}/{q['kind']}"]
        for kind in kinds_of:
            kinds.setdefault(kind, []).append((hit3, reciprocal))
    return {
        kind: {
            "questions": len(rows),
            "recall@3": round(sum(r[0] for r in rows) / len(rows), 3),
            "mrr@5": round(sum(r[1] for r in rows) / len(rows), 3),
        }
        for kind, rows in sorted(kinds.items())
    }


def _in_mode(store: Callable[[str, str], list[str]], mode: str, question: str) -> list[str]:
    return store(question, mode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--misses", action="store_true", help="list questions memsite misses")
    parser.add_argument(
        "--distractors", type=int, default=0, metavar="N", help="generated entries to add first"
    )
    parser.add_argument(
        "--half", choices=("tune", "test"), help="with --misses: only this half's questions"
    )
    parser.add_argument(
        "--modes", default="exact", help="memsite's search modes, comma-separated (exact)"
    )
    args = parser.parse_args()
    facts, questions = load()
    others = distractors(args.distractors)
    with tempfile.TemporaryDirectory() as tmp:
        modes = args.modes.split(",")
        store = memsite_system(facts, Path(tmp), others)
        results = {
            f"memsite-{mode}": measure(
                functools.partial(_in_mode, store, mode),
                questions,
                within=sys.maxsize if mode == "context" else 3,
            )
            for mode in modes
        }
        results["fts5"] = measure(fts5_system(facts, others), questions)
        if args.misses:
            for q in questions:
                if args.half and q["half"] != args.half:
                    continue
                found = store(q["question"], modes[-1])
                if q["answer"] not in found[:3]:
                    print(f"{q['kind']:<10} {q['question']}  -> want {q['answer']}, got {found}")
    if args.json:
        counts = {"facts": len(facts), "distractors": len(others), "questions": len(questions)}
        print(json.dumps({**counts, **results}, indent=2))
        return
    print(f"{len(facts)} facts, {len(others)} distractors, {len(questions)} questions")
    print(f"{'system':<16} {'questions':<22} {'n':>4} {'recall@3':>9} {'mrr@5':>7}")
    for system, kinds in results.items():
        for kind, figures in kinds.items():
            print(
                f"{system:<16} {kind:<22} {figures['questions']:>4} "
                f"{figures['recall@3']:>9.3f} {figures['mrr@5']:>7.3f}"
            )


if __name__ == "__main__":
    main()
