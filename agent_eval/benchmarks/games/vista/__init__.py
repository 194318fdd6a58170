"""VISTA's tools in one place (github.com/joshhhhhan/VISTA, MIT), for every kind that offers them: the three game
kinds and BabyVision (a still image is one event). The pieces every VISTA tool shares (MCP tools taking their
arguments raw, VISTA's answers, its limits and schemas' pieces, the note tools), its looks over supplied visuals
(inspect, read_pixels: one loop of checks, crops and bin-centre samples, a view addressed by event, moment and view
or, ARC-AGI-3's, by turn and frame), and its task tools over a game's events (history, the notes, the checkpoint).

mcp.py     VISTA's tools as MCP tools: raw arguments, its answers, limits, schema pieces, the note tools
looks.py   inspect and read_pixels in one loop (Looks), over supplied visuals (event, moment, view): StillLooks
events.py  the task tools over a game's events (inspect, read_pixels, history, the notes, the checkpoint)
turns.py   ARC-AGI-3's turn-addressed tools over a game's events (turn N: event N): inspect, read_pixels, history
"""
