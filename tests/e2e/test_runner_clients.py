"""The runners' own CLIs accept what `memsite agents install` writes: Claude Code, Codex and
Gemini CLI (pinned npm releases) list the project's memsite server as connected or enabled, and
load memsite's session-start hooks and, with --per-prompt, its prompt hooks. Offline: no login,
no API key (Gemini CLI's prompt is answered by a stand-in API on the loopback address).

CI's `.ci/run` installs the three packages and exports MEMSITE_RUNNER_CLIS (their `.bin`
folder); without it these tests skip and say why. Each runs in a temporary HOME, where the
project is marked trusted the way each runner records trust.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import clean_env

TIMEOUT = 180  # generous: a busy machine starts three Node programs and memsite servers
FACT = "Use pnpm, never npm"
PROMPT = "Should I install the dependencies with npm or with pnpm?"


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
    return wired(tmp_path)


@pytest.fixture
def per_prompt_project(tmp_path: Path) -> Path:
    """The same, wired by `memsite agents install --per-prompt`."""
    return wired(tmp_path, "--per-prompt")


def wired(tmp_path: Path, *install: str) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for args in (["init"], ["add", FACT, "-c", "conventions"]):
        subprocess.run(
            [sys.executable, "-m", "memsite", *args], cwd=root, check=True, env=env_for(tmp_path)
        )
    subprocess.run(
        [sys.executable, "-m", "memsite", "agents", "install", *install],
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


# --- prompt hooks (agents install --per-prompt) -----------------------------------------------


def test_claude_code_adds_the_prompt_hooks_facts_to_the_conversation(
    per_prompt_project: Path, tmp_path: Path
) -> None:
    claude = cli("claude")
    env = env_for(tmp_path)
    command = [claude, "-p", PROMPT, "--output-format", "stream-json", "--verbose"]
    done = run([*command, "--include-hook-events"], per_prompt_project, env)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    responses = [
        e
        for e in events
        if e.get("subtype") == "hook_response" and e.get("hook_event") == "UserPromptSubmit"
    ]
    assert responses, done.stdout[-3000:] + done.stderr[-2000:]
    assert all(r.get("outcome") == "success" for r in responses), responses
    # Claude Code took the answer as context for the prompt: the session's transcript holds it
    added = [
        content
        for path in (Path(env["HOME"]) / ".claude" / "projects").rglob("*.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
        for attachment in [json.loads(line).get("attachment") or {}]
        if attachment.get("type") == "hook_additional_context"
        and attachment.get("hookEvent") == "UserPromptSubmit"
        for content in attachment.get("content", [])
    ]
    assert any(FACT in text and "bear on this prompt" in text for text in added), added


def codex_hooks(codex: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """What Codex's app server (JSON-RPC on stdio) answers to `hooks/list` for ``root``.

    The server runs in a session of its own and the whole group is killed at the end: it
    starts a child of its own that keeps the output pipe open, and once its parent alone was
    killed, the reader never saw the end of the output and closing the pipe under it hung
    the suite (seen once in CI-like runs)."""
    requests = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "0"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(root)]}},
    ]
    lines: queue.Queue[str] = queue.Queue()
    server = subprocess.Popen(
        [codex, "app-server"],
        cwd=root,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert server.stdin is not None and server.stdout is not None
    output = server.stdout
    reader = threading.Thread(target=lambda: [lines.put(x) for x in output], daemon=True)
    reader.start()
    try:
        for request in requests:  # it answers only while its input stays open
            server.stdin.write(json.dumps({"jsonrpc": "2.0", **request}) + "\n")
        server.stdin.flush()
        deadline = time.monotonic() + TIMEOUT
        while True:
            answer = json.loads(lines.get(timeout=max(deadline - time.monotonic(), 0.1)))
            if answer.get("id") == 2:
                result: dict[str, Any] = answer["result"]
                return result
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)  # the server and whatever it started
        server.wait()
        server.stdin.close()
        reader.join(TIMEOUT)  # at the end of its output
        if not reader.is_alive():  # never closed under a reader still blocked in it
            output.close()


def test_codex_loads_the_prompt_hook(per_prompt_project: Path, tmp_path: Path) -> None:
    codex = cli("codex")
    env = env_for(tmp_path)
    config = Path(env["HOME"]) / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[projects."{per_prompt_project}"]\ntrust_level = "trusted"\n', "utf-8")
    (listed,) = codex_hooks(codex, per_prompt_project, env)["data"]
    assert listed["warnings"] == [] and listed["errors"] == [], listed
    hooks = {(h["eventName"], h.get("command")): h for h in listed["hooks"]}
    prompt = hooks[("userPromptSubmit", "memsite prompt --format codex-hook || exit 0")]
    assert prompt["source"] == "project" and prompt["enabled"] is True
    assert ("sessionStart", "memsite context --format codex-hook") in hooks


@pytest.fixture
def gemini_api() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A stand-in for the Gemini API on the loopback address: every request answers "ok"; the
    request bodies are kept, in order."""
    bodies: list[dict[str, Any]] = []

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            bodies.append({"path": self.path, **json.loads(self.rfile.read(size) or b"{}")})
            reply = {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": "ok"}]},
                        "finishReason": "STOP",
                        "index": 0,
                    }
                ],
                "usageMetadata": {"promptTokenCount": 1, "totalTokenCount": 2},
            }
            streamed = "alt=sse" in self.path
            data = f"data: {json.dumps(reply)}\r\n\r\n" if streamed else json.dumps(reply)
            self.send_response(200)
            self.send_header(
                "content-type", "text/event-stream" if streamed else "application/json"
            )
            self.send_header("content-length", str(len(data.encode())))
            self.end_headers()
            self.wfile.write(data.encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()


def test_gemini_sends_the_prompt_hooks_facts_to_the_model(
    per_prompt_project: Path, tmp_path: Path, gemini_api: tuple[str, list[dict[str, Any]]]
) -> None:
    gemini = cli("gemini")
    url, bodies = gemini_api
    env = {
        **env_for(tmp_path),
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GEMINI_API_KEY": "offline-test",  # sent to the stand-in only
        "GOOGLE_GEMINI_BASE_URL": url,
        "NO_PROXY": "127.0.0.1,localhost",
    }
    settings = Path(env["HOME"]) / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    user = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
    }
    settings.write_text(json.dumps(user), encoding="utf-8")
    # a model named on the command line: no routing requests before the prompt's own
    done = run([gemini, "-m", "gemini-2.5-flash", "-p", PROMPT], per_prompt_project, env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    sent = [
        part["text"]
        for body in bodies
        if "generatecontent" in body["path"].lower()
        for content in body.get("contents", [])
        for part in content.get("parts", [])
        if isinstance(part.get("text"), str)
    ]
    # BeforeAgent's context reaches the model after the prompt, in <hook_context>
    added = [t for t in sent if t.startswith("<hook_context>Project memory (memsite): recorded")]
    assert added and FACT in added[0], (sent[-3:], done.stderr[-2000:])
    assert any(t.endswith(PROMPT) for t in sent)
