"""The Host and Origin rule of memsite's HTTP servers (DNS rebinding), value by value."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.hosts import (
    host_allowed,
    is_loopback,
    one_value,
    origin_allowed,
    served,
    split_host,
)

LOCAL = served("127.0.0.1", 8000, "mybox")
ANY = served("0.0.0.0", 8000, "MyBox")
LAN = served("192.168.1.5", 8000, "mybox")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_loopback_binds(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_split_host_reads_what_browsers_send() -> None:
    assert split_host("LocalHost:8000") == ("localhost", 8000)
    assert split_host("[::1]:8000") == ("::1", 8000)
    assert split_host("example.com") == ("example.com", 80)
    for bad in ("", "::1:8000", "[zz::1]:80", "a b:80", "a:80:80", "a:", "host/path", "u@h:80"):
        assert split_host(bad) is None, bad


@pytest.mark.parametrize(
    ("value", "local", "anywhere", "lan"),
    [
        ("127.0.0.1:8000", True, True, False),
        ("localhost:8000", True, True, False),
        ("[::1]:8000", True, True, False),
        ("mybox:8000", False, True, True),  # the machine's name: not on a loopback-only bind
        ("192.168.1.5:8000", False, True, True),
        ("10.0.0.9:8000", False, True, False),  # any address reaches a wildcard bind
        ("evil.example:8000", False, False, False),  # a rebinding page's
        ("localhost.evil.example:8000", False, False, False),
        ("127.0.0.1:8001", False, False, False),  # another port: another server
        ("127.0.0.1", False, False, False),  # port 80
        (None, False, False, False),
        ("\x00", False, False, False),
    ],
)
def test_host_allowed(value: str | None, local: bool, anywhere: bool, lan: bool) -> None:
    assert host_allowed(value, LOCAL) is local
    assert host_allowed(value, ANY) is anywhere
    assert host_allowed(value, LAN) is lan


def test_origin_allowed_only_for_the_servers_own_origin() -> None:
    assert origin_allowed(None, LOCAL)  # not a browser, or a same-origin GET
    assert origin_allowed("http://localhost:8000", LOCAL)
    assert origin_allowed("http://127.0.0.1:8000", LOCAL)
    for bad in (
        "null",
        "",
        "https://127.0.0.1:8000",
        "http://evil.example:8000",
        "http://127.0.0.1:8001",
        "http://127.0.0.1:8000/path",
        "http://user@127.0.0.1:8000",
    ):
        assert not origin_allowed(bad, LOCAL), bad


def test_one_value_refuses_a_repeated_header() -> None:
    assert one_value(None) is None and one_value([]) is None
    assert one_value(["localhost:8000"]) == "localhost:8000"
    assert not host_allowed(one_value(["localhost:8000", "evil.example:8000"]), LOCAL)
    assert not origin_allowed(one_value(["http://localhost:8000"] * 2), LOCAL)


@given(st.text(max_size=60))
def test_any_header_value_is_judged_without_error(value: str) -> None:
    for serving in (LOCAL, ANY, LAN):
        assert isinstance(host_allowed(value, serving), bool)
        assert isinstance(origin_allowed(value, serving), bool)
    parts = split_host(value)
    if parts is not None:
        name, port = parts
        assert name == name.lower() and 0 <= port <= 99999


@given(st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z0-9-]{1,10}){0,3}", fullmatch=True))
def test_no_domain_name_reaches_a_loopback_server_but_localhost(name: str) -> None:
    """What a rebinding page can put in Host: a name; only localhost passes."""
    assert host_allowed(f"{name}:8000", LOCAL) is (name == "localhost")
