"""What anchors cost: `compact` after one new entry, `context` and `reconcile` on a store with
anchored facts, against the same store without anchors.

Two copies of one generated store (``gen_store.py``, same seed) are made; in the second,
``--anchored`` facts are tied to ``--files`` generated source files of the project (half to a
span of lines, half to the whole file). Each command runs ``--runs`` times in alternation; the
script prints medians, the ratio of anchored to plain, and `python -c pass` as the baseline.
Issue 11's target: `compact` on a 10k store with 2,000 anchored facts at most 20% over plain.

Run: ``python benchmarks/bench_anchors.py [--entries 10000] [--anchored 2000] [--files 200]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_core import MEMSITE, timed
from gen_store import generate

from memsite.core.anchors import make_anchor


def source_text(number: int) -> str:
    lines = [f"# module {number}", "", "def handler(event):"]
    lines += [f"    step_{i} = event.get('k{i}', {i})" for i in range(40)]
    return "\n".join([*lines, "    return event", ""])


def anchor_store(store: Path, anchored: int, files: int) -> None:
    """Tie ``anchored`` facts of ``store`` to ``files`` source files next to it."""
    project = store.parent
    texts = {}
    for number in range(files):
        path = project / "src" / f"module_{number}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        texts[number] = source_text(number)
        path.write_text(texts[number])
    names = sorted(p for p in (store / "entries").glob("*.json"))
    step = max(1, len(names) // anchored)
    for count, path in enumerate(names[::step][:anchored]):
        number = count % files
        data = texts[number].encode()
        lines = (4 + count % 30, 6 + count % 30) if count % 2 else None
        anchor = make_anchor(f"src/module_{number}.py", data, lines)
        obj = json.loads(path.read_text())
        obj["anchors"] = [anchor.as_dict()]
        path.write_text(json.dumps(obj, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10000)
    parser.add_argument("--anchored", type=int, default=2000)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plain = generate(args.entries, Path(tmp) / "plain", seed=1)
        anchored = generate(args.entries, Path(tmp) / "anchored", seed=1)
        anchor_store(anchored, args.anchored, args.files)
        stores = {"plain": plain, "anchored": anchored}
        for store in stores.values():
            timed([*MEMSITE, "--store", str(store), "compact", "--quiet"])
        samples: dict[str, list[float]] = {"python -c pass": []}
        for i in range(args.runs):
            samples["python -c pass"].append(timed([sys.executable, "-c", "pass"])[0])
            for name, store in stores.items():
                base = [*MEMSITE, "--store", str(store)]
                fact = f"Anchor benchmark fact {i}-{time.time_ns()} about the queue workers"
                timed([*base, "add", fact, "-c", "operations"])
                for command in ("compact", "context", "reconcile"):
                    key = f"{command} ({name})"
                    argv = [*base, command, *(["--quiet"] if command == "compact" else [])]
                    samples.setdefault(key, []).append(timed(argv)[0])
        baseline = statistics.median(samples["python -c pass"])
        print(
            f"{args.entries} entries, {args.anchored} anchored to {args.files} files, "
            f"{args.runs} runs (medians; ratio to python -c pass)"
        )
        for name, values in samples.items():
            median = statistics.median(values)
            print(f"  {name:<22} {median * 1000:8.1f} ms  {median / baseline:5.1f}x")
        for command in ("compact", "context"):
            extra = statistics.median(samples[f"{command} (anchored)"]) / statistics.median(
                samples[f"{command} (plain)"]
            )
            print(f"  {command}: anchored / plain = {extra:.2f} ({(extra - 1) * 100:+.0f}%)")


if __name__ == "__main__":
    main()
