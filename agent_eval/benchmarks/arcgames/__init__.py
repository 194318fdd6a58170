"""ARC-AGI-3 games: the kind (benchmark.py: items are games, tools served per item by game_server.py, graded
by the toolkit's scorecard) and the game side (game_process.py runs one game under the official toolkit,
confined; the project's own games are in games/)."""
