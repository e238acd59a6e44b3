"""`memsite mcp --transport http`: streamable HTTP on a loopback port, driven by the SDK client."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import Client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the server exited early"
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def test_streamable_http_transport(store_root: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "MEMSITE_STORE"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memsite",
            "--store",
            str(store_root),
            "mcp",
            "--transport",
            "http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        wait_for_port(port, proc)

        async def main() -> tuple[set[str], str]:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=30) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                result = await client.call_tool(
                    "memory_write", {"content": "HTTP works too.", "category": "operations"}
                )
                assert result.structured_content is not None
                return tools, result.structured_content["status"]

        tools, status = anyio.run(main)
        assert "memory_write" in tools and status == "written"
        assert len(list((store_root / "entries").glob("*.json"))) == 1
    finally:
        proc.terminate()
        proc.wait(timeout=30)
