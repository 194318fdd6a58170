"""Layer 1, what an agent may call: imports only the data model.

imagetools/   the visual inspection tools (inspect, read_pixels, info): MCP server and command line
mcp_http.py   McpHost: MCP servers served from the harness over loopback HTTP, one mount per item
toolset.py    ToolSet, McpServer: what an agent may call, in CLI-neutral terms (the kinds offer, adapters map)
"""
