"""What a user, an agent or another branch can throw at the command line: every mistake is one
line and a non-zero exit, nothing reaches the terminal raw, nothing echoes a secret."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Invoke, clean_env, make_entry, write_raw

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq9Yx3Kz0dW\n-----END RSA PRIVATE KEY-----"
TITLE = "\x1b]0;owned\x07"  # sets the terminal's title
CSI = "\x9b31m"  # C1 control sequence introducer


def memsite(
    store: Path, *args: str | bytes, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    env = clean_env()
    return subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store), *args],
        input=stdin,
        capture_output=True,
        check=False,
        env=env,
    )


def one_line_error(done: subprocess.CompletedProcess[bytes]) -> str:
    err = done.stderr.decode()
    assert done.returncode != 0
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("Error: "), err
    return err


@pytest.mark.parametrize(
    "args",
    [["add", "-", "-c", "conventions"], ["log", "-"]],
)
def test_invalid_utf8_on_stdin_is_one_line(store_root: Path, args: list[str]) -> None:
    err = one_line_error(memsite(store_root, *args, stdin=b"x \xff"))
    assert "standard input is not valid UTF-8 (byte 2)" in err
    assert list((store_root / "entries").glob("*.json")) == []


@pytest.mark.parametrize(
    "args",
    [
        [b"add", b"x \xff", b"-c", b"conventions"],
        [b"add", b"fine", b"-c", b"conventions", b"--reason", b"r \xfe"],
        [b"log", b"x \xff"],
        [b"search", b"\xff"],
    ],
)
def test_invalid_utf8_in_arguments_is_one_line(store_root: Path, args: list[bytes]) -> None:
    err = one_line_error(memsite(store_root, *args))
    assert "is not valid UTF-8" in err
    assert list((store_root / "entries").glob("*.json")) == []


def test_terminal_escapes_never_reach_the_terminal(runner: Invoke, store_root: Path) -> None:
    obj = make_entry(f"Deploy with make{TITLE} release{CSI} now", category="operations")
    write_raw(store_root, obj)
    for args in (
        ["list"],
        ["search", "release"],
        ["read", obj["id"][:8]],
        ["context"],
        ["list", "--all"],
    ):
        result = runner(*args)
        assert result.exit_code == 0, result.stderr
        shown = result.stdout + result.stderr
        assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown, args
        assert "release" in shown
    for args in (["list", "--json"], ["read", obj["id"][:8], "--json"]):
        text = runner(*args).stdout
        assert "\x1b" not in text and "\x9b" not in text and "\\u009b" in text
        assert "Deploy with make" in text
    data = runner("read", obj["id"][:8], "--json").json()
    assert data["content"] == obj["content"]  # JSON keeps the text exactly, escaped


def test_escapes_in_file_names_are_stripped_from_review(runner: Invoke, store_root: Path) -> None:
    (store_root / "entries" / f"evil{TITLE}.json").write_text("{}")
    result = runner("review")
    assert "\x1b" not in result.stdout and "evil]0;owned.json" in result.stdout


def test_a_pasted_private_key_is_never_echoed_by_a_usage_error(store_root: Path) -> None:
    for args in ([PEM], ["add", PEM], ["add", "x", "-c", "conventions", PEM], ["list", PEM]):
        done = memsite(store_root, *args)
        shown = (done.stdout + done.stderr).decode()
        assert done.returncode == 2, shown
        assert "MIIEpAIBAAKCAQEA7bq9Yx3Kz0dW" not in shown and "PRIVATE KEY" not in shown, args
        assert "[redacted: private-key]" in shown


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "fine", "-c", "conventions", "--reason", "r" * 1001], "reason is 1001 characters"),
        (["search", "q" * 1001], "over 1000 characters"),
        (["log", "x" * 4001], "over the limit of 4000"),
        (["add", "x" * 4001, "-c", "conventions"], "over the limit of 4000"),
        (["add", "fine", "-c", "conventions", "--agent", "a" * 65], "invalid agent"),
        (["add", "fine", "-c", "conventions", "--key", "k" * 65], "invalid key"),
        (["context", "--budget", "10000000"], "10000000"),
    ],
)
def test_every_free_text_field_is_bounded(runner: Invoke, args: list[str], message: str) -> None:
    result = runner(*args)
    assert result.exit_code in (1, 2) and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_context_on_a_store_it_cannot_write_prints_the_index_and_warns(
    runner: Invoke, store_root: Path
) -> None:
    runner("add", "Build with make release", "-c", "operations")
    (store_root / "index.md").mkdir()  # the view cannot be saved (as on a read-only checkout)
    result = runner("context")
    assert result.exit_code == 0
    assert "Build with make release" in result.stdout
    assert result.stderr.startswith("Warning: cannot write")
    assert "built in memory and not saved" in result.stderr


def test_a_disabled_memory_injects_nothing(runner: Invoke, store_root: Path) -> None:
    runner("add", "Build with make release", "-c", "operations")
    (store_root / "config.json").write_text(json.dumps({"memory": {"enabled": False}}))
    assert runner("context").stdout == ""
    assert runner("context", "--format", "claude-hook").stdout == ""
    stop = runner("agents", "hook", "stop", input='{"session_id": "s"}')
    assert stop.exit_code == 0 and stop.stdout == ""  # the Stop hook stays quiet too
    assert runner("list").exit_code == 0  # the memory itself stays readable


@pytest.mark.parametrize(
    "config",
    [
        '{"memory": {"dailyRetentionDays": 999999999}}',
        '{"memory": {"categories": {"ops": 1e308}}}',
        '{"memory": {"categories": {"ops": Infinity}}}',
        '{"memory": {"categories": {"ops": NaN}}}',
        '{"memory": {"dailyRetentionDays": ' + "9" * 5000 + "}}",
        '{"site": ' + "[" * 100_000 + "]" * 100_000 + "}",
    ],
    ids=["retention", "huge-weight", "infinity", "nan", "long-integer", "deep-nesting"],
)
def test_extreme_config_values_stop_every_command_with_one_line(
    store_root: Path, config: str
) -> None:
    (store_root / "config.json").write_text(config)
    for args in (["list"], ["context"], ["compact"], ["review"]):
        one_line_error(memsite(store_root, *args))


def test_secrets_in_unknown_keys_are_redacted_and_reported(
    runner: Invoke, store_root: Path
) -> None:
    token = "ghp_" + "A1b2C3d4E5" * 4
    obj = make_entry("Deploys go through the CI bot", category="operations")
    obj["x-tool"] = {"notes": [f"bot token {token}"], f"key {token}": 1}
    write_raw(store_root, obj)
    shown = [
        runner("read", obj["id"][:8], "--json").stdout,
        runner("list", "--json").stdout,
        runner("search", "deploys", "--json").stdout,
        runner("list", "--all", "--json").stdout,
    ]
    for text in shown:
        assert token not in text and "[redacted: github-token]" in text
    review = runner("review", "--json").json()["findings"]
    messages = " ".join(f["message"] for f in review if f["kind"] == "secret")
    assert "x-tool.notes holds" in messages and "a key in x-tool holds" in messages
    assert token not in json.dumps(review)


def test_allowed_secrets_are_listed_by_review(runner: Invoke, store_root: Path) -> None:
    key = "AKIAIOSFODNN7EXAMPLE"
    added = runner("add", f"AWS docs use {key} as an example", "-c", "operations", "--allow-secret")
    assert added.exit_code == 0, added.stderr
    findings = runner("review", "--json").json()["findings"]
    assert [f["kind"] for f in findings] == ["secret_allowed"]
    assert key not in findings[0]["message"] and "allow_secret" in findings[0]["message"]
