"""Which Host and Origin headers memsite's HTTP servers answer: their defence against DNS
rebinding. Pure.

A page on an attacker's domain whose name is then re-pointed at 127.0.0.1 (DNS rebinding)
reaches a local server as a same-origin page of that domain: the browser lets it read the
answers. Its requests still name the attacker's domain in Host, and a page of another site
sends its own Origin. So a server answers only a Host that names it (the bind address, the
loopback names for a loopback bind, with its port) and an Origin, when there is one, of that
same set. On a wildcard bind (0.0.0.0) every IP literal names the server too: rebinding needs
a domain name, and a client on another machine reaches the server by an address.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
DEFAULT_PORT = 80  # what a Host without a port means for http://
# host[:port] or [v6]:port, as browsers send it: lower-case letters, digits, dots and hyphens.
_HOST = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::(?P<port>[0-9]{1,5}))?")


@dataclass(frozen=True)
class Served:
    """The names a server answers to: ``names`` at ``port`` (lower case, IPv6 unbracketed),
    and every IP literal too when ``any_address`` (a wildcard bind)."""

    port: int
    names: frozenset[str]
    any_address: bool = False


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """Is the bind address ``host`` reachable from this machine only?"""
    name = host.strip().lower().removeprefix("[").removesuffix("]")
    if name == "localhost":
        return True
    address = _address(name)
    return address is not None and address.is_loopback


def served(bind: str, port: int, hostname: str = "") -> Served:
    """What a server bound to ``bind``:``port`` answers to. ``hostname``: this machine's name
    (a rebinding page cannot own it), accepted unless the bind is loopback-only."""
    name = bind.strip().lower().removeprefix("[").removesuffix("]")
    mine = {hostname.lower()} if hostname else set()
    if name in WILDCARDS:
        return Served(port, LOOPBACK_NAMES | mine, any_address=True)
    if is_loopback(name):
        return Served(port, LOOPBACK_NAMES | {name})
    return Served(port, frozenset({name} | mine))


def split_host(value: str) -> tuple[str, int] | None:
    """A Host header value as (name, port): lower case, IPv6 without brackets, the port 80 when
    none is given; None when it is no plain host[:port]."""
    if not value.isascii():  # lower() would make some letters ASCII (the Kelvin sign a "k")
        return None
    match = _HOST.fullmatch(value.strip().lower())
    if match is None:
        return None
    v6 = match.group("v6")
    if v6 is not None and not isinstance(_address(v6), ipaddress.IPv6Address):
        return None
    port = int(match.group("port")) if match.group("port") else DEFAULT_PORT
    return (v6 if v6 is not None else match.group("name")), port


def host_allowed(value: str | None, serving: Served) -> bool:
    """Does the Host header ``value`` name the server? A missing one does not."""
    parts = split_host(value) if value is not None else None
    if parts is None:
        return False
    name, port = parts
    if port != serving.port:
        return False
    return name in serving.names or (serving.any_address and _address(name) is not None)


def origin_allowed(value: str | None, serving: Served) -> bool:
    """Is the Origin header ``value`` the server's own? No Origin (not a browser, or a
    same-origin GET) is; ``null`` (a sandboxed or file page) and every other site are not."""
    if value is None:
        return True
    text = value.strip().lower()
    if not text.startswith("http://"):
        return False
    return host_allowed(text.removeprefix("http://"), serving)


def one_value(values: Sequence[str] | None) -> str | None:
    """A header's value from all its values: None when absent; a repeated one becomes a value
    no check accepts (which of two Hosts would the server be named by?)."""
    if not values:
        return None
    return values[0] if len(values) == 1 else "\x00"
