"""Visual inspection tools offered to the agent (MCP server and command line).

mcp_server.py    the MCP server `imagetools` over stdio: inspect, read_pixels, info on the item's workdir
cli.py           `agent-eval-image-tools`: the same tools as a shell command (python mode)
service.py       the operations bound to a workdir: open the image, run the op, save what the model sees
ops.py           the three operations, on PIL images only (no files, no protocol)
overlay.py       the grid overlay of inspect, labelled in original-image coordinates
palette.py       stable colour -> symbol assignment for read_pixels, one palette per item session
regions.py       exact regions of an image and nearest-neighbour index maps
workspace.py     the item's working directory: which image, where views and the palette are kept
descriptions.py  what the model reads about each tool, shared by both front ends
errors.py        the one error type the tools raise for bad requests
"""

SERVER_NAME = "imagetools"
TOOL_NAMES = ("inspect", "read_pixels", "info")
