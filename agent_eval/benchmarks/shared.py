"""What several benchmark kinds offer alike: the image tools' MCP server (run inside the sandbox on the workdir) and the prompt templates' placeholders."""
from __future__ import annotations

import sys
from pathlib import Path

from agent_eval.benchmarks.base import McpServer
from agent_eval.tools.imagetools import SERVER_NAME, TOOL_NAMES

IMAGE_TOOLS_MODULE = "agent_eval.tools.imagetools.mcp_server"


def image_tools(workdir: Path) -> McpServer:
    """The inspection tools, run inside the sandbox on the workdir only."""
    return McpServer(SERVER_NAME, TOOL_NAMES, command=(sys.executable, "-m", IMAGE_TOOLS_MODULE, "--workdir", str(workdir)))


def render(template_text: str, question: str, image_name: str) -> str:
    # str.replace, not str.format: questions may contain braces.
    return template_text.replace("{image}", image_name).replace("{question}", question).strip() + "\n"
