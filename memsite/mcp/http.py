"""The gate in front of the MCP server's streamable HTTP app: Host, Origin, bearer token.

Every request must name the server in Host (else 421) and, when a browser sends an Origin,
come from the server's own origin (else 403): a DNS-rebinding page fails both
(memsite.core.hosts says why). A bind that other machines reach also needs
``Authorization: Bearer <token>`` (else 401): the token is drawn at start (or read from a file)
and shown only to whoever started the server. The Host/Origin rule is memsite's own, the one
`memsite serve` applies too: the SDK's TransportSecuritySettings match exact values or
``name:*`` patterns and cannot say "any IP literal", which a wildcard bind's clients need (the
SDK still adds its own loopback check on a 127.0.0.1/localhost/::1 bind; it agrees with this).
"""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from memsite.core.hosts import Served, host_allowed, one_value, origin_allowed


def bearer_ok(header: str | None, token: str) -> bool:
    """Does ``Authorization: Bearer <token>`` carry ``token`` (compared in constant time)?"""
    if header is None:
        return False
    scheme, _, given = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


class Gate:
    """ASGI middleware: refuses what `host_allowed`, `origin_allowed` or the token refuse."""

    def __init__(self, app: ASGIApp, serving: Served, token: str | None) -> None:
        self.app = app
        self.serving = serving
        self.token = token

    def refusal(self, headers: Headers) -> PlainTextResponse | None:
        if not host_allowed(one_value(headers.getlist("host")), self.serving):
            return PlainTextResponse("Host header names another server\n", status_code=421)
        if not origin_allowed(one_value(headers.getlist("origin")), self.serving):
            return PlainTextResponse("cross-origin requests are refused\n", status_code=403)
        if self.token is not None and not bearer_ok(headers.get("authorization"), self.token):
            return PlainTextResponse(
                "send Authorization: Bearer <token>: the token memsite mcp printed at start "
                "or the one in its --token-file\n",
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The app has HTTP routes only (a websocket finds none); lifespan events pass.
        if scope["type"] == "http":
            refused = self.refusal(Headers(scope=scope))
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)
