"""ARC-AGI-3 games: an agent plays, each action returns frames, the official toolkit scores the game.

benchmark.py      ArcGames: items are games (loader.py), the `game` tools per item, graded from the scorecard
loader.py         the toolkit's environment_files layout: games at their newest version, pins, recorded versions
session.py        GameSession: one item's play (budget, frame archive, timeline, result.json)
game_server.py    the `game` MCP server: play; recall, inspect, read_pixels from mode image up
frames.py         frames as palette PNGs and the lossless archive (.npy + .png)
grading.py        the toolkit's scorecard as the record's metrics (metrics.py: GameMetrics), the run's rollup
ladder.py         VISTA's ladder as switches of a games run (kind options, so in the run's identity)
protocol.py       how the episode runs: the first frame up front, one action per observation, early stops continued
recovery.py       never quitting early: what follows a session that ends with the game live (stops.jsonl)
hooks.py          how runs read (show.py: timeline; report.py + templates/: filmstrips; compare.py: paired tests)

game_process.py   GameProcess: one game under the toolkit's Python (>= 3.12, .venv-arc) in a bubblewrap jail of
                  its own, spoken to in JSON lines; StepResult, GameError, toolkit_python, TOOLKIT_MISSING
game_host.py      the script that process runs (never imported here): loads the game offline, steps it, reads
                  the toolkit's scorecard
games/            the project's own games (ae01-ae03), in the toolkit's environment_files layout, and a winning
                  action sequence for each
"""
