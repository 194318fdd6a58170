"""Visual inspection tools offered to the agent (MCP server and command line)."""

SERVER_NAME = "imagetools"
TOOL_NAMES = ("inspect", "read_pixels", "info")
