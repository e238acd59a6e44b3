"""The session-start hook's command without click (``cli.quick``): it takes exactly the hook's
command line and gives what click's `context --format` gives, bytes and exit code, in every
case (a store, no store, a hook payload, a damaged cache)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memsite.cli.quick import HOOK_FORMATS, plan
from memsite.memory import Memory
from tests.conftest import Clock, clean_env

CLICK = "import sys\nfrom memsite.cli.main import main\nmain(sys.argv[1:])\n"


@pytest.mark.parametrize(
    "args",
    [
        ["context", "--format", "claude-hook"],
        ["context", "--format=cursor-hook"],
        ["--store", "some/.memsite", "context", "--format", "codex-hook"],
        ["--store=some/.memsite", "context", "--format", "gemini-hook"],
    ],
)
def test_the_hooks_command_line_is_taken(args: list[str]) -> None:
    assert plan(args) is not None


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["context"],
        ["--help"],
        ["context", "--help"],
        ["context", "--format"],
        ["context", "--format", "text"],
        ["context", "--format", "CLAUDE-HOOK"],
        ["context", "--format", "claude-hook", "--json"],
        ["context", "--format", "claude-hook", "--session", "s1"],
        ["context", "--format", "claude-hook", "--format", "codex-hook"],
        ["context", "--format=claude-hook", "extra"],
        ["--store", "context", "--format", "claude-hook"],
        ["--store", "-x", "context", "--format", "claude-hook"],
        ["--store=", "context", "--format", "claude-hook"],
        ["--store", "a", "--store", "b", "context", "--format", "claude-hook"],
        ["prompt", "--format", "claude-hook"],
        ["context", "--format", "claude-hook\udcff"],
        ["--store", "st\udcffore", "context", "--format", "claude-hook"],
    ],
)
def test_anything_else_goes_to_click(args: list[str]) -> None:
    assert plan(args) is None


def both(args: list[str], cwd: Path, store: Path, stdin: str | None) -> list[tuple[object, ...]]:
    """(exit code, stdout, stderr) of `memsite ARGS` (the quick path when ``plan`` takes
    them) and of click's ``main`` with the same arguments, each on the store as it was."""
    pristine = store.parent / "pristine"
    if store.exists():
        shutil.copytree(store, pristine, symlinks=True)
    found = []
    for program in ([sys.executable, "-m", "memsite"], [sys.executable, "-c", CLICK]):
        if pristine.exists():
            shutil.rmtree(store)
            shutil.copytree(pristine, store, symlinks=True)
        done = subprocess.run(
            [*program, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            text=True,
            env=clean_env(),
            check=False,
        )
        found.append((done.returncode, done.stdout, done.stderr))
    shutil.rmtree(pristine, ignore_errors=True)
    return found


@pytest.fixture
def facts(store_root: Path) -> Path:
    memory = Memory.open(str(store_root), {}, store_root.parent)  # today: logs carry over
    memory.add("Deploys go through ArgoCD", "operations")
    memory.add("Use pnpm, never npm", "conventions")
    # The payload's session left this: carried over to any other session, not to its own.
    memory.log("Rotate the staging keys on Friday", session="abc-123", kind="task")
    return store_root


@pytest.mark.parametrize("fmt", HOOK_FORMATS)
@pytest.mark.parametrize(
    "stdin", [None, "", '{"session_id": "abc-123", "hook_event_name": "SessionStart"}', "[1,"]
)
def test_the_same_answer_as_click(facts: Path, fmt: str, stdin: str | None) -> None:
    args = ["context", "--format", fmt]
    quick, clicked = both(args, facts.parent, facts, stdin)
    assert quick == clicked
    assert quick[0] == 0 and "ArgoCD" in str(quick[1])
    json.loads(str(quick[1]))  # one JSON document, as the runner reads it
    own = stdin is not None and "abc-123" in stdin
    assert ("Rotate the staging keys" in str(quick[1])) is not own


def test_the_same_answer_with_store_and_a_damaged_cache(facts: Path, tmp_path: Path) -> None:
    Memory.open(str(facts), {}, facts.parent, Clock()).compact()
    (facts / "cache" / "index.sqlite3").write_bytes(b"not a database" * 100)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    args = ["--store", str(facts), "context", "--format", "claude-hook"]
    quick, clicked = both(args, elsewhere, facts, "")
    assert quick == clicked
    assert quick[0] == 0 and "rebuilding it" in str(quick[2]) and "ArgoCD" in str(quick[1])


def test_the_same_error_without_a_store(tmp_path: Path) -> None:
    args = ["context", "--format", "codex-hook"]
    quick, clicked = both(args, tmp_path, tmp_path / "none", "")
    assert quick == clicked
    assert quick[0] == 1 and str(quick[2]).startswith("Error: no memory store found")


def test_the_hooks_command_imports_no_click(facts: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memsite", "context", "--format", "claude-hook"],
        cwd=facts.parent,
        input="",
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "memsite.cli.quick" in modules and "memsite.memory" in modules
    assert not {m for m in modules if m.split(".")[0] == "click"}
    # nor the runners' install targets (tomllib and all): the hook's own pieces are light
    assert not {"memsite.runners.claude", "memsite.runners.targets", "tomllib"} & modules
    assert "subprocess" not in modules  # no git is run with fresh views
