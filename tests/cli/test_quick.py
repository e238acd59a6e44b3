"""The commands agents run most, without click (``cli.quick``): it takes exactly the command
lines of `context` (the session-start hook's too) and of a plain `add`, and gives what click
gives, bytes, exit code and the file written, in every case (a store, no store, a hook
payload, standard input, a damaged cache, an error)."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
        ["context"],
        ["--store", "s", "context"],
        ["add", "a fact", "-c", "operations"],
        ["add", "-c", "operations", "a fact"],
        ["add", "a fact", "--category", "operations", "--json"],
        ["add", "--json", "--category=operations", "-"],
        ["add", "", "-c", ""],
        ["--store=s", "add", "a fact", "-c", "operations"],
        ["compact"],
        ["compact", "-q"],
        ["--store", "s", "compact", "--quiet"],
        ["compact", "--full", "--json", "--quiet"],
    ],
)
def test_the_command_line_is_taken(args: list[str]) -> None:
    assert plan(args) is not None


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["context", "--json"],
        ["context", "--budget", "100"],
        ["context", "--format", "claude-hook", "--task", "x"],
        ["add", "a fact"],
        ["add", "-c", "operations"],
        ["add", "a fact", "more", "-c", "operations"],
        ["add", "a fact", "-c", "operations", "-c", "conventions"],
        ["add", "a fact", "-c=operations"],
        ["add", "a fact", "-coperations"],
        ["add", "a fact", "-c"],
        ["add", "a fact", "-c", "-x"],
        ["add", "-x", "-c", "operations"],
        ["add", "--", "a fact", "-c", "operations"],
        ["add", "a fact", "-c", "operations", "--tags", "a"],
        ["add", "a fact", "-c", "operations", "--json", "--json"],
        ["add", "a fact", "-c", "operations", "--json=1"],
        ["add", "a fact", "-c", "operations", "--help"],
        ["add", "a fact\udcff", "-c", "operations"],
        ["amend", "abcd", "a fact"],
        ["compact", "-q", "--quiet"],
        ["compact", "-qq"],
        ["compact", "--help"],
        ["compact", "now"],
        ["compact", "--json=yes"],
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


def both(
    args: list[str],
    cwd: Path,
    store: Path,
    stdin: str | None,
    env: Mapping[str, str] | None = None,
) -> list[tuple[object, ...]]:
    """(exit code, stdout, stderr, entry files written, views) of `memsite ARGS` (the quick
    path when ``plan`` takes them) and of click's ``main`` with the same arguments, each on
    the store as it was. A written entry's id, time and file name are replaced by
    placeholders, in the output too: they are new at each write."""
    pristine = store.parent / "pristine"
    if store.exists():
        shutil.copytree(store, pristine, symlinks=True)
    found = []
    for program in ([sys.executable, "-m", "memsite"], [sys.executable, "-c", CLICK]):
        if pristine.exists():
            shutil.rmtree(store)
            shutil.copytree(pristine, store, symlinks=True)
        before = set(store.glob("entries/*.json"))
        done = subprocess.run(
            [*program, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            text=True,
            env={**clean_env(), **(env or {})},
            check=False,
        )
        output, written = [done.stdout, done.stderr], []
        for path in sorted(set(store.glob("entries/*.json")) - before):
            entry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            for value, mark in ((path.name, "NAME"), (entry.pop("id"), "ID")):
                output = [o.replace(value, mark).replace(value[:8], mark) for o in output]
            created = entry.pop("created")
            output = [o.replace(created, "CREATED") for o in output]
            written.append(entry)
        views = {
            p.name: p.read_bytes()
            for p in [store / "index.md", *store.glob("compacted/*")]
            if p.is_file()
        }
        found.append((done.returncode, *output, written, views))
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
    assert quick[0] == 0 and "ArgoCD" in str(quick[1]) and not quick[3]
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


@pytest.mark.parametrize("stdin", [None, ""])
def test_plain_context_is_the_same_as_clicks(facts: Path, stdin: str | None) -> None:
    quick, clicked = both(["context"], facts.parent, facts, stdin)
    assert quick == clicked
    assert quick[0] == 0 and "- Deploys go through ArgoCD" in str(quick[1])
    assert "Rotate the staging keys" in str(quick[1])  # another session's, carried over


@pytest.mark.parametrize(
    ("args", "stdin", "env", "code"),
    [
        (["add", "Builds run on Debian bookworm", "-c", "operations"], None, {}, 0),
        (["add", "-c", "conventions", "--json", "Tabs never spaces"], "", {}, 0),
        (["add", "-", "--category=operations"], "Caches are keyed to the version\n", {}, 0),
        (["add", "-", "-c", "operations", "--json"], "Two lines\r\n", {}, 0),
        (["add", "Deploys go through ArgoCD", "-c", "operations"], None, {}, 0),  # a duplicate
        (["add", "Deploys go through ArgoCD", "-c", "operations", "--json"], None, {}, 0),
        (["add", "Releases are tagged by CI", "-c", "operations"], None, {"MEMSITE_AGENT": "a"}, 0),
        (["add", "Releases are tagged by CI", "-c", "operations"], None, {"MEMSITE_AGENT": ""}, 0),
        (["add", "Pages deploy from main", "-c", "nowhere"], None, {}, 1),
        (["add", "Pages deploy from main", "-c", "nowhere", "--json"], None, {}, 1),
        (["add", "", "-c", "operations"], None, {}, 1),
        (["add", "-", "-c", "operations"], "", {}, 1),
        (["add", "Keys look like AKIAIOSFODNN7EXAMPLE", "-c", "operations"], None, {}, 1),
    ],
)
def test_add_is_the_same_as_clicks(
    facts: Path, args: list[str], stdin: str | None, env: dict[str, str], code: int
) -> None:
    quick, clicked = both(args, facts.parent, facts, stdin, env)
    assert quick == clicked
    assert quick[0] == code, quick
    written = quick[3]
    assert isinstance(written, list)
    if code or "ArgoCD" in args[1]:
        assert not written
    else:
        assert len(written) == 1 and written[0]["content"] in " ".join([*args, str(stdin)])
        assert written[0].get("agent") == (env.get("MEMSITE_AGENT") or None)
    if "--json" in args:
        json.loads(str(quick[1]))


def test_add_passes_what_click_passes(store_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every option the quick `add` leaves out reaches the memory as click's default."""
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def add(self: Memory, *args: Any, **options: Any) -> dict[str, Any]:
        calls.append((args, options))
        return {
            "status": "written",
            "id": "0" * 32,
            "path": "p",
            "near_duplicates": [],
            "warnings": [],
        }

    from memsite.cli.main import main

    monkeypatch.setattr(Memory, "add", add)
    monkeypatch.setenv("MEMSITE_AGENT", "someone")
    args = ["--store", str(store_root), "add", "a fact", "-c", "operations"]
    command = plan(args)
    assert command is not None
    for run in (command, lambda: main(args)):
        with pytest.raises(SystemExit):
            run()
    assert len(calls) == 2 and calls[0] == calls[1]
    assert calls[0][1]["agent"] == "someone"


