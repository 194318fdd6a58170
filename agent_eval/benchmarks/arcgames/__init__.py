"""ARC-AGI-3 games: an agent plays, each action returns frames, the official toolkit scores the game. The episode's
policies (hand-off, early stops, WORKING.md per level, restores, timeline, frame archive) are the game core's
(benchmarks/games); this kind keeps its toolkit, actions, frames, scoring and words.

benchmark.py        ArcGames: items are games (loader.py), the `game` tools per item, graded from the scorecard
loader.py           the toolkit's environment_files layout: games at their newest version, pins, recorded versions
session.py          GameSession: one item's play (budget, frame archive, timeline, the end, a restore by replay)
game_record.py      the game folder's files (game.json, timeline.jsonl, result.json) and their readers
game_server.py      the `game` MCP server: our tools or VISTA's (--game-tools), as ladder.tools() offers them
ours_tools.py       our tools: play; recall, inspect, read_pixels from mode image up; read_notes, write_note
vista_tools.py      VISTA's tools over the game's turns as the core's events, answering as VISTA's harness does
turns.py            turns as VISTA numbers them, its metadata, and the level boundaries either tool style keeps
coordinates.py      ACTION6's and the regions' coordinates: game pixels or pixels of the image as shown
prompt_text.py      what the prompt says of the tools, drawing and coordinates: never a tool the rung leaves out
frames.py           frames as palette PNGs (VISTA's grid lines on request) and the lossless archive (.npy + .png)
grading.py          the toolkit's scorecard as the record's metrics, the run's rollup
metrics.py          GameMetrics, and the measures a run is read by (game score, levels, games won)
ladder.py           VISTA's ladder as switches of a games run (kind options, so in the run's identity)
telling.py          what each session is told: the first message, and after a hand-off, an early stop, a restart
vista_prompts.py    VISTA's own words for those (--task-prompt vista)
hooks.py            how runs read (show.py: timeline; report.py + templates/: filmstrips; compare.py: paired tests)
live.py             the game as it goes from its folder alone (watch, report --live) and its frames for a replay
toolkit_process.py  ToolkitProcess: a host script under the toolkit's Python (.venv-arc) in a jail, in JSON lines
game_process.py     GameProcess: one game in such a process (step, replay, scorecard; online: on the run's card)
game_host.py        the script a game's process runs (never imported here): loads, steps and scores the game
online_host.py      the ARC API side of the host scripts (never imported here); alone, it keeps a run's scorecard
online.py           --arc-mode online/competition: the run's one scorecard (RunCard), a game made on it (OnlineGame)
api_standin.py      a local stand-in of the ARC API (the toolkit's own server) for online modes without a network
games/              the project's own games (ae01-ae03) in the toolkit's layout, and a winning sequence for each
"""
