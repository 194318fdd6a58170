"""AI GameStore: browser games played one game second at a time, in headless Chromium outside the sandbox (the
browser host, agent_eval/browser), scored by the game's own score normalised against the published human median.

benchmark.py      AiGameStore: items are games (loader.py), the `game` tools or the official protocol per item, its
                  grade from the game's result; its options (Options: decisions, seed, and the browser kinds')
loader.py         a checkout's games/<name>/index.html, descriptions from the page or games-manifest.json, medians
protocol.py       the decision: five 0.2 s segments (VISTA's inputs), the official reply's <keys> and <scratchpad>
session.py        GameStoreSession: one item's page, moves, frame archive, timeline, replay after a restart
record.py         what a game leaves in the item's folder (timeline, result.json, requests, restores)
game_server.py    the `game` MCP server: play, restart; recall, inspect, read_pixels, history; notes; or VISTA's
official.py       the official baseline: a fresh single-turn request per decision, its reply played
measures.py       the scores (normalised against the human median, geometric and arithmetic means), a record's
                  metrics (GameStoreMetrics), its own measures where a run is read (normalised, raw)
hooks.py          how runs read (show.py: decisions, and the game as it goes for watch and replay; report.py +
                  templates/: filmstrips; compare.py: paired tests)
human_medians.json  the published medians of games 1-10, with their source and date
samples/          the project's own test games (sample-data --kind aigamestore)
"""
