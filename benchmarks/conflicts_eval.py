"""Recall, false positives and catches of the possible-conflict rule (``memsite.core.conflicts``).

1. Labelled pairs (``eval/conflict_pairs.jsonl``): facts about one subject, each pair marked
   conflicting (RS256 / HS256, Postgres 15 / 16, npm / pnpm, main / master, port 3000 / 5173,
   a timeout of 30 s / 10 s…) or not (two facts about one subject that both hold). Recall on
   the conflicting pairs, false positives on the others, for the pairs the rule was worked
   out on (``dev``) and for pairs written afterwards and measured once (``holdout``).
2. False positives: the rule over the 430 facts of the search evaluation set (65 public
   repositories; each category compared within itself) and over the demo store's active facts.
   Every pair it reports is printed; facts of different repositories never contradict each
   other, so each such pair is a false positive.
3. Catches: for every evaluation fact holding a number, a copy with the number changed; for
   every fact, a copy with its meaning negated ("Do not ...", or "not"/"never" removed). Each
   copy is checked against its original.

Run: ``python benchmarks/conflicts_eval.py [--verbose]`` (``--verbose`` lists the labelled
pairs the rule gets wrong).
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

from memsite.core import conflicts
from memsite.core.text import normalize
from memsite.memory import Memory

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent / "examples" / "demo" / ".memsite"
PAIRS = HERE / "eval" / "conflict_pairs.jsonl"
NEGATION = re.compile(r"\b(not|never|no|don't)\b ?", re.IGNORECASE)
RULE: ModuleType = conflicts  # the rule measured (another version of the module may be set)


def eval_facts() -> list[dict[str, str]]:
    facts = []
    for path in sorted((HERE / "eval").glob("part_*.jsonl")):
        for line in path.read_text().splitlines():
            obj = json.loads(line)
            if obj.get("type") == "fact":
                facts.append(obj)
    return facts


def labelled_pairs() -> list[dict[str, Any]]:
    return [json.loads(line) for line in PAIRS.read_text().splitlines() if line.strip()]


def pairs_in(items: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """(category, id, text) items -> reported pairs (id a, id b, why)."""
    by_category: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for category, item_id, text in items:
        by_category[category].append((item_id, text))
    found = []
    for members in by_category.values():
        claims = [RULE.assertion_of(i, normalize(t)) for i, t in members]
        found += [(c.a, c.b, c.why) for c in RULE.possible_conflicts(claims)]
    return found


def flagged(a: str, b: str) -> bool:
    claims = [RULE.assertion_of("a", normalize(a)), RULE.assertion_of("b", normalize(b))]
    return bool(RULE.possible_conflicts(claims))


def labelled(verbose: bool) -> dict[str, tuple[int, int, int, int]]:
    """Per set: (conflicting pairs caught, conflicting pairs, others flagged, others)."""
    scores: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for pair in labelled_pairs():
        score = scores[pair.get("set", "dev")]
        hit = flagged(pair["a"], pair["b"])
        if pair["conflict"]:
            score[0] += hit
            score[1] += 1
        else:
            score[2] += hit
            score[3] += 1
        if verbose and hit != pair["conflict"]:
            what = "missed" if pair["conflict"] else "false positive"
            print(f"  {what}: {pair['a']!r}\n  {' ' * len(what)}  {pair['b']!r}")
    return {name: (s[0], s[1], s[2], s[3]) for name, s in sorted(scores.items())}


def main(argv: list[str]) -> int:
    verbose = "--verbose" in argv
    scores = labelled(verbose)
    for name, (caught, conflicting, wrong, others) in scores.items():
        print(
            f"labelled pairs ({name}): recall {caught} of {conflicting} conflicting pairs "
            f"({caught / conflicting:.0%}), {wrong} false positives in {others} that both hold"
        )
    total = [sum(s[i] for s in scores.values()) for i in range(4)]
    print(
        f"labelled pairs (all): recall {total[0]} of {total[1]} ({total[0] / total[1]:.0%}), "
        f"{total[2]} false positives in {total[3]}"
    )
    facts = eval_facts()
    texts = {f["id"]: f for f in facts}
    found = pairs_in([(f["category"], f["id"], f["content"]) for f in facts])
    print(f"evaluation set: {len(facts)} facts, {len(found)} pairs reported")
    for a, b, why in found:
        print(f"  {why}: [{texts[a]['source']}] {texts[a]['content'][:70]!r}")
        print(f"  {' ' * len(why)}  [{texts[b]['source']}] {texts[b]['content'][:70]!r}")
    memory = Memory.open(str(DEMO))
    active = memory.list_entries(limit=None)
    demo = pairs_in([(e["category"], e["id"], e["content"]) for e in active])
    print(f"demo store: {len(active)} active facts, {len(demo)} pairs reported")
    numbers = caught = 0
    for fact in facts:
        match = re.search(r"\b\d+\b", fact["content"])
        if match:
            numbers += 1
            text = fact["content"]
            changed = text[: match.start()] + str(int(match.group()) + 1) + text[match.end() :]
            caught += flagged(text, changed)
    negated = 0
    for fact in facts:
        text = fact["content"]
        if NEGATION.search(text):
            other = NEGATION.sub("", text, count=1)
        else:
            other = "Do not " + text[0].lower() + text[1:]
        negated += flagged(text, other)
    print(f"a number changed: {caught} of {numbers} caught")
    print(f"the meaning negated: {negated} of {len(facts)} caught")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
