"""The MCP server: memsite's operations as MCP tools and resources (imported by `memsite mcp`)."""
