"""ARC-AGI-3 games: an agent plays, each action returns frames, the official toolkit scores the game. The episode's
policies (one action per observation, early stops continued, the hand-off, WORKING.md per level, restores, the
timeline, the frame archive) are the game core's (benchmarks/games); this kind keeps its toolkit, actions, frames
and scoring, and its words.

benchmark.py      ArcGames: items are games (loader.py), the `game` tools per item, graded from the scorecard
loader.py         the toolkit's environment_files layout: games at their newest version, pins, recorded versions
session.py        GameSession: one item's play (budget, frame archive, timeline, the end, a restore by replay)
game_record.py    the game folder's files (game.json, timeline.jsonl, restores.jsonl, result.json) and their readers
game_server.py    the `game` MCP server: our tools or VISTA's (--game-tools), as ladder.tools() offers them
ours_tools.py     our tools: play; recall, inspect, read_pixels from mode image up; read_notes, write_note
vista_tools.py    VISTA's tools: play, then the core's turn-addressed inspect, read_pixels, history and the notes
                  (games/vista/turns.py) over the game's turns as events, answering as VISTA's harness does
turns.py          turns as VISTA numbers them (turn 0: the first observation), the actions it accepts, its metadata,
                  the level boundaries (Levels: where a level began; WORKING.md per level) either tool style keeps
coordinates.py    ACTION6's and the regions' coordinates: game pixels or pixels of the image as shown
prompt_text.py    what the prompt says of the tools, drawing and coordinates: never a tool the rung leaves out
frames.py         frames as palette PNGs (VISTA's grid lines on request) and the lossless archive (.npy + .png)
grading.py        the toolkit's scorecard as the record's metrics (metrics.py: GameMetrics, and the measures a run is
                  read by: game score, levels, games won), the run's rollup
ladder.py         VISTA's ladder as switches of a games run (kind options, so in the run's identity)
telling.py        what each session is told: the first message, and after a hand-off, an early stop, a restart
vista_prompts.py  VISTA's own words for those (--task-prompt vista)
profile.py        --profile vista: VISTA's whole ARC-AGI-3 setting as run options, each with its file in VISTA's code
hooks.py          how runs read (show.py: timeline; report.py + templates/: filmstrips; compare.py: paired tests)
live.py           the game as it goes from its folder alone (watch, report --live) and its frames for a replay

toolkit_process.py  ToolkitProcess: a host script under the toolkit's Python (>= 3.12, .venv-arc) in a bubblewrap
                  jail of its own, spoken to in JSON lines (online: its one way out the proxy to the ARC API);
                  GameError, toolkit_python, TOOLKIT_MISSING
game_process.py   GameProcess: one game in such a process (step, replay, scorecard; online: made on the run's card)
game_host.py      the script a game's process runs (never imported here): loads the game, steps it, reads the
                  toolkit's scorecard
online_host.py    the ARC API side of the host scripts (never imported here): the key masked, the relay to the
                  proxy, a game made at the API; run alone, it keeps a run's scorecard (open, read, close)
online.py         --arc-mode online/competition: the run's one scorecard (RunCard, run.json's kind_run), a game made
                  on it (OnlineGame: its entry beside the offline scorecard of a local replay), never replayed
api_standin.py    a local stand-in of the ARC API (the toolkit's own server, the key check, the affinity cookie) for
                  trying and testing online modes without a network (run by the toolkit's Python)
games/            the project's own games (ae01-ae03), in the toolkit's environment_files layout, and a winning
                  action sequence for each
"""
