"""`memsite serve` for real: a new entry appears in the open page within 2 s; Ctrl-C stops it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import clean_env
from tests.e2e.conftest import PageWatch, free_port
from tests.portal.conftest import copy_demo

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def memsite(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env()
    return subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str, subprocess.Popen[str]]]:
    store = copy_demo(tmp_path)
    port = free_port()
    env = clean_env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memsite", "--store", str(store), "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                out, err = proc.communicate(timeout=5)
                raise AssertionError(f"serve did not start: {out}\n{err}") from None
            time.sleep(0.2)
    try:
        yield store, url, proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)


def test_new_entry_shows_in_the_open_page_within_two_seconds(
    served: tuple[Path, str, subprocess.Popen[str]], browser: Any
) -> None:
    store, url, _ = served
    page = browser.new_page()
    watch = PageWatch(page)
    page.goto(url + "categories/decisions/")
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # the live-reload poll is connected
    marker = "Zeppelin deliveries are out of scope for checkout"
    assert marker not in page.content()
    added = memsite(store, "add", marker, "-c", "decisions", "--json")
    written = time.monotonic()
    assert added.returncode == 0, added.stderr
    page.wait_for_function(
        "text => document.body && document.body.innerText.includes(text)", arg=marker, timeout=5000
    )
    elapsed = time.monotonic() - written
    assert elapsed < 2.0, f"the page showed the new entry after {elapsed:.2f} s"
    assert watch.errors == []
    page.close()


def test_entry_page_and_search_follow(served: tuple[Path, str, subprocess.Popen[str]]) -> None:
    store, url, _ = served
    added = memsite(
        store, "add", "Blimp shipping uses a separate carrier", "-c", "operations", "--json"
    )
    new_id = added.stdout.split('"id": "', 1)[1].split('"', 1)[0]
    deadline = time.monotonic() + 10
    body = b""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}entries/{new_id}/", timeout=2) as answer:
                body = answer.read()
                break
        except OSError:
            time.sleep(0.1)
    assert b"Blimp shipping" in body and b"/livereload/" in body
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the search index follows in the background
        try:  # its id-prefix file may not exist yet (404)
            with urllib.request.urlopen(f"{url}search/i/{new_id[:2]}.json", timeout=2) as answer:
                if new_id.encode() in answer.read():
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError("the search data never listed the new entry")


def test_ctrl_c_stops_cleanly(served: tuple[Path, str, subprocess.Popen[str]]) -> None:
    _, _, proc = served
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert "Stopped." in out
    assert "Traceback" not in err and err.strip() == ""