@pytest.mark.parametrize(
    "args",
    [
        ["context", "--format", "claude-hook"],
        ["context"],
        ["add", "Builds run on Debian bookworm", "-c", "operations"],
        ["compact", "--quiet"],
    ],
)
def test_the_quick_commands_import_neither_click_nor_dataclasses(
    facts: Path, args: list[str]
) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memsite", *args],
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
    # nor dataclasses (with inspect, ~9 ms): the classes every command meets are plain ones
    assert not {"dataclasses", "inspect"} & modules
    # nor the runners' install targets (tomllib and all): the quick commands' pieces are light
    assert not {"memsite.runners.claude", "memsite.runners.targets", "tomllib"} & modules
    if args[0] == "context":
        assert "subprocess" not in modules  # no git is run with fresh views


@pytest.mark.parametrize(
    ("args", "fresh"),
    [
        (["compact"], False),
        (["compact"], True),
        (["compact", "--quiet"], False),
        (["compact", "-q", "--json"], False),
        (["compact", "--full"], True),
        (["compact", "--json"], True),
    ],
)
def test_compact_is_the_same_as_clicks(facts: Path, args: list[str], fresh: bool) -> None:
    """After a new fact, and with nothing new; an unreadable entry file counted either way."""
    if fresh:
        Memory.open(str(facts), {}, facts.parent, Clock()).compact()
    (facts / "entries" / "2026-01-01T00-00-00Z-0badf11e.json").write_text("{", encoding="utf-8")
    quick, clicked = both(["--store", str(facts), *args], facts.parent, facts, None)
    assert quick == clicked
    assert quick[0] == 0 and not quick[3]
    views = quick[4]
    assert isinstance(views, dict) and b"ArgoCD" in views["operations.md"]
    if "--json" in args:
        assert json.loads(str(quick[1]))["invalid"] == 1
    elif "--quiet" in args or "-q" in args:
        assert quick[1] == ""
    else:
        assert "1 unreadable" in str(quick[1]) and ("up to date" in str(quick[1])) is fresh


def test_compact_without_a_store_is_the_same_as_clicks(tmp_path: Path) -> None:
    quick, clicked = both(["compact", "--quiet"], tmp_path, tmp_path / "none", None)
    assert quick == clicked
    assert quick[0] == 1 and str(quick[2]).startswith("Error: no memory store found")


SPY = """
import sys
from memsite import counting
from memsite.counting import CountingChild

start, count, close = CountingChild.start, CountingChild.count, CountingChild.close
seen = []

def spied_start():
    seen.append(("fork", "memsite.memory" in sys.modules))
    return start()

def spied_count(self, lines):
    seen.append(("count", len(lines)))
    return count(self, lines)

def spied_close(self):
    reaping = bool(self._pid)
    close(self)
    if reaping and self.status is not None:
        seen.append(("ended", "killed" if self.status & 0x7F else "exited"))

CountingChild.start = staticmethod(spied_start)
CountingChild.count = spied_count
CountingChild.close = spied_close
sys.argv = ["memsite", *sys.argv[1:]]
try:
    from memsite.cli import run
    run()
finally:
    print(seen, file=sys.stderr)
"""


def test_compact_forks_its_counting_child_before_it_imports_the_memory(facts: Path) -> None:
    """The git hooks' compact starts the child that loads the tokenizers first of all, so
    that it loads them while memsite is imported and opened; the read model takes that
    child (none is forked again) and, with nothing to count, kills it."""

    def spied(*args: str) -> list[tuple[str, object]]:
        done = subprocess.run(
            [sys.executable, "-c", SPY, "--store", str(facts), "compact", *args],
            cwd=facts.parent,
            capture_output=True,
            text=True,
            env=clean_env(),
            check=False,
        )
        assert done.returncode == 0, done.stderr
        seen: list[tuple[str, object]] = ast.literal_eval(done.stderr.strip().splitlines()[-1])
        return seen

    assert spied("--quiet") == [("fork", False), ("count", 2), ("ended", "exited")]
    assert spied("--quiet") == [("fork", False), ("ended", "killed")]  # nothing to count
    assert spied("--full") == []  # a full compaction counts here, in halves
