"""`memsite serve` under rough use: browsers that leave mid-answer, Ctrl-C in the middle of a
rebuild, a wildcard address. Deadlines are generous (a busy CI machine), never tight."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.e2e.conftest import free_port
from tests.portal.conftest import copy_demo

pytestmark = pytest.mark.slow


def start(store: Path, *args: str) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    env = clean_env()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memsite",
            "--store",
            str(store),
            "serve",
            "--port",
            str(port),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as answer:
                if answer.status == 200:
                    return proc, port
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                out, err = proc.communicate(timeout=10)
                raise AssertionError(f"serve did not start: {out}\n{err}") from None
            time.sleep(0.2)


def add(store: Path, text: str) -> None:
    env = clean_env()
    done = subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store), "add", text, "-c", "operations"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr


def stop(proc: subprocess.Popen[str]) -> tuple[str, str, float]:
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    return out, err, time.monotonic() - started


def test_browsers_leaving_mid_answer_print_nothing(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    proc, port = start(store)
    try:
        for path in ("/livereload/1", "/search/meta.json", "/timeline/"):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                sock.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                )
            # closed with a reset: the answer (or the long poll's, after the rebuild) hits it
        add(store, "Rebuilds answer the waiting live-reload polls")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/timeline/", timeout=5) as page:
                if b"waiting live-reload polls" in page.read():
                    break
            time.sleep(0.2)
    finally:
        out, err, _ = stop(proc)
    assert proc.returncode == 0 and "Stopped." in out
    assert err == "", err


def test_ctrl_c_during_a_rebuild_stops_cleanly(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    proc, _ = start(store)
    for n in range(5):
        add(store, f"Entry {n} keeps the server rebuilding")
    out, err, seconds = stop(proc)
    assert proc.returncode == 0, err
    assert "Stopped." in out and err == "", err
    assert seconds < 20  # generous for a busy machine; benchmarks/bench_serve.py measures it


def test_a_wildcard_address_warns_and_shows_the_real_address(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    proc, port = start(store, "--host", "0.0.0.0")
    out, err, _ = stop(proc)
    assert f"Serving http://0.0.0.0:{port}/" in out
    assert err.startswith("Warning: --host 0.0.0.0 serves the portal to every machine")
    assert err.count("\n") == 1
