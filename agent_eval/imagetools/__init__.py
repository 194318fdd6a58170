"""Visual inspection tools offered to the agent (MCP server and command line)."""
