"""DNS rebinding and open binds against memsite's HTTP servers, each a real subprocess.

A rebinding page reaches 127.0.0.1 under its own domain name: its requests carry
``Host: evil.example:PORT`` (and a cross-site page's carry its Origin). `memsite serve` must
give it no page; `memsite mcp --transport http` must write nothing for it. A bind other
machines reach (0.0.0.0) warns and needs the bearer token printed at start or read from
``--token-file``. Waits are on conditions (a line printed, a port answering), with generous
deadlines for a busy machine.
"""

from __future__ import annotations

import http.client
import json
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import Client

from memsite.memory import Memory
from tests.conftest import clean_env
from tests.e2e.conftest import free_port

EVIL = "evil.example"
START_SECONDS = 90.0


class Lines:
    """A child's output stream read line by line on a thread, so a test waits with a deadline."""

    def __init__(self, stream: IO[str]) -> None:
        self.seen: list[str] = []
        self.ended = False
        self._queue: queue.Queue[str | None] = queue.Queue()
        self.stream = stream
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Once the child has exited: the reader has seen the end; the pipe is closed."""
        self.thread.join(timeout=30)
        self.stream.close()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)  # the stream ended: the child exited

    def until(self, prefix: str) -> str:
        """The first line from now that starts with ``prefix``; fails at the end or deadline."""
        deadline = time.monotonic() + START_SECONDS
        while True:
            line = self._queue.get(timeout=max(deadline - time.monotonic(), 0.1))
            assert line is not None, f"no line {prefix!r} in {self.seen}"
            self.seen.append(line)
            if line.startswith(prefix):
                return line

    def rest(self) -> list[str]:
        """Every line, once the child has exited."""
        while not self.ended:
            line = self._queue.get(timeout=START_SECONDS)
            if line is None:
                self.ended = True
            else:
                self.seen.append(line)
        return self.seen


@contextmanager
def running(store: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], Lines, Lines]]:
    """``memsite --store STORE ARGS`` until the block ends, then stopped (Ctrl-C) and reaped."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memsite", "--store", str(store), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    out, err = Lines(proc.stdout), Lines(proc.stderr)
    try:
        yield proc, out, err
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        out.close()
        err.close()


