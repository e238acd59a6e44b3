"""`memsite mcp`: the MCP server over stdio or streamable HTTP (the SDK is imported here only)."""

from __future__ import annotations

import click

from memsite.cli.kit import get_memory


@click.command()
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for a runner that starts the server; http for streamable HTTP at /mcp.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: address to bind.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8000,
    show_default=True,
    help="HTTP: port to listen on.",
)
@click.pass_context
def mcp(ctx: click.Context, transport: str, host: str, port: int) -> None:
    """Serve the memory to agents over MCP (tools memory_write/read/search/delete/list)."""
    memory = get_memory(ctx)  # a missing store or bad config fails here, before serving
    from memsite.mcp.server import serve

    serve(memory, "http" if transport == "http" else "stdio", host, port)


COMMANDS: list[click.Command] = [mcp]
