"""The CLI stays light: the hot commands never import the heavy libraries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("mkdocs", "material", "lunr", "mcp", "watchdog", "jinja2", "detect_secrets")


def imported_modules(args: list[str], cwd: Path) -> tuple[int, set[str]]:
    """Run `memsite ARGS` under -X importtime: its exit code and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memsite", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    modules = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            modules.add(line.rsplit("|", 1)[1].strip())
    assert modules, f"no -X importtime output: {done.stderr[-2000:]}"
    # the program started: through click, or through the quick path agents' commands take
    assert {"memsite.cli.main", "memsite.cli.quick"} & modules, done.stderr[-2000:]
    return done.returncode, modules


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["add", "Use pnpm, never npm", "-c", "conventions"],
        ["search", "pnpm"],
        ["list"],
        ["context"],
    ],
)
def test_hot_commands_import_no_heavy_module(store_root: Path, args: list[str]) -> None:
    code, modules = imported_modules(args, store_root.parent)
    assert code == 0
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == []


def loaded_after(args: list[str], cwd: Path) -> set[str]:
    """The modules loaded once `memsite ARGS` has run (the command group imports a command's
    module with importlib, which -X importtime does not report)."""
    script = (
        "import sys\nfrom memsite.cli.main import main\ntry:\n    main(sys.argv[1:])\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "print('\\n'.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def test_a_command_loads_no_other_command_module(store_root: Path) -> None:
    """`search` loads its own command module only, and a plain `add` neither the review rules
    nor the import/export formats."""
    cwd = store_root.parent
    modules = loaded_after(["search", "pnpm"], cwd)
    assert sorted(m for m in modules if m.startswith("memsite.cli.")) == [
        "memsite.cli.boundary",
        "memsite.cli.kit",
        "memsite.cli.main",
        "memsite.cli.recall",
    ]
    modules = loaded_after(["add", "Use pnpm, never npm", "-c", "conventions"], cwd)
    assert "memsite.cli.memory" in modules
    assert "memsite.core.review" not in modules and "memsite.core.transfer" not in modules
    assert "memsite.cli.upkeep" not in modules
    # A write never waits for the semantic model: facts are embedded by the next search.
    assert not {"numpy", "tokenizers", "wordllama"} & set(modules)


def test_search_by_words_loads_no_model(store_root: Path) -> None:
    """`search --mode exact` loads neither numpy nor the tokenizer, and neither does a hybrid
    search, whose query is encoded in plain Python (``core.bpe``, ``core.vectors``): numpy
    alone costs ~120 ms, more than the whole search."""
    cwd = store_root.parent
    subprocess.run(
        [sys.executable, "-m", "memsite", "add", "Use pnpm, never npm", "-c", "conventions"],
        cwd=cwd,
        check=True,
        capture_output=True,
    )
    subprocess.run(  # the first hybrid search embeds the fact (numpy, once)
        [sys.executable, "-m", "memsite", "search", "pnpm"],
        cwd=cwd,
        check=True,
        capture_output=True,
    )
    for mode in ("exact", "hybrid"):
        modules = loaded_after(["search", "package manager", "--mode", mode], cwd)
        assert "memsite.cli.recall" in modules
        assert not {"numpy", "tokenizers", "wordllama"} & set(modules), mode
    assert "memsite.core.bpe" in loaded_after(["search", "pnpm", "--mode", "hybrid"], cwd)


def test_context_with_fresh_views_loads_no_rules(store_root: Path) -> None:
    """Fresh views make `context` a stat, one index query and one file read: no rules."""
    cwd = store_root.parent
    subprocess.run(
        [sys.executable, "-m", "memsite", "add", "Use pnpm", "-c", "conventions"],
        cwd=cwd,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [sys.executable, "-m", "memsite", "compact", "-q"], cwd=cwd, check=True, capture_output=True
    )
    code, modules = imported_modules(["context"], cwd)
    assert code == 0
    rules = {"memsite.core.compaction", "memsite.core.budget", "memsite.core.stem"}
    assert rules & modules == set()
    # nor what the session name and the views' stamp once needed: ~8 ms at every start
    assert {"socket", "_hashlib", "multiprocessing"} & modules == set()


def test_the_program_leaves_its_objects_out_of_the_exit_collection(tmp_path: Path) -> None:
    """`memsite` and `python -m memsite` run ``cli.run``: the command, then ``gc.freeze()``, so
    the interpreter's exit does not walk every object the command made (~8 ms of a search)."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["memsite"] == "memsite.cli:run"
    assert "run()" in (root / "memsite" / "__main__.py").read_text()
    script = (
        "import gc, sys\nfrom memsite.cli import run\nsys.argv = ['memsite', '--version']\n"
        "try:\n    run()\nexcept SystemExit as exc:\n    print(exc.code, gc.get_freeze_count() > 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.split()[-2:] == ["0", "True"]
