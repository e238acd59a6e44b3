"""The one error boundary (``cli.boundary``), as the click commands and the session-start
hook's quick path both use it: one line per failure, the exit codes, no credential echoed."""

from __future__ import annotations

import io
import json
import sqlite3
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from memsite.cli.boundary import guarded, retried, text_argument
from memsite.errors import InvalidInputError, MemsiteError, SecretFoundError, StorageError
from memsite.memory import Memory


def ended(call: object, as_json: bool, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        guarded(call, as_json)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    code = exc.value.code
    return (code if isinstance(code, int) else 0), out, err


def raising(exc: BaseException) -> object:
    def call() -> NoReturn:
        raise exc

    return call


@pytest.mark.parametrize(
    ("exc", "code", "line"),
    [
        (StorageError("cannot write x"), 1, "Error: cannot write x\n"),
        (InvalidInputError("bad\x1b[31m input"), 1, "Error: bad[31m input\n"),
        (SecretFoundError("looks like a key"), 1, "Error: looks like a key; if it is a "),
        (KeyboardInterrupt(), 130, "Error: interrupted\n"),
    ],
)
def test_each_failure_is_one_line(
    exc: BaseException, code: int, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    got, out, err = ended(raising(exc), False, capsys)
    assert got == code and out == "" and err.startswith(line) and err.count("\n") == 1


def test_json_adds_the_error_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    got, out, err = ended(raising(MemsiteError("no store")), True, capsys)
    assert got == 1 and json.loads(out) == {"error": "no store"} and err == "Error: no store\n"


def test_a_pasted_credential_is_not_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    key = "AKIA" + "Z" * 16
    _, _, err = ended(raising(MemsiteError(f"unknown option {key}")), False, capsys)
    assert key not in err and "redacted" in err


def test_the_calls_code_is_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert ended(lambda: 3, False, capsys)[0] == 3
    assert ended(lambda: None, False, capsys)[0] == 0


def test_a_bug_is_not_swallowed() -> None:
    with pytest.raises(ZeroDivisionError):
        guarded(lambda: 1 / 0, False)


def test_retried_gives_up_on_anything_but_a_damaged_cache() -> None:
    calls: list[int] = []

    def attempt(opened: list[object]) -> int:
        calls.append(len(opened))
        raise ValueError("not from the cache")

    with pytest.raises(ValueError):
        retried(attempt)
    assert calls == [0]  # nothing opened: not tried again


def test_a_retried_command_reads_standard_input_once(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`add -` tried again on a cache damaged mid-command gets the text it first read: the
    stream is spent by then, and reading it again gave an empty fact."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Deploys use ArgoCD\n")))
    read: list[str] = []

    def attempt(opened: list[object]) -> None:
        opened.append(Memory.open(str(store_root)))
        read.append(text_argument("-", "content"))
        if len(read) == 1:
            raise sqlite3.DatabaseError("database disk image is malformed")

    retried(attempt)
    assert read == ["Deploys use ArgoCD", "Deploys use ArgoCD"]
    # the next command reads its own standard input
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Use pnpm\n")))
    assert retried(lambda opened: text_argument("-", "content")) == "Use pnpm"
