"""False positives and catches of the suspicious-directive rules (``memsite.core.directives``).

1. False positives: every rule over the 430 facts of the search evaluation set
   (``benchmarks/eval/part_*.jsonl``, 65 public repositories) and over the demo store's facts.
   None of them is an attack, so each fact flagged is a false positive; each is printed.
2. Catches: the attack strings of ``benchmarks/eval/directive_attacks.jsonl``, each with the
   rule that must catch it, as a Markdown table of the rule and pattern that did.
3. Hidden characters: the same facts scanned by ``memsite.core.hidden`` (none expected).

Run: ``python benchmarks/directives_eval.py``; exit 1 when a fact is flagged or an attack passes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memsite.core.directives import suspicion
from memsite.core.hidden import has_hidden

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent / "examples" / "demo" / ".memsite" / "entries"
ATTACKS = HERE / "eval" / "directive_attacks.jsonl"


def eval_facts() -> list[tuple[str, str]]:
    """(where, content) of every fact of the evaluation set."""
    facts = []
    for path in sorted((HERE / "eval").glob("part_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            if obj.get("type") == "fact":
                facts.append((f"{path.name}:{obj['id']}", obj["content"]))
    return facts


def demo_facts() -> list[tuple[str, str]]:
    """(where, content) of every entry file of the demo store (records hold no content)."""
    facts = []
    for path in sorted(DEMO.glob("*.json")):
        obj = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(obj.get("content"), str):
            facts.append((f"demo:{path.name}", obj["content"]))
    return facts


def attacks() -> list[tuple[str, str]]:
    """(text, the rule that must catch it) of every attack string."""
    rows = [json.loads(line) for line in ATTACKS.read_text(encoding="utf-8").splitlines()]
    return [(row["text"], row["rule"]) for row in rows]


def _cell(text: str) -> str:
    """A table cell's code span; escapes show the hidden and full-width characters."""
    shown = text.encode("ascii", "backslashreplace").decode("ascii").replace("|", "\\|")
    return f"`` {shown} ``"


def main() -> int:
    failures = 0
    for name, facts in (("evaluation facts", eval_facts()), ("demo store facts", demo_facts())):
        flagged = [(where, found) for where, text in facts if (found := suspicion(text))]
        hidden = [where for where, text in facts if has_hidden(text)]
        print(f"{name}: {len(facts)} scanned, {len(flagged)} flagged, {len(hidden)} hidden")
        for where, found in flagged:
            print(f"  FALSE POSITIVE {where}: {found.rule} ({found.reason}): {found.excerpt!r}")
        failures += len(flagged) + len(hidden)
    rows = attacks()
    caught = 0
    print("\n| # | attack string | expected | caught by | what it found |\n|---|---|---|---|---|")
    for number, (text, rule) in enumerate(rows, 1):
        found = suspicion(text)
        ok = found is not None and found.rule == rule
        caught += ok
        by = found.rule if found is not None else "**missed**"
        why = found.reason if found is not None else ""
        print(f"| {number} | {_cell(text)} | {rule} | {by} | {why} |")
    print(f"\nattack strings: {len(rows)}, caught by the expected rule: {caught}")
    failures += len(rows) - caught
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
