"""VISTA's tools in one place (github.com/joshhhhhan/VISTA, MIT), for every kind that offers them: the three game
kinds and BabyVision (a still image is one event).

mcp.py     VISTA's tools as MCP tools: raw arguments, its answers, limits, schema pieces, the note tools
looks.py   inspect and read_pixels in one loop (Looks), over supplied visuals (event, moment, view): StillLooks
events.py  the task tools over a game's events (inspect, read_pixels, history, the notes, the checkpoint)
turns.py   ARC-AGI-3's turn-addressed tools over a game's events (turn N: event N): inspect, read_pixels, history
"""
