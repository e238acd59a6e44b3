"""False positives and catches of the possible-conflict rule (``memsite.core.conflicts``).

1. False positives: the rule over the 430 facts of the search evaluation set (65 public
   repositories; each category compared within itself) and over the demo store's active facts.
   Every pair it reports is printed; facts of different repositories never contradict each
   other, so each such pair is a false positive.
2. Catches: for every evaluation fact holding a number, a copy with the number changed; for
   every fact, a copy with its meaning negated ("Do not ...", or "not"/"never" removed). Each
   copy is checked against its original.

Run: ``python benchmarks/conflicts_eval.py``.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from memsite.core.conflicts import claim_of, possible_conflicts
from memsite.core.text import normalize
from memsite.memory import Memory

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent / "examples" / "demo" / ".memsite"
NEGATION = re.compile(r"\b(not|never|no|don't)\b ?", re.IGNORECASE)


def eval_facts() -> list[dict[str, str]]:
    facts = []
    for path in sorted((HERE / "eval").glob("part_*.jsonl")):
        for line in path.read_text().splitlines():
            obj = json.loads(line)
            if obj.get("type") == "fact":
                facts.append(obj)
    return facts


def pairs_in(items: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """(category, id, text) items -> reported pairs (id a, id b, why)."""
    by_category: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for category, item_id, text in items:
        by_category[category].append((item_id, text))
    found = []
    for members in by_category.values():
        claims = [claim_of(i, normalize(t)) for i, t in members]
        found += [(c.a, c.b, c.why) for c in possible_conflicts(claims)]
    return found


def flagged(a: str, b: str) -> bool:
    return bool(possible_conflicts([claim_of("a", normalize(a)), claim_of("b", normalize(b))]))


def main() -> int:
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
    sys.exit(main())