def request(
    port: int,
    path: str,
    host: str,
    *,
    method: str = "GET",
    body: Any = None,
    headers: dict[str, str] | None = None,
    connect: str = "127.0.0.1",
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request to ``connect``:``port`` with exactly the Host header given."""
    conn = http.client.HTTPConnection(connect, port, timeout=60)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Host": host, **(headers or {})})
        answer = conn.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        conn.close()


def wait_listening(port: int, proc: subprocess.Popen[str], connect: str = "127.0.0.1") -> None:
    """Until something answers HTTP on the port (the MCP server prints nothing when ready)."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        assert proc.poll() is None, "the server exited early"
        try:
            request(port, "/", f"{connect}:{port}", connect=connect)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing answers on {connect}:{port}") from None
            time.sleep(0.1)  # a poll's pause under the deadline, not a wait for an outcome


def entries(store: Path) -> list[Path]:
    return sorted((store / "entries").glob("*.json"))


# --- memsite serve ----------------------------------------------------------------------

SECRET_FACT = "Rebinding pages must never read this fact"


def _fresh_fact(store: Path, text: str) -> str:
    return str(Memory.open(str(store), {}, store.parent).add(text, "operations")["id"])


@pytest.mark.parametrize("bind", ["127.0.0.1", "0.0.0.0"])
def test_serve_gives_a_rebinding_page_nothing_and_still_live_reloads(
    store_root: Path, bind: str
) -> None:
    entry_id = _fresh_fact(store_root, SECRET_FACT)
    port = free_port()
    with running(store_root, "serve", "--host", bind, "--port", str(port)) as (_, out, _err):
        out.until("Serving http://")  # bound: early requests wait in the socket's backlog
        paths = ["/", "/index.md", "/llms.txt", f"/entries/{entry_id}.json", "/livereload/1"]
        for host in (f"{EVIL}:{port}", EVIL, f"127.0.0.1:{port + 1}", f"localhost.{EVIL}:{port}"):
            for path in paths:
                status, _, body = request(port, path, host)
                assert status in (403, 421), (host, path, status)
                assert SECRET_FACT.encode() not in body and entry_id.encode() not in body
        cross = {"Origin": f"http://{EVIL}:{port}"}
        status, _, body = request(port, "/index.md", f"127.0.0.1:{port}", headers=cross)
        assert status == 403 and SECRET_FACT.encode() not in body
        for own in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
            status, _, body = request(port, f"/entries/{entry_id}.json", own)
            assert status == 200 and SECRET_FACT.encode() in body, own
        if bind == "0.0.0.0":  # other machines reach it by an address: no rebinding there
            assert request(port, "/", f"192.0.2.7:{port}")[0] == 200
        # Live reload goes through the same check: the long poll answers after a rebuild.
        new_id = _fresh_fact(store_root, "Live reload still follows new facts")
        deadline = time.monotonic() + START_SECONDS
        while request(port, "/livereload/1", f"localhost:{port}")[2] == b"1":
            assert time.monotonic() < deadline, "no rebuild after a new entry"
        status, _, body = request(port, f"/entries/{new_id}.json", f"localhost:{port}")
        assert status == 200 and b"Live reload still follows" in body


# --- MCP over plain HTTP JSON-RPC: what a rebinding page's script would send --------------

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
HANDSHAKE = "2025-06-18"


def _rpc_answer(body: bytes) -> Any:
    """The JSON-RPC answer in a JSON or an event-stream body."""
    text = body.decode()
    for line in text.splitlines():
        if line.startswith("data:"):
            return json.loads(line.removeprefix("data:"))
    return json.loads(text)


def mcp_write(
    port: int,
    host: str,
    content: str,
    *,
    connect: str = "127.0.0.1",
    origin: str | None = None,
    token: str | None = None,
) -> int:
    """Open a session and call memory_write as a script would; the first refusal's status,
    or 200 once the fact is written."""
    sent = dict(MCP_HEADERS)
    if origin is not None:
        sent["Origin"] = origin
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    client = {"name": "rebinder", "version": "1"}
    init = {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": client}
    steps: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "memory_write",
                "arguments": {"content": content, "category": "operations"},
            },
        },
    ]
    answer: Any = None
    for step in steps:
        status, got, body = request(
            port, "/mcp", host, method="POST", body=step, headers=sent, connect=connect
        )
        if status not in (200, 202):
            return status
        if step.get("method") == "initialize":
            version = _rpc_answer(body)["result"]["protocolVersion"]
            sent["mcp-session-id"] = got["mcp-session-id"]
            sent["mcp-protocol-version"] = version
        elif "id" in step:
            answer = _rpc_answer(body)
    assert answer["result"]["structuredContent"]["status"] == "written", answer
    return 200


def mcp(store: Path, port: int, *args: str) -> Any:
    return running(store, "mcp", "--transport", "http", "--port", str(port), *args)


@pytest.mark.parametrize("here", ["127.0.0.1", "127.0.0.2"])
def test_a_loopback_mcp_server_refuses_a_rebinding_page_and_writes_nothing(
    store_root: Path, here: str
) -> None:
    # 127.0.0.2 is loopback too (Linux routes 127/8 to lo); the SDK's own check covers only
    # 127.0.0.1, localhost and ::1 binds, memsite's covers them all.
    port = free_port()
    own = f"{here}:{port}"
    with mcp(store_root, port, "--host", here) as (proc, _, err):
        wait_listening(port, proc, here)
        for host in (f"{EVIL}:{port}", f"{here}:{port + 1}", EVIL):
            assert mcp_write(port, host, "Rebinding wrote this", connect=here) == 421, host
        for origin in (f"http://{EVIL}:{port}", "null", f"https://{own}"):
            status = mcp_write(
                port, own, "A cross-site page wrote this", connect=here, origin=origin
            )
            assert status == 403, origin
        assert entries(store_root) == []
        assert mcp_write(port, own, "A same-origin page may write", connect=here) == 200
        assert (
            mcp_write(port, own, "So may our own page", connect=here, origin=f"http://{own}") == 200
        )

        async def main() -> str:
            async with Client(f"http://{own}/mcp", read_timeout_seconds=30) as client:
                written = await client.call_tool(
                    "memory_write", {"content": "The SDK client works.", "category": "operations"}
                )
                assert written.structured_content is not None
                return str(written.structured_content["status"])

        assert anyio.run(main) == "written"
    assert len(entries(store_root)) == 3
    assert not [line for line in err.rest() if "Warning" in line or "Bearer token" in line]


