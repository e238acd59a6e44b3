"""`memsite mcp`: the MCP server over stdio or streamable HTTP (the SDK is imported here only)."""

from __future__ import annotations

import secrets
from pathlib import Path

import click

from memsite.cli.kit import get_memory, out, warn
from memsite.core.hosts import is_loopback
from memsite.errors import InvalidInputError, StorageError
from memsite.mcp.catalog import TOOLS

TOKEN_BYTES = 32  # secrets.token_urlsafe: 43 characters, 256 bits


def read_token(path: str) -> str:
    """The bearer token in the file at ``path``: its text without surrounding whitespace."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        cause = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise StorageError(
            f"cannot read the token file {path}: {cause}; give a readable file to --token-file"
        ) from None
    token = text.strip()
    if not token:
        raise InvalidInputError(
            f"the token file {path} is empty: write the token on its first line"
        )
    if not (token.isascii() and token.isprintable()) or " " in token:
        raise InvalidInputError(
            f"the token file {path} must hold one token: printable ASCII, no spaces or line breaks"
        )
    return token


def http_token(host: str, token_file: str | None) -> str | None:
    """The token HTTP clients must send: the file's, else one drawn now (shown once) unless the
    bind is loopback-only; None when none is needed. Warns about a bind others can reach."""
    token = read_token(token_file) if token_file is not None else None
    if is_loopback(host):
        return token
    warn(
        f"--host {host or '(all)'} serves the memory to every machine that can reach this one "
        "(clients need the bearer token); use --host 127.0.0.1 to keep it local"
    )
    if token is None:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        out(f"Bearer token (clients send 'Authorization: Bearer TOKEN'): {token}", err=True)
    return token


HELP = (
    f"Serve the memory to agents over MCP: the tools {', '.join(TOOLS)}; the resources "
    "memsite://index (index.md) and memsite://entries/{id}.\n\n"
    "Over HTTP, requests must name this server in Host (else 421) and come from no other site "
    "(Origin, else 403): a DNS-rebinding web page is refused."
)


@click.command(help=HELP, short_help="Serve the memory to agents over MCP (tools and resources).")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for a runner that starts the server; http for streamable HTTP at /mcp.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="HTTP: address to bind. Any but a loopback one warns and needs a bearer token.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8000,
    show_default=True,
    help="HTTP: port to listen on.",
)
@click.option(
    "--token-file",
    metavar="PATH",
    help="HTTP: require 'Authorization: Bearer TOKEN' with the token in this file (on any bind; "
    "without it, a non-loopback bind draws a token and prints it once on stderr).",
)
@click.pass_context
def mcp(ctx: click.Context, transport: str, host: str, port: int, token_file: str | None) -> None:
    """`memsite mcp` (its help is HELP, which names the tools from ``mcp.catalog``)."""
    if token_file is not None and transport != "http":
        raise InvalidInputError("--token-file is for --transport http; drop it for stdio")
    memory = get_memory(ctx)  # a missing store or bad config fails here, before serving
    token = http_token(host, token_file) if transport == "http" else None
    from memsite.mcp.server import serve

    serve(memory, "http" if transport == "http" else "stdio", host, port, token)


COMMANDS: list[click.Command] = [mcp]
