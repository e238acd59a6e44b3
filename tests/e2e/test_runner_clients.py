"""The runners' own CLIs accept what `memsite agents install` writes: Claude Code, Codex and
Gemini CLI (pinned npm releases) list the project's memsite server as connected or enabled, and
load memsite's session-start hooks. Offline: no login, no API key.

CI's `.ci/run` installs the three packages and exports MEMSITE_RUNNER_CLIS (their `.bin`
folder); without it these tests skip and say why. Each runs in a temporary HOME, where the
project is marked trusted the way each runner records trust.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import clean_env

TIMEOUT = 180  # generous: a busy machine starts three Node programs and memsite servers


def cli(name: str) -> str:
    folder = os.environ.get("MEMSITE_RUNNER_CLIS", "")
    if not folder:
        pytest.skip(f"{name} CLI not installed: set MEMSITE_RUNNER_CLIS (.ci/run does)")
    path = Path(folder) / name
    if not path.is_file():
        pytest.skip(f"{path} does not exist")
    return str(path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository with a store and every runner wired by `memsite agents install`."""
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for args in (["init"], ["add", "Use pnpm, never npm", "-c", "conventions"]):
        subprocess.run(
            [sys.executable, "-m", "memsite", *args], cwd=root, check=True, env=env_for(tmp_path)
        )
    subprocess.run(
        [sys.executable, "-m", "memsite", "agents", "install"],
        cwd=root,
        check=True,
        capture_output=True,
        env=env_for(tmp_path),
    )
    return root


def env_for(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    scratch = tmp_path / "tmp"
    home.mkdir(exist_ok=True)
    scratch.mkdir(exist_ok=True)
    bin_dir = str(Path(sys.executable).parent)  # where `memsite` is installed
    return {
        **clean_env(),
        "HOME": str(home),
        "TMPDIR": str(scratch),
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "NO_COLOR": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def test_claude_code_lists_memsite_connected(project: Path, tmp_path: Path) -> None:
    claude = cli("claude")
    env = env_for(tmp_path)
    settings = Path(env["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    done = run([claude, "mcp", "list"], project, env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("memsite:")]
    assert lines and "Connected" in lines[0] and "Failed" not in lines[0], done.stdout + done.stderr


def test_claude_code_runs_the_session_start_hook(project: Path, tmp_path: Path) -> None:
    claude = cli("claude")
    done = run(
        [
            claude,
            "-p",
            "hi",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
        ],
        project,
        env_for(tmp_path),
    )  # not logged in: it stops after the session started, hooks run
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    responses = [
        e
        for e in events
        if e.get("subtype") == "hook_response" and e.get("hook_event") == "SessionStart"
    ]
    assert responses, done.stdout[-3000:] + done.stderr[-2000:]
    assert all(r.get("outcome") == "success" for r in responses), responses
    assert any("Use pnpm, never npm" in json.dumps(r) for r in responses), responses


def test_codex_lists_memsite_enabled(project: Path, tmp_path: Path) -> None:
    codex = cli("codex")
    env = env_for(tmp_path)
    config = Path(env["HOME"]) / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    done = run([codex, "mcp", "list", "--json"], project, env)
    assert done.returncode == 0, done.stderr
    start = done.stdout.index("[")
    servers = {s["name"]: s for s in json.loads(done.stdout[start:])}
    assert servers["memsite"]["enabled"] is True
    assert servers["memsite"]["transport"]["command"] == "memsite"


def test_gemini_lists_memsite_connected_and_accepts_the_hooks(
    project: Path, tmp_path: Path
) -> None:
    gemini = cli("gemini")
    env = {**env_for(tmp_path), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    done = run([gemini, "mcp", "list"], project, env)
    output = done.stdout + done.stderr
    assert "Invalid configuration" not in output, output  # settings (hooks too) are validated
    lines = [line for line in output.splitlines() if "memsite:" in line]
    assert lines and "Connected" in lines[0] and "Disconnected" not in lines[0], output