def test_a_wildcard_bind_warns_and_needs_the_token_it_printed(store_root: Path) -> None:
    port = free_port()
    own = f"127.0.0.1:{port}"
    with mcp(store_root, port, "--host", "0.0.0.0") as (proc, _, err):
        wait_listening(port, proc)
        warning = err.until("Warning: ")
        assert warning.startswith("Warning: --host 0.0.0.0 serves the memory to every machine")
        token = err.until("Bearer token").rsplit(" ", 1)[1]
        assert len(token) >= 40
        status, headers, _ = request(port, "/mcp", own, method="POST", body={}, headers=MCP_HEADERS)
        assert status == 401 and headers["www-authenticate"] == "Bearer"
        assert mcp_write(port, own, "No token wrote this") == 401
        assert mcp_write(port, own, "A wrong token wrote this", token=token[:-1] + "x") == 401
        assert mcp_write(port, own, "A token and more wrote this", token=f"{token} x") == 401
        basic = {**MCP_HEADERS, "Authorization": f"Basic {token}"}
        assert request(port, "/mcp", own, method="POST", body={}, headers=basic)[0] == 401
        assert mcp_write(port, f"{EVIL}:{port}", "Rebinding wrote this", token=token) == 421
        assert entries(store_root) == []
        assert mcp_write(port, own, "The printed token works", token=token) == 200
        assert mcp_write(port, f"localhost:{port}", "By name too", token=token) == 200
    assert len(entries(store_root)) == 2
    lines = err.rest()
    assert sum(line.startswith("Warning") for line in lines) == 1
    assert sum(token in line for line in lines) == 1  # printed once, never echoed


def test_a_token_file_sets_the_token(store_root: Path, tmp_path: Path) -> None:
    token = "a-token-from-a-file-0123456789"
    path = tmp_path / "token"
    path.write_text(f"{token}\n", encoding="utf-8")
    port = free_port()
    own = f"127.0.0.1:{port}"
    with mcp(store_root, port, "--host", "0.0.0.0", "--token-file", str(path)) as (proc, _, err):
        wait_listening(port, proc)
        assert mcp_write(port, own, "No token wrote this") == 401
        assert mcp_write(port, own, "The file's token works", token=token) == 200
    assert len(entries(store_root)) == 1
    lines = err.rest()
    assert sum(line.startswith("Warning: --host 0.0.0.0") for line in lines) == 1
    assert not [line for line in lines if "Bearer token" in line or token in line]


@pytest.mark.parametrize("case", ["missing", "empty", "folder", "spaced"])
def test_a_bad_token_file_is_refused_in_one_line(
    store_root: Path, tmp_path: Path, case: str
) -> None:
    path = tmp_path / "token"
    if case == "empty":
        path.write_text(" \n\n", encoding="utf-8")
    elif case == "folder":
        path.mkdir()
    elif case == "spaced":
        path.write_text("two words\n", encoding="utf-8")
    args = ["mcp", "--transport", "http", "--port", str(free_port()), "--token-file", str(path)]
    done = subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store_root), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(),
        check=False,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "token file" in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_help_documents_the_token_and_the_checks() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memsite", "mcp", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(),
        check=False,
    )
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "--token-file PATH" in text and "Bearer" in text and "Origin" in text
