"""Shared fixtures: a fresh store per test and a runner that goes through `memsite`'s main()."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import settings

from memsite.cli.main import main
from memsite.core.entry import format_created
from memsite.core.validate import build_entry
from memsite.storage.layout import Store

# The suite's generated examples are the same on every run (a landing must not depend on luck);
# `HYPOTHESIS_PROFILE=explore pytest` draws new ones, as every session should now and then.
settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


Invoke = Callable[..., Result]


@pytest.fixture
def store_root(tmp_path: Path) -> Path:
    root, _ = Store.init(tmp_path / ".memsite")
    return root.root


@pytest.fixture
def runner(store_root: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """Run `memsite ARGS` in-process against the test's store; returns exit code and output."""
    monkeypatch.chdir(store_root.parent)
    monkeypatch.delenv("MEMSITE_STORE", raising=False)
    monkeypatch.delenv("MEMSITE_AGENT", raising=False)
    monkeypatch.delenv("MEMSITE_SESSION", raising=False)

    def invoke(
        *args: str, input: str | None = None, env: Mapping[str, str] | None = None
    ) -> Result:
        cli_runner = CliRunner()
        with cli_runner.isolation(input=input, env=dict(env or {})) as streams:
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            out, err = streams[0].getvalue(), streams[1].getvalue()
        return Result(code, out.decode(), err.decode())

    return invoke


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (failing the test if it fails); its output, stripped."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def clean_env() -> dict[str, str]:
    """This process's environment without MEMSITE_* (for memsite subprocesses of a test)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("MEMSITE_")}


def write_raw(store_root: Path, obj: Mapping[str, Any], name: str | None = None) -> Path:
    """Plant an entry file as another tool or branch might have written it."""
    name = name or f"{obj['created'][:19].replace(':', '-')}Z-{str(obj['id'])[:8]}.json"
    path = store_root / "entries" / name
    path.write_text(json.dumps(obj, indent=2), encoding="utf-8")
    return path


class Clock:
    """A controllable clock for the service layer."""

    def __init__(self, start: datetime | None = None) -> None:
        self.moment = start or datetime(2026, 3, 7, 14, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment

    def tick(self, **delta: float) -> datetime:
        self.moment += timedelta(**delta) if delta else timedelta(seconds=1)
        return self.moment


def make_entry(
    content: str,
    category: str = "conventions",
    created: datetime | str = "2026-03-07T14:30:00.000Z",
    **fields: Any,
) -> dict[str, Any]:
    """An entry object as memsite would write it (ids and times are the caller's)."""
    moment = created if isinstance(created, datetime) else None
    obj = build_entry(
        content=content,
        category=category,
        categories=[category],
        created=moment or datetime(2000, 1, 1, tzinfo=UTC),
        entry_id=fields.pop("id", None),
        **fields,
    )
    if moment is None:
        obj["created"] = created
    else:
        obj["created"] = format_created(moment)
    return obj


@pytest.fixture
def clock() -> Iterator[Clock]:
    yield Clock()
