"""A store holding hostile files, end to end: every command ends without a traceback, still
shows the good entries, writes nothing outside the store and modifies no entry file."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.cli.main import main
from memsite.storage.layout import Store
from tests.conftest import Result, make_entry, write_raw
from tests.core.test_untrusted import FIELDS, PATH_TRICKS

GOOD_ID = "9000d000-0000-4000-8000-000000000001"
READ_ONLY = [
    ["list", "--json"],
    ["list", "--all"],
    ["search", "pnpm", "--json"],
    ["search", "pnpm", "--all", "--daily"],
    ["read", GOOD_ID[:8], "--json"],
    ["review", "--json"],
    ["status", "--json"],
]
WRITING = [["compact", "--json"], ["context"], ["context", "--format", "claude-hook"]]


def invoke(store: Path, *args: str) -> Result:
    """`memsite --store STORE ARGS` in-process; anything but SystemExit fails the test."""
    runner = CliRunner()
    with runner.isolation() as streams:
        try:
            main(["--store", str(store), *args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = streams[0].getvalue(), streams[1].getvalue()
    return Result(code, out.decode(), err.decode())


def tree(root: Path, skip: Path | None = None) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and (skip is None or skip not in p.parents)
    }


@contextmanager
def project() -> Iterator[Path]:
    """A git project with instruction files of its own and a store holding one good fact."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "CLAUDE.md").write_text("# Mine\n")
        (root / "AGENTS.md").write_text("# Mine too\n")
        store, _ = Store.init(root / ".memsite")
        write_raw(store.root, make_entry("Always use pnpm", id=GOOD_ID))
        yield store.root


def run_everything(store: Path) -> None:
    """Every reading and writing command: no traceback, the good fact still shown."""
    for args in READ_ONLY + WRITING:
        result = invoke(store, *args)
        assert result.exit_code == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
        if args[0] in ("list", "search", "read", "context"):
            assert "Always use pnpm" in result.stdout, args


def check_confined(store: Path, outside: dict[str, bytes], entries: dict[str, bytes]) -> None:
    root = store.parent
    assert tree(root, skip=store) == outside  # nothing written outside the store
    assert tree(store / "entries") == entries  # no entry file modified or deleted
    views = sorted(p.name for p in (store / "compacted").iterdir())
    assert views == ["architecture.md", "conventions.md", "decisions.md", "operations.md"]
    allowed = {"cache", "compacted", "config.json", "daily", "entries", ".gitignore", "index.md"}
    allowed |= {"site", ".gitattributes"}
    assert {p.name for p in store.iterdir()} <= allowed


def test_path_tricks_in_names_write_nothing_outside_the_store() -> None:
    with project() as store:
        root = store.parent
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        n = 0
        for field in ("category", "key", "tags"):
            for trick in PATH_TRICKS:
                if trick in ("", "Conventions"):
                    continue
                n += 1
                obj = make_entry(f"trick {n} via {field}", id=f"7000d000-0000-4000-8000-{n:012d}")
                obj[field] = [trick] if field == "tags" else trick
                write_raw(store, obj, name=f"trick-{n}.json")
        outside, entries = tree(root, skip=store), tree(store / "entries")
        run_everything(store)
        assert invoke(store, "build", "--site-dir", str(store / "site")).exit_code == 0
        findings = json.loads(invoke(store, "review", "--json").stdout)["findings"]
        invalid = [f for f in findings if f["kind"] == "invalid_file"]
        assert len(invalid) == n and all("not a valid name" in f["message"] for f in invalid)
        assert invoke(store, "init", "--git-hook").exit_code == 0
        outside = tree(root, skip=store)  # the hooks are in .git/hooks now
        for hook in ("post-merge", "post-checkout", "post-rewrite"):
            subprocess.run(["sh", f".git/hooks/{hook}"], cwd=root, check=True)
        from memsite.mcp.server import build_server
        from memsite.memory import Memory

        server = build_server(Memory.open(str(store)))  # `memsite mcp` compacts at start-up

        async def read_index() -> Any:
            from mcp.client import Client

            async with Client(server) as client:
                return await client.read_resource("memsite://index")

        assert "Always use pnpm" in str(anyio.run(read_index))
        site = sorted(p.name for p in (store / "site" / "categories").iterdir())
        assert site == ["architecture", "conventions", "decisions", "operations"]
        check_confined(store, outside, entries)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=10,
)
hostile_files = st.one_of(
    st.binary(max_size=300),
    st.builds(
        lambda field, value: json.dumps(
            {**make_entry("Hostile but maybe valid", id=GOOD_ID.replace("9", "8", 1)), field: value}
        ).encode(),
        st.sampled_from((*FIELDS, "x-unknown")),
        json_values,
    ),
)


@pytest.mark.slow
@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(files=st.lists(hostile_files, min_size=1, max_size=3))
def test_any_entry_files_leave_every_command_working(files: list[bytes]) -> None:
    with project() as store:
        for number, data in enumerate(files):
            (store / "entries" / f"2026-01-01T00-00-0{number}Z-hostile{number}.json").write_bytes(
                data
            )
        outside, entries = tree(store.parent, skip=store), tree(store / "entries")
        run_everything(store)
        check_confined(store, outside, entries)
